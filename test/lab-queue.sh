#!/usr/bin/env bash
# The lab test files of one make test run as a queue that every lab slot takes from, so the slots balance
# themselves whatever each file takes on this machine (test/stage.sh times each one).
#   lab-queue.sh fill QUEUE ENTRY...   one entry a line: "<label>|<VAR=value ...>|<test file>[|<build>]"
#   lab-queue.sh run QUEUE SLOT        takes entries one at a time (under flock) and runs each as a stage
#                                      "<SLOT>: <label>" through mocha; exits 1 if any failed.
#   lab-queue.sh built QUEUE BUILD done|failed
#                                      says a build that entries wait on ended (make test's seed-era build).
# An entry naming a build is taken only once that build is done: until then a slot takes the entries after it, and
# when nothing else is left it waits. Once the build failed, the entry is taken and fails at once, naming the build.
set -uo pipefail
cmd=$1 queue=$2
shift 2
case $cmd in
fill)
	mkdir -p "$(dirname "$queue")"
	rm -f "$queue".built-*
	printf '%s\n' "$@" >"$queue"
	;;
built)
	echo "$2" >"$queue.built-$1"
	;;
take)
	# Prints the first entry that can run now and removes it; exits 1 when the queue is empty, 3 when every entry
	# left waits on a build still running.
	exec 9>>"$queue.lock"
	flock 9
	[ -s "$queue" ] || exit 1
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		IFS='|' read -r _ _ _ build <<<"$line"
		if [ -z "$build" ] || [ -f "$queue.built-$build" ]; then
			sed -i "${n}d" "$queue"
			printf '%s\n' "$line"
			exit 0
		fi
	done <"$queue"
	exit 3
	;;
run)
	slot=$1 failed=""
	while true; do
		entry=$(bash "$0" take "$queue")
		case $? in
		0) ;;
		3)
			sleep "${LAB_QUEUE_POLL:-10}"
			continue
			;;
		*) break ;;
		esac
		IFS='|' read -r label vars file build <<<"$entry"
		if [ -n "$build" ] && [ "$(cat "$queue.built-$build")" != done ]; then
			bash "$(dirname "$0")/stage.sh" "$slot: $label" sh -c "echo 'the $build build failed (its lines in this run'\''s output), so $file did not run' >&2; exit 1" ||
				failed="$failed $label"
			continue
		fi
		# shellcheck disable=SC2086 # vars is a list of VAR=value words
		env $vars bash "$(dirname "$0")/stage.sh" "$slot: $label" $MOCHA --timeout 300000 "$file" || failed="$failed $label"
	done
	if [ -n "$failed" ]; then
		echo "$slot: failed:$failed"
		exit 1
	fi
	;;
*)
	echo "usage: $0 fill QUEUE ENTRY... | take QUEUE | run QUEUE SLOT | built QUEUE BUILD done|failed" >&2
	exit 2
	;;
esac
