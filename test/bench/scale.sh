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
# At each size the check also runs BENCH_QUIET_RUNS times with kwok paused (quiet_check: the equal-load comparison).
# Needs a lab that is up (source its env: LAB_STATE, KUBECONFIG, LAB_BIN, PATH). Env: BENCH_SIZES ("3 100 1000"),
# KWOK (the kwok binary, test/lab/kwok-nodes.sh), BENCH_OUT ($LAB_STATE/bench-scale), BENCH_ALLOC_JOBS (2: allocators at once),
# BENCH_DIST (the build measured: $REPO/dist), BENCH_BASELINE (a dist/ folder of another build, e.g. an earlier commit's: its check and poll are measured too, at
# each size right after this build's, tagged check-base and poll-base), BENCH_MIGRATE (1: a whole migration at each size
# too, test/bench/scale-migrate.sh; BENCH_MAX_UNAVAILABLE, BENCH_MIGRATE_BACK, BENCH_WAIT_TIMEOUT there), BENCH_PLAN (1:
# the planner alone at each size, test/bench/plan.bench.ts, on the observation it records there).
# Leaves the simulated nodes in the lab (lab.sh down removes them with it); stops the kwok it started.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
: "${LAB_STATE:?source the lab env first (test/lab/lab.sh up, then . \$LAB_STATE/env)}"
# shellcheck disable=SC1091
source "$LAB_STATE/env"
SIZES=${BENCH_SIZES:-"3 100 1000"}
OUT=${BENCH_OUT:-$LAB_STATE/bench-scale}
JOBS=${BENCH_ALLOC_JOBS:-2}
DIST=${BENCH_DIST:-$REPO/dist}
READS=$OUT/reads.tsv

log() { printf '[bench-scale %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# BENCH_TABLES_ONLY=1: only the tables again, from the files of a run in $OUT (e.g. sizes measured in two runs of one lab).
if [[ -z ${BENCH_TABLES_ONLY:-} ]]; then
mkdir -p "$OUT/bin"
: >"$READS"

# The counting wrappers: the real program's stdout goes to a file, its size and the program's seconds to $READS, its
# peak RSS (KiB) to read-rss.tsv.
wrap() {
	local name=$1 real=$2
	cat >"$OUT/bin/$name" <<EOF
#!/bin/bash
out=\$(mktemp)
rss=\$(mktemp)
t0=\$(date +%s%N)
/usr/bin/time -f %M -o "\$rss" "$real" "\$@" >"\$out"
rc=\$?
t1=\$(date +%s%N)
printf '%s\t%s\t%s\t%s\t%s\n' "\${BENCH_TAG:-}" "\$(stat -c %s "\$out")" "\$(( (t1 - t0) / 1000000 ))" "\$rc" "$name \$*" >>"$READS"
printf '%s\t%s\t%s\n' "\${BENCH_TAG:-}" "\$(tail -1 "\$rss")" "$name \$*" >>"$OUT/read-rss.tsv"
cat "\$out"
rm -f "\$out" "\$rss"
exit \$rc
EOF
	chmod +x "$OUT/bin/$name"
}
wrap kubectl "$(command -v kubectl)"
wrap calicoctl.sh "$LAB_CALICOCTL_SH"

# kwok and the simulated nodes (test/lab/kwok-nodes.sh): its files beside the bench's.
KWOK_OUT=$OUT KWOK_ALLOC_JOBS=$JOBS KWOK_WAIT_S=${BENCH_WAIT_S:-1200}
# shellcheck source=test/lab/kwok-nodes.sh
source "$REPO/test/lab/kwok-nodes.sh"
kwok_lab
trap kwok_stop EXIT
kwok_start
if [[ -n ${BENCH_MIGRATE:-} ]]; then
	# shellcheck source=test/bench/scale-migrate.sh
	source "$REPO/test/bench/scale-migrate.sh"
	trap 'LAB_STATE=$LAB_STATE KWOK_OUT=$OUT bash "$REPO/test/lab/kwok-tunnels.sh" stop; kwok_stop' EXIT
fi

# /usr/bin/time -v's wall seconds and peak RSS (KiB) of one CLI run: the largest of the CLI's process and the reads it
# waited for (kubectl decodes whole objects from the API server whatever it prints). The CLI's own peak RSS, without
# its children, goes to self-rss.tsv (process.resourceUsage() at its exit).
measure() {
	local tag=$1 dist=$2
	shift 2
	local SELF_RSS="data:text/javascript,import{appendFileSync}from'node:fs';process.on('exit',()=>appendFileSync('$OUT/self-rss-$tag',process.resourceUsage().maxRSS+'\\n'))"
	BENCH_TAG=$tag /usr/bin/time -v -o "$OUT/time-$tag" node --import "$SELF_RSS" "$dist/src/cli.js" "$@" \
		--calicoctl "$OUT/bin/calicoctl.sh" --kubectl "$OUT/bin/kubectl" --kubeconfig "$KUBECONFIG" --json \
		>"$OUT/out-$tag.json" 2>"$OUT/err-$tag" || true
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$OUT/time-$tag")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time-$tag")
	printf '%s\t%s\t%s\n' "$tag" "$wall" "$rss" >>"$OUT/runs.tsv"
	printf '%s\t%s\n' "$tag" "$(tail -1 "$OUT/self-rss-$tag")" >>"$OUT/self-rss.tsv"
}

