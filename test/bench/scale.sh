#!/usr/bin/env bash
# make bench-scale (issue 40): the check and one migration poll (calico-encap migrate --check) at 3, 100 and 1000
# nodes on a lab's real control plane. The nodes beyond the lab's 3 real ones exist only as API objects: kwok
# (sigs.k8s.io/kwok, built from the Go module proxy into $LAB_CACHE/bin-kwok, never into git) keeps them Ready and
# the calico-node DaemonSet's pods on them Running and Ready; their tunnel addresses come from the lab's real
# calico-node binary, run as `calico-node -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once` once per node
# with that NODENAME (Calico's own IPAM writes the block, the handle and the Node's annotation).
#
# It measures and never fails on time. Per size: wall time and peak RSS of each CLI process (/usr/bin/time -v),
# and the bytes and seconds of every read it made (kubectl and calicoctl.sh are wrapped by a script that counts
# their stdout). The sizes grow in one lab, one run each; ratios are taken against the first size of the run.
#
# Needs a lab that is up (source its env: LAB_STATE, KUBECONFIG, LAB_BIN, PATH). Env: BENCH_SIZES ("3 100 1000"),
# KWOK (the kwok binary), BENCH_OUT ($LAB_STATE/bench-scale), BENCH_ALLOC_JOBS (2: allocators at once),
# BENCH_DIST (the build measured: $REPO/dist), BENCH_BASELINE (a dist/ folder of another build, e.g. an earlier commit's: its check and poll are measured too, at
# each size right after this build's, tagged check-base and poll-base).
# Leaves the simulated nodes in the lab (lab.sh down removes them with it); stops the kwok it started.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
: "${LAB_STATE:?source the lab env first (test/lab/lab.sh up, then . \$LAB_STATE/env)}"
# shellcheck disable=SC1091
source "$LAB_STATE/env"
LAB_CACHE=${LAB_CACHE:-$HOME/.cache/calico-encap/lab}
KWOK=${KWOK:-$LAB_CACHE/bin-kwok/kwok}
KWOK_VERSION=${KWOK_VERSION:-v0.7.0}
SIZES=${BENCH_SIZES:-"3 100 1000"}
OUT=${BENCH_OUT:-$LAB_STATE/bench-scale}
JOBS=${BENCH_ALLOC_JOBS:-2}
SIM_LABEL=calico-encap.lab/simulated
DIST=${BENCH_DIST:-$REPO/dist}
REAL_NODES=${LAB_NODES:-3}

log() { printf '[bench-scale %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

if [[ ! -x $KWOK ]]; then
	log "building kwok $KWOK_VERSION into $(dirname "$KWOK") (nice 19)"
	mkdir -p "$(dirname "$KWOK")"
	(cd /tmp && GOMODCACHE=$LAB_CACHE/gomod GOCACHE=$LAB_CACHE/gocache GOBIN=$(dirname "$KWOK") CGO_ENABLED=0 \
		nice -n 19 go install -trimpath -p 1 "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION")
fi

mkdir -p "$OUT/bin"
READS=$OUT/reads.tsv
: >"$READS"

# The counting wrappers: the real program's stdout goes to a file, its size and the program's seconds to $READS.
wrap() {
	local name=$1 real=$2
	cat >"$OUT/bin/$name" <<EOF
#!/bin/bash
out=\$(mktemp)
t0=\$(date +%s%N)
"$real" "\$@" >"\$out"
rc=\$?
t1=\$(date +%s%N)
printf '%s\t%s\t%s\t%s\t%s\n' "\${BENCH_TAG:-}" "\$(stat -c %s "\$out")" "\$(( (t1 - t0) / 1000000 ))" "\$rc" "$name \$*" >>"$READS"
cat "\$out"
rm -f "\$out"
exit \$rc
EOF
	chmod +x "$OUT/bin/$name"
}
wrap kubectl "$(command -v kubectl)"
wrap calicoctl.sh "$LAB_CALICOCTL_SH"

KWOK_PID=
stop() {
	if [[ -n $KWOK_PID ]]; then
		kill "$KWOK_PID" 2>/dev/null || true
		wait "$KWOK_PID" 2>/dev/null || true
	fi
}
trap stop EXIT
nice -n 19 "$KWOK" --kubeconfig "$KUBECONFIG" --manage-all-nodes=false \
	--manage-nodes-with-label-selector "$SIM_LABEL=true" \
	--node-lease-duration-seconds 40 >"$OUT/kwok.log" 2>&1 &
KWOK_PID=$!
log "kwok $("$KWOK" --version 2>/dev/null | head -1) pid $KWOK_PID, log $OUT/kwok.log"

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
	} >"$OUT/nodes-$want.yaml"
	kubectl create -f "$OUT/nodes-$want.yaml" >/dev/null
}

