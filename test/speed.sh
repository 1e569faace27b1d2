#!/usr/bin/env bash
# test/speed.sh: the machine's speed, measured before make test's stages start, so that two runs' times on two
# machines can be compared: the wall time of one fixed CPU-bound step on one core (sha256 of 256 MiB of zeros, best of
# three), with the load average beside it. Writes "<ISO time>\tspeed\t<seconds>\t<load>" to $SPEED_TIMES and prints it.
set -uo pipefail
out=${SPEED_TIMES:-.cache/speed.tsv}
best=""
for _ in 1 2 3; do
	start=$(date +%s%N)
	head -c 268435456 /dev/zero | sha256sum >/dev/null
	ns=$(($(date +%s%N) - start))
	if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
done
secs=$(awk -v ns="$best" 'BEGIN { printf "%.2f", ns / 1e9 }')
load=$(cut -d' ' -f1 /proc/loadavg)
mkdir -p "$(dirname "$out")"
printf '%s\tspeed\t%s\t%s\n' "$(date -u +%FT%TZ)" "$secs" "$load" >"$out"
echo "== machine speed: sha256 of 256 MiB of zeros in $secs s on one core (best of 3; load average $load)"
