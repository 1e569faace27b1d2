#!/usr/bin/env bash
# sanity.sh TARBALL VENV...: `ansible-test sanity` on the built collection (the tarball as a user installs it), once
# with the ansible-test of each VENV's ansible-core, every test of that release, with the collection's own ignore file
# (tests/sanity/ignore-<core>.txt, each entry with its reason) and nothing else skipped. Ends with one line per
# ansible-core: `sanity ansible-core X: passed|failed`; exits 1 when any failed.
#
# ansible-test --venv --requirements installs each test's pinned requirements into venvs of its own (cached in
# ~/.ansible/test/venv). It bootstraps pip in them with a script it downloads from ci-files.testing.ansible.com, which
# this machine cannot reach; it runs a cached copy at ~/.ansible/test/cache/get_pip_<version>.py instead. When that
# copy is missing, this script writes one of its own there: it installs pip from the venv's Python (ensurepip) and then
# the exact pip and packages ansible-test asks for from the package index, as the downloaded script would. What it
# stands for: the download only; the pip, the requirements and the tests are ansible-test's own.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tarball="${1:?usage: sanity.sh TARBALL VENV...}"
tarball="$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")"
shift
[ "$#" -gt 0 ] || { echo "usage: sanity.sh TARBALL VENV..." >&2; exit 2; }
cache="$HOME/.ansible/test/cache"
mkdir -p "$cache"
failed=""
for venv in "$@"; do
  # Absolute: ansible-test runs from inside the extracted collection.
  venv="$(cd "$venv" && pwd)"
  core="$("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)')"
  # The pip version this ansible-test bootstraps, from its own requirements data.
  pip="$("$venv/bin/python" - <<'EOF'
import os, re, ansible_test
root = os.path.dirname(ansible_test.__file__)
for rel in ("_data/requirements/ansible-test.txt", "_internal/python_requirements.py"):
    path = os.path.join(root, rel)
    if os.path.exists(path):
        m = re.search(r"pip(?:==|=')([0-9.]+)", open(path).read())
        if m:
            print(m.group(1))
            break
EOF
)"
  [ -n "$pip" ] || { echo "sanity.sh: could not find the pip version ansible-test $core bootstraps" >&2; exit 1; }
  script="$cache/get_pip_${pip//./_}.py"
  if [ ! -f "$script" ]; then
    cat >"$script" <<'EOF'
# Written by calico-encap's test/collection/sanity.sh in place of ansible-test's downloaded get-pip script (its host
# is not reachable here): pip from this Python's ensurepip, then the pip and packages ansible-test asked for.
import subprocess
import sys

args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"])
subprocess.check_call([sys.executable, "-m", "pip", "install"] + args)
EOF
  fi
  work="$(mktemp -d)"
  root="$(bash "$here/extract.sh" "$tarball" "$work")"
  python="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  start=$SECONDS
  echo "== ansible-test sanity, ansible-core $core (Python $python)"
  # One ansible-test sanity at a time on this machine: two runs that share ~/.ansible/test/venv (a second checkout's
  # make test beside this one) create the same test venv at once, and one's pip upgrade removes the pip the other is
  # running (seen 2026-12-05: "No module named 'pip._vendor.rich.highlighter'", a venv left without pip).
  # A test venv such a race left without pip is removed first, under the lock, and made again by ansible-test.
  mkdir -p "$HOME/.ansible/test"
  if (
    flock 9
    for d in "$HOME"/.ansible/test/venv/*/*/*/; do
      [ -x "$d/bin/python" ] || continue
      "$d/bin/python" -m pip --version >/dev/null 2>&1 || { echo "sanity.sh: $d has no pip; removed" >&2; rm -rf "$d"; }
    done
    cd "$root" && PATH="$venv/bin:$PATH" "$venv/bin/ansible-test" sanity --venv --requirements --python "$python" --color no
  ) 9>"$HOME/.ansible/test/sanity.lock" >"$work/log" 2>&1; then
    grep -E '^(Running sanity test|WARNING: Skipping)' "$work/log" | sed 's/^/   /' || true
    echo "sanity ansible-core $core: passed ($((SECONDS - start)) s)"
    bash "$here/../count-line.sh" passed
  else
    grep -vE '^(Collecting|Downloading|Installing|Successfully|Using cached|Processing|Looking in|  |Attempting|    )' "$work/log" | sed 's/^/   /'
    echo "sanity ansible-core $core: failed ($((SECONDS - start)) s)"
    bash "$here/../count-line.sh" failed
    failed="$failed $core"
  fi
  rm -rf "$work"
done
[ -z "$failed" ] || { echo "sanity.sh: failed on ansible-core$failed" >&2; exit 1; }
