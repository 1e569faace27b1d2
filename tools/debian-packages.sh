#!/usr/bin/env bash
# tools/debian-packages.sh PACKAGE...: installs the Debian packages among PACKAGE that the machine lacks (apt-get,
# as root, or through sudo), so a fresh machine needs nothing by hand. make setup (the shells the unit tests run
# the bridge's batch program under) and the lab's build.sh use it.
set -euo pipefail
# One apt-get at a time: make test's lab-build and the seed era's build run at once, and a second apt-get would fail
# on dpkg's lock instead of waiting for it.
exec 8>"${TMPDIR:-/tmp}/calico-encap-apt.lock"
flock 8
missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
printf '[debian] installing: %s\n' "${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
