# shellcheck shell=bash
# Sourced by test/bench/scale.sh with BENCH_MIGRATE=1 (issue 40): a whole migration at each size, calico-encap migrate
# (dist/src/cli.js, the CLI) from IPIP/bird to VXLAN/vxlan, its backend switch rolling calico-node through the
# simulated nodes at the DaemonSet's maxUnavailable (the lab profile's, or BENCH_MAX_UNAVAILABLE patched in first).
# kwok replaces the DaemonSet's pods on the simulated nodes (its pod-delete stage finishes the old pod's deletion,
# the DaemonSet controller creates the new one, the scheduler binds it, kwok marks it Running and Ready);
# test/lab/kwok-tunnels.sh stands for calico-node's allocate-tunnel-addrs service on them (their VXLAN addresses from
# Calico's own allocator). With a size after it (or BENCH_MIGRATE_BACK=1), it migrates back to IPIP/bird, measured too.
# Per migration: wall time and peak RSS (the CLI's own and with its reads), each step's seconds, the polls (from -vvv:
# "poll: the Lease renewed and the cluster read in N ms"), the bytes read, and the Lease as a watch saw it: every
# renewal, its holders (one, or the Lease was lost) and the longest gap between two renewals against its duration.
# Uses scale.sh's OUT, READS, measure, log; sets MIGRATE_FAILED (scale.sh's exit status) when a migration failed or
# lost its Lease.
# shellcheck disable=SC2153,SC2034

: >"$OUT/migrations.tsv"
: >"$OUT/steps.tsv"
MIGRATE_FAILED=0

# The Lease kube-system/calico-encap-migrate as a watch sees it: resourceVersion, holder, renewTime, duration.
lease_watch_start() {
	kubectl -n kube-system get lease --field-selector metadata.name=calico-encap-migrate --watch \
		-o jsonpath='{.metadata.resourceVersion} {.spec.holderIdentity} {.spec.renewTime} {.spec.leaseDurationSeconds}{"\n"}' \
		>"$OUT/lease-$1.log" 2>&1 </dev/null &
	LEASE_WATCH=$!
}