# The machine's idle and total jiffies since boot (/proc/stat's first line: idle and iowait count as idle).
cpu_jiffies() { awk '/^cpu / {t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t}' /proc/stat; }

# The check at equal load (issue 40's bound, the 1000-node check at most twice the 3-node one): kwok and the
# stand-in's allocators are paused (SIGSTOP) for BENCH_QUIET_SETTLE_S (10) and BENCH_QUIET_RUNS (5) checks, so at
# every size the two cores serve only the lab's control plane and the check, and not the simulated kubelets'
# heartbeats (which a real cluster's kubelets send from their own machines). Per run: wall seconds, the CPU seconds
# of the check and the reads it waited for (user + system, /usr/bin/time -v), and the machine's idle share over the
# runs (from /proc/stat), which shows the load was the same. 10 s is a quarter of the node Leases' 40 s: no node
# goes NotReady meanwhile.
quiet_check() {
	local n=$1 pids r before after
	pids=$(
		cat "$LAB_STATE/kwok.pid" 2>/dev/null || true
		pgrep -f 'allocate-tunnel-addrs' || true
	)
	# shellcheck disable=SC2086
	[[ -z $pids ]] || kill -STOP $pids 2>/dev/null || true
	sleep "${BENCH_QUIET_SETTLE_S:-10}"
	before=$(cpu_jiffies)
	for r in $(seq 1 "${BENCH_QUIET_RUNS:-5}"); do
		measure "quiet-$n-$r" "$DIST" check "${INVENTORY[@]}"
		# The wall seconds measure() wrote to runs.tsv; the CPU seconds from the same /usr/bin/time -v file.
		awk -F': ' -v n="$n" -v r="$r" -v w="$(awk -F'\t' -v t="quiet-$n-$r" '$1 == t {print $2}' "$OUT/runs.tsv")" \
			'/User time/ {u = $2} /System time/ {s = $2} END {printf "%s\t%s\t%.2f\t%.2f\n", n, r, w, u + s}' \
			"$OUT/time-quiet-$n-$r" >>"$OUT/quiet.tsv"
	done
	after=$(cpu_jiffies)
	# shellcheck disable=SC2086
	[[ -z $pids ]] || kill -CONT $pids 2>/dev/null || true
	awk -v n="$n" -v b="$before" -v a="$after" 'BEGIN {split(b, x, " "); split(a, y, " ");
		printf "%s\t%.0f\n", n, 100 * (y[1] - x[1]) / (y[2] - x[2])}' >>"$OUT/quiet-idle.tsv"
	log "size $n: $r checks with kwok paused"
}

