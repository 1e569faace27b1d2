#!/usr/bin/env bash
# lint.sh TARBALL: ansible-lint's production profile on the built collection as a user installs it (the tarball
# extracted under ansible_collections/calico_encap/kubespray, that folder on ANSIBLE_COLLECTIONS_PATH, so that the
# role's and playbooks' FQCNs resolve to it), with the ansible-lint of the PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tarball="${1:?usage: lint.sh TARBALL}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$(bash "$here/extract.sh" "$tarball" "$work")"
if (cd "$root" && ANSIBLE_COLLECTIONS_PATH="$work" ansible-lint --profile production --nocolor); then
  bash "$here/../count-line.sh" passed
else
  bash "$here/../count-line.sh" failed
  exit 1
fi
