#!/usr/bin/env bash
# Builds the lab's programs from Go modules (test/lab/go/<wrapper>) into a cache outside git:
#   ${CALICO_ENCAP_CACHE:-$HOME/.cache/calico-encap}/lab/{gomod,gocache,bin}
# A binary is rebuilt only when the sha256 of its wrapper's go.mod + go.sum, this script,
# lib.sh and the Go version changes (kept in <its bin dir>/.<name>.stamp).
# Also installs the Debian packages the lab needs when they are missing.
# Env: LAB_BUILD_JOBS (go build -p, default 2), LAB_BUILD_ONLY="etcd kubectl" (subset),
# LAB_CALICO=v3.30.1 (lib.sh): Calico v3.30.1's calicoctl, calico-node and CNI plugin into bin-v3.30.1/ instead of
# v3.31.0's into bin/ (etcd and Kubernetes stay in bin/, linked from bin-v3.30.1/); likewise LAB_CALICO=v3.29.0 into
# bin-v3.29.0/ (issue 36 step 4: release-v3.29's b559a703e1c0, the only v3.29 the module proxy serves), v3.22.0 into
# bin-v3.22.0/ and LAB_CALICO=v3.21.4 into bin-v3.21.4/ (issue 36); LAB_KUBERNETES=v1.24 (lib.sh): kube-apiserver,
# kube-controller-manager and kube-scheduler v1.24.17 into bin-k8s-v1.24.17/, the lab's bin dir of links <Calico's>+k8s-v1.24/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

log() { printf '[lab-build] %s\n' "$*" >&2; }

install_debian_packages() {
	# iptables and ipset for Felix, bird (1.6.8, BIRD 1.x: the language Calico's confd renders) for the
	# BGP backend, socat for the relays into the nodes' namespaces.
	bash "$LAB_DIR/../../tools/debian-packages.sh" iproute2 iputils-ping openssh-server jq openssl gettext-base procps \
		iptables ipset bird socat
}

check_go() {
	command -v go >/dev/null || { log "go not found on PATH (Go >= 1.26 is needed: etcd v3.6.16 declares go 1.26)"; exit 1; }
	local v
	v=$(go env GOVERSION)
	case "$v" in
	go1.2[6-9]* | go1.[3-9]*) ;;
	*) log "Go $v is too old: etcd $ETCD_VERSION declares go 1.26"; exit 1 ;;
	esac
}

