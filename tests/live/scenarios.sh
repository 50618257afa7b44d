# Shared by tests/live/run.sh and tests/daemon/run.sh (sourced): run scenario scripts one
# after another (a blocked task made by one would change another's results), pass their one
# result line through, and turn a silent or chatty script into a FAIL.
#   run_scenarios PREFIX DIR BACKSTOP_SECONDS NAME...   -> exit status 0 or 1
# scenarios_main PREFIX DIR BACKSTOP_SECONDS [NAME...]: build DIR's helpers (DIR/build.sh),
# then run_scenarios the scenarios named, or those of SCENARIOS_ALL when none are.
scenarios_main() {
	local prefix=$1 dir=$2 backstop=$3
	shift 3
	if ! "$dir/build.sh"; then
		echo "FAIL $prefix-build: helpers did not compile"
		exit 1
	fi
	[ $# -gt 0 ] || set -- "${SCENARIOS_ALL[@]}"
	run_scenarios "$prefix" "$dir" "$backstop" "$@"
}

run_scenarios() {
	local prefix=$1 dir=$2 backstop=$3 s script out rc fail=0 t0
	shift 3
	for s in "$@"; do
		script=$dir/$s.sh
		if [ ! -f "$script" ]; then
			echo "FAIL $prefix-$s: no script $script"
			fail=1
			continue
		fi
		# each script bounds itself; this is only a backstop
		t0=$SECONDS
		out=$(timeout -k 5 "$backstop" bash "$script")
		rc=$?
		# SUITE_TIMES: a file tests/run.sh reads to name the slowest scenarios
		[ -z "${SUITE_TIMES:-}" ] || echo "$((SECONDS - t0)) $prefix-$s" >>"$SUITE_TIMES"
		[ -n "$out" ] || out="FAIL $prefix-$s: script printed nothing (rc $rc)"
		echo "$out"
		case $out in
		PASS* | SKIP*) [ "$(wc -l <<<"$out")" = 1 ] || fail=1 ;;
		*) fail=1 ;;
		esac
	done
	return $fail
}
