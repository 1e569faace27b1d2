#!/usr/bin/env bash
# The lab's control plane: etcd, kube-apiserver, kube-controller-manager and kube-scheduler on
# 127.0.0.1, built by build.sh, seeded as a Kubespray-installed Calico cluster.
#
#   lab.sh up [PROFILE]   start and seed (PROFILE env or arg, default kubespray-2.18; NODES=3)
#   lab.sh down           stop everything and remove the state folder
#   lab.sh status         JSON: processes, apiserver readiness, profile, node count, memory
#
# State lives in $LAB_STATE (default <repo>/.lab). Ports: LAB_ETCD_PORT (23790),
# LAB_ETCD_PEER_PORT (23800), LAB_APISERVER_PORT (26443), LAB_KCM_PORT (26257),
# LAB_SCHEDULER_PORT (26259). LAB_KEEP_FAILED=1 leaves a failed `up` running for a look. LAB_KEEP_LOGS=DIR makes
# `down` copy the lab's logs (the control plane's, the kubelet's, each calico-node service's) into a new folder in DIR.
# LAB_AUDIT=1 makes kube-apiserver write its audit log, every request at Metadata level (who, verb, resource, name,
# namespace, response code), as JSON lines in <state>/log/audit.log: the record least-privilege.test reads.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LAB_STATE=${LAB_STATE:-$REPO_DIR/.lab}
LAB_ETCD_PORT=${LAB_ETCD_PORT:-23790}
LAB_ETCD_PEER_PORT=${LAB_ETCD_PEER_PORT:-23800}
LAB_APISERVER_PORT=${LAB_APISERVER_PORT:-26443}
LAB_KCM_PORT=${LAB_KCM_PORT:-26257}
LAB_SCHEDULER_PORT=${LAB_SCHEDULER_PORT:-26259}
LAB_ETCD_URL=http://127.0.0.1:$LAB_ETCD_PORT
LAB_APISERVER_URL=https://127.0.0.1:$LAB_APISERVER_PORT
PROCESSES=(etcd kube-apiserver kube-controller-manager kube-scheduler)
PROFILES="kubespray-2.18 kubespray-2.19 kubespray-2.31 kubespray-2.31-ipip fresh uninstalled crosssubnet dualstack pre-3.23 etcd"

# Kubespray-like layout inside the state folder.
KUBE_DIR=$LAB_STATE/etc/kubernetes
BIN_DIR=$LAB_STATE/usr/local/bin
PKI=$LAB_STATE/pki
RUN=$LAB_STATE/run
LOGS=$LAB_STATE/log

