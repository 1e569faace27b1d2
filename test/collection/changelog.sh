#!/usr/bin/env bash
# changelog.sh TARBALL VENV: the built collection's changelog, with the antsibull-changelog of VENV (requirements.txt).
# Asserts that
#  - the repository's fragments are valid (`antsibull-changelog lint`: each in a known section, valid RST);
#  - the collection's changelogs/changelog.yaml is valid (`antsibull-changelog lint-changelog-yaml`);
#  - the collection's version (its MANIFEST.json, made from galaxy.yml) is the changelog's latest release;
#  - the collection's CHANGELOG.md is what antsibull-changelog generates from that changelog.yaml with
#    changelogs/config.yaml: CHANGELOG.md is generated, never kept by hand beside it.
# One test line (test/count-line.sh); exits 1 naming what failed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tarball="${1:?usage: changelog.sh TARBALL VENV}"
venv="$(cd "${2:?usage: changelog.sh TARBALL VENV}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$(bash "$here/extract.sh" "$tarball" "$work")"
failed=""
(cd "$repo" && "$venv/bin/antsibull-changelog" lint) || failed="$failed fragments"
"$venv/bin/antsibull-changelog" lint-changelog-yaml "$root/changelogs/changelog.yaml" ||
  failed="$failed changelog.yaml"
# The latest release by semantic version, and the collection's version.
read -r latest version < <("$venv/bin/python" - "$root" <<'EOF'
import json, sys, yaml
from packaging.version import Version
root = sys.argv[1]
with open(f"{root}/changelogs/changelog.yaml", encoding="utf-8") as f:
    releases = (yaml.safe_load(f) or {}).get("releases") or {}
with open(f"{root}/MANIFEST.json", encoding="utf-8") as f:
    version = json.load(f)["collection_info"]["version"]
print(max(releases, key=Version) if releases else "(none)", version)
EOF
)
if [ "$latest" != "$version" ]; then
  echo "changelog: the collection is version $version, the changelog's latest release is $latest" >&2
  failed="$failed version"
fi
# CHANGELOG.md as antsibull-changelog generates it from the shipped changelog.yaml.
mkdir -p "$work/gen/changelogs"
cp "$repo/changelogs/config.yaml" "$root/changelogs/changelog.yaml" "$work/gen/changelogs/"
(cd "$work/gen" && "$venv/bin/antsibull-changelog" generate) || failed="$failed generate"
if ! diff -u "$work/gen/CHANGELOG.md" "$root/CHANGELOG.md" >&2; then
  echo "changelog: CHANGELOG.md is not what antsibull-changelog generates from changelogs/: run make changelog" >&2
  failed="$failed CHANGELOG.md"
fi
if [ -n "$failed" ]; then
  echo "changelog: failed:$failed"
  bash "$here/../count-line.sh" failed
  exit 1
fi
echo "changelog: passed (version $version, the latest release)"
bash "$here/../count-line.sh" passed