# name bin-dir wrapper package ldflags tags
k8s_ldflags_of() { # version
	local minor=${1#v1.}
	minor=${minor%%.*}
	echo "-X k8s.io/component-base/version.gitVersion=$1 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$1 -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
}

targets() {
	local k8s_ldflags kubectl_ldflags
	k8s_ldflags=$(k8s_ldflags_of "$K8S_VERSION")
	kubectl_ldflags=$(k8s_ldflags_of "$KUBECTL_VERSION")
	local calico_rev=${CALICO_MODULE_VERSION##*-} c=github.com/projectcalico/calico
	local calicoctl_ldflags node_ldflags cni_ldflags
	if [ "$CALICO_RELEASE" = v3.31.0 ]; then
		calicoctl_ldflags="-X $c/pkg/buildinfo.Version=$CALICO_RELEASE -X $c/pkg/buildinfo.GitRevision=$calico_rev"
		node_ldflags=$calicoctl_ldflags cni_ldflags=$calicoctl_ldflags
	else
		# Before v3.31 each component has version variables of its own: the -X flags of v3.30.1's calicoctl/Makefile,
		# node/Makefile and cni-plugin/Makefile (calico-node's startup writes startup.VERSION into ClusterInformation);
		# v3.29's (b559a703e1c0), v3.22.0's and v3.21.4's Makefiles set the same variables.
		calicoctl_ldflags="-X $c/calicoctl/calicoctl/commands.VERSION=$CALICO_RELEASE -X $c/calicoctl/calicoctl/commands.GIT_REVISION=$calico_rev -X $c/calicoctl/calicoctl/commands/common.VERSION=$CALICO_RELEASE -X main.VERSION=$CALICO_RELEASE"
		node_ldflags="-X $c/node/pkg/lifecycle/startup.VERSION=$CALICO_RELEASE -X $c/node/buildinfo.GitVersion=$CALICO_RELEASE -X $c/node/buildinfo.GitRevision=$calico_rev"
		cni_ldflags="-X main.VERSION=$CALICO_RELEASE"
	fi
	local base=$LAB_BIN_BASE
	printf '%s|%s|%s|%s|%s|%s\n' \
		etcd "$base" etcd go.etcd.io/etcd/server/v3 "-X go.etcd.io/etcd/api/v3/version.GitSHA=module-$ETCD_VERSION" "" \
		kube-apiserver "$K8S_BIN" "$K8S_WRAPPER" k8s.io/kubernetes/cmd/kube-apiserver "$k8s_ldflags" "$K8S_TAGS" \
		kube-controller-manager "$K8S_BIN" "$K8S_WRAPPER" k8s.io/kubernetes/cmd/kube-controller-manager "$k8s_ldflags" "$K8S_TAGS" \
		kube-scheduler "$K8S_BIN" "$K8S_WRAPPER" k8s.io/kubernetes/cmd/kube-scheduler "$k8s_ldflags" "$K8S_TAGS" \
		kubectl "$base" kubernetes k8s.io/kubernetes/cmd/kubectl "$kubectl_ldflags" "" \
		calicoctl "$CALICO_BIN" "$CALICOCTL_WRAPPER" $c/calicoctl/calicoctl "$calicoctl_ldflags" "" \
		calico-node "$CALICO_BIN" "$CALICO_NODE_WRAPPER" $c/node/cmd/calico-node "$node_ldflags" "" \
		calico-cni "$CALICO_BIN" "$CALICO_NODE_WRAPPER" $c/cni-plugin/cmd/calico "$cni_ldflags" ""
}

stamp_of() { # wrapper
	cat "$LAB_DIR/go/$1/go.mod" "$LAB_DIR/go/$1/go.sum" "$LAB_DIR/build.sh" "$LAB_DIR/lib.sh" <(go env GOVERSION) | sha256sum | cut -d' ' -f1
}

build_one() { # name bin-dir wrapper package ldflags tags
	local name=$1 dir=$2 wrapper=$3 pkg=$4 ldflags=$5 tags=$6 stamp_file="$2/.$1.stamp" want start secs
	want=$(stamp_of "$wrapper")
	if [ -x "$dir/$name" ] && [ "$(cat "$stamp_file" 2>/dev/null)" = "$want" ]; then
		log "$name: up to date"
		return 0
	fi
	log "$name: building $pkg (wrapper go/$wrapper)"
	start=$(date +%s.%N)
	(cd "$LAB_DIR/go/$wrapper" && CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath -p "${LAB_BUILD_JOBS:-2}" \
		-tags "$tags" -ldflags "-s -w $ldflags" -o "$dir/$name.tmp" "$pkg")
	mv -f "$dir/$name.tmp" "$dir/$name"
	echo "$want" >"$stamp_file"
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	printf '%s %s %s\n' "$(date -u +%FT%TZ)" "$name${dir#"$LAB_BIN_BASE"}" "$secs" >>"$LAB_CACHE/build-times.log"
	log "$name: built in ${secs}s"
}

# The wrappers (each once) with at least one binary to build: missing, or its stamp changed.
stale_wrappers() {
	local name dir wrapper pkg ldflags tags
	while IFS='|' read -r name dir wrapper pkg ldflags tags; do
		if [ -n "${LAB_BUILD_ONLY:-}" ] && [[ " $LAB_BUILD_ONLY " != *" $name "* ]]; then continue; fi
		if [ ! -x "$dir/$name" ] || [ "$(cat "$dir/.$name.stamp" 2>/dev/null)" != "$(stamp_of "$wrapper")" ]; then
			echo "$wrapper"
		fi
	done < <(targets) | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}

main() {
	install_debian_packages
	check_go
	mkdir -p "$LAB_BIN_BASE" "$LAB_BIN" "$CALICO_BIN" "$K8S_BIN" "$GOMODCACHE" "$GOCACHE"
	local total_start name dir wrapper pkg ldflags tags prefetch
	total_start=$(date +%s)
	# Module downloads wait on the network, compiles on the cores: the modules of every wrapper with a binary to build
	# are fetched in the background while the first binaries compile (the go command locks what two processes fetch
	# at once; a failed prefetch changes nothing, the build fetches what it still lacks).
	prefetch=$(stale_wrappers)
	if [ -n "$prefetch" ]; then
		log "fetching the modules of $prefetch in the background"
		for wrapper in $prefetch; do
			(cd "$LAB_DIR/go/$wrapper" && GOFLAGS=-mod=readonly go mod download >/dev/null 2>&1 || true) &
		done
	fi
	while IFS='|' read -r name dir wrapper pkg ldflags tags; do
		if [ -n "${LAB_BUILD_ONLY:-}" ] && [[ " $LAB_BUILD_ONLY " != *" $name "* ]]; then continue; fi
		build_one "$name" "$dir" "$wrapper" "$pkg" "$ldflags" "$tags"
	done < <(targets)
	wait
	# Another Calico's bin dir holds its own Calico binaries and links to the shared etcd and Kubernetes; with
	# LAB_KUBERNETES=v1.24 the lab's bin dir holds links only (lib.sh).
	while IFS='|' read -r name dir wrapper pkg ldflags tags; do
		if [ "$dir" != "$LAB_BIN" ]; then ln -sfn "$dir/$name" "$LAB_BIN/$name"; fi
	done < <(targets)
	log "done in $(($(date +%s) - total_start))s: binaries in $LAB_BIN (Calico $CALICO_RELEASE${LAB_KUBERNETES:+, Kubernetes $K8S_VERSION})"
}

main "$@"
