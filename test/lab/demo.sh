#!/usr/bin/env bash
# make demo: the 2022 upgrade caught before it breaks anything, on the lab.
#   1. start the lab as a cluster Kubespray 2.18 installed (IPIP Always, backend bird)
#   2. calico_pool_check with Kubespray 2.19's defaults: blocked, field by field, with the remedy
#   3. calico_pool_check with the pinned variables it printed: passes
#   4. stop the lab
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0

say() { printf '\n=== %s\n' "$*"; }
trap 'bash test/lab/lab.sh down >/dev/null 2>&1 || true' EXIT

say "Starting the lab as Kubespray 2.18 left it (IPIP Always, backend bird, Felix ipipEnabled: true)"
PROFILE=kubespray-2.18 NODES=3 bash test/lab/lab.sh up
. .lab/env
lab_args="calicoctl_path=$LAB_CALICOCTL_SH kubectl_path=$LAB_BIN_DIR/kubectl kubeconfig=$KUBECONFIG"
check() { ansible localhost -c local -e "ansible_python_interpreter=$PWD/.venv/bin/python" -m calico_pool_check -a "$lab_args $*" -o 2>&1 |
	sed -e 's/^\[ERROR\]: Task failed: Module failed: //' -e '/^Origin: /,$d'; }

say "calico_pool_check with Kubespray 2.19's defaults (the 2022 upgrade): expect BLOCKED"
check "" || true

say "calico_pool_check with the pinned variables it printed: expect a pass"
check "ipip_mode=Always vxlan_mode=Never network_backend=bird pool_blocksize=24" | cut -c1-160

say "Stopping the lab"
