#!/usr/bin/env bash
# tarball.sh: the absolute path of the built collection, dist/collection/calico_encap-kubespray-VERSION.tar.gz (make
# collection, tools/collection.ts, VERSION from package.json), for every script that installs or tests it; an error
# that says how to build it when there is none. A tarball of another version left in dist/collection is not taken.
set -euo pipefail
cd "$(dirname "$0")/../.."
version="$(node -p 'require("./package.json").version')"
tarball="dist/collection/calico_encap-kubespray-$version.tar.gz"
[ -f "$tarball" ] || { echo "no $tarball: run make collection" >&2; exit 1; }
echo "$PWD/$tarball"
