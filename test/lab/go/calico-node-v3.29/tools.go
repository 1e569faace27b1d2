//go:build tools

// Package tools pins the calico-node main package (Felix, confd, allocate-tunnel-addrs, the readiness and liveness
// probes) of Calico v3.29 at b559a703e1c0 (image tags v3.29.0), its CNI plugin (calico, calico-ipam) and calicoctl,
// so that `go mod tidy` keeps their dependencies in go.mod and go.sum.
package tools

import (
	_ "github.com/projectcalico/calico/calicoctl/calicoctl"
	_ "github.com/projectcalico/calico/cni-plugin/cmd/calico"
	_ "github.com/projectcalico/calico/node/cmd/calico-node"
)
