#!/usr/bin/env bash
# venv.sh VERSION: prints the directory of a Python venv with Kubespray's requirements.txt (`ansible==VERSION` and the
# Python packages its roles need) installed from
# requirements-VERSION.txt beside this script (pinned, every dependency), the way a Kubespray user installs it.
# Built once under ${CALICO_ENCAP_VENVS:-~/.cache/calico-encap/venvs}/VERSION and keyed by the sha256 of the
# requirements file (kept in VERSION/.complete): a changed pin rebuilds it, later runs reuse it.
# Progress goes to stderr; only the directory goes to stdout.
set -euo pipefail
# venv.sh kubespray-vX.Y.Z: the venv a user of that Kubespray release has, `pip install -r` its own requirements.txt
# (in the tree under KUBESPRAY_TREES, default ../shared/kubespray), on the Python its pinned Ansible runs on: releases
# that pin ansible-core 2.12 or older (v2.18, v2.19) predate Python 3.11, so pyenv's Python 3.10 builds theirs.
# venv.sh kubespray-vX.Y.Z+collection: the same venv with this collection's Python requirements (ansible/requirements.txt,
# the collection's requirements.txt: the Node.js wheel) installed too, as a Kubespray user adds them (README).
version="${1:?usage: venv.sh VERSION (e.g. 9.13.0, or kubespray-v2.19.1, or kubespray-v2.31.0+collection)}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
req="$here/requirements-$version.txt"
reqs=()
python=python3
if [[ $version == kubespray-v* ]]; then
  trees="${KUBESPRAY_TREES:-$here/../../../shared/kubespray}"
  release="${version#kubespray-}"
  release="${release%+collection}"
  req="$trees/$release/requirements.txt"
  [[ $version != *+collection ]] || reqs=(-r "$here/../../ansible/requirements.txt")
  # v2.18 to v2.22 pin ansible-base 2.10 and ansible-core 2.12, which predate Python 3.11; later releases run on it.
  if [[ $release =~ ^v2\.(18|19|20|21|22)\. ]]; then
    python="${CALICO_ENCAP_PYTHON310:-$HOME/.pyenv/versions/3.10.13/bin/python3.10}"
    if [ ! -x "$python" ]; then
      python=$(command -v python3.10 || true)
      [ -n "$python" ] || { echo "venv.sh: $version needs Python 3.10 (its Ansible predates 3.11); set CALICO_ENCAP_PYTHON310" >&2; exit 2; }
    fi
  fi
  [ -f "$req" ] || { echo "venv.sh: no $req (set KUBESPRAY_TREES to the folder of Kubespray's release trees)" >&2; exit 2; }
elif [ ! -f "$req" ]; then
  echo "venv.sh: no $req; the pinned versions are: $(cd "$here" && ls requirements-*.txt | sed 's/requirements-//; s/\.txt$//' | tr '\n' ' ')" >&2
  exit 2
fi
key="$(cat "$req" ${reqs[1]:+"${reqs[1]}"} | sha256sum | cut -d' ' -f1)"
dir="${CALICO_ENCAP_VENVS:-$HOME/.cache/calico-encap/venvs}/$version"
# Two lab slots may ask for the same venv at once: one builds it, the other waits and reuses it.
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [ "$(cat "$dir/.complete" 2>/dev/null)" != "$key" ]; then
  echo "venv.sh: building $dir from $req (once; later runs reuse it)" >&2
  start=$SECONDS
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  # A venv records its own path in its scripts: build it where it stays, and mark it complete only at the end.
  "$python" -m venv "$dir"
  # --no-compile: pip would byte-compile every module of every collection ansible ships (CPU taken from the
  # lab's Go builds, which run beside it); Python compiles what a run imports.
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-compile -r "$req" "${reqs[@]}" >&2
  echo "$key" >"$dir/.complete"
  echo "venv.sh: built $dir in $((SECONDS - start)) s" >&2
fi
echo "$dir"
