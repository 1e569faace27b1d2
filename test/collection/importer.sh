#!/usr/bin/env bash
# importer.sh VENV: galaxy-importer (VENV's: test/ansible-versions/venv.sh galaxy-importer) on the collection as a publisher builds it: a build
# given a repository URL (galaxy.yml's repository, which galaxy-importer requires), here a test value under the
# reserved .invalid domain, never the project's. Its ansible-lint and ansible-test runs are off: lint.sh and sanity.sh
# run them on the same content. Asserts that the import passes and that a build without a repository is refused
# (the check can fail). One test line (test/count-line.sh); exits 1 naming what failed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$(cd "${1:?usage: importer.sh VENV}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '[galaxy-importer]\nrun_ansible_lint = False\nrun_ansible_test = False\n' >"$work/importer.cfg"
import() { # out-dir
  local tarball
  tarball="$(ls "$1"/calico_encap-kubespray-*.tar.gz)"
  (cd "$work" && GALAXY_IMPORTER_CONFIG="$work/importer.cfg" "$venv/bin/python" -m galaxy_importer.main "$tarball" 2>&1)
}
failed=""
rel=".cache/importer-$$"
trap 'rm -rf "$work" "$repo/$rel"' EXIT
(cd "$repo" && PATH="$venv/bin:$PATH" GALAXY_REPOSITORY="https://example.invalid/calico-encap/test-value" \
  node dist/tools/collection.js "$rel/published" >/dev/null 2>&1) || failed="$failed build"
if [ -z "$failed" ]; then
  if result="$(import "$repo/$rel/published")" && ! grep -q "ERROR" <<<"$result"; then :; else
    echo "galaxy-importer refused the build with a repository:" >&2
    echo "$result" >&2
    failed="$failed import"
  fi
fi
(cd "$repo" && PATH="$venv/bin:$PATH" node dist/tools/collection.js "$rel/local" >/dev/null 2>&1) || failed="$failed build-local"
if [ -z "$failed" ]; then
  local_result="$(import "$repo/$rel/local" || true)"
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
