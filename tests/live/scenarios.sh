# Shared by tests/live/run.sh and tests/daemon/run.sh (sourced): run scenario scripts one
# after another (a blocked task made by one would change another's results; the daemon's,
# each in namespaces of its own, SCENARIO_LANES at once), pass their one result line through,
# and turn a silent or chatty script into a FAIL.
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
	local prefix=$1 dir=$2 backstop=$3 s i=0 fail=0 tmp
	shift 3
	# SCENARIO_LANES=N (tests/daemon/run.sh: 2): up to N scenarios at once, each in a PID and
	# mount namespace of its own, so that no daemon sees another's tasks; a script that loads
	# the CPUs on purpose (dmn_hogs, or DMN_ALONE= for a load of its own) or leaves the PID
	# namespace (DMN_PIDNS=) runs alone, and
	# once the process SCENARIO_ALONE_AFTER (the suite's container test, run beside them) is
	# gone. Their lines come in the order named.
	local lanes=${SCENARIO_LANES:-1} next=0
	tmp=$(mktemp -d) || return 1
	for s in "$@"; do
		if [ "$lanes" -le 1 ] || grep -qE '^[^#]*(dmn_hogs |DMN_PIDNS=|DMN_ALONE=)' "$dir/$s.sh" 2>/dev/null; then
			wait
			while [ -n "${SCENARIO_ALONE_AFTER:-}" ] && kill -0 "$SCENARIO_ALONE_AFTER" 2>/dev/null; do
				sleep 0.5
			done
			_scenario_print
			_scenario_one "$s" >"$tmp/$i"
		else
			while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done
			_scenario_print
			_scenario_one "$s" >"$tmp/$i" &
		fi
		i=$((i + 1))
	done
	wait
	_scenario_print
	rm -rf "$tmp"
	return $fail
}

# _scenario_print: the results of run_scenarios' finished scenarios not printed yet, in order
_scenario_print() {
	local out
	while [ "$next" -lt "$i" ] && [ -f "$tmp/$next.done" ]; do
		out=$(cat "$tmp/$next")
		echo "$out"
		# one result line, or several where a script has one per case (tests/vm/kernels.sh: per
		# kernel): every line a PASS or SKIP
		case $out in
		PASS* | SKIP*) ! grep -qvE '^(PASS|SKIP) ' <<<"$out" || fail=1 ;;
		*) fail=1 ;;
		esac
		next=$((next + 1))
	done
}

# _scenario_one NAME: run one scenario script; its line(s) on stdout, then $tmp/$i.done
_scenario_one() {
	local s=$1 script=$dir/$1.sh out rc t0=$SECONDS
	if [ ! -f "$script" ]; then
		echo "FAIL $prefix-$s: no script $script"
	else
		# each script bounds itself; this is only a backstop
		out=$(timeout -k 5 "$backstop" bash "$script")
		rc=$?
		# SUITE_TIMES: a file tests/run.sh reads to name the slowest scenarios
		[ -z "${SUITE_TIMES:-}" ] || echo "$((SECONDS - t0)) $prefix-$s" >>"$SUITE_TIMES"
		[ -n "$out" ] || out="FAIL $prefix-$s: script printed nothing (rc $rc)"
		echo "$out"
	fi
	: >"$tmp/$i.done"
}
