#!/usr/bin/env bash
# The lab's data plane underlay: a private Linux bridge in the root namespace, one network namespace
# per data-plane node with a veth into the bridge, sshd in node-1's namespace, and two relays that
# let node-1 reach the apiserver and etcd on its own 127.0.0.1 (over Unix sockets, so nothing new
# listens on any network interface of the root namespace). Nothing here routes out of the machine:
# the namespaces have no route out (the lab kubelet adds a gateway-less default route for the real calico-node)
# and the bridge is not attached to a real interface.
#
#   net.sh up       create (idempotent; installs iproute2, iputils-ping, openssh-server, socat if missing)
#   net.sh down     stop the prober, sshd and relays; delete the namespaces and the bridge
#   net.sh status   JSON: namespaces, vxlan.calico per node, route counts, sshd, prober figures
#
# Environment (written to $LAB_STATE/net/config by `up`, so `down` and `status` use the same values):
#   LAB_STATE            state folder (default <repo>/.lab)
#   LAB_BRIDGE           bridge name (calab0)
#   LAB_NETNS_PREFIX     namespace prefix (calab-): namespace <prefix>node-<i>
#   LAB_UNDERLAY         first three octets of the underlay /24 (172.31.250): host .1, node i .(10+i)
#   LAB_DATAPLANE_NODES  how many nodes get a namespace (3)
#   LAB_SSH              1 (default): sshd and the relays in node-1's namespace; 0: none
#   LAB_APISERVER_PORT, LAB_ETCD_PORT   relayed into node-1 (26443, 23790)
#   LAB_TUNL0            1 (default): every node gets a device named tunl0 standing in for the kernel's IP-in-IP device
#                        (below, "tunl0"); 0: none (as before 2026-12-02)
set -euo pipefail
NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$NET_DIR/../.." && pwd)
LAB_STATE=${LAB_STATE:-$REPO_DIR/.lab}
NET_STATE=$LAB_STATE/net
# pid_alive (a zombie is not alive)
source "$NET_DIR/pid.sh"

