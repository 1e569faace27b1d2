#!/usr/bin/env bash
# test/count-line.sh passed|failed: appends one test's outcome to $TEST_COUNTS as the mocha count reporter does
# (test/support/count-reporter.cjs), so .ci/run's "N passed, N failed" counts a test run outside mocha (a Molecule
# scenario, one ansible-core's sanity, ansible-lint on the collection). Nothing when TEST_COUNTS is unset.
set -euo pipefail
[ -n "${TEST_COUNTS:-}" ] || exit 0
mkdir -p "$(dirname "$TEST_COUNTS")"
case "$1" in
passed) echo '{"passed":1,"failed":0,"skipped":0}' >>"$TEST_COUNTS" ;;
failed) echo '{"passed":0,"failed":1,"skipped":0}' >>"$TEST_COUNTS" ;;
*) echo "count-line.sh: passed or failed, got $1" >&2; exit 2 ;;
esac