log() { printf '[lab] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

kc() { "$LAB_BIN/kubectl" --kubeconfig "$KUBE_DIR/admin.conf" "$@"; }
calicoctl_sh() { "$BIN_DIR/calicoctl.sh" "$@"; }

# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 0.5 s. COMMAND's output is dropped, but fd 3 reaches
# wait_for's stderr, so a condition that sees the wait can never succeed can say why (>&3) and exit.
wait_for() {
	local secs=$1 what=$2 deadline
	shift 2
	deadline=$((SECONDS + secs))
	until "$@" 3>&2 >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || die "timed out after ${secs}s waiting for $what (logs: $LOGS)"
		sleep 0.5
	done
}

# render FILE: envsubst, keeping a line that ends in `#?VAR` only when VAR is non-empty.
render() {
	local line var
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ ^(.*[^[:space:]])[[:space:]]*#\?([A-Za-z_][A-Za-z0-9_]*)$ ]]; then
			var=${BASH_REMATCH[2]}
			[ -n "${!var:-}" ] || continue
			line=${BASH_REMATCH[1]}
		fi
		printf '%s\n' "$line"
	done <"$LAB_DIR/seed/$1" | envsubst
}

# ---- profiles ----------------------------------------------------------------------------
# Each variable is set only when the caller has not set it (so any can be overridden);
# an empty value removes the optional field it feeds.
profile_vars() {
	local p=$1
	case " $PROFILES " in *" $p "*) ;; *) die "unknown profile '$p' (one of: $PROFILES)" ;; esac
	LAB_PROFILE=$p
	# A profile's own values first: `: ${X=v}` sets X only while it is unset, so whatever the
	# caller exported wins, then the profile, then the Kubespray 2.18 base below.
	case $p in
	# Calico as Kubespray v2.18.2's real role installs it, its defaults (IPIP Always, backend bird) in the
	# inventory (kubespray_install); the variables below then feed only the hand-written seed, which stands in
	# where the real calico-node does not run (LAB_DATAPLANE=0, a stand-in) or with LAB_KUBESPRAY_INSTALL= .
	kubespray-2.18) : "${LAB_KUBESPRAY_INSTALL=v2.18.2}" ;;
	# Calico as Kubespray v2.31.0's real role installs it: with its defaults (VXLAN Always, backend vxlan), or with
	# the inventory of a user who kept IP-in-IP through the releases (kubespray-2.31-ipip). The seed variables stand
	# for the same where the role does not run.
	kubespray-2.31)
		: "${LAB_KUBESPRAY_INSTALL=v2.31.0}"
		: "${POOL_IPIP_MODE=Never}" "${POOL_VXLAN_MODE=Always}" "${POOL_BLOCKSIZE=26}" "${CALICO_BACKEND=vxlan}"
		: "${FELIX_IPIP_ENABLED=false}" "${FELIX_VXLAN_ENABLED=true}"
		;;
	kubespray-2.31-ipip)
		local pinned='{"calico_ipip_mode":"Always","calico_vxlan_mode":"Never","calico_network_backend":"bird"}'
		: "${LAB_KUBESPRAY_INSTALL=v2.31.0}" "${LAB_KUBESPRAY_VARS=$pinned}"
		: "${POOL_BLOCKSIZE=26}" "${FELIX_VXLAN_ENABLED=false}"
		;;
	crosssubnet) : "${POOL_IPIP_MODE=CrossSubnet}" ;;
	kubespray-2.19 | dualstack)
		: "${POOL_IPIP_MODE=Never}" "${POOL_VXLAN_MODE=Always}" "${POOL_BLOCKSIZE=26}" "${CALICO_BACKEND=vxlan}"
		: "${FELIX_IPIP_ENABLED=}" "${FELIX_VXLAN_ENABLED=}"
		if [ "$p" = dualstack ]; then : "${POOL6_CIDR=fd85:ee78:d8a6:8607::1:0/112}"; fi
		;;
	pre-3.23) : "${CALICO_SEED_VERSION=v3.22.5}" "${FELIX_VXLAN_ENABLED=false}" ;;
	etcd) : "${CALICO_DATASTORE=etcd}" ;;
	fresh) : "${CALICO_WITH_CALICO=no}" ;;
	# No Calico yet, but the nodes are ready for it: the lab kubelet runs, the prober's pods wait for a network,
	# and Kubespray's real Calico role installs Calico (test/support/kubespray.ts).
	uninstalled) : "${CALICO_WITH_CALICO=no}" ;;
	esac
	# Kubespray 2.18 defaults (IPIP Always, backend bird, Felix ipipEnabled explicit).
	# The seed's ClusterInformation and image tag: v3.32.1 with the default Calico (as before the real calico-node ran
	# here; its -startup then writes its own v3.31.0), the release itself with LAB_CALICO=v3.30.1.
	local seed_version=v3.32.1
	[ "$LAB_CALICO" = v3.31.0 ] || seed_version=$CALICO_RELEASE
	: "${CALICO_DATASTORE=kdd}" "${CALICO_WITH_CALICO=yes}" "${CALICO_SEED_VERSION=$seed_version}"
	: "${POOL_NAME=default-pool}" "${POOL_CIDR=10.233.64.0/18}" "${POOL_BLOCKSIZE=24}"
	: "${POOL_IPIP_MODE=Always}" "${POOL_VXLAN_MODE=Never}" "${POOL_NAT_OUTGOING=true}"
	: "${POOL6_CIDR=}" "${POOL6_BLOCKSIZE=122}" "${POOL6_VXLAN_MODE=Always}"
	: "${FELIX_IPIP_ENABLED=true}" "${FELIX_VXLAN_ENABLED=}" "${FELIX_VXLAN_VNI=}" "${FELIX_VXLAN_PORT=}"
	: "${CALICO_BACKEND=bird}"
	export POOL_NAME POOL_CIDR POOL_BLOCKSIZE POOL_IPIP_MODE POOL_VXLAN_MODE POOL_NAT_OUTGOING
	export FELIX_IPIP_ENABLED FELIX_VXLAN_ENABLED FELIX_VXLAN_VNI FELIX_VXLAN_PORT CALICO_BACKEND
	export CALICO_SEED_VERSION LAB_ETCD_URL
	# Derived from the above, as Kubespray's templates derive them.
	export CALICO_VXLAN_VNI=4096 CALICO_VXLAN_PORT=4789
	export CALICO_KDD= CALICO_ETCD=
	[ "$CALICO_DATASTORE" = etcd ] && CALICO_ETCD=yes || CALICO_KDD=yes
	export FELIX_VXLAN_ENV=
	export CALICO_IPV6= FELIX_IPV6SUPPORT=false
	[ -n "$POOL6_CIDR" ] && CALICO_IPV6=yes FELIX_IPV6SUPPORT=true
	export CALICO_IPV4POOL_IPIP
	[ "$POOL_IPIP_MODE" = Never ] && CALICO_IPV4POOL_IPIP=Off || CALICO_IPV4POOL_IPIP=$POOL_IPIP_MODE
	export CALICO_CLUSTER_TYPE CALICO_CLUSTER_TYPE_INFO CALICO_NODE_LIVENESS CALICO_NODE_READINESS
	if [ "$CALICO_BACKEND" = bird ]; then
		CALICO_CLUSTER_TYPE=kubespray,bgp
		CALICO_NODE_LIVENESS='["/bin/calico-node", "-felix-live", "-bird-live"]'
		CALICO_NODE_READINESS='["/bin/calico-node", "-bird-ready", "-felix-ready"]'
	else
		CALICO_CLUSTER_TYPE=kubespray
		CALICO_NODE_LIVENESS='["/bin/calico-node", "-felix-live"]'
		CALICO_NODE_READINESS='["/bin/calico-node", "-felix-ready"]'
		if [ "$CALICO_BACKEND" = vxlan ]; then FELIX_VXLAN_ENV=yes; fi
	fi
	[ "$CALICO_DATASTORE" = kdd ] && CALICO_CLUSTER_TYPE_INFO=$CALICO_CLUSTER_TYPE,kdd,k8s || CALICO_CLUSTER_TYPE_INFO=$CALICO_CLUSTER_TYPE,k8s
}

# ---- addresses ---------------------------------------------------------------------------
# Node i (1-based) sits at 172.31.250.(10+i) on the lab's private underlay (those addresses
# will only exist inside network namespaces the lab creates; nothing is sent to them here).
# Its IPAM block is the i-th block of each pool; its tunnel address is the block's first
# address, which is what Calico's IPAM hands out first.
UNDERLAY_PREFIX=24
UNDERLAY_PREFIX6=64
# LAB_UNDERLAY (first three octets) moves the underlay, so that two labs can run side by side.
node_ipv4() { echo "${LAB_UNDERLAY:-172.31.250}.$((10 + $1))"; }
node_ipv6() { echo "fd00:172:31:250::$((10 + $1))"; }