# Waits (without a deadline of its own beyond BENCH_WAIT_S) until every simulated node is Ready and the DaemonSet has
# as many ready pods as nodes.
wait_ready() {
	local want=$1 sim=$(($1 - REAL_NODES)) ready ds t0=$SECONDS
	while :; do
		ready=$(kubectl get nodes -l "$SIM_LABEL=true" \
			-o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True || true)
		ds=$(kubectl -n kube-system get ds calico-node -o jsonpath='{.status.numberReady}/{.status.desiredNumberScheduled}')
		((ready >= sim)) && [[ $ds == "$want/$want" ]] && break
		((SECONDS - t0 > ${BENCH_WAIT_S:-1200})) && {
			log "not ready after ${BENCH_WAIT_S:-1200}s: $ready/$sim nodes Ready, DaemonSet ready/desired $ds"
			return 1
		}
		sleep 5
	done
	log "$want nodes: $sim simulated Ready, calico-node ready/desired $ds ($((SECONDS - t0)) s)"
}

# Calico's own allocator for every simulated node without a tunnel address yet.
allocate() {
	local t0=$SECONDS missing
	kubectl get nodes -l "$SIM_LABEL=true" \
		-o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.projectcalico\.org/IPv4IPIPTunnelAddr}{"\n"}{end}' |
		awk 'NF == 1 {print $1}' >"$OUT/unallocated"
	missing=$(wc -l <"$OUT/unallocated")
	export KUBECONFIG LAB_BIN
	xargs -r -P "$JOBS" -I{} env DATASTORE_TYPE=kubernetes NODENAME={} CALICO_NETWORKING_BACKEND=bird \
		nice -n 19 "$LAB_BIN/calico-node" -allocate-tunnel-addrs -allocate-tunnel-addrs-run-once \
		<"$OUT/unallocated" >>"$OUT/allocate.log" 2>&1
	log "allocated tunnel addresses for $missing nodes ($((SECONDS - t0)) s)"
}

# /usr/bin/time -v's wall seconds and peak RSS (KiB) of one CLI run.
measure() {
	local tag=$1 dist=$2
	shift 2
	BENCH_TAG=$tag /usr/bin/time -v -o "$OUT/time-$tag" node "$dist/src/cli.js" "$@" \
		--calicoctl "$OUT/bin/calicoctl.sh" --kubectl "$OUT/bin/kubectl" --kubeconfig "$KUBECONFIG" --json \
		>"$OUT/out-$tag.json" 2>"$OUT/err-$tag" || true
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$OUT/time-$tag")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time-$tag")
	printf '%s\t%s\t%s\n' "$tag" "$wall" "$rss" >>"$OUT/runs.tsv"
}

: >"$OUT/runs.tsv"
: >"$OUT/sizes.tsv"
INVENTORY=(--ipip-mode Always --vxlan-mode Never --network-backend bird --pool-blocksize 24)
TO_VXLAN=(--ipip-mode Never --vxlan-mode Always --network-backend vxlan --check)
for n in $SIZES; do
	log "size $n"
	add_nodes "$n"
	wait_ready "$n"
	allocate
	tunnels=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.annotations.projectcalico\.org/IPv4IPIPTunnelAddr}{"\n"}{end}' | grep -c . || true)
	pods=$(kubectl -n kube-system get pods -l k8s-app=calico-node --field-selector status.phase=Running -o name | wc -l)
	sleep 5
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	measure "check-$n" "$DIST" check "${INVENTORY[@]}"
	measure "poll-$n" "$DIST" migrate "${TO_VXLAN[@]}"
	if [[ -n ${BENCH_BASELINE:-} ]]; then
		measure "check-base-$n" "$BENCH_BASELINE" check "${INVENTORY[@]}"
		measure "poll-base-$n" "$BENCH_BASELINE" migrate "${TO_VXLAN[@]}"
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$tunnels" "$pods" "$load" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/sizes.tsv"
	log "size $n: $tunnels nodes with a tunnel address, $pods calico-node pods Running, load $load"
