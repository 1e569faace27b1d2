//go:build tools

// Package tools pins Calico v3.22.0's calico-node main package (Felix, confd, allocate-tunnel-addrs, the readiness
// and liveness probes), its CNI plugin (calico, calico-ipam) and calicoctl, so that `go mod tidy` keeps their
// dependencies in go.mod and go.sum.
package tools

import (
	_ "github.com/projectcalico/calico/calicoctl/calicoctl"
	_ "github.com/projectcalico/calico/cni-plugin/cmd/calico"
	_ "github.com/projectcalico/calico/node/cmd/calico-node"
)
