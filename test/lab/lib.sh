# Shared by build.sh, lab.sh and record-fixtures.sh: where the lab keeps things, and which
# versions it runs. Sourced, never run.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LAB_DIR/../.." && pwd)

# Everything built or downloaded lives outside git, and survives between runs on one machine.
LAB_CACHE=${CALICO_ENCAP_CACHE:-$HOME/.cache/calico-encap}/lab
LAB_BIN=$LAB_CACHE/bin
export GOMODCACHE=$LAB_CACHE/gomod
export GOCACHE=$LAB_CACHE/gocache
# The proxy's checksum database answers 404 for the Calico pseudo-versions; the committed
# go.sum files pin their hashes instead.
export GONOSUMDB=github.com/projectcalico
export GOTOOLCHAIN=local

# The Calico the lab builds and runs (calicoctl, calico-node, the CNI plugin, its CRDs and confd templates):
# LAB_CALICO=v3.31.0 (the default), v3.30.1, v3.29.0, v3.22.0 or v3.21.4. The Go module version is a pseudo-version
# (the module path has no /v3), so each release name is written here by hand: b1f3c43f8437 is the v3.31.0 tag,
# 393b14e729a6 the v3.30.1 tag, a86e41d021c4 the v3.22.0 tag, 220d04c9429e the v3.21.4 tag; b559a703e1c0 is no tag
# but release-v3.29 five commits past the v3.29.0 tag, its manifests carrying image tags v3.29.0.
# Why these (issue 36 step 4, asked 2026-12-06, test/bench/FIGURES.md): the Go module proxy serves no other patch
# release of the minors Kubespray's maintained releases deploy. v3.29.0-v3.29.7, v3.30.0 and v3.30.2-v3.30.7,
# v3.31.1-v3.31.7 (each tag's commit as v0.0.0-<commit time UTC>-<12 hex>, and as Go's own
# v1.11.0-cni-plugin.0.<time>-<hash>) and the heads of release-v3.29/30/31 all answer 403. So Kubespray v2.28.1
# (Calico v3.29.5) runs on v3.29.0 (b559a703e1c0), v2.30.0 (v3.30.6) on v3.30.1 and v2.31.0 (v3.31.5) on v3.31.0:
# no Felix the lab can build has the fix for calico#11323 (v3.30.5+, v3.31.3+).
# v3.31.0's calicoctl and calico-node are built from two wrappers into bin/; another release's three binaries
# from one wrapper into bin-<release>/, beside links to bin/'s etcd and Kubernetes. v3.22.0 (the minor Kubespray
# v2.19.1 deploys) and v3.21.4 (the seed reporter's calico/node) run only with LAB_KUBERNETES=v1.24 (below; issue 36):
# their Felix lists discovery.k8s.io/v1beta1 EndpointSlices, which v1.35.4's apiserver does not serve.
LAB_CALICO=${LAB_CALICO:-v3.31.0}
LAB_BIN_BASE=$LAB_BIN
case $LAB_CALICO in
v3.31.0) CALICO_RELEASE=v3.31.0 CALICOCTL_WRAPPER=calicoctl CALICO_NODE_WRAPPER=calico-node ;;
v3.30.1)
	CALICO_RELEASE=v3.30.1 CALICOCTL_WRAPPER=calico-node-v3.30 CALICO_NODE_WRAPPER=calico-node-v3.30
	LAB_BIN=$LAB_CACHE/bin-v3.30.1
	;;
v3.29.0)
	CALICO_RELEASE=v3.29.0 CALICOCTL_WRAPPER=calico-node-v3.29 CALICO_NODE_WRAPPER=calico-node-v3.29
	LAB_BIN=$LAB_CACHE/bin-v3.29.0
	;;
v3.22.0)
	CALICO_RELEASE=v3.22.0 CALICOCTL_WRAPPER=calico-node-v3.22 CALICO_NODE_WRAPPER=calico-node-v3.22
	LAB_BIN=$LAB_CACHE/bin-v3.22.0
	;;
v3.21.4)
	CALICO_RELEASE=v3.21.4 CALICOCTL_WRAPPER=calico-node-v3.21 CALICO_NODE_WRAPPER=calico-node-v3.21
	LAB_BIN=$LAB_CACHE/bin-v3.21.4
	;;
*)
	echo "LAB_CALICO must be v3.31.0 (the default), v3.30.1, v3.29.0, v3.22.0 or v3.21.4 (the last two with LAB_KUBERNETES=v1.24), got '$LAB_CALICO'" >&2
	exit 2
	;;
esac

# The Kubernetes control plane the lab runs: v1.35.4's kube-apiserver, kube-controller-manager and kube-scheduler from
# go/kubernetes in bin/ (the default, LAB_KUBERNETES unset or empty), or LAB_KUBERNETES=v1.24: v1.24.17's three from
# go/kubernetes-v1.24 into bin-k8s-v1.24.17/ (issue 36: v1.24 is the last minor serving discovery.k8s.io/v1beta1
# EndpointSlices, which Felix v3.21/v3.22 lists in KDD mode). Then the lab's LAB_BIN is <the Calico's bin dir>+k8s-v1.24,
# holding links only: the Calico's binaries, v1.24.17's control plane, and bin/'s etcd and kubectl (v1.35.4's kubectl
# talks to the v1.24 apiserver). CALICO_BIN is where the Calico's own binaries are built.
CALICO_BIN=$LAB_BIN
K8S_WRAPPER=kubernetes K8S_BIN=$LAB_BIN_BASE
# Go build tags of the control plane: v1.24.17 is built providerless (Kubernetes' own tag that leaves the in-tree
# cloud providers out; the lab uses none): 71 MB of Go source to compile for its three binaries instead of 117 MB
# (go list -deps), the largest part of the seed era's build. v1.35 has no in-tree providers left (the same packages).
K8S_TAGS=
LAB_KUBERNETES=${LAB_KUBERNETES:-}
case $LAB_KUBERNETES in
'') ;;
v1.24)
	K8S_WRAPPER=kubernetes-v1.24 K8S_BIN=$LAB_CACHE/bin-k8s-v1.24.17 K8S_TAGS=providerless
	LAB_BIN=$CALICO_BIN+k8s-v1.24
	;;
*)
	echo "LAB_KUBERNETES must be empty (v1.35.4, the default) or v1.24, got '$LAB_KUBERNETES'" >&2
	exit 2
	;;
esac

# go_mod_version WRAPPER MODULE: the version WRAPPER's go.mod requires of MODULE.
go_mod_version() {
	awk -v m="$2" '$1 == m && $2 ~ /^v/ { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' \
		"$LAB_DIR/go/$1/go.mod"
}

K8S_VERSION=$(go_mod_version "$K8S_WRAPPER" k8s.io/kubernetes)
KUBECTL_VERSION=$(go_mod_version kubernetes k8s.io/kubernetes)
ETCD_VERSION=$(go_mod_version etcd go.etcd.io/etcd/server/v3)
CALICO_MODULE_VERSION=$(go_mod_version "$CALICO_NODE_WRAPPER" github.com/projectcalico/calico)
CALICO_MODULE_DIR=$GOMODCACHE/github.com/projectcalico/calico@$CALICO_MODULE_VERSION


# pid_alive (zombie-aware): pid.sh
source "$LAB_DIR/pid.sh"
