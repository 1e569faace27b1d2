#!/usr/bin/env bash
# make demo: the 2022 upgrade caught before it breaks anything, then the migration that makes it safe, on the lab,
# with the collection's playbooks as a user runs them: make collection's tarball installed with ansible-galaxy into a
# folder of its own, then `ansible-playbook calico_encap.kubespray.<playbook>` against the lab's inventory over SSH,
# as against a Kubespray inventory, with an ansible.cfg that names only that folder and a PATH without this checkout:
#   1. start the lab as Kubespray v2.18.2's own Calico role installs it (IPIP Always, backend bird), with the prober
#   2. the preflight with Kubespray 2.19's defaults: blocked, field by field, with the remedy
#   3. the migration to Kubespray 2.19's encapsulation (VXLAN, backend vxlan) with its progress (-v), every node's VTEP
#      first allocated from a Tunnel-only pool (calico_encap_tunnel_pool_cidr), while the prober measures packet
#      loss between pods on different nodes and from each node to the other nodes' pods, held to a bound from the same
#      run (test/lab/demo-bound.ts: every lost probe sent during the pool switch step, the longest gap below it)
#   4. the preflight with Kubespray 2.19's defaults again: passes
#   5. stop the lab
# The lab is the default one (.lab, default ports) unless LAB_STATE and the other LAB_* variables say otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
state=${LAB_STATE:-$PWD/.lab}
venv_bin=$PWD/.venv/bin
inventory=$state/inventory.ini
prober() { node dist/test/lab/prober/control.js "$@" --state "$state"; }

say() { printf '\n=== %s\n' "$*"; }
die() {
	printf '\ndemo: %s\n' "$*" >&2
	exit 1
}
collections=$(mktemp -d)
trap 'bash test/lab/lab.sh down >/dev/null 2>&1 || true; rm -rf "$collections"' EXIT

# A Kubespray v2.19.1 fork, as its user has it: the release's tree (its roles linked from ../shared/kubespray, never
# copied) with the inventory inside it (inventory/lab/, a copy of the lab's without its calico_encap_kubespray_tree
# line). The role finds the tree two levels above the inventory and falls back to v2.19.1's own
# defaults where the inventory is silent: IPIP Never, VXLAN Always, backend vxlan, the pool's block size
# kube_network_node_prefix (24).
kubespray_tree=${KUBESPRAY_TREES:-$PWD/../shared/kubespray}/v2.19.1
[ -d "$kubespray_tree/roles/network_plugin/calico" ] || die "no Kubespray v2.19.1 tree at $kubespray_tree (set KUBESPRAY_TREES)"
fork=$collections/kubespray

# The collection, installed as a user installs it (make demo's setup built the tarball).
tarball=$(bash test/collection/tarball.sh) || die "no collection to install"
"$venv_bin/ansible-galaxy" collection install -p "$collections" "$tarball" >/dev/null ||
	die "ansible-galaxy collection install $tarball failed"
printf '[defaults]\ncollections_path = %s\nhost_key_checking = False\ninterpreter_python = auto_silent\n' \
	"$collections" >"$collections/ansible.cfg"
user_path=$(tr ':' '\n' <<<"$PATH" | grep -v "^$PWD" | paste -sd: -)

# playbook NAME ARGS...: ansible-playbook's own output, with each result's JSON dump cut (the module's message is
# printed above it as text) and the source excerpts of errors left out; the whole output is kept in
# <state>/playbook-NAME.out. Returns ansible-playbook's exit code.
playbook() {
	local name=$1
	shift
	printf '$ ansible-playbook -i %s calico_encap.kubespray.%s %s\n' "${inventory/#$fork\//}" "$name" "$*"
	set +e
	PATH="$venv_bin:$user_path" ANSIBLE_CONFIG="$collections/ansible.cfg" ANSIBLE_NOCOLOR=1 \
		"$venv_bin/ansible-playbook" -i "$inventory" "calico_encap.kubespray.$name" "$@" 2>&1 |
		tee "$state/playbook-$name.out" |
		awk '
			/^Origin: / { skip = 1; next }
			skip && (/^[ \t]*\^ column/ || /^(fatal|ok|changed|TASK|PLAY)/) { skip = 0; if (/\^ column/) next }
			skip { next }
			/^(ok|changed|fatal|failed): \[[^]]*\].* => \{.*\}$/ { sub(/ => \{.*$/, "") }
			{ print }
		' | cat -s
	local rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

mkdir -p "$fork/inventory/lab"
ln -s "$kubespray_tree/roles" "$fork/roles"

say "1. Starting the lab as Kubespray v2.18.2's Calico role installs it (IPIP Always, backend bird, Felix ipipEnabled: true, vxlanEnabled: false)"
PROFILE=kubespray-2.18 NODES=3 bash test/lab/lab.sh up
for _ in $(seq 1 120); do
	[ "$(jq -r '.summary.podsReady' "$state/kubelet/status.json" 2>/dev/null)" = 3 ] && break
	sleep 0.5
done
prober start --pods "$state/kubelet/pods.json" --max-seconds 900
grep -v '^calico_encap_kubespray_tree=' "$state/inventory.ini" >"$fork/inventory/lab/hosts.ini"
inventory=$fork/inventory/lab/hosts.ini

say "2. The preflight with Kubespray 2.19's defaults (the 2022 upgrade): expect it to block"
if playbook preflight; then die "the preflight passed; it should have blocked the 2.19 defaults"; fi

say "3. The migration to Kubespray 2.19's encapsulation (VXLAN, backend vxlan) with a tunnel pool for the VTEPs, the prober sending about 1200 probes a second"
prober reset
sleep 1
playbook migrate -v -e calico_encap_wait_sleep=1 -e calico_encap_tunnel_pool_cidr=172.30.0.0/24 || die "the migration failed"
prober read >"$state/prober-migrate.json"
jq -r '"prober: \(.lost) of \(.sent) probes (pod to pod and host to remote pod, across nodes) lost during the migration, longest gap \(.longest_gap_ms) ms"' "$state/prober-migrate.json"
node dist/test/lab/demo-bound.js "$state/playbook-migrate.out" "$state/prober-migrate.json" || die "the prober's figure broke the bound"

say "4. The preflight with Kubespray 2.19's defaults again: expect it to pass"
playbook preflight || die "the preflight failed after the migration"

say "5. Stopping the lab"
