#!/bin/bash
# Run every live scenario (root, real kernel). Builds the helpers, runs each
# tests/live/NAME.sh in turn (sequentially: a blocked task made by one would
# change another's exit code), passes their result lines through, and exits
# non-zero if any FAILed. Extra arguments select scenarios by name.
here=$(cd "$(dirname "$0")" && pwd)
if ! "$here/build.sh"; then
	echo "FAIL live-build: helpers did not compile"
	exit 1
fi
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(fuse frozen vfork hostname stuckroot deadline watchdog starved clock)
fail=0
for s in "${scenarios[@]}"; do
	script=$here/$s.sh
	if [ ! -f "$script" ]; then
		echo "FAIL live-$s: no script $script"
		fail=1
		continue
	fi
	# Each script bounds itself (< 60 s); this is only a backstop.
	out=$(timeout -k 5 75 bash "$script")
	rc=$?
	if [ -z "$out" ]; then
		out="FAIL live-$s: script printed nothing (rc $rc)"
	fi
	echo "$out"
	case $out in
	PASS* | SKIP*) [ "$(wc -l <<<"$out")" = 1 ] || fail=1 ;;
	*) fail=1 ;;
	esac
done
exit $fail
