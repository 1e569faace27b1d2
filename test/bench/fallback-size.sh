#!/usr/bin/env bash
# The BIRD-path fallback's cost on one host as the cluster grows (issue 52 item 2): the role's fallback_install and
# fallback_remove, run for real by ansible-playbook inside a network namespace of their own (the kernel's rules and
# routes), with the routes of PEERS remote nodes' blocks (one /26 each) via their VTEPs on a vxlan.calico device, and
# one of this Node's own, in the one list for the cluster calico_encap_migrate returns. Prints, per size, the seconds
# of the install and the removal and the size of the routes as the role gets them (JSON). Not part of make test.
#   bash test/bench/fallback-size.sh [PEERS...]      (default: 3 100 1000)
# Env: ROLES (the roles folder, default ansible/roles of this checkout), VENV_BIN (default .venv/bin).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
roles=${ROLES:-$here/ansible/roles}
bin=${VENV_BIN:-$here/.venv/bin}
ns=calico-encap-fs-$$
dir=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null || true; rm -rf "$dir"' EXIT
ip netns add "$ns"
for line in "link set lo up" "link add eth0 type veth peer name eth0-peer" "addr add 192.0.2.10/24 dev eth0" \
	"link add vxlan.calico type vxlan id 4096 dstport 4789 dev eth0" "link set eth0-peer up" "link set eth0 up" \
	"link set vxlan.calico up"; do
	# shellcheck disable=SC2086 # a line is ip's words
	ip -n "$ns" $line
done
run() { # tasks vars-file
	cat >"$dir/play.yml" <<EOF
- hosts: localhost
  gather_facts: false
  vars_files: [$2]
  tasks:
    - ansible.builtin.include_role: {name: calico_encap, tasks_from: $1}
EOF
	ip netns exec "$ns" env ANSIBLE_ROLES_PATH="$roles" ANSIBLE_CONFIG="$here/ansible.cfg" ANSIBLE_LOCALHOST_WARNING=0 \
		"$bin/ansible-playbook" -i localhost, -c local -e "ansible_python_interpreter=$bin/python" "$dir/play.yml" >"$dir/out.log" 2>&1 ||
		{ cat "$dir/out.log" >&2; exit 1; }
}
printf 'peers\troutes\tinstall_s\tremove_s\troutes_json_bytes\n'
for peers in "${@:-3 100 1000}"; do
	for p in $peers; do
		python3 - "$p" >"$dir/vars.json" <<'EOF'
import json, sys
n = int(sys.argv[1])
routes = [{"dst": f"10.{64 + i // 1024}.{(i // 4) % 256}.{(i % 4) * 64}/26", "via": f"172.30.{i // 250}.{i % 250 + 1}",
           "dev": "vxlan.calico", "onlink": True, "peer": f"node-{i + 2}"} for i in range(n)]
# One list for the cluster (issue 52): the peers' blocks and node-1's own, which node-1 does not install.
routes.append({"dst": "10.127.255.192/26", "via": "172.30.255.1", "dev": "vxlan.calico", "onlink": True, "peer": "node-1"})
print(json.dumps({"calico_encap_fallback_node": "node-1", "calico_encap_fallback_cidrs": ["10.64.0.0/10"],
                  "calico_encap_fallback_routes": routes, "calico_encap_fallback_nodes": ["node-1"]}))
EOF
		bytes=$(python3 -c 'import json,sys; print(len(json.dumps(json.load(open(sys.argv[1]))["calico_encap_fallback_routes"])))' "$dir/vars.json")
		t0=$(date +%s.%N)
		run fallback_install "$dir/vars.json"
		t1=$(date +%s.%N)
		have=$(ip -n "$ns" -4 route show table 1041 | wc -l)
		run fallback_remove "$dir/vars.json"
		t2=$(date +%s.%N)
		[ "$have" -eq "$p" ] || { echo "expected $p routes in table 1041, found $have" >&2; exit 1; }
		[ -z "$(ip -n "$ns" -4 route show table 1041)" ] || { echo "routes left in table 1041" >&2; exit 1; }
		printf '%s\t%s\t%.1f\t%.1f\t%s\n' "$p" "$have" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$bytes"
	done
done