done

# The tables (markdown): each process's wall time and peak RSS, each read's bytes and seconds, against the first size.
read_name() {
	case "$1" in
	"calicoctl.sh get -f - -o json") echo "calicoctl IPPool, FelixConfiguration, ClusterInformation" ;;
	"calicoctl.sh get nodes -o json") echo "calicoctl Calico Nodes" ;;
	*"get configmap/calico-config daemonset/calico-node"*) echo "kubectl calico-config and DaemonSet calico-node" ;;
	*"get nodes -o json") echo "kubectl Nodes" ;;
	*"get nodes -o jsonpath="*) echo "kubectl Nodes (jsonpath)" ;;
	*"get pods --selector k8s-app=calico-node -o go-template="*) echo "kubectl calico-node Pods (go-template)" ;;
	*"get pods --selector k8s-app=calico-node"*) echo "kubectl calico-node Pods" ;;
	*) echo "$1" ;;
	esac
}
{
	first=${SIZES%% *}
	echo "| nodes | process | wall s | x | peak RSS MiB | x | bytes read | x |"
	echo "|---|---|---|---|---|---|---|---|"
	while IFS=$'\t' read -r tag wall rss; do
		n=${tag##*-}
		kind=${tag%-*}
		bytes=$(awk -F'\t' -v t="$tag" '$1 == t {s += $2} END {print s + 0}' "$READS")
		base=$(awk -F'\t' -v t="$kind-$first" '$1 == t {print $2 "\t" $3}' "$OUT/runs.tsv")
		bbytes=$(awk -F'\t' -v t="$kind-$first" '$1 == t {s += $2} END {print s + 0}' "$READS")
		awk -v n="$n" -v k="$kind" -v w="$wall" -v r="$rss" -v b="$bytes" -v base="$base" -v bb="$bbytes" 'BEGIN {
			split(base, f, "\t")
			printf "| %s | %s | %.2f | %.2f | %.1f | %.2f | %d | %.2f |\n", n, (k ~ /^poll/ ? "migrate --check (one poll)" : "check") (k ~ /-base$/ ? ", baseline" : ""), w, w / f[1], r / 1024, r / f[2], b, b / bb
		}'
	done <"$OUT/runs.tsv"
	echo
	echo "| nodes | process | read | bytes | x | s |"
	echo "|---|---|---|---|---|---|"
	while IFS=$'\t' read -r tag bytes ms rc argv; do
		n=${tag##*-}
		kind=${tag%-*}
		args=${argv//$KUBECONFIG/KUBECONFIG}
		args=${args//"$OUT/bin/"/}
		args=${args/kubectl --kubeconfig KUBECONFIG /kubectl }
		name=$(read_name "${args/kubectl --namespace kube-system /kubectl }")
		bb=$(awk -F'\t' -v t="$kind-$first" -v a="$argv" '$1 == t && $5 == a {print $2; exit}' "$READS")
		awk -v n="$n" -v k="$kind" -v name="$name" -v b="$bytes" -v bb="${bb:-0}" -v ms="$ms" -v rc="$rc" 'BEGIN {
			printf "| %s | %s | %s%s | %d | %s | %.2f |\n", n, k, name, (rc == 0 ? "" : " (rc " rc ")"), b, (bb > 0 ? sprintf("%.1f", b / bb) : "-"), ms / 1000
		}'
	done <"$READS"
	echo
	echo "| nodes | with a tunnel address | calico-node Pods Running | load before | load after |"
	echo "|---|---|---|---|---|"
	awk -F'\t' '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$OUT/sizes.tsv"
} | tee "$OUT/tables.md"