: >"$OUT/quiet.tsv"
: >"$OUT/quiet-idle.tsv"
: >"$OUT/runs.tsv"
: >"$OUT/self-rss.tsv"
: >"$OUT/read-rss.tsv"
: >"$OUT/sizes.tsv"
INVENTORY=(--ipip-mode Always --vxlan-mode Never --network-backend bird --pool-blocksize 24)
TO_VXLAN=(--ipip-mode Never --vxlan-mode Always --network-backend vxlan --check)
for n in $SIZES; do
	log "size $n"
	# A size the machine cannot keep Ready within BENCH_WAIT_S is measured as it is: sizes.tsv records how many
	# nodes had a tunnel address and how many calico-node Pods were Ready.
	grow "$n" || log "size $n: not every node Ready with its tunnel address; measured as it is"
	tunnels=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.annotations.projectcalico\.org/IPv4IPIPTunnelAddr}{"\n"}{end}' | grep -c . || true)
	pods=$(kubectl -n kube-system get ds calico-node -o jsonpath='{.status.numberReady}')
	sleep 5
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	measure "check-$n" "$DIST" check "${INVENTORY[@]}"
	measure "poll-$n" "$DIST" migrate "${TO_VXLAN[@]}"
	if [[ -n ${BENCH_BASELINE:-} ]]; then
		measure "check-base-$n" "$BENCH_BASELINE" check "${INVENTORY[@]}"
		measure "poll-base-$n" "$BENCH_BASELINE" migrate "${TO_VXLAN[@]}"
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$tunnels" "$pods" "$load" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/sizes.tsv"
	quiet_check "$n"
	log "size $n: $tunnels nodes with a tunnel address, $pods calico-node pods Ready, load $load"
	if [[ -n ${BENCH_PLAN:-} ]]; then
		node "$DIST/test/bench/plan.bench.js" --record "$OUT/observation-$n.json" --calicoctl "$LAB_CALICOCTL_SH" \
			--kubectl "$(command -v kubectl)" --kubeconfig "$KUBECONFIG" >>"$OUT/plan.tsv" || log "plan.bench failed at $n"
	fi
	if [[ -n ${BENCH_MIGRATE:-} ]]; then
		back=no
		[[ $n != "${SIZES##* }" || -n ${BENCH_MIGRATE_BACK:-} ]] && back=yes
		migrate_at "$n" "$back"
	fi
done
fi

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
		[[ $tag == check-* || $tag == poll-* ]] || continue
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
		[[ $tag == check-* || $tag == poll-* ]] || continue
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
	echo "| run | the CLI's own peak RSS MiB | the largest read's peak RSS MiB | that read |"
	echo "|---|---|---|---|"
	while IFS=$'\t' read -r tag self; do
		awk -F'\t' -v t="$tag" -v self="$self" '$1 == t && $2 + 0 > m {m = $2; a = $3} END {
			sub(/--kubeconfig [^ ]* /, "", a); printf "| %s | %.1f | %.1f | %s |\n", t, self / 1024, m / 1024, substr(a, 1, 60)
		}' "$OUT/read-rss.tsv"
	done <"$OUT/self-rss.tsv"
	echo
	echo "| nodes | check with kwok paused: runs | wall s median (min-max) | x | CPU s median (check and its reads) | x | machine idle % |"
	echo "|---|---|---|---|---|---|---|"
	for n in $SIZES; do
		awk -F'\t' -v n="$n" -v first="$first" -v idle="$(awk -F'\t' -v n="$n" '$1 == n {print $2}' "$OUT/quiet-idle.tsv")" '
			function med(v, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t } return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
			$1 == n {k++; w[k] = $3; c[k] = $4; if (k == 1 || $3 < lo) lo = $3; if (k == 1 || $3 > hi) hi = $3}
			$1 == first {k0++; w0[k0] = $3; c0[k0] = $4}
			END {if (!k) exit; mw = med(w, k); mc = med(c, k)
				printf "| %s | %d | %.2f (%.2f-%.2f) | %.2f | %.2f | %.2f | %s |\n", n, k, mw, lo, hi, mw / med(w0, k0), mc, mc / med(c0, k0), idle}' "$OUT/quiet.tsv"
	done
	echo
	echo "| nodes | with a tunnel address | calico-node Pods Ready | load before | load after |"
	echo "|---|---|---|---|---|"
	awk -F'\t' '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$OUT/sizes.tsv"
	if [[ -s $OUT/plan.tsv ]]; then
		echo
		echo "| nodes | planner runs | plan() ms each (median / max) | the wait's decisions ms each (median / max) | observation bytes (JSON) |"
		echo "|---|---|---|---|---|"
		awk -F'\t' '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$OUT/plan.tsv"
	fi
	[[ -z ${BENCH_MIGRATE:-} ]] || migration_tables
} | tee "$OUT/tables.md"
exit "${MIGRATE_FAILED:-0}"
