#!/usr/bin/env bash
# Runs every Molecule scenario under molecule/ (or those named as arguments) with `molecule test -s NAME`, one after another (each starts and
# stops the lab of the LAB_* slot in the environment, and a slot holds one lab), and goes on after a failure so
# one run shows every outcome. Appends one JSON line of counts per scenario to $TEST_COUNTS, as the mocha count
# reporter does (test/support/count-reporter.cjs), so .ci/run's "N passed, N failed" includes them, and a line per
# failed scenario to $TEST_FAILURES (printed by make test-times). Prints each
# scenario's outcome and time, and the total; exits 1 if any scenario failed.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=() summary=() total_start=$SECONDS
# Arguments: the scenarios to run (default: every one).
if [ $# -gt 0 ]; then names=("$@"); else names=(); for file in molecule/*/molecule.yml; do names+=("$(basename "$(dirname "$file")")"); done; fi
# The collection as a user installs it, with the ansible-galaxy of the PATH (the Ansible under test), for the
# scenarios that run it (upgrade_blocked: CALICO_ENCAP_COLLECTIONS in its molecule.yml).
tarball=$(bash test/collection/tarball.sh) || exit 1
CALICO_ENCAP_COLLECTIONS=$(mktemp -d)
export CALICO_ENCAP_COLLECTIONS
trap 'rm -rf "$CALICO_ENCAP_COLLECTIONS"' EXIT
ansible-galaxy collection install -p "$CALICO_ENCAP_COLLECTIONS" "$tarball" >/dev/null ||
	{ echo "run-all.sh: ansible-galaxy collection install $tarball failed" >&2; exit 1; }
for name in "${names[@]}"; do
	start=$SECONDS
	if molecule test -s "$name"; then outcome=passed; else
		outcome=failed failed+=("$name")
		[ -z "${TEST_FAILURES:-}" ] || echo "  molecule: scenario $name failed (molecule test -s $name; its output is above)" >>"$TEST_FAILURES"
	fi
	summary+=("$(printf '%-20s %s in %d s' "$name" "$outcome" $((SECONDS - start)))")
	bash test/count-line.sh "$outcome"
done
echo
echo "Molecule scenarios:"
printf '  %s\n' "${summary[@]}"
echo "  total ${#summary[@]} scenarios in $((SECONDS - total_start)) s"
if [ ${#failed[@]} -gt 0 ]; then
	echo "Molecule: failed scenarios: ${failed[*]}"
	exit 1
fi
