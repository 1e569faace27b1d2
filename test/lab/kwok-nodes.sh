#!/usr/bin/env bash
# Simulated nodes on a lab that is up (issue 40): Nodes that exist only as API objects, kept Ready by kwok
# (sigs.k8s.io/kwok, built from the Go module proxy into $LAB_CACHE/bin-kwok, never into git), with the calico-node
# DaemonSet's pods on them Running and Ready, and each node's tunnel address from the lab's real calico-node binary,
# run as `calico-node -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once` with that NODENAME (Calico's own IPAM
# writes the block, the handle and the Node's annotation). No kubelet, container or data path on them.
#   kwok-nodes.sh up N     starts kwok (its pid in $LAB_STATE/kwok.pid) and grows the lab to N nodes: creates the
#                          missing ones, waits until they and their calico-node pods are Ready, allocates
#   kwok-nodes.sh stop     stops that kwok (lab.sh down removes the nodes with the lab)
#   kwok-nodes.sh build    builds kwok if it is not there yet (make kwok-build; 8 min cold at nice 19)
# test/bench/scale.sh sources it for the same functions. Env: KWOK (the binary), KWOK_VERSION (v0.7.0),
# KWOK_OUT (files: $LAB_STATE/kwok), KWOK_ALLOC_JOBS (2: allocators at once), KWOK_WAIT_S (1200), KWOK_ALLOCATE (0: grow
# without allocating, e.g. to measure 3000 nodes before their 3000 allocations are done; test/lab/kwok-tunnels.sh
# allocates in the background).
set -euo pipefail

LAB_CACHE=${LAB_CACHE:-${CALICO_ENCAP_CACHE:-$HOME/.cache/calico-encap}/lab}
KWOK=${KWOK:-$LAB_CACHE/bin-kwok/kwok}
KWOK_VERSION=${KWOK_VERSION:-v0.7.0}
SIM_LABEL=calico-encap.lab/simulated
REAL_NODES=${LAB_NODES:-3}
# pid_alive (a zombie is not alive)
# shellcheck source=pid.sh
source "$(dirname "${BASH_SOURCE[0]}")/pid.sh"

# The lab's env (KUBECONFIG, LAB_BIN, PATH) and KWOK_OUT.
kwok_lab() {
	: "${LAB_STATE:?source the lab env first (test/lab/lab.sh up, then . \$LAB_STATE/env)}"
	# shellcheck disable=SC1091
	source "$LAB_STATE/env"
	KWOK_OUT=${KWOK_OUT:-$LAB_STATE/kwok}
	mkdir -p "$KWOK_OUT"
}

