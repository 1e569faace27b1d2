#!/usr/bin/env bash
# make test-times: the last make test (or test-full) run's stages and test files, with their durations, from
# $STAGE_TIMES and $FILE_TIMES (written by test/stage.sh and the mocha count reporter), then the failed tests with
# the first lines of their errors ($TEST_FAILURES, written by the count reporter).
set -uo pipefail
stages=${STAGE_TIMES:-.cache/stage-times.tsv}
files=${FILE_TIMES:-.cache/file-times.tsv}
failures=${TEST_FAILURES:-.cache/test-failures.txt}
[ -s "$stages" ] || { echo "no stage times in $stages: run make test first"; exit 1; }
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
