#!/usr/bin/env bash
# test/stage.sh NAME COMMAND...: runs one stage of make test or make test-full, prints when it starts and how long
# it took, and appends "<ISO time>\t<stage>\t<seconds>\t<passed|failed>" to $STAGE_TIMES (make test-times prints
# them). Exits with the command's status.
set -uo pipefail
name=$1
shift
times=${STAGE_TIMES:-.cache/stage-times.tsv}
start=$(date +%s)
echo "== stage $name: started at $(date -u +%T)"
"$@"
rc=$?
secs=$(($(date +%s) - start))
outcome=passed
[ "$rc" -eq 0 ] || outcome=failed
echo "== stage $name: $outcome in $secs s"
mkdir -p "$(dirname "$times")"
printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$name" "$secs" "$outcome" >>"$times"
exit "$rc"