log() { printf '[net] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

load_config() {
	# Saved values win over defaults but not over what the caller exported.
	if [ -f "$NET_STATE/config" ]; then
		local k v
		while IFS='=' read -r k v; do
			[ -n "$k" ] && [ -z "${!k:-}" ] && printf -v "$k" '%s' "$v"
		done <"$NET_STATE/config"
	fi
	LAB_BRIDGE=${LAB_BRIDGE:-calab0}
	LAB_NETNS_PREFIX=${LAB_NETNS_PREFIX:-calab-}
	LAB_UNDERLAY=${LAB_UNDERLAY:-172.31.250}
	LAB_DATAPLANE_NODES=${LAB_DATAPLANE_NODES:-3}
	LAB_SSH=${LAB_SSH:-1}
	LAB_TUNL0=${LAB_TUNL0:-1}
	LAB_APISERVER_PORT=${LAB_APISERVER_PORT:-26443}
	LAB_ETCD_PORT=${LAB_ETCD_PORT:-23790}
	[[ $LAB_UNDERLAY =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "LAB_UNDERLAY must be three octets, got '$LAB_UNDERLAY'"
	[[ $LAB_DATAPLANE_NODES =~ ^[0-9]+$ ]] && [ "$LAB_DATAPLANE_NODES" -le 200 ] || die "LAB_DATAPLANE_NODES must be 0..200"
	[[ $LAB_BRIDGE =~ ^[A-Za-z0-9_-]{1,10}$ ]] || die "LAB_BRIDGE must be 1-10 of [A-Za-z0-9_-] (veths are <bridge>-<i>)"
	[[ $LAB_NETNS_PREFIX =~ ^[A-Za-z0-9_.-]*$ ]] || die "bad LAB_NETNS_PREFIX"
	[[ $LAB_TUNL0 =~ ^[01]$ ]] || die "LAB_TUNL0 must be 0 or 1, got '$LAB_TUNL0'"
	TUNNEL_BRIDGE=${LAB_BRIDGE}t
	HOST_ADDR=$LAB_UNDERLAY.1
	SSH_DIR=$LAB_STATE/ssh
	RUN=$LAB_STATE/run
	SOCKS=$NET_STATE/sock
	NODE1_ROOT=$LAB_STATE/node-1
}

save_config() {
	mkdir -p "$NET_STATE"
	{
		local k
		for k in LAB_BRIDGE LAB_NETNS_PREFIX LAB_UNDERLAY LAB_DATAPLANE_NODES LAB_SSH LAB_APISERVER_PORT LAB_ETCD_PORT LAB_TUNL0; do
			printf '%s=%s\n' "$k" "${!k}"
		done
	} >"$NET_STATE/config"
}

ns_name() { echo "${LAB_NETNS_PREFIX}node-$1"; }
node_addr() { echo "$LAB_UNDERLAY.$((10 + $1))"; }
ns_exists() { [ -e "/run/netns/$1" ]; }

ensure_tools() {
	local missing=()
	command -v ip >/dev/null || missing+=(iproute2)
	command -v bridge >/dev/null || missing+=(iproute2)
	command -v ping >/dev/null || missing+=(iputils-ping)
	command -v socat >/dev/null || missing+=(socat)
	[ -x /usr/sbin/iptables ] || missing+=(iptables)
	[ -x /usr/sbin/ipset ] || missing+=(ipset)
	[ -x /usr/sbin/bird ] || missing+=(bird)
	if [ "$LAB_SSH" = 1 ]; then
		[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
		command -v ssh >/dev/null || missing+=(openssh-client)
	fi
	# calico-node's -bird-ready and -bird-live run /bin/birdcl (BIRD's light client, in Calico's image); Debian's bird
	# ships the same client as birdc.
	[ -e /usr/bin/birdcl ] || [ ! -x /usr/sbin/birdc ] || ln -s /usr/sbin/birdc /usr/bin/birdcl
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; }
	[ -e /usr/bin/birdcl ] || [ ! -x /usr/sbin/birdc ] || ln -s /usr/sbin/birdc /usr/bin/birdcl
}

bridge_up() {
	# Refuse to share the host address with another lab's bridge.
	local other
	other=$(ip -j addr show to "$HOST_ADDR/32" | jq -r --arg br "$LAB_BRIDGE" '.[] | select(.ifname != $br) | .ifname')
	[ -z "$other" ] || die "$HOST_ADDR is already on $other (another lab? set LAB_UNDERLAY)"
	ip link show "$LAB_BRIDGE" >/dev/null 2>&1 || ip link add "$LAB_BRIDGE" type bridge
	ip addr replace "$HOST_ADDR/24" dev "$LAB_BRIDGE"
	ip link set "$LAB_BRIDGE" up
	# The prober's agents ask for a 4 MiB socket receive buffer, capped by net.core.rmem_max: raise it to that where
	# it is lower (never lower it). At the kernel's 212992 a stalled agent dropped probes the network had delivered
	# (test/lab/README.md, "The data plane, the prober and SSH").
	local rmem
	rmem=$(cat /proc/sys/net/core/rmem_max)
	[ "$rmem" -ge 4194304 ] || sysctl -qw net.core.rmem_max=4194304
}

node_up() {
	local i=$1 ns veth addr
	ns=$(ns_name "$i")
	veth=$LAB_BRIDGE-$i
	addr=$(node_addr "$i")
	ns_exists "$ns" || ip netns add "$ns"
	if ! ip -n "$ns" link show eth0 >/dev/null 2>&1; then
		ip link del "$veth" 2>/dev/null || true
		ip link add "$veth" type veth peer name eth0 netns "$ns"
	fi
	ip link set "$veth" master "$LAB_BRIDGE" up
	ip -n "$ns" -batch - <<EOF
link set lo up
addr replace $addr/24 dev eth0
addr replace fd00:172:31:250::$((10 + i))/64 dev eth0 nodad
link set eth0 up
EOF
	# A node routes nothing it is not told to; replies from pod addresses need no rp_filter help.
	# Forwarding on, as Kubespray's sysctl settings leave every node (pods' traffic is forwarded).
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	[ "$LAB_TUNL0" = 0 ] || tunl0_up "$i"
	monitor_up "$i"
}

# Every link, route and neighbour change in a node's namespace, timestamped when `ip monitor` reads it, in
# <state>/log/monitor-node-N.log: which route went when, and through which device, so that a lost probe can be
# placed against what the agents did (lab.sh's LAB_KEEP_LOGS keeps the file). `ip monitor` runs in the namespace
# and ends with its other processes at down. Its netlink socket asks for a 4 MiB receive buffer (-rc; bridge_up
# raises net.core.rmem_max to that): a monitor held off the CPU while Felix rewrites every route would otherwise lose
# events at an overrun, and a lost event reads as a route nobody changed (iproute2 prints "netlink receive error"
# into the log when it happens). It runs at nice -10, as the prober's agents do: its stamps measure how long a route
# was gone (test/support/monitor-logs.ts), and a monitor held off the CPU would stamp a delete and its add together.
monitor_up() {
	local i=$1 pidfile=$NET_STATE/monitor-$1.pid
	if [ -f "$pidfile" ] && pid_alive "$(cat "$pidfile")"; then return 0; fi
	mkdir -p "$LAB_STATE/log"
	setsid nice -n -10 ip netns exec "$(ns_name "$i")" ip -rc 4194304 -ts -o monitor link route neigh \
		>>"$LAB_STATE/log/monitor-node-$i.log" 2>&1 </dev/null &
	echo $! >"$pidfile"
}

# ---- tunl0: a stand-in for the kernel's IP-in-IP device -------------------------------------------
# This kernel has no ipip link type, so Felix cannot create tunl0. Felix's IPIP manager (v3.31 route_mgr.go,
# configureTunnelDevice) takes an existing device named tunl0 whatever its type: it sets its MTU, makes the
# node's IPIP tunnel address its only IPv4 address and sets it up; with programClusterRoutes it routes remote IPIP
# blocks "via <peer's node address> dev tunl0 onlink". Here tunl0 is one end of a veth whose other end is a port
# of a bridge of its own (<LAB_BRIDGE>t, no address, no other member), so a packet routed via tunl0 leaves
# without an outer header and arrives on the peer's tunl0, as a decapsulated IP-in-IP packet arrives there: the
# sender resolves the peer's node address by ARP on tunl0 (the peer answers from tunl0 for its own address), and
# the receiver's reverse path for the sender's pod block is tunl0 too, so strict rp_filter passes as it does for
# IP-in-IP. Not shown: the 20-byte outer header (the MTU Felix sets applies, nothing needs it), tunl0's NOARP
# (real IP-in-IP needs no neighbour; here a neighbour entry on tunl0 is made and can fail), the kernel's
# acceptance of IP-in-IP from any source address, and rp_filter on the real device's outer header. The device
# starts down and without an address, as the kernel's tunl0 does when the ipip module loads; Felix brings it up.
tunl0_up() {
	local i=$1 ns port
	ns=$(ns_name "$i")
	port=$TUNNEL_BRIDGE$i
	if ! ip link show "$TUNNEL_BRIDGE" >/dev/null 2>&1; then
		ip link add "$TUNNEL_BRIDGE" type bridge
		# The root namespace never answers ARP on the tunnel segment (it owns none of its addresses) nor joins it.
		sysctl -qw "net.ipv4.conf.$TUNNEL_BRIDGE.arp_ignore=1" "net.ipv6.conf.$TUNNEL_BRIDGE.disable_ipv6=1"
		ip link set "$TUNNEL_BRIDGE" up
	fi
	if ! ip -n "$ns" link show tunl0 >/dev/null 2>&1; then
		ip link del "$port" 2>/dev/null || true
		ip link add "$port" type veth peer name tunl0 netns "$ns"
	fi
	sysctl -qw "net.ipv6.conf.$port.disable_ipv6=1"
	ip link set "$port" master "$TUNNEL_BRIDGE" up
	# The kernel's tunl0 carries no IPv6 (no link-local address).
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.tunl0.disable_ipv6=1
}

# ---- sshd and the relays in node-1 ---------------------------------------------------------
sshd_up() {
	local ns addr
	ns=$(ns_name 1)
	addr=$(node_addr 1)
	mkdir -p "$SSH_DIR" "$RUN" /run/sshd
	chmod 700 "$SSH_DIR"
	[ -f "$SSH_DIR/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C lab-host -f "$SSH_DIR/ssh_host_ed25519_key"
	[ -f "$SSH_DIR/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C lab-admin -f "$SSH_DIR/id_ed25519"
	cp "$SSH_DIR/id_ed25519.pub" "$SSH_DIR/authorized_keys"
	chmod 600 "$SSH_DIR/authorized_keys"
	cat >"$SSH_DIR/sshd_config" <<EOF
# node-1's sshd, inside namespace $ns (written by test/lab/net.sh)
ListenAddress $addr
Port 22
HostKey $SSH_DIR/ssh_host_ed25519_key
PidFile $RUN/sshd.pid
AuthorizedKeysFile $SSH_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
X11Forwarding no
AllowTcpForwarding no
PrintMotd no
AcceptEnv LANG LC_*
# What Kubespray's kubernetes/client role gives root on a control-plane node (~/.kube/config, a copy of admin.conf):
# kubectl's default kubeconfig, used by Kubespray's kube module. Root's home here is the machine's, so the sessions
# get it as KUBECONFIG instead of a file there.
SetEnv KUBECONFIG=/etc/kubernetes/admin.conf
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
	if ! pid_alive "$(cat "$RUN/sshd.pid" 2>/dev/null)"; then
		/usr/sbin/sshd -t -f "$SSH_DIR/sshd_config"
		# SSH sessions into node-1 (Ansible's) must not depend on root's shell startup files: on these machines
		# ~/.bashrc runs `pyenv init`, which waits forever on a stale lock in ~/.pyenv/shims. sshd runs in a
		# mount namespace of its own in which an empty file hides each of them that exists (the host's files are
		# untouched); its sessions inherit that namespace.
		# The same namespace gives node-1 Kubespray's paths: /etc and /usr/local are overlays whose upper layers are
		# $NODE1_ROOT/etc and $NODE1_ROOT/usr/local, so /etc/kubernetes/admin.conf, /etc/cni/net.d and
		# /usr/local/bin (Kubespray's bin_dir) are node-1's own, and whatever Kubespray's roles write there lands
		# under $NODE1_ROOT, never in the machine's /etc or /usr/local.
		: >"$SSH_DIR/empty-rc"
		chmod 644 "$SSH_DIR/empty-rc"
		mkdir -p "$NODE1_ROOT/.overlay/etc" "$NODE1_ROOT/.overlay/usr-local" "$NODE1_ROOT/etc" "$NODE1_ROOT/usr/local"
		ip netns exec "$ns" unshare --mount --propagation private sh -c '
			empty=$1 home=$2 root=$3
			shift 3
			for f in $HIDDEN_RC; do
				if [ -f "$home/$f" ]; then mount --bind "$empty" "$home/$f" || exit 1; fi
			done
			mount -t overlay node-1-etc -o "lowerdir=/etc,upperdir=$root/etc,workdir=$root/.overlay/etc" /etc || exit 1
			mount -t overlay node-1-usr-local \
				-o "lowerdir=/usr/local,upperdir=$root/usr/local,workdir=$root/.overlay/usr-local" /usr/local || exit 1
			exec "$@"' sh "$SSH_DIR/empty-rc" "$(root_home)" "$NODE1_ROOT" \
			/usr/sbin/sshd -f "$SSH_DIR/sshd_config" -E "$NET_STATE/sshd.log"
	fi
}

# Root's shell startup files that node-1's SSH sessions must not read (sshd_up hides them).
HIDDEN_RC=".bashrc .bash_profile .bash_login .profile"
export HIDDEN_RC
root_home() { getent passwd root | cut -d: -f6; }

# relay_up NAME PORT: root's 127.0.0.1:PORT reachable as 127.0.0.1:PORT inside every node's namespace (a node's
# calico-node reaches the apiserver, or etcd, there), through a Unix socket under $NET_STATE/sock (mode 700): one
# socat on the root side, one per node.
relay_up() {
	local name=$1 port=$2 ns i
	mkdir -p "$SOCKS"
	chmod 700 "$SOCKS"
	if ! pid_alive "$(cat "$NET_STATE/relay-$name-root.pid" 2>/dev/null)"; then
		setsid socat "UNIX-LISTEN:$SOCKS/$name.sock,fork,unlink-early,mode=600" "TCP:127.0.0.1:$port" \
			</dev/null >>"$NET_STATE/relay-$name.log" 2>&1 &
		echo $! >"$NET_STATE/relay-$name-root.pid"
	fi
	for ((i = 1; i <= LAB_DATAPLANE_NODES; i++)); do
		ns=$(ns_name "$i")
		if ! pid_alive "$(cat "$NET_STATE/relay-$name-ns-$i.pid" 2>/dev/null)"; then
			setsid ip netns exec "$ns" socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$SOCKS/$name.sock" \
				</dev/null >>"$NET_STATE/relay-$name.log" 2>&1 &
			echo $! >"$NET_STATE/relay-$name-ns-$i.pid"
		fi
	done
}

# Kubespray's layout as node-1 sees it over SSH. The namespace shares the root filesystem, so the
# node's /etc/kubernetes and bin_dir live under $LAB_STATE/node-1; thanks to the relays, the same
# https://127.0.0.1:<port> works inside the namespace. Needs $LAB_STATE/env (lab.sh up).
node1_layout() {
	local env=$LAB_STATE/env kubeconfig datastore etcd_url lab_bin bin
	[ -f "$env" ] || return 0
	kubeconfig=$(sed -n 's/^export KUBECONFIG=//p' "$env")
	datastore=$(sed -n 's/^export LAB_CALICO_DATASTORE=//p' "$env")
	etcd_url=$(sed -n 's/^export LAB_ETCD_URL=//p' "$env")
	lab_bin=$(sed -n 's/^export LAB_BIN=//p' "$env")
	bin=$NODE1_ROOT/usr/local/bin
	# /etc/cni/net.d: made by Kubespray's kubernetes/preinstall role on every node before the network plugin runs.
	mkdir -p "$NODE1_ROOT/etc/kubernetes" "$NODE1_ROOT/etc/cni/net.d" "$bin"
	install -m 600 "$kubeconfig" "$NODE1_ROOT/etc/kubernetes/admin.conf"
	ln -sf "$lab_bin/calicoctl" "$bin/calicoctl"
	ln -sf "$lab_bin/kubectl" "$bin/kubectl"
	if [ "$datastore" = etcd ]; then
		printf '#!/bin/bash\nETCD_ENDPOINTS=%s \\\n%s/calicoctl --allow-version-mismatch "$@"\n' "$etcd_url" "$bin" >"$bin/calicoctl.sh"
	else
		printf '#!/bin/bash\nDATASTORE_TYPE=kubernetes \\\nKUBECONFIG=%s \\\n%s/calicoctl --allow-version-mismatch "$@"\n' \
			"$NODE1_ROOT/etc/kubernetes/admin.conf" "$bin" >"$bin/calicoctl.sh"
	fi
	chmod 755 "$bin/calicoctl.sh"
}

write_inventory() {
	cat >"$LAB_STATE/inventory.ini" <<EOF
# The lab's control-plane node over real SSH (written by test/lab/net.sh).
[kube_control_plane]
node-1 ansible_host=$(node_addr 1)

[etcd]
node-1

[k8s_cluster:children]
kube_control_plane

[all:vars]
ansible_user=root
ansible_ssh_private_key_file=$SSH_DIR/id_ed25519
# The lab's nodes are new at every lab.sh up: host keys are not checked here (the repository's ansible.cfg checks them).
ansible_host_key_checking=false
ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR'
ansible_python_interpreter=/usr/bin/python3
bin_dir=$NODE1_ROOT/usr/local/bin
kube_config_dir=$NODE1_ROOT/etc/kubernetes
# The Kubespray fork whose own defaults apply where this inventory leaves a Calico variable undefined: the inventory is
# outside any fork's tree, so the role cannot find one here (ansible/roles/calico_encap/tasks/fork_defaults.yml).
calico_encap_kubespray_tree=${KUBESPRAY_TREES:-$REPO_DIR/../shared/kubespray}/v2.31.0
EOF
}

cmd_up() {
	load_config
	ensure_tools
	mkdir -p "$NET_STATE"
	save_config
	bridge_up
	local i
	for ((i = 1; i <= LAB_DATAPLANE_NODES; i++)); do node_up "$i"; done
	if [ "$LAB_DATAPLANE_NODES" -ge 1 ]; then
		relay_up apiserver "$LAB_APISERVER_PORT"
		relay_up etcd "$LAB_ETCD_PORT"
	fi
	if [ "$LAB_SSH" = 1 ] && [ "$LAB_DATAPLANE_NODES" -ge 1 ]; then
		node1_layout
		sshd_up
		write_inventory
	fi
	log "bridge $LAB_BRIDGE ($HOST_ADDR/24), $LAB_DATAPLANE_NODES namespaces ${LAB_NETNS_PREFIX}node-1..$LAB_DATAPLANE_NODES"
}

kill_pidfile() {
	local f=$1 pid i
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if pid_alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 30); do pid_alive "$pid" || break; sleep 0.1; done
		pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$f"
}

cmd_down() {
	load_config
	local f i ns
	for f in "$LAB_STATE"/prober/*.pid "$NET_STATE"/relay-*.pid "$NET_STATE"/monitor-*.pid "$RUN/sshd.pid"; do
		[ -e "$f" ] && kill_pidfile "$f"
	done
	# Pods' namespaces (made by the lab's kubelet for the CNI plugin).
	for ns in $(ip netns list | awk -v p="${LAB_NETNS_PREFIX}pod-" 'index($1, p) == 1 { print $1 }'); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	for ((i = 1; i <= LAB_DATAPLANE_NODES; i++)); do
		ns=$(ns_name "$i")
		# Whatever still runs in the namespace is the lab's (prober, sshd sessions, calico-node, BIRD).
		if ns_exists "$ns"; then
			ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
			ip netns del "$ns"
		fi
		ip link del "$LAB_BRIDGE-$i" 2>/dev/null || true
		ip link del "$TUNNEL_BRIDGE$i" 2>/dev/null || true
	done
	ip link del "$LAB_BRIDGE" 2>/dev/null || true
	ip link del "$TUNNEL_BRIDGE" 2>/dev/null || true
	rm -rf "$NET_STATE" "$SSH_DIR" "$NODE1_ROOT" "$LAB_STATE/inventory.ini"
	log "down"
}

cmd_status() {
	load_config
	local i ns nodes='[]' vx tunl0 routes present
	for ((i = 1; i <= LAB_DATAPLANE_NODES; i++)); do
		ns=$(ns_name "$i")
		present=false vx=false tunl0=false routes=null
		if ns_exists "$ns"; then
			present=true
			ip -n "$ns" link show vxlan.calico >/dev/null 2>&1 && vx=true
			ip -n "$ns" link show tunl0 >/dev/null 2>&1 && tunl0=true
			routes=$(ip -n "$ns" -j route show table main | jq '[.[] | select(.protocol == "80" or .protocol == "81")] |
				{vxlan: map(select(.protocol == "80")) | length, bgp: map(select(.protocol == "81")) | length}')
		fi
		nodes=$(jq -c --arg n "node-$i" --arg ns "$ns" --argjson p $present --argjson vx $vx --argjson t $tunl0 \
			--argjson r "$routes" '. + [{node: $n, netns: $ns, present: $p, vxlan_calico: $vx, tunl0: $t, routes: $r}]' <<<"$nodes")
	done
	local sshd=false prober=null
	pid_alive "$(cat "$RUN/sshd.pid" 2>/dev/null)" && sshd=true
	if compgen -G "$LAB_STATE/prober/*.json" >/dev/null; then
		prober=$(jq -s -f "$NET_DIR/prober/status.jq" "$LAB_STATE"/prober/*.json)
	fi
	jq -n --arg br "$LAB_BRIDGE" --argjson bu "$(ip link show "$LAB_BRIDGE" >/dev/null 2>&1 && echo true || echo false)" \
		--arg host "$HOST_ADDR" --argjson nodes "$nodes" --argjson sshd $sshd --argjson prober "$prober" \
		--arg inv "$([ -f "$LAB_STATE/inventory.ini" ] && echo "$LAB_STATE/inventory.ini")" '{
		dataplane: {bridge: $br, bridge_up: $bu, host_address: $host, nodes: $nodes, sshd: $sshd,
			inventory: (if $inv == "" then null else $inv end)},
		prober: $prober}'
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
*) echo "usage: $0 up | down | status" >&2; exit 2 ;;
esac