kwok_log() { printf '[kwok-nodes %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

kwok_build() {
	[[ -x $KWOK ]] && return 0
	kwok_log "building kwok $KWOK_VERSION into $(dirname "$KWOK") (nice 19)"
	mkdir -p "$(dirname "$KWOK")"
	(cd /tmp && GOMODCACHE=$LAB_CACHE/gomod GOCACHE=$LAB_CACHE/gocache GOBIN=$(dirname "$KWOK") CGO_ENABLED=0 \
		nice -n 19 go install -trimpath -p 1 "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION")
}

# kwok in the background for the nodes labelled $SIM_LABEL=true; its pid in $LAB_STATE/kwok.pid.
kwok_start() {
	kwok_build
	nice -n 19 "$KWOK" --kubeconfig "$KUBECONFIG" --manage-all-nodes=false \
		--manage-nodes-with-label-selector "$SIM_LABEL=true" \
		--node-lease-duration-seconds 40 >"$KWOK_OUT/kwok.log" 2>&1 </dev/null &
	echo $! >"$LAB_STATE/kwok.pid"
	kwok_log "kwok $("$KWOK" --version 2>/dev/null | head -1) pid $!, log $KWOK_OUT/kwok.log"
}

kwok_stop() {
	local pid
	pid=$(cat "$LAB_STATE/kwok.pid" 2>/dev/null || true)
	[[ -n $pid ]] || return 0
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.1; done
	rm -f "$LAB_STATE/kwok.pid"
}

node_name() { printf 'sim-%04d' "$1"; }

# Nodes REAL_NODES+1..$1 that do not exist yet, as one List. The node address annotation is what calico-node's
# startup writes on a real node (autodetected there); here it is given, in 10.200.0.0/16.
add_nodes() {
	local want=$1 i name
	local have
	have=$(kubectl get nodes -l "$SIM_LABEL=true" -o name | wc -l)
	((REAL_NODES + have >= want)) && return 0
	{
		echo "apiVersion: v1"
		echo "kind: List"
		echo "items:"
		for ((i = REAL_NODES + have + 1; i <= want; i++)); do
			name=$(node_name "$i")
			cat <<EOF
- apiVersion: v1
  kind: Node
  metadata:
    name: $name
    labels: {kubernetes.io/hostname: $name, kubernetes.io/os: linux, kubernetes.io/arch: amd64, type: kwok, $SIM_LABEL: "true"}
    annotations: {node.alpha.kubernetes.io/ttl: "0", kwok.x-k8s.io/node: fake, projectcalico.org/IPv4Address: 10.200.$((i / 250)).$((i % 250 + 1))/16}
  spec:
    taints: [{key: kwok.x-k8s.io/node, value: fake, effect: NoSchedule}]
EOF
		done
	} >"$KWOK_OUT/nodes-$want.yaml"
	kubectl create -f "$KWOK_OUT/nodes-$want.yaml" >/dev/null
}

# Waits (KWOK_WAIT_S at most) until every simulated node is Ready and the DaemonSet has as many ready pods as nodes.
wait_ready() {
	local want=$1 sim=$(($1 - REAL_NODES)) ready ds t0=$SECONDS
	while :; do
		ready=$(kubectl get nodes -l "$SIM_LABEL=true" \
			-o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True || true)
		ds=$(kubectl -n kube-system get ds calico-node -o jsonpath='{.status.numberReady}/{.status.desiredNumberScheduled}')
		((ready >= sim)) && [[ $ds == "$want/$want" ]] && break
		((SECONDS - t0 > ${KWOK_WAIT_S:-1200})) && {
			kwok_log "not ready after ${KWOK_WAIT_S:-1200}s: $ready/$sim nodes Ready, DaemonSet ready/desired $ds"
			return 1
		}
		sleep 2
	done
	kwok_log "$want nodes: $sim simulated Ready, calico-node ready/desired $ds ($((SECONDS - t0)) s)"
}

# Calico's own allocator for every simulated node without a tunnel address yet. An allocator that lost a race with
# kwok's status updates of its Node (Calico's "update conflict", fatal to a run-once allocator) is run again, up to
# three rounds.
allocate() {
	local t0=$SECONDS missing round total=0
	export KUBECONFIG LAB_BIN
	for round in 1 2 3; do
		kubectl get nodes -l "$SIM_LABEL=true" \
			-o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.projectcalico\.org/IPv4IPIPTunnelAddr}{"\n"}{end}' |
			awk 'NF == 1 {print $1}' >"$KWOK_OUT/unallocated"
		missing=$(wc -l <"$KWOK_OUT/unallocated")
		((missing == 0)) && break
		((round == 1)) && total=$missing
		((round > 1)) && kwok_log "round $round: $missing nodes still without a tunnel address"
		xargs -r -P "${KWOK_ALLOC_JOBS:-2}" -I{} env DATASTORE_TYPE=kubernetes NODENAME={} CALICO_NETWORKING_BACKEND=bird \
			nice -n 19 "$LAB_BIN/calico-node" -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once \
			<"$KWOK_OUT/unallocated" >>"$KWOK_OUT/allocate.log" 2>&1 || true
	done
	((missing == 0)) || {
		kwok_log "$missing nodes without a tunnel address after 3 rounds (their allocators' errors: $KWOK_OUT/allocate.log)"
		return 1
	}
	kwok_log "allocated tunnel addresses for $total nodes ($((SECONDS - t0)) s)"
}

# The real nodes peer with each other only, as a large cluster's route reflectors make them: the node-to-node mesh
# off and one BGPPeer among the nodes without $SIM_LABEL. In the mesh, every real BIRD would peer with each simulated
# node's address, never establish, and calico-node's BIRD readiness would fail on the real nodes (seen in a CI run:
# node-2's calico-node not ready seconds after the DaemonSet had all 100 ready).
mesh_real_nodes() {
	kubectl apply -f - >/dev/null <<EOF
apiVersion: crd.projectcalico.org/v1
kind: BGPConfiguration
metadata: {name: default}
spec: {nodeToNodeMeshEnabled: false}
---
apiVersion: crd.projectcalico.org/v1
kind: BGPPeer
metadata: {name: calico-encap-lab-real-nodes}
spec: {nodeSelector: "!has($SIM_LABEL)", peerSelector: "!has($SIM_LABEL)"}
EOF
}

# Creates, waits for and allocates (unless KWOK_ALLOCATE=0) up to $1 nodes.
grow() {
	mesh_real_nodes
	add_nodes "$1"
	wait_ready "$1"
	[[ ${KWOK_ALLOCATE:-1} == 0 ]] && return 0
	allocate
	wait_ready "$1"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	case ${1:-} in
	build) kwok_build ;;
	up)
		kwok_lab
		kwok_start
		grow "${2:?kwok-nodes.sh up N}"
		;;
	stop)
		kwok_lab
		kwok_stop
		;;
	*)
		echo "usage: $0 up N | stop | build" >&2
		exit 2
		;;
	esac
fi
