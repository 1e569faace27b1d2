#!/usr/bin/env bash
# The stand-in for calico-node's allocate-tunnel-addrs service on the simulated nodes of test/lab/kwok-nodes.sh
# (issue 40). On a real node that service (part of calico-node) watches the IPPools and its Node, and assigns or
# releases the node's IPIP and VXLAN tunnel addresses whenever a pool's mode changes. Simulated nodes run no
# calico-node, so a migration that switches the pool would wait for their VXLAN addresses forever. This loop runs the
# same code, the lab's real calico-node binary as `calico-node -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once`
# with that NODENAME (Calico's own IPAM claims or borrows the block, writes the handle and the Node's annotation), for
# each simulated node whose addresses do not match the pools, every KWOK_LOOP_SLEEP seconds (2), KWOK_ALLOC_JOBS (2)
# at a time. What it does not stand for: the service's watch (a node waits for the next round and for its turn,
# where a real node's service reacts within a second, all nodes at once), and the pools' nodeSelector, allowedUses
# and disabled flag (every pool counts, on every simulated node: the labs' pools select all nodes).
#   kwok-tunnels.sh start    the loop in the background (pid in $LAB_STATE/kwok-tunnels.pid, rounds logged in
#                            $KWOK_OUT/tunnels.log: time, nodes run, seconds)
#   kwok-tunnels.sh stop     stops it
set -euo pipefail

SIM_LABEL=calico-encap.lab/simulated

: "${LAB_STATE:?source the lab env first (test/lab/lab.sh up, then . \$LAB_STATE/env)}"
# shellcheck disable=SC1091
source "$LAB_STATE/env"
KWOK_OUT=${KWOK_OUT:-$LAB_STATE/kwok}
PIDFILE=$LAB_STATE/kwok-tunnels.pid

# Whether any pool has this mode on (Always or CrossSubnet), by the pools' CRDs.
mode_on() {
	kubectl get ippools.crd.projectcalico.org -o jsonpath="{range .items[*]}{.spec.$1}{\"\\n\"}{end}" |
		grep -Eq '^(Always|CrossSubnet)$'
}

# The simulated nodes whose annotations do not match the pools: a needed address missing, or one kept that no pool
# gives any more (the service releases it).
mismatched() {
	local ipip=0 vxlan=0
	mode_on ipipMode && ipip=1
	mode_on vxlanMode && vxlan=1
	kubectl get nodes -l "$SIM_LABEL=true" -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.metadata.annotations.projectcalico\.org/IPv4IPIPTunnelAddr}{"\t"}{.metadata.annotations.projectcalico\.org/IPv4VXLANTunnelAddr}{"\n"}{end}' |
		awk -F'\t' -v ipip=$ipip -v vxlan=$vxlan '(ipip != ($2 != "")) || (vxlan != ($3 != "")) {print $1}'
}

loop() {
	export KUBECONFIG LAB_BIN
	local n t0
	while :; do
		mismatched >"$KWOK_OUT/tunnels-todo" || true
		n=$(wc -l <"$KWOK_OUT/tunnels-todo")
		if ((n > 0)); then
			t0=$SECONDS
			xargs -r -P "${KWOK_ALLOC_JOBS:-2}" -I{} env DATASTORE_TYPE=kubernetes NODENAME={} \
				nice -n 19 "$LAB_BIN/calico-node" -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once \
				<"$KWOK_OUT/tunnels-todo" >>"$KWOK_OUT/tunnels-allocate.log" 2>&1 || true
			printf '%s\t%s\t%s\n' "$(date -u +%H:%M:%S)" "$n" "$((SECONDS - t0))" >>"$KWOK_OUT/tunnels.log"
		fi
		sleep "${KWOK_LOOP_SLEEP:-2}"
	done
}

case ${1:-} in
start)
	mkdir -p "$KWOK_OUT"
	loop </dev/null >/dev/null 2>>"$KWOK_OUT/tunnels-loop.err" &
	echo $! >"$PIDFILE"
	;;
stop)
	pid=$(cat "$PIDFILE" 2>/dev/null || true)
	if [[ -n $pid ]]; then
		# The loop, then the allocators it started (its children), by their parent's pid.
		pkill -P "$pid" 2>/dev/null || true
		kill "$pid" 2>/dev/null || true
		rm -f "$PIDFILE"
	fi
	;;
*)
	echo "usage: $0 start | stop" >&2
	exit 2
	;;
esac