# One migration, measured: $1 tag, the rest the target's flags.
migrate_measured() {
	local tag=$1 n=${1##*-} load maxu
	shift
	maxu=$(kubectl -n kube-system get ds calico-node -o jsonpath='{.spec.updateStrategy.rollingUpdate.maxUnavailable}')
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	lease_watch_start "$tag"
	LAB_STATE=$LAB_STATE KWOK_OUT=$OUT bash "$REPO/test/lab/kwok-tunnels.sh" start
	log "$tag: migrate ${*} (maxUnavailable $maxu, load $load)"
	measure "$tag" "$DIST" migrate "$@" --wait-timeout "${BENCH_WAIT_TIMEOUT:-600}" -vvv
	LAB_STATE=$LAB_STATE KWOK_OUT=$OUT bash "$REPO/test/lab/kwok-tunnels.sh" stop
	sleep 1
	kill "$LEASE_WATCH" 2>/dev/null || true
	wait "$LEASE_WATCH" 2>/dev/null || true
	jq -r --arg t "$tag" '.steps[]? | [$t, .title, .seconds, .settled] | @tsv' "$OUT/out-$tag.json" >>"$OUT/steps.tsv" || true
	local changed failed polls pollms bytes reads pods
	changed=$(jq -r '.changed // false' "$OUT/out-$tag.json" 2>/dev/null || echo false)
	failed=$(jq -r '.failed // false' "$OUT/out-$tag.json" 2>/dev/null || echo true)
	polls=$(grep -c 'poll: the Lease renewed and the cluster read in' "$OUT/err-$tag" || true)
	# The poll's milliseconds: median and largest.
	pollms=$(sed -n 's/.*poll: the Lease renewed and the cluster read in \([0-9]*\) ms.*/\1/p' "$OUT/err-$tag" | sort -n |
		awk '{a[NR] = $1} END {if (NR) printf "%d / %d", a[int((NR + 1) / 2)], a[NR]; else printf "-"}')
	bytes=$(awk -F'\t' -v t="$tag" '$1 == t {s += $2} END {print s + 0}' "$READS")
	reads=$(awk -F'\t' -v t="$tag" '$1 == t {c++} END {print c + 0}' "$READS")
	# Each observation reads the calico-node Pods once: the bytes per observation.
	pods=$(awk -F'\t' -v t="$tag" '$1 == t && $5 ~ /get pods --selector k8s-app=calico-node/ {c++} END {print c + 0}' "$READS")
	# The Lease: renewals (events with a holder after the first, the create), holders, the longest gap between
	# two renewTimes, its duration, and whether the last event released it (no holder).
	local lease
	lease=$(awk '
		function secs(t,   d, h) { split(t, d, "T"); split(d[2], h, ":"); sub(/Z$/, "", h[3]); return h[1] * 3600 + h[2] * 60 + h[3] }
		NF >= 3 && $2 != "" && $2 !~ /^20/ { n++; holders[$2] = 1; s = secs($3); if (n > 1 && s - prev > gap) gap = s - prev; prev = s; dur = $4 }
		{ last = $2 }
		END { h = 0; for (k in holders) h++; printf "%d\t%d\t%.1f\t%s\t%s", (n > 0 ? n - 1 : 0), h, gap, dur, (last ~ /^20/ ? "released" : "held") }
	' "$OUT/lease-$tag.log")
	local intact=yes
	[[ $failed == false && $(cut -f2 <<<"$lease") == 1 ]] || intact=no
	awk -F'\t' '{exit !($3 < $4)}' <<<"$lease" || intact=no
	grep -q 'LockLost\|was taken over' "$OUT/err-$tag" && intact=no
	[[ $intact == yes ]] || MIGRATE_FAILED=1
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$maxu" "$changed" "$failed" "$polls" "$pollms" \
		"$bytes" "$reads" "$pods" "$lease" "$intact" "$load" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/migrations.tsv"
	log "$tag: failed $failed, $polls polls, Lease intact $intact ($(tr '\t' ' ' <<<"$lease"))"
}

# The migration at size $1, and back when $2 says so (yes).
migrate_at() {
	local n=$1 back=$2
	if [[ -n ${BENCH_MAX_UNAVAILABLE:-} ]]; then
		kubectl -n kube-system patch ds calico-node --type merge \
			-p "{\"spec\":{\"updateStrategy\":{\"rollingUpdate\":{\"maxUnavailable\":${BENCH_MAX_UNAVAILABLE}}}}}" >/dev/null
	fi
	migrate_measured "migrate-$n" --ipip-mode Never --vxlan-mode Always --network-backend vxlan
	[[ $back == yes ]] && migrate_measured "back-$n" --ipip-mode Always --vxlan-mode Never --network-backend bird
	return 0
}

# The tables (markdown), appended to scale.sh's.
migration_tables() {
	echo
	echo "| run | maxUnavailable | changed | failed | wall s | peak RSS MiB (CLI / with reads) | polls | poll ms median / max | reads | bytes read | bytes per observation | Lease renewals | holders | longest gap s / duration s | Lease at the end | intact | load before | load after |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	while IFS=$'\t' read -r tag maxu changed failed polls pollms bytes reads pods renewals holders gap dur end intact load1 load2; do
		local wall rss self
		wall=$(awk -F'\t' -v t="$tag" '$1 == t {print $2}' "$OUT/runs.tsv")
		rss=$(awk -F'\t' -v t="$tag" '$1 == t {print $3}' "$OUT/runs.tsv")
		self=$(awk -F'\t' -v t="$tag" '$1 == t {print $2}' "$OUT/self-rss.tsv")
		awk -v t="$tag" -v m="$maxu" -v c="$changed" -v f="$failed" -v w="$wall" -v r="$rss" -v s="$self" -v p="$polls" \
			-v pm="$pollms" -v rd="$reads" -v b="$bytes" -v o="$pods" -v rn="$renewals" -v h="$holders" -v g="$gap" \
			-v d="$dur" -v e="$end" -v i="$intact" -v l1="$load1" -v l2="$load2" 'BEGIN {
			printf "| %s | %s | %s | %s | %.1f | %.1f / %.1f | %s | %s | %s | %d | %d | %d | %s / %s | %s | %s | %s | %s |\n",
				t, m, c, f, w, s / 1024, r / 1024, p, pm, rd, b, (o > 0 ? b / o : 0), rn, h, g, d, e, i, l1, l2
		}'
	done <"$OUT/migrations.tsv"
	echo
	echo "| run | step | s | settled |"
	echo "|---|---|---|---|"
	awk -F'\t' '{printf "| %s | %s | %.1f | %s |\n", $1, $2, $3, $4}' "$OUT/steps.tsv"
	echo
	echo "| run | read | count | bytes each (mean) | s each (mean) |"
	echo "|---|---|---|---|---|"
	awk -F'\t' '$1 ~ /^(migrate|back)-/ {
		a = $5; sub(/--kubeconfig [^ ]* /, "", a); sub(/^[^ ]*\//, "", a); k = $1 "\t" substr(a, 1, 70)
		c[k]++; b[k] += $2; ms[k] += $3
	} END {for (k in c) {split(k, p, "\t"); printf "| %s | %s | %d | %d | %.2f |\n", p[1], p[2], c[k], b[k] / c[k], ms[k] / c[k] / 1000}}' "$READS" | sort
	echo
	echo "| run | allocator rounds (time, nodes run, s) |"
	echo "|---|---|"
	[[ -f $OUT/tunnels.log ]] && awk -F'\t' '{printf "%s%s %s %ss", (NR > 1 ? "; " : "| tunnels | "), $1, $2, $3} END {if (NR) print " |"}' "$OUT/tunnels.log"
	return 0
}
