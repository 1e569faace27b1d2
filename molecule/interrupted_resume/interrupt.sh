#!/usr/bin/env bash
# interrupt.sh ANSIBLE-PLAYBOOK-COMMAND...
# Runs the migration (the ansible-playbook command given) in a session of its own, waits until IPPool
# default-pool has switched to VXLAN (the migration's second write; calico-config still says bird), then kills
# every process of that run with SIGKILL, as when the controller dies mid-run: ansible-playbook and every process
# descended from it here (its workers start sessions of their own, so its process group does not hold them; in
# bridge mode the backend is one of them), and in module mode the module's processes in the lab's node-1 network
# namespace. Needs root (ip netns).
set -euo pipefail
state=${LAB_STATE:-$(cd "$(dirname "$0")/../.." && pwd)/.lab}
# shellcheck disable=SC1091
. "$state/env"
lab_kubectl() { "$LAB_BIN_DIR/kubectl" --kubeconfig "$KUBECONFIG" "$@"; }
# tree PID: PID and every process descended from it.
tree() {
	local all queue=("$1") p
	all=$(ps -eo pid=,ppid=)
	while [ ${#queue[@]} -gt 0 ]; do
		p=${queue[0]} queue=("${queue[@]:1}")
		echo "$p"
		# shellcheck disable=SC2207
		queue+=($(awk -v p="$p" '$2 == p { print $1 }' <<<"$all"))
	done
}
vxlan_mode() { lab_kubectl get ippools.crd.projectcalico.org default-pool -o 'jsonpath={.spec.vxlanMode}'; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
setsid "$@" >"$log" 2>&1 </dev/null &
run=$!
deadline=$((SECONDS + 120))
until [ "$(vxlan_mode)" = Always ]; do
	if ! kill -0 "$run" 2>/dev/null; then
		echo "The migration ended before its pool write was seen (expected to kill it mid-run). Its output:" >&2
		cat "$log" >&2
		exit 1
	fi
	if [ "$SECONDS" -ge "$deadline" ]; then
		# shellcheck disable=SC2046
		kill -KILL $(tree "$run") 2>/dev/null || true
		echo "IPPool default-pool did not switch to VXLAN within 120 s of starting the migration. Its output:" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done
# Stop the whole tree first so nothing forks meanwhile, then kill what it holds.
# shellcheck disable=SC2046
kill -STOP $(tree "$run") 2>/dev/null || true
victims=$(tree "$run")
# shellcheck disable=SC2086
kill -KILL $victims 2>/dev/null || true
echo "pool switched to VXLAN: killed ansible-playbook and its descendants (pids $(echo $victims))"
remote=0
for pid in $(ip netns pids "${LAB_NETNS_PREFIX}node-1"); do
	cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
	if [[ $cmd == *calico_encap_migrate* ]] && kill -KILL "$pid" 2>/dev/null; then
		remote=$((remote + 1))
		echo "killed process $pid on node-1: $cmd"
	fi
done
[ "$remote" -gt 0 ] || echo "no calico_encap_migrate process running on node-1"
wait "$run" 2>/dev/null || true
