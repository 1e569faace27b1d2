#!/usr/bin/env bash
# renice-tree.sh PID NICE: sets the niceness of PID and of every process descended from it (the processes they start
# later inherit it). make test starts the seed era's Go builds at nice 19 beside lab-build, and gives them the same
# share as the labs once lab-build is done: at 19 behind two labs they got no core at all (2026-12-07, a cold run: the
# seed era's module downloads still running 24 min after lab-build ended), and the three files that wait on them ran
# last, one after another.
set -uo pipefail
root=${1:?usage: renice-tree.sh PID NICE} nice=${2:?usage: renice-tree.sh PID NICE}
pids=("$root") i=0
while [ "$i" -lt "${#pids[@]}" ]; do
	for child in $(ps -o pid= --ppid "${pids[i]}" 2>/dev/null); do pids+=("$child"); done
	i=$((i + 1))
done
renice -n "$nice" -p "${pids[@]}" >/dev/null 2>&1 || true
