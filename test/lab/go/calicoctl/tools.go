//go:build tools

// Package tools pins Calico's calicoctl main package so that `go mod tidy` keeps its
// dependencies in go.mod and go.sum.
package tools

import _ "github.com/projectcalico/calico/calicoctl/calicoctl"
