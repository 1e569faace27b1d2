#!/usr/bin/env bash
# make demo: the 2022 upgrade caught before it breaks anything, then the migration that makes it safe, on the lab.
#   1. start the lab as a cluster Kubespray 2.18 installed (IPIP Always, backend bird), with the prober
#   2. calico_pool_check with Kubespray 2.19's defaults: blocked, field by field, with the remedy
#   3. calico_encap_migrate to VXLAN with backend vxlan, while the prober measures packet loss
#   4. calico_pool_check with Kubespray 2.19's defaults again: passes
#   5. stop the lab
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH" ANSIBLE_CONFIG="$PWD/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0

say() { printf '\n=== %s\n' "$*"; }
trap 'bash test/lab/lab.sh down >/dev/null 2>&1 || true' EXIT

say "1. Starting the lab as Kubespray 2.18 left it (IPIP Always, backend bird, Felix ipipEnabled: true)"
PROFILE=kubespray-2.18 NODES=3 bash test/lab/lab.sh up
. .lab/env
for _ in $(seq 1 60); do
	[ "$(jq -r '.summary.podsReady' .lab/standin/status.json 2>/dev/null)" = 3 ] && break
	sleep 0.5
done
node dist/test/lab/prober/control.js start --spec .lab/dataplane/desired.json --max-seconds 600
lab_args="calicoctl_path=$LAB_CALICOCTL_SH kubectl_path=$LAB_BIN_DIR/kubectl kubeconfig=$KUBECONFIG"
kubespray_219="ipip_mode=Never vxlan_mode=Always network_backend=vxlan pool_blocksize=24"
module() { # module NAME ARGS: the module's verdict, message and warnings as a person reads them
	local out
	out=$(ansible localhost -i localhost, -c local -e "ansible_python_interpreter=$PWD/.venv/bin/python" -m "$1" -a "$2" 2>&1 || true)
	case $out in *"| FAILED!"*) printf 'BLOCKED/FAILED: ' ;; *) printf 'ok: ' ;; esac
	sed -n '/=> {/,$p' <<<"$out" | sed '1s/^[^{]*=> //' | jq -r '.msg'
	grep '^\[WARNING\]: ' <<<"$out" | sed 's/^\[WARNING\]: /warning: /' || true
}

say "2. calico_pool_check with Kubespray 2.19's defaults (the 2022 upgrade): expect BLOCKED"
module calico_pool_check "$lab_args $kubespray_219"

say "3. calico_encap_migrate to VXLAN with backend vxlan, the prober sending 600 probes per second"
node dist/test/lab/prober/control.js reset
module calico_encap_migrate "$lab_args ipip_mode=Never vxlan_mode=Always network_backend=vxlan wait_sleep=1" | tr ';' '\n'
node dist/test/lab/prober/control.js read | jq -r '"prober: \(.lost) of \(.sent) probes lost during the migration, longest gap \(.longest_gap_ms) ms"'

say "4. calico_pool_check with Kubespray 2.19's defaults again: expect a pass"
module calico_pool_check "$lab_args $kubespray_219"

say "5. Stopping the lab"
