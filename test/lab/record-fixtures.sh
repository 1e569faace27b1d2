#!/usr/bin/env bash
# Records real calicoctl and kubectl output from the lab as unit-test fixtures:
#   test/fixtures/lab/<profile>/<name>.json (stdout) and commands.json (argv, rc, stderr of each).
# Brings up its own lab per profile (state in a temporary folder, ports LAB_FIXTURE_PORT_BASE
# +0..+4, default 24790..24794; bridge calabf, namespaces calabf-node-*, underlay 172.31.245.0/24) so a lab
# already running with the default ports, bridge and underlay is left alone.
#   record-fixtures.sh [PROFILE...]     default: every profile; NODES=3
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUT_ROOT=${FIXTURES_DIR:-$REPO_DIR/test/fixtures/lab}
base=${LAB_FIXTURE_PORT_BASE:-24790}
export LAB_ETCD_PORT=$base LAB_ETCD_PEER_PORT=$((base + 1)) LAB_APISERVER_PORT=$((base + 2))
export LAB_KCM_PORT=$((base + 3)) LAB_SCHEDULER_PORT=$((base + 4))
export LAB_BRIDGE=calabf LAB_NETNS_PREFIX=calabf- LAB_UNDERLAY=172.31.245
export NODES=${NODES:-3}
LAB_STATE=$(mktemp -d /tmp/calico-encap-fixtures.XXXXXX)/lab
export LAB_STATE
trap 'bash "$LAB_DIR/lab.sh" down >/dev/null 2>&1 || true; rm -rf "$(dirname "$LAB_STATE")"' EXIT

# What the check's calicoctl read asks on its stdin (src/cluster/read-calicoctl.ts, calicoctlRead; printf %b).
KINDS_REQUEST='apiVersion: projectcalico.org/v3\nkind: IPPool\n---\napiVersion: projectcalico.org/v3\nkind: FelixConfiguration\n---\napiVersion: projectcalico.org/v3\nkind: ClusterInformation\n'

# The commands a check runs, named by the file their stdout goes to, and what each reads on stdin, if anything
# ("name|command" or "name|command|stdin"). `calicoctl.sh` and `kubectl` are the lab's wrappers in
# .lab/usr/local/bin (Kubespray's bin_dir).
COMMANDS=(
	"calicoctl-get-kinds|calicoctl.sh get -f - -o json|$KINDS_REQUEST"
	"calicoctl-get-nodes|calicoctl.sh get nodes -o json"
	"calicoctl-version|calicoctl.sh version"
	"kubectl-get-ippools|kubectl get ippools.crd.projectcalico.org -o json"
	"kubectl-get-felixconfigurations|kubectl get felixconfigurations.crd.projectcalico.org -o json"
	"kubectl-get-clusterinformations|kubectl get clusterinformations.crd.projectcalico.org -o json"
	"kubectl-get-configmap-calico-config|kubectl -n kube-system get configmap calico-config -o json"
	"kubectl-get-daemonset-calico-node|kubectl -n kube-system get daemonset calico-node -o json"
	"kubectl-get-nodes|kubectl get nodes -o json"
)

# pre-3.23 is recorded on the seed era's real Calico, v3.22.0 on kube-apiserver v1.24.17 (make seed-era-build), whose
# calico-node runs for real there (lab.sh); its version variables go to that profile's lab alone.
profile_env() {
	if [ "$1" = pre-3.23 ]; then echo "LAB_CALICO=${LAB_CALICO_PRE_323:-v3.22.0} LAB_KUBERNETES=v1.24"; fi
}

record_profile() {
	local profile=$1 out=$OUT_ROOT/$1 entry name cmd input rc manifest='[]' stdout stderr
	# shellcheck disable=SC2046 # profile_env prints VAR=value words
	env $(profile_env "$profile") bash "$LAB_DIR/lab.sh" up "$profile"
	# shellcheck disable=SC1091
	(
		source "$LAB_STATE/env"
		rm -rf "$out"
		mkdir -p "$out"
		for entry in "${COMMANDS[@]}"; do
			name=${entry%%|*}
			cmd=${entry#*|}
			input=
			if [[ $cmd == *"|"* ]]; then input=$(printf '%b' "${cmd#*|}"; echo .) input=${input%.} cmd=${cmd%%|*}; fi
			stdout=$out/$name.json
			[ "$name" = calicoctl-version ] && stdout=$out/$name.txt
			rc=0
			stderr=$( (read -ra argv <<<"$cmd" && printf '%s' "$input" | "${argv[@]}") 2>&1 >"$stdout") || rc=$?
			[ -s "$stdout" ] || rm -f "$stdout"
			manifest=$(jq -c --arg name "$name" --arg cmd "$cmd" --argjson rc "$rc" --arg stderr "$stderr" \
				--arg file "$( [ -e "$stdout" ] && basename "$stdout" || true)" --arg input "$input" \
				'. + [{name: $name, argv: ($cmd | split(" ")), rc: $rc,
					stdout_file: (if $file == "" then null else $file end), stderr: $stderr}
					+ (if $input == "" then {} else {stdin: $input} end)]' <<<"$manifest")
		done
		jq -n --arg profile "$profile" --argjson nodes "$NODES" --argjson commands "$manifest" \
			--arg calicoctl "$LAB_CALICO_RELEASE" --arg k8s "$(kubectl version -o json | jq -r .serverVersion.gitVersion)" --arg etcd "$ETCD_VERSION" '{
			profile: $profile, nodes: $nodes,
			versions: {calicoctl: $calicoctl, kubernetes: $k8s, etcd: $etcd},
			commands: $commands}' >"$out/commands.json"
	)
	bash "$LAB_DIR/lab.sh" down
	echo "[fixtures] $profile -> $out" >&2
}

profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(kubespray-2.18 kubespray-2.19 fresh crosssubnet dualstack pre-3.23 etcd)
for p in "${profiles[@]}"; do record_profile "$p"; done
