#!/usr/bin/env bash
# importer.sh VENV TARBALL: galaxy-importer (VENV's: test/ansible-versions/venv.sh galaxy-importer) on the collection as
# a publisher builds it: a build given a repository URL (galaxy.yml's repository, which galaxy-importer requires), here
# a test value under the reserved .invalid domain, never the project's, built with the project's .venv ansible-galaxy
# (the one sanity.sh and lint.sh run with). TARBALL is the local build (make collection without REPOSITORY, as make
# test-collection has it): galaxy-importer must refuse it (the check can fail). Its ansible-lint and ansible-test runs
# are off: lint.sh and sanity.sh run them on the same content. One test line (test/count-line.sh); exits 1 naming what
# failed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
usage="usage: importer.sh VENV TARBALL"
venv="$(cd "${1:?$usage}" && pwd)"
local_tarball="${2:?$usage}"
local_tarball="$(cd "$(dirname "$local_tarball")" && pwd)/$(basename "$local_tarball")"
tools="$repo/.venv/bin"
[ -x "$tools/ansible-galaxy" ] || { echo "no $tools/ansible-galaxy: run make setup" >&2; exit 2; }
work="$(mktemp -d)"
rel=".cache/importer-$$"
trap 'rm -rf "$work" "$repo/$rel"' EXIT
printf '[galaxy-importer]\nrun_ansible_lint = False\nrun_ansible_test = False\n' >"$work/importer.cfg"
import() { # tarball
  (cd "$work" && GALAXY_IMPORTER_CONFIG="$work/importer.cfg" "$venv/bin/python" -m galaxy_importer.main "$1" 2>&1)
}
failed=""
(cd "$repo" && PATH="$tools:$PATH" GALAXY_REPOSITORY="https://example.invalid/calico-encap/test-value" \
  node dist/tools/collection.js "$rel/published" >/dev/null 2>&1) || failed="$failed build"
if [ -z "$failed" ]; then
  if result="$(import "$(ls "$repo/$rel/published"/calico_encap-kubespray-*.tar.gz)")" && ! grep -q "ERROR" <<<"$result"; then :; else
    echo "galaxy-importer refused the build with a repository:" >&2
    echo "$result" >&2
    failed="$failed import"
  fi
fi
# The local build must have no repository, or its refusal below would not be the one this asserts.
if ! repository="$(tar -xzOf "$local_tarball" MANIFEST.json | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["collection_info"].get("repository") or "")')"; then
  echo "no MANIFEST.json read from $local_tarball" >&2
  failed="$failed local-build"
elif [ -n "$repository" ]; then
  echo "$local_tarball has a repository ($repository): give the local build (make collection without REPOSITORY)" >&2
  failed="$failed local-build"
else
  local_result="$(import "$local_tarball" || true)"
  grep -q "'repository' is required" <<<"$local_result" || {
    echo "galaxy-importer did not refuse a build without a repository (the check cannot fail):" >&2
    echo "$local_result" >&2
    failed="$failed can-fail"
  }
fi
if [ -n "$failed" ]; then
  bash "$here/../count-line.sh" failed
  echo "galaxy-importer: failed:$failed" >&2
  exit 1
fi
echo "galaxy-importer: passed (a build with a repository imports; one without is refused)"
bash "$here/../count-line.sh" passed
