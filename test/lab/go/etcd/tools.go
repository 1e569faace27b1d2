//go:build tools

// Package tools pins the upstream etcd main package (go.etcd.io/etcd/server/v3 is itself
// package main) so that `go mod tidy` keeps its dependencies in go.mod and go.sum.
package tools

import _ "go.etcd.io/etcd/server/v3"