ip4_to_int() { local IFS=.; set -- $1; echo $((($1 << 24) + ($2 << 16) + ($3 << 8) + $4)); }
int_to_ip4() { echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }
# block4 CIDR BLOCKSIZE I: the I-th block (0-based) of the IPv4 pool.
block4() {
	local base=${1%/*} size=$2 i=$3
	echo "$(int_to_ip4 $(($(ip4_to_int "$base") + i * (1 << (32 - size)))))/$size"
}
# block6 CIDR BLOCKSIZE I: the I-th block of an IPv6 pool whose blocks differ in the last
# 32 bits only (true for /112 pools and larger blocks); base written with a `::` before its
# last two groups.
block6() {
	local base=${1%/*} size=$2 i=$3 hi g7 lo n
	lo=${base##*:}
	hi=${base%:*}
	g7=${hi##*:}
	hi=${hi%:*}
	n=$(((16#${g7:-0} << 16) + 16#${lo:-0} + i * (1 << (128 - size))))
	printf '%s:%x:%x/%s\n' "$hi" $(((n >> 16) & 0xffff)) $((n & 0xffff)) "$size"
}

# ---- start -------------------------------------------------------------------------------
require_binaries() {
	local b
	for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl calicoctl; do
		[ -x "$LAB_BIN/$b" ] || die "$LAB_BIN/$b missing: run test/lab/build.sh (make lab-build) first"
	done
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_process() { # name args...
	local name=$1
	shift
	setsid "$LAB_BIN/$name" "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
	echo $! >"$RUN/$name.pid"
}

make_pki() {
	mkdir -p "$PKI/apiserver"
	openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
	openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
	local admin kcm sched
	admin=$(openssl rand -hex 16)
	kcm=$(openssl rand -hex 16)
	sched=$(openssl rand -hex 16)
	{
		echo "$admin,kubernetes-admin,kubernetes-admin,\"system:masters\""
		echo "$kcm,system:kube-controller-manager,system:kube-controller-manager"
		echo "$sched,system:kube-scheduler,system:kube-scheduler"
	} >"$PKI/tokens.csv"
	chmod 600 "$PKI/tokens.csv" "$PKI/sa.key"
	printf '%s\n' "$admin" >"$PKI/admin.token"
	printf '%s\n' "$kcm" >"$PKI/kcm.token"
	printf '%s\n' "$sched" >"$PKI/scheduler.token"
}

# write_kubeconfig FILE USER TOKEN: the apiserver's self-signed bundle (written by --cert-dir)
# is the certificate authority.
write_kubeconfig() {
	local file=$1 user=$2 token=$3 ca
	ca=$(base64 -w0 <"$PKI/apiserver/apiserver.crt")
	cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: $LAB_APISERVER_URL
    certificate-authority-data: $ca
users:
- name: $user
  user:
    token: $token
contexts:
- name: $user@lab
  context:
    cluster: lab
    user: $user
current-context: $user@lab
EOF
	chmod 600 "$file"
}

start_control_plane() {
	mkdir -p "$RUN" "$LOGS" "$KUBE_DIR" "$BIN_DIR" "$LAB_STATE/data"
	make_pki
	start_process etcd --name lab --data-dir "$LAB_STATE/data/etcd" --unsafe-no-fsync \
		--listen-client-urls "$LAB_ETCD_URL" --advertise-client-urls "$LAB_ETCD_URL" \
		--listen-peer-urls "http://127.0.0.1:$LAB_ETCD_PEER_PORT" \
		--initial-advertise-peer-urls "http://127.0.0.1:$LAB_ETCD_PEER_PORT" \
		--initial-cluster "lab=http://127.0.0.1:$LAB_ETCD_PEER_PORT" \
		--listen-metrics-urls "" --log-level warn
	wait_for 30 "etcd health" curl -sf "$LAB_ETCD_URL/health"
	local audit=()
	if [ "${LAB_AUDIT:-0}" = 1 ]; then
		printf '%s\n' "apiVersion: audit.k8s.io/v1" "kind: Policy" "omitStages: [RequestReceived]" \
			"rules:" "  - level: Metadata" >"$PKI/audit-policy.yaml"
		audit=(--audit-policy-file "$PKI/audit-policy.yaml" --audit-log-path "$LOGS/audit.log"
			--audit-log-format json --audit-log-maxbackup 0)
	fi
	start_process kube-apiserver --etcd-servers "$LAB_ETCD_URL" --etcd-prefix /registry \
		--secure-port "$LAB_APISERVER_PORT" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
		--cert-dir "$PKI/apiserver" --service-cluster-ip-range 10.233.0.0/18 \
		--service-account-issuer https://kubernetes.default.svc \
		--service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
		--token-auth-file "$PKI/tokens.csv" --authorization-mode Node,RBAC \
		--disable-admission-plugins ServiceAccount --allow-privileged=true \
		--endpoint-reconciler-type none --profiling=false "${audit[@]}"
	wait_for 30 "the apiserver's certificate" test -s "$PKI/apiserver/apiserver.crt"
	write_kubeconfig "$KUBE_DIR/admin.conf" kubernetes-admin "$(cat "$PKI/admin.token")"
	write_kubeconfig "$KUBE_DIR/controller-manager.conf" system:kube-controller-manager "$(cat "$PKI/kcm.token")"
	write_kubeconfig "$KUBE_DIR/scheduler.conf" system:kube-scheduler "$(cat "$PKI/scheduler.token")"
	wait_for 120 "kube-apiserver /readyz" kc get --raw /readyz
	# v1.24's controller-manager names the service and route controllers service and route (v1.35.4's names are
	# service-lb-controller and node-route-controller); it refuses a name it does not know.
	local kcm_controllers='*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller'
	[ "$LAB_KUBERNETES" != v1.24 ] || kcm_controllers='*,-nodeipam,-cloud-node-lifecycle,-service,-route'
	start_process kube-controller-manager --kubeconfig "$KUBE_DIR/controller-manager.conf" \
		--authentication-kubeconfig "$KUBE_DIR/controller-manager.conf" \
		--authorization-kubeconfig "$KUBE_DIR/controller-manager.conf" \
		--bind-address 127.0.0.1 --secure-port "$LAB_KCM_PORT" --leader-elect=false \
		--use-service-account-credentials=true \
		--service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/apiserver/apiserver.crt" \
		--controllers "$kcm_controllers"
	start_process kube-scheduler --kubeconfig "$KUBE_DIR/scheduler.conf" \
		--authentication-kubeconfig "$KUBE_DIR/scheduler.conf" \
		--authorization-kubeconfig "$KUBE_DIR/scheduler.conf" \
		--bind-address 127.0.0.1 --secure-port "$LAB_SCHEDULER_PORT" --leader-elect=false
	wait_for 60 "kube-controller-manager /healthz" curl -skf "https://127.0.0.1:$LAB_KCM_PORT/healthz"
	wait_for 60 "kube-scheduler /healthz" curl -skf "https://127.0.0.1:$LAB_SCHEDULER_PORT/healthz"
}

# Kubespray's bin_dir and the sourceable env file.
write_layout() {
	ln -sf "$LAB_BIN/calicoctl" "$BIN_DIR/calicoctl"
	ln -sf "$LAB_BIN/kubectl" "$BIN_DIR/kubectl"
	if [ "$CALICO_DATASTORE" = etcd ]; then
		cat >"$BIN_DIR/calicoctl.sh" <<EOF
#!/bin/bash
ETCD_ENDPOINTS=$LAB_ETCD_URL \\
$BIN_DIR/calicoctl --allow-version-mismatch "\$@"
EOF
	else
		cat >"$BIN_DIR/calicoctl.sh" <<EOF
#!/bin/bash
DATASTORE_TYPE=kubernetes \\
KUBECONFIG=$KUBE_DIR/admin.conf \\
$BIN_DIR/calicoctl --allow-version-mismatch "\$@"
EOF
	fi
	chmod 755 "$BIN_DIR/calicoctl.sh"
	local datastore_env
	if [ "$CALICO_DATASTORE" = etcd ]; then
		datastore_env="export DATASTORE_TYPE=etcdv3
export ETCD_ENDPOINTS=$LAB_ETCD_URL"
	else
		datastore_env="export DATASTORE_TYPE=kubernetes"
	fi
	cat >"$LAB_STATE/env" <<EOF
# Written by test/lab/lab.sh up ($(date -u +%FT%TZ)). Source it: . .lab/env
export LAB_STATE=$LAB_STATE
export LAB_PROFILE=$LAB_PROFILE
export LAB_NODES=$NODES
export LAB_CALICO_DATASTORE=$CALICO_DATASTORE
export LAB_CALICO_RELEASE=$CALICO_RELEASE
export LAB_APISERVER_URL=$LAB_APISERVER_URL
export LAB_ETCD_URL=$LAB_ETCD_URL
export LAB_BIN=$LAB_BIN
export LAB_BIN_DIR=$BIN_DIR
export LAB_CALICOCTL_SH=$BIN_DIR/calicoctl.sh
export LAB_ADMIN_TOKEN=$(cat "$PKI/admin.token")
export KUBECONFIG=$KUBE_DIR/admin.conf
$datastore_env
export PATH=$BIN_DIR:\$PATH
EOF
	# DATASTORE_TYPE in etcd mode: calicoctl.sh sets ETCD_ENDPOINTS and relies on calicoctl's
	# default datastore (etcdv3), exactly like Kubespray's calicoctl.etcd.sh.
	printf '%s %s\n' "$LAB_PROFILE" "$NODES" >"$LAB_STATE/profile"
}

apply_crds() {
	local dir=$CALICO_MODULE_DIR/libcalico-go/config/crd
	[ -d "$dir" ] || (cd "$LAB_DIR/go/$CALICO_NODE_WRAPPER" && go mod download github.com/projectcalico/calico)
	[ -d "$dir" ] || die "Calico CRDs not found in $dir"
	kc create -f "$dir" >/dev/null
	kc wait --for condition=established --timeout=60s -f "$dir" >/dev/null
}

seed_calico() {
	# ClusterInformation first: calicoctl reads it for its version check.
	export CLUSTER_GUID
	CLUSTER_GUID=$(openssl rand -hex 16)
	if [ "$CALICO_DATASTORE" = kdd ]; then
		render clusterinformation.yaml | kc apply -f - >/dev/null
	else
		etcd_put /calico/resources/v3/projectcalico.org/clusterinformations/default "$(jq -cn \
			--arg v "$CALICO_SEED_VERSION" --arg guid "$CLUSTER_GUID" --arg type "$CALICO_CLUSTER_TYPE_INFO" \
			--arg uid "$(cat /proc/sys/kernel/random/uuid)" --arg ts "$(date -u +%FT%TZ)" '{
			kind: "ClusterInformation", apiVersion: "projectcalico.org/v3",
			metadata: {name: "default", uid: $uid, creationTimestamp: $ts},
			spec: {clusterGUID: $guid, clusterType: $type, calicoVersion: $v, datastoreReady: true}}')"
	fi
	render felixconfiguration.yaml | calicoctl_sh create -f - >/dev/null
	render ippool.yaml | calicoctl_sh create -f - >/dev/null
	if [ -n "$POOL6_CIDR" ]; then
		POOL_NAME=$POOL_NAME-ipv6 POOL_CIDR=$POOL6_CIDR POOL_BLOCKSIZE=$POOL6_BLOCKSIZE \
			POOL_IPIP_MODE=Never POOL_VXLAN_MODE=$POOL6_VXLAN_MODE POOL_NAT_OUTGOING=false \
			render ippool.yaml | calicoctl_sh create -f - >/dev/null
	fi
	render configmap.yaml | kc apply -f - >/dev/null
	render serviceaccount.yaml | kc apply -f - >/dev/null
	render daemonset.yaml | kc apply -f - >/dev/null
}

# etcd_put KEY VALUE: through etcd's JSON gateway (no etcdctl is built).
etcd_put() {
	curl -sf -X POST "$LAB_ETCD_URL/v3/kv/put" -d "$(jq -cn --arg k "$(printf %s "$1" | base64 -w0)" \
		--arg v "$(printf %s "$2" | base64 -w0)" '{key: $k, value: $v}')" >/dev/null
}

# node_vars I: the variables node.yaml and calico-node.yaml need for node I. No tunnel address is seeded: calico-node's
# allocate-tunnel-addrs assigns them from Calico IPAM (a seeded address with no IPAM objects behind it is one Calico
# itself would never produce, and real allocate-tunnel-addrs replaces it).
node_vars() {
	local i=$1
	export NODE_NAME=node-$i NODE_IPV4 NODE_IPV6= NODE_CONTROL_PLANE= NODE_WORKER=
	export CALICO_KDD_IPV6=
	export UNDERLAY_PREFIX UNDERLAY_PREFIX6
	NODE_IPV4=$(node_ipv4 "$i")
	if [ "$i" = 1 ]; then NODE_CONTROL_PLANE=yes; else NODE_WORKER=yes; fi
	[ "$CALICO_WITH_CALICO" = yes ] || return 0
	if [ -n "$POOL6_CIDR" ]; then
		NODE_IPV6=$(node_ipv6 "$i")
		[ "$CALICO_DATASTORE" = kdd ] && CALICO_KDD_IPV6=yes
	fi
	return 0
}

create_nodes() {
	local i status kdd_annotations=
	if [ "$CALICO_WITH_CALICO" = yes ] && [ "$CALICO_DATASTORE" = kdd ]; then kdd_annotations=yes; fi
	for ((i = 1; i <= NODES; i++)); do
		node_vars "$i"
		# Calico's KDD annotations only where calico-node would have written them.
		CALICO_KDD=$kdd_annotations render node.yaml | kc apply -f - >/dev/null
		status=$(jq -cn --arg ip4 "$NODE_IPV4" --arg ip6 "$NODE_IPV6" --arg name "$NODE_NAME" '{status: {
			addresses: ([{type: "InternalIP", address: $ip4}] + (if $ip6 == "" then [] else [{type: "InternalIP", address: $ip6}] end) + [{type: "Hostname", address: $name}]),
			capacity: {cpu: "2", memory: "4Gi", pods: "110"},
			allocatable: {cpu: "2", memory: "4Gi", pods: "110"}}}')
		kc patch node "$NODE_NAME" --subresource status --type merge -p "$status" >/dev/null
		if [ "$CALICO_WITH_CALICO" = yes ] && [ "$CALICO_DATASTORE" = etcd ]; then
			render calico-node.yaml | calicoctl_sh create -f - >/dev/null
		fi
	done
}

calico_node_pods_created() {
	[ "$(kc -n kube-system get pods -l k8s-app=calico-node -o name | wc -l)" -eq "$NODES" ]
}

# What a lab's env file exports for the shell that sources it (write_layout, dataplane_up, kubelet_up). None is an
# input of lab.sh up: a lab starts from what it creates itself, so a shell that sourced another lab's env (its admin
# token, kubeconfig, datastore) cannot leak into the new one.
# (LAB_APISERVER_URL and LAB_ETCD_URL are not among them: lab.sh computes both from its ports as it starts.)
LAB_ENV_OUTPUTS=(LAB_PROFILE LAB_NODES LAB_CALICO_DATASTORE LAB_CALICO_RELEASE LAB_BIN_DIR LAB_CALICOCTL_SH
	LAB_ADMIN_TOKEN KUBECONFIG DATASTORE_TYPE ETCD_ENDPOINTS LAB_INVENTORY LAB_SSH_KEY LAB_NODE1_BIN_DIR
	LAB_NODE1_KUBECONFIG LAB_CALICO_MODULE_DIR LAB_CALICO_NODE_RUNS)
forget_sourced_env() {
	local v seen=()
	for v in "${LAB_ENV_OUTPUTS[@]}"; do
		if [ -n "${!v+x}" ]; then seen+=("$v"); fi
		unset "$v"
	done
	[ ${#seen[@]} -eq 0 ] || log "ignoring what a sourced lab env set: ${seen[*]}"
}

cmd_up() {
	local start=$SECONDS
	forget_sourced_env
	NODES=${NODES:-3}
	[[ $NODES =~ ^[1-9][0-9]*$ ]] && [ "$NODES" -le 200 ] || die "NODES must be 1..200, got '$NODES'"
	profile_vars "${1:-${PROFILE:-kubespray-2.18}}"
	[ ! -e "$LAB_STATE/profile" ] || die "a lab is already up in $LAB_STATE (lab.sh down first)"
	require_binaries
	local p
	for p in "$LAB_ETCD_PORT" "$LAB_ETCD_PEER_PORT" "$LAB_APISERVER_PORT" "$LAB_KCM_PORT" "$LAB_SCHEDULER_PORT"; do
		port_free "$p" || die "port $p on 127.0.0.1 is taken (override with LAB_*_PORT)"
	done
	rm -rf "$LAB_STATE"
	mkdir -p "$LAB_STATE"
	trap 'rc=$?; if [ $rc -ne 0 ] && [ -z "${LAB_KEEP_FAILED:-}" ]; then log "up failed; stopping what started (LAB_KEEP_FAILED=1 keeps it)"; cmd_down >/dev/null 2>&1 || true; fi' EXIT
	# Kubespray's install needs the real calico-node (its role runs over SSH to node-1 and the lab kubelet runs its
	# DaemonSet); until it runs, the lab is the uninstalled profile.
	if [ -n "${LAB_KUBESPRAY_INSTALL:-}" ] && [ "$(calico_node_mode)" = real ]; then
		CALICO_WITH_CALICO=no
	else
		LAB_KUBESPRAY_INSTALL=
	fi
	log "profile $LAB_PROFILE, $NODES nodes, state in $LAB_STATE, Calico $CALICO_RELEASE${LAB_KUBERNETES:+, Kubernetes $K8S_VERSION} ($LAB_BIN)${LAB_KUBESPRAY_INSTALL:+, Calico installed by the Calico role of Kubespray $LAB_KUBESPRAY_INSTALL}"
	start_control_plane
	write_layout
	dataplane_up
	if [ "$CALICO_WITH_CALICO" = yes ]; then
		[ "$CALICO_DATASTORE" = kdd ] && apply_crds
		seed_calico
	fi
	create_nodes
	if [ "$CALICO_WITH_CALICO" = yes ]; then
		wait_for 60 "kube-controller-manager to create $NODES calico-node pods" calico_node_pods_created
	fi
	case $(calico_node_mode) in
	real)
		create_probe_pods
		kubelet_up
		;;
	standin) standin_up ;;
	none) ;;
	*) die "LAB_CALICO_NODE must be real, standin or none" ;;
	esac
	[ -z "$LAB_KUBESPRAY_INSTALL" ] || kubespray_install
	trap - EXIT
	echo $((SECONDS - start)) >"$LAB_STATE/up-seconds"
	log "up in $((SECONDS - start))s; source $LAB_STATE/env"
}

# ---- data plane (test/lab/net.sh owns it) -------------------------------------------------
# The first LAB_DATAPLANE_NODES (3) nodes as network namespaces on a private bridge, sshd in node-1's
# namespace; LAB_DATAPLANE=0 turns it off. LAB_BRIDGE, LAB_NETNS_PREFIX and LAB_UNDERLAY pass through.
net_sh() {
	LAB_STATE=$LAB_STATE LAB_APISERVER_PORT=$LAB_APISERVER_PORT LAB_ETCD_PORT=$LAB_ETCD_PORT bash "$LAB_DIR/net.sh" "$@"
}
dataplane_up() {
	[ "${LAB_DATAPLANE:-1}" != 0 ] || return 0
	local n=${LAB_DATAPLANE_NODES:-3}
	[ "$n" -le "$NODES" ] || n=$NODES
	LAB_DATAPLANE_NODES=$n net_sh up
	# shellcheck disable=SC1091
	. "$LAB_STATE/net/config"
	cat >>"$LAB_STATE/env" <<EOF
export LAB_NETNS_PREFIX=$LAB_NETNS_PREFIX
export LAB_BRIDGE=$LAB_BRIDGE
export LAB_UNDERLAY=$LAB_UNDERLAY
export LAB_DATAPLANE_NODES=$LAB_DATAPLANE_NODES
export LAB_INVENTORY=$LAB_STATE/inventory.ini
export LAB_SSH_KEY=$LAB_STATE/ssh/id_ed25519
export LAB_NODE1_BIN_DIR=$LAB_STATE/node-1/usr/local/bin
export LAB_NODE1_KUBECONFIG=$LAB_STATE/node-1/etc/kubernetes/admin.conf
EOF
}
dataplane_down() { [ ! -f "$LAB_STATE/net/config" ] || net_sh down || true; }
dataplane_status() {
	if [ -f "$LAB_STATE/net/config" ]; then net_sh status; else echo '{"dataplane": null, "prober": null}'; fi
}

# ---- calico-node: the real one under the lab's kubelet (test/lab/kubelet), or the stand-in -------------------
# real (the default with a data plane): the lab's kubelet runs the calico-node DaemonSet's pods with the real
# calico-node on the data-plane nodes' namespaces. standin: the TypeScript model (test/lab/standin), kept only for
# control-plane-only simulations of many nodes (LAB_DATAPLANE=0) and for the pre-3.23 profile (no calico-node
# older than the v3.30.1 the lab builds). none: nothing plays the nodes (LAB_STANDIN=0). LAB_CALICO_NODE overrides.
# Whether the lab's own Calico is older than v3.23 (LAB_CALICO=v3.22.0 or v3.21.4, lib.sh): then the pre-3.23 profile
# runs the real calico-node of that release, not the stand-in that plays one on a later Calico.
calico_before_3_23() {
	case $CALICO_RELEASE in v3.21.* | v3.22.*) return 0 ;; *) return 1 ;; esac
}
calico_node_mode() {
	if [ -n "${LAB_CALICO_NODE:-}" ]; then echo "$LAB_CALICO_NODE"; return; fi
	if [ "${LAB_STANDIN:-1}" = 0 ]; then echo none; return; fi
	if { [ "$LAB_PROFILE" = uninstalled ] || [ -n "${LAB_KUBESPRAY_INSTALL:-}" ]; } && [ "${LAB_DATAPLANE:-1}" != 0 ]; then
		echo real
	elif [ "${LAB_DATAPLANE:-1}" = 0 ] || { [ "$LAB_PROFILE" = pre-3.23 ] && ! calico_before_3_23; } || [ "$CALICO_WITH_CALICO" != yes ]; then
		echo standin
	else
		echo real
	fi
}

# The prober's pods: one per data-plane node, bound to it (as the scheduler would), networked by the lab's kubelet
# with the real Calico CNI plugin.
create_probe_pods() {
	local i n=${LAB_DATAPLANE_NODES:-3}
	[ "$n" -le "$NODES" ] || n=$NODES
	for ((i = 1; i <= n; i++)); do
		NODE_NAME=node-$i render probe-pod.yaml | kc apply -f - >/dev/null
	done
}

kubelet_up() {
	local main=$REPO_DIR/dist/test/lab/kubelet/main.js
	[ -f "$main" ] || die "$main missing: build first (npx tsc -p .)"
	[ -x "$LAB_BIN/calico-node" ] && [ -x "$LAB_BIN/calico-cni" ] || die "calico-node or calico-cni missing in $LAB_BIN: run test/lab/build.sh"
	[ -d "$CALICO_MODULE_DIR/confd" ] || (cd "$LAB_DIR/go/$CALICO_NODE_WRAPPER" && go mod download github.com/projectcalico/calico)
	echo "export LAB_CALICO_MODULE_DIR=$CALICO_MODULE_DIR" >>"$LAB_STATE/env"
	echo "export LAB_CALICO_NODE_RUNS=real" >>"$LAB_STATE/env"
	LAB_STATE=$LAB_STATE LAB_CALICO_MODULE_DIR=$CALICO_MODULE_DIR LAB_DATAPLANE_NODES=${LAB_DATAPLANE_NODES:-3} \
		LAB_NETNS_PREFIX=${LAB_NETNS_PREFIX:-calab-} LAB_CALICO_DATASTORE=$CALICO_DATASTORE \
		setsid node "$main" >"$LOGS/kubelet.log" 2>&1 </dev/null &
	echo $! >"$RUN/kubelet.pid"
	wait_for 30 "the lab kubelet's first status" kubelet_reported
	# Without Calico (the uninstalled profile) there is nothing to wait for until Kubespray's role installs it.
	[ "$CALICO_WITH_CALICO" = yes ] || return 0
	wait_for "${LAB_READY_TIMEOUT:-180}" "calico-node ready on every data-plane node and the prober's pods networked" kubelet_ready
}
# Kubespray's real Calico role installs Calico (test/lab/kubespray-install.ts, from the tree of the release in
# LAB_KUBESPRAY_INSTALL under KUBESPRAY_TREES, on the Ansible it pins; later starts create the objects its first run
# recorded, LAB_KUBESPRAY_REPLAY=0 runs it again); then calico-node starts as the lab kubelet runs the DaemonSet the
# role wrote. Ansible's output: log/kubespray-install.log.
kubespray_install() {
	local main=$REPO_DIR/dist/test/lab/kubespray-install.js t=$SECONDS
	[ -f "$main" ] || die "$main missing: build first (npx tsc -p .)"
	if ! LAB_STATE=$LAB_STATE LAB_KUBESPRAY_VARS=${LAB_KUBESPRAY_VARS:-} node "$main" "$LAB_KUBESPRAY_INSTALL" >"$LOGS/kubespray-install.log" 2>&1; then
		{
			log "error: Kubespray $LAB_KUBESPRAY_INSTALL's Calico role failed; the end of $LOGS/kubespray-install.log:"
			tail -n 15 "$LOGS/kubespray-install.log"
		} >&2
		exit 1
	fi
	log "$(tail -n 1 "$LOGS/kubespray-install.log") ($((SECONDS - t))s)"
	CALICO_WITH_CALICO=yes
	wait_for "${LAB_READY_TIMEOUT:-180}" "calico-node ready on every data-plane node and the prober's pods networked" kubelet_ready
}
# The kubelet's first status file; a kubelet that exited (the apiserver refused its token, say) ends the wait at
# once with the last lines of its log.
kubelet_reported() {
	[ -s "$LAB_STATE/kubelet/status.json" ] && return 0
	alive "$(pid_of kubelet)" && return 1
	kubelet_exited "before its first status"
}
kubelet_exited() {
	{
		log "error: the lab kubelet exited $1; the end of $LOGS/kubelet.log:"
		tail -n 5 "$LOGS/kubelet.log"
	} >&3
	exit 1
}
kubelet_ready() {
	alive "$(pid_of kubelet)" || kubelet_exited "while calico-node started"
	jq -e '(.summary.podsReady == .summary.nodes) and ([.probePods[] | select(.podIP == null)] | length == 0)' \
		"$LAB_STATE/kubelet/status.json" >/dev/null
}
kubelet_down() {
	local pid i
	pid=$(cat "$RUN/kubelet.pid" 2>/dev/null || true)
	pid_alive "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 80); do pid_alive "$pid" || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}

# ---- calico-node stand-in (test/lab/standin owns it) ----------------------------------------
# One Node process for all nodes (dist/test/lab/standin/main.js, built by `npx tsc -p .`): plays kubelet and
# calico-node for the calico-node pods. Started after seeding, stopped first. LAB_STANDIN=0 leaves it off.
standin_up() {
	[ "${LAB_STANDIN:-1}" != 0 ] || return 0
	local main=$REPO_DIR/dist/test/lab/standin/main.js
	[ -f "$main" ] || die "$main missing: build first (npx tsc -p .)"
	LAB_STATE=$LAB_STATE LAB_DATAPLANE=${LAB_DATAPLANE:-1} LAB_DATAPLANE_NODES=${LAB_DATAPLANE_NODES:-3} \
		LAB_NETNS_PREFIX=${LAB_NETNS_PREFIX:-calab-} LAB_CALICO_DATASTORE=$CALICO_DATASTORE \
		setsid node "$main" >"$LOGS/standin.log" 2>&1 </dev/null &
	echo $! >"$RUN/standin.pid"
	wait_for 30 "the calico-node stand-in's first status" test -s "$LAB_STATE/standin/status.json"
}
standin_down() {
	local pid i
	pid=$(cat "$RUN/standin.pid" 2>/dev/null || true)
	pid_alive "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 50); do pid_alive "$pid" || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}
standin_status() {
	local pid alive=false rss=0 f=$LAB_STATE/standin/status.json
	pid=$(cat "$RUN/standin.pid" 2>/dev/null || true)
	if pid_alive "$pid"; then
		alive=true
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
	fi
	[ -s "$f" ] || f=/dev/null
	jq -s -c --arg pid "$pid" --argjson alive "$alive" --argjson rss "${rss:-0}" '(.[0] // {}) as $s | {
		pid: ($pid | tonumber? // null), alive: $alive, rss_kib: $rss, status_file: (if $s == {} then null else "standin/status.json" end),
		pods: $s.summary.pods, pods_ready: $s.summary.podsReady, bird_running: $s.summary.birdRunning,
		vxlan_devices: $s.summary.vxlanDevices, cycle_ms: $s.standin.cycleMsAvg20, warnings: $s.warnings}' "$f"
}

kubelet_status() {
	local pid alive=false rss=0 f=$LAB_STATE/kubelet/status.json
	pid=$(cat "$RUN/kubelet.pid" 2>/dev/null || true)
	if pid_alive "$pid"; then
		alive=true
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
	fi
	[ -s "$f" ] || f=/dev/null
	# calico-node's processes per node, with their resident memory.
	jq -s -c --arg pid "$pid" --argjson alive "$alive" --argjson rss "${rss:-0}" --argjson mem "$(calico_node_rss)" '(.[0] // {}) as $s | {
		pid: ($pid | tonumber? // null), alive: $alive, rss_kib: $rss, summary: $s.summary,
		nodes: (($s.nodes // {}) | with_entries(.value = {pod: .value.pod, ready: .value.podReady, backend: .value.backend,
			services: [.value.services[] | select(.running) | .name], felixRestarts: .value.felixRestarts,
			vxlanDevice: .value.vxlanDevice, routes: .value.routes})),
		probe_pods: $s.probePods, calico_node_rss_kib: $mem}' "$f"
}
# Resident memory of every calico-node and bird process of this lab (its nodes' namespaces), in KiB.
calico_node_rss() {
	local ns pid total=0 r
	for ns in $(ip netns list 2>/dev/null | awk -v p="${LAB_NETNS_PREFIX:-calab-}node-" 'index($1, p) == 1 { print $1 }'); do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			case "$(cat "/proc/$pid/comm" 2>/dev/null)" in calico-node | bird) ;; *) continue ;; esac
			r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
			total=$((total + ${r:-0}))
		done
	done
	echo "$total"
}

pid_of() { cat "$RUN/$1.pid" 2>/dev/null || true; }
alive() { pid_alive "$1"; }

# LAB_KEEP_LOGS=DIR: before the state goes, its logs into DIR/<time>-<profile>-<state folder's name>, so that a
# test's lab (removed in its after hook) leaves Felix's, confd's and BIRD's logs for a look.
keep_logs() {
	[ -n "${LAB_KEEP_LOGS:-}" ] && [ -d "$LAB_STATE" ] || return 0
	local dest f
	local profile=lab
	[ -f "$LAB_STATE/profile" ] && read -r profile _ <"$LAB_STATE/profile"
	dest=$LAB_KEEP_LOGS/$(date -u +%Y%m%dT%H%M%S)-$profile-$(basename "$LAB_STATE")
	mkdir -p "$dest"
	cp -r "$LOGS" "$dest/lab" 2>/dev/null || true
	for f in "$LAB_STATE"/nodes/*/log; do
		[ -d "$f" ] && cp -r "$f" "$dest/$(basename "$(dirname "$f")")" 2>/dev/null || true
	done
	cp "$LAB_STATE"/kubelet/status.json "$dest/" 2>/dev/null || true
	log "logs kept in $dest"
}

cmd_down() {
	local name pid i
	kubelet_down
	standin_down
	dataplane_down
	for ((i = ${#PROCESSES[@]} - 1; i >= 0; i--)); do
		name=${PROCESSES[i]}
		pid=$(pid_of "$name")
		alive "$pid" && kill -TERM "$pid" 2>/dev/null || true
	done
	for name in "${PROCESSES[@]}"; do
		pid=$(pid_of "$name")
		for i in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
	done
	keep_logs
	rm -rf "$LAB_STATE"
	log "down"
}

cmd_status() {
	local name pid procs='{}' rss=0 r ready=false nodes=null pods=null profile= nodecount=null
	for name in "${PROCESSES[@]}"; do
		pid=$(pid_of "$name")
		r=0
		if alive "$pid"; then
			r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
			rss=$((rss + r))
		fi
		procs=$(jq -c --arg n "$name" --arg pid "$pid" --argjson alive "$(alive "$pid" && echo true || echo false)" \
			--argjson rss "${r:-0}" '. + {($n): {pid: ($pid | tonumber? // null), alive: $alive, rss_kib: $rss}}' <<<"$procs")
	done
	[ -f "$LAB_STATE/profile" ] && read -r profile nodes <"$LAB_STATE/profile"
	if [ -f "$KUBE_DIR/admin.conf" ] && kc get --raw /readyz >/dev/null 2>&1; then
		ready=true
		nodecount=$(kc get nodes -o name 2>/dev/null | wc -l)
		pods=$(kc -n kube-system get pods -l k8s-app=calico-node -o json 2>/dev/null |
			jq -c '[.items[] | {name: .metadata.name, node: .spec.nodeName, phase: .status.phase}]' || echo null)
	fi
	jq -n --arg state "$LAB_STATE" --arg profile "$profile" --argjson nodes "${nodes:-null}" \
		--argjson procs "$procs" --argjson ready "$ready" --argjson nodecount "$nodecount" \
		--argjson pods "${pods:-null}" --argjson rss "$rss" --argjson dataplane "$(dataplane_status)" \
		--arg upsecs "$(cat "$LAB_STATE/up-seconds" 2>/dev/null || true)" '{
		up: ($profile != ""), state: $state, profile: (if $profile == "" then null else $profile end),
		nodes_requested: $nodes, apiserver_ready: $ready, node_count: $nodecount,
		up_seconds: ($upsecs | tonumber? // null), processes: $procs, rss_kib_total: $rss,
		calico_node_pods: $pods} + $dataplane'
}

main() {
	case ${1:-} in
	up) shift; cmd_up "$@" ;;
	down) cmd_down ;;
	status) cmd_status | jq --argjson standin "$(standin_status)" --argjson kubelet "$(kubelet_status)" '. + {standin: $standin, kubelet: $kubelet}' ;;
	*) echo "usage: $0 up [PROFILE] | down | status   (profiles: $PROFILES)" >&2; exit 2 ;;
	esac
}

# Sourcing (for tests of the helpers) defines the functions without running anything.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
