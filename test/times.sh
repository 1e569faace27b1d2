#!/usr/bin/env bash
# make test-times: the last make test (or test-full) run's stages and test files, with their durations, from
# $STAGE_TIMES and $FILE_TIMES (written by test/stage.sh and the mocha count reporter), then the failed tests with
# the first lines of their errors ($TEST_FAILURES, written by the count reporter).
set -uo pipefail
stages=${STAGE_TIMES:-.cache/stage-times.tsv}
files=${FILE_TIMES:-.cache/file-times.tsv}
failures=${TEST_FAILURES:-.cache/test-failures.txt}
[ -s "$stages" ] || { echo "no stage times in $stages: run make test first"; exit 1; }
# The run's whole time against make test's budget: 45 minutes cold on the machine that runs it, so that a machine
# twice as slow still ends within CI's 90 (issue 50). The full tier has no budget.
if [ -s .cache/run-start ]; then
	elapsed=$(($(date +%s) - $(cat .cache/run-start)))
	tier=$(cat .cache/run-tier 2>/dev/null || echo quick)
	if [ "$tier" = quick ]; then
		echo "make test: $elapsed s ($((elapsed / 60)) min $((elapsed % 60)) s) of its 45 min budget ($((elapsed * 100 / 2700))%)"
	else
		echo "make test-full: $elapsed s ($((elapsed / 60)) min $((elapsed % 60)) s)"
	fi
fi
speed=${SPEED_TIMES:-.cache/speed.tsv}
[ -s "$speed" ] && awk -F'\t' '{ printf "Machine speed before the stages: sha256 of 256 MiB in %s s on one core (load average %s)\n", $3, $4 }' "$speed"
echo "Stages (seconds; the two lab slots run at once, so slot a and slot b overlap):"
awk -F'\t' '{ printf "  %-34s %6d s  %s  (ended %s)\n", $2, $3, $4, $1 }' "$stages"
if [ -s "$files" ]; then
	echo "Test files (seconds, hooks included):"
	awk -F'\t' '{ printf "  %-52s %7.1f s  %d passed, %d failed\n", $2, $3, $4, $5 }' "$files"
fi
if [ -s "$failures" ]; then
	echo "Failed tests (file: title, then the first lines of the error):"
	cat "$failures"
fi
