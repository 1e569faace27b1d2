//go:build tools

// Package tools pins kube-apiserver v1.24.17, the last minor that serves discovery.k8s.io/v1beta1 EndpointSlices
// (which Felix v3.21/v3.22 lists in KDD mode), so that `go mod tidy` keeps its dependencies in go.mod and go.sum.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
