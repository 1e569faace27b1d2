#!/usr/bin/env bash
# tarball.sh: the absolute path of the built collection, dist/collection/calico_encap-kubespray-VERSION.tar.gz (make
# collection, tools/collection.ts), for every script that installs or tests it; an error that says how to build it
# when there is none.
set -euo pipefail
cd "$(dirname "$0")/../.."
shopt -s nullglob
found=(dist/collection/calico_encap-kubespray-*.tar.gz)
[ "${#found[@]}" -gt 0 ] || { echo "no collection tarball in dist/collection: run make collection" >&2; exit 1; }
echo "$PWD/${found[0]}"
