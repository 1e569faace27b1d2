//go:build tools

// Package tools pins kube-apiserver, kube-controller-manager and kube-scheduler v1.24.17 (LAB_KUBERNETES=v1.24):
// v1.24 is the last minor that serves discovery.k8s.io/v1beta1 EndpointSlices, which Felix v3.21/v3.22 lists in KDD
// mode, and the controller-manager and scheduler run at the apiserver's version (v1.35.4's are newer than the
// apiserver the version skew policy allows). `go mod tidy` keeps their dependencies in go.mod and go.sum.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
