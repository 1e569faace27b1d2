#!/usr/bin/env bash
# extract.sh TARBALL DIR: the collection as a user installs it, the tarball extracted into
# DIR/ansible_collections/calico_encap/kubespray (DIR goes on ANSIBLE_COLLECTIONS_PATH); prints that folder.
set -euo pipefail
tarball="${1:?usage: extract.sh TARBALL DIR}"
root="${2:?usage: extract.sh TARBALL DIR}/ansible_collections/calico_encap/kubespray"
mkdir -p "$root"
tar -xzf "$tarball" -C "$root"
echo "$root"
