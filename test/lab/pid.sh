# Sourced by lib.sh, net.sh and kwok-nodes.sh, never run.
# pid_alive PID: whether PID runs. A process that exited but was not reaped (a zombie) is not alive: the lab's
# daemons (socat relays, ip monitor, sshd, the kubelet) are started with setsid and outlive their parent, so PID 1
# becomes their parent, and a PID 1 that does not reap (a container's init) leaves them zombies, to which kill -0
# answers yes. Waiting for one to "exit" then took each wait's whole timeout: 24 s of every `net.sh down`.
pid_alive() {
	local stat
	[ -n "${1:-}" ] && { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) }
	[ "${stat:0:1}" != Z ]
}
