#!/bin/bash
# Run every daemon scenario (root, real kernel, `cgwatch run`): builds the
# helpers, runs each tests/daemon/NAME.sh in turn (sequentially: a blocked task
# made by one would change another's incidents), passes their result lines
# through, and exits non-zero if any FAILed. Extra arguments select scenarios
# by name. See lib.sh for the namespace and the private journald.
here=$(cd "$(dirname "$0")" && pwd)
if ! "$here/build.sh"; then
	echo "FAIL live-daemon-build: helpers did not compile"
	exit 1
fi
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(harness journal notify restart fulldisk storm)
fail=0
for s in "${scenarios[@]}"; do
	script=$here/$s.sh
	if [ ! -f "$script" ]; then
		echo "FAIL live-daemon-$s: no script $script"
		fail=1
		continue
	fi
	# Each script bounds itself (LIVE_BUDGET, 60 s); this is only a backstop.
	out=$(timeout -k 5 90 bash "$script")
	rc=$?
	if [ -z "$out" ]; then
		out="FAIL live-daemon-$s: script printed nothing (rc $rc)"
	fi
	echo "$out"
	case $out in
	PASS* | SKIP*) [ "$(wc -l <<<"$out")" = 1 ] || fail=1 ;;
	*) fail=1 ;;
	esac
done
exit $fail
