#!/usr/bin/env bash
# The lab test files of one make test run as a queue that both lab slots take from, so the slots balance
# themselves whatever each file takes on this machine (test/stage.sh times each one).
#   lab-queue.sh fill QUEUE ENTRY...   one entry a line: "<label>|<VAR=value ...>|<test file>"
#   lab-queue.sh run QUEUE SLOT        takes entries one at a time (under flock) and runs each as a stage
#                                      "<SLOT>: <label>" through mocha; exits 1 if any failed.
set -uo pipefail
cmd=$1 queue=$2
shift 2
case $cmd in
fill)
	mkdir -p "$(dirname "$queue")"
	printf '%s\n' "$@" >"$queue"
	;;
take)
	# Prints the first entry and removes it; exits 1 when the queue is empty.
	exec 9>>"$queue.lock"
	flock 9
	line=$(sed -n 1p "$queue" 2>/dev/null)
	[ -n "$line" ] || exit 1
	sed -i 1d "$queue"
	printf '%s\n' "$line"
	;;
run)
	slot=$1 failed=""
	while entry=$(bash "$0" take "$queue"); do
		IFS='|' read -r label vars file <<<"$entry"
		# shellcheck disable=SC2086 # vars is a list of VAR=value words
		env $vars bash "$(dirname "$0")/stage.sh" "$slot: $label" $MOCHA --timeout 300000 "$file" || failed="$failed $label"
	done
	if [ -n "$failed" ]; then
		echo "$slot: failed:$failed"
		exit 1
	fi
	;;
*)
	echo "usage: $0 fill QUEUE ENTRY... | take QUEUE | run QUEUE SLOT" >&2
	exit 2
	;;
esac
