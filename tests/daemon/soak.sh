#!/bin/bash
# live-daemon-soak: the daemon with the shipped configuration (cgwatch.conf as installed:
# every key at its built-in value, but for where it writes: reports, state, bundles, the
# metrics file, and a flight recorder instance of its own) pages no one on a busy healthy
# host. Started on this host as it is, 10 s; then 45 s of a busy healthy load:
# `nice -n 10 stress-ng --cpu 2 --cpu-load 90` (both CPUs near 90 %, at nice 10) and
# `stress-ng --hdd 1 --hdd-bytes 64M` (writes and reads in the test's directory), each
# bounded by --timeout and killed by PID at exit:
#   - no incident opened, pressure or latency (no "-opened" report, no "opened" message);
#   - the PASS line says what the load did: the scans whose metrics had a resource crossed
#     (a cpu crossing that points to no known mechanism is an info finding, a report line
#     and cgwatch_pressure_crossed 1, not an incident, for [pressure] page_after: 60 s, more
#     than this run), those with a CPU's run-queue p99 past runq_p99_ms (likewise info for
#     [latency] page_after, cgwatch_runq_latency_crossed 1), and the largest cpu some and
#     io full avg10 seen.
# It loads both CPUs and reads the host's pressure, which any neighbour adds to: it runs alone
# (DMN_ALONE), like the scenarios with hogs. Other sessions on this host still add load (a
# real-time spinner of another test holds a CPU as no healthy load does): a FAIL names each
# incident, its evidence and tasks, the host's pressure and each CPU's holder then, and where
# the run's reports, the daemon's log and metrics and 2 s of run queues are kept
# (/tmp/cgwatch-soak-fail-*).
DMN_ALONE=1
LIVE_BUDGET=${LIVE_BUDGET:-85}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-soak
dmn_require nofuse
live_require_tools stress-ng nice
for r in cpu memory io; do
	[ -r /proc/pressure/$r ] || live_skip "no /proc/pressure/$r (a kernel without PSI, or psi=0)"
done
SHIPPED=$DMN_DIR/../../cgwatch.conf
[ -r "$SHIPPED" ] || live_fail "setup: no shipped configuration at $SHIPPED"
PROM=$LIVE_TMP/cgwatch.prom
DMN_CONF=$LIVE_TMP/cgwatch.conf
DMN_REPORTS=$LIVE_TMP/reports
mkdir -p "$DMN_REPORTS" "$LIVE_TMP/state" "$LIVE_TMP/load" || live_fail "setup: mkdir"
{
	cat "$SHIPPED"
	printf '\n# where this test writes\n[reports]\ndir = %s\n[run]\nstate_dir = %s\nmetrics_file = %s\n' \
		"$DMN_REPORTS" "$LIVE_TMP/state" "$PROM"
	printf '[bundle]\ndir = %s\n[recorder]\ninstance = cgwsoak%s\n' "$LIVE_TMP/bundles" "$$"
} >"$DMN_CONF" || live_fail "setup: cannot write $DMN_CONF"
out=$(timeout -k 1 5 "$CGWATCH" config --check --config "$DMN_CONF" 2>&1 3>&-) ||
	live_fail "setup: config --check rejects the shipped configuration: $(head -c 300 <<<"$out")"
dmn_start soak
ERR=${DMN_ERRS[-1]}
scans() { sed -n 's/^cgwatch_scans_total //p' "$PROM" 2>/dev/null; }
first() { [ -n "$(scans)" ]; }
live_wait_for 10 first || live_fail "no metrics file after 10 s: $(dmn_ctx)"

# one look a second at the metrics: per resource the scans that had it crossed, the largest
# avg10s and run-queue p99 seen
declare -A crossed=([cpu]=0 [memory]=0 [io]=0)
max_cpu=0 max_io=0 last_scan= lat_crossed=0
look() {
	local s r v
	s=$(scans)
	[ -n "$s" ] && [ "$s" != "$last_scan" ] || return 0
	last_scan=$s
	for r in cpu memory io; do
		grep -q "^cgwatch_pressure_crossed{resource=\"$r\"} 1$" "$PROM" && crossed[$r]=$((crossed[$r] + 1))
	done
	grep -q '^cgwatch_runq_latency_crossed{cpu="[0-9]*"} 1$' "$PROM" && lat_crossed=$((lat_crossed + 1))
	v=$(sed -n 's/^cgwatch_pressure_avg10_ratio{resource="cpu",kind="some"} //p' "$PROM")
	dmn_fcmp "${v:-0}" '>' "$max_cpu" && max_cpu=$v
	v=$(sed -n 's/^cgwatch_pressure_avg10_ratio{resource="io",kind="full"} //p' "$PROM")
	dmn_fcmp "${v:-0}" '>' "$max_io" && max_io=$v
	return 0
}
watch_for() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		look
		dmn_alive || live_fail "the daemon died: $(dmn_ctx)"
		sleep 1
	done
}
opened() { ls "$DMN_REPORTS" 2>/dev/null | grep -E -- '-opened\.json$'; }
# keep: the run's reports, the daemon's log and metrics, and 2 s of the host's run queues
# (cgwatch runq: every CPU's holder and longest waiters, host-wide, which a ps in this PID
# namespace is not), copied where they outlive the test (they are small); prints the directory
keep() {
	local d
	d=$(mktemp -d /tmp/cgwatch-soak-fail-XXXXXX) || return 1
	cp -r "$DMN_REPORTS" "$d/" 2>/dev/null
	cp "$ERR" "$d/daemon.err" 2>/dev/null
	cp "$PROM" "$d/cgwatch.prom" 2>/dev/null
	timeout -k 1 6 "$CGWATCH" runq --interval 2 >"$d/runq.json" 2>"$d/runq.err" 3>&-
	echo "$d"
}
# the lines of a finding's evidence a failure is read by
EVIDENCE='crossed its threshold|^CPU [0-9]+: run-queue|^held: |^waited: |^points to|paged|rose|forks'
verdict() {      # PHASE: fail naming every incident opened so far, each with its tasks
	local o f why= kept held
	o=$(opened)
	[ -z "$o" ] && ! grep -q 'opened, ' "$ERR" && return 0
	for f in $o; do
		why+="$f: $(jq -r --arg ev "$EVIDENCE" '. as $r | [.findings[] | .id + " on " + .cause +
			" (" + .severity + "): " + ([(.evidence // [])[] | select(test($ev))] | join("; ")) +
			"; tasks: " + ([(.tasks // [])[] as $t | ($r.tasks // [])[] | select(.tid == $t) |
			"\(.tid) \(.comm) \(.policy)/\(.rt_priority) cpu \(.cpu)"] |
			join(", "))] | join(" / ")' "$DMN_REPORTS/$f" | head -c 2500) | "
	done
	kept=$(keep) || kept="(not kept: mktemp failed)"
	# who holds each CPU now, host-wide: another test's real-time spinner shows here
	held=$(jq -r '[.cpus[] | "cpu \(.cpu) \(.held.comm // "?") \(.held.policy // "")/\(.held.rt_priority // 0) \(.held.ms // 0) ms"] | join(", ")' "$kept/runq.json" 2>/dev/null)
	live_fail "incident(s) opened $1: ${why:-$(grep -m3 'opened, ' "$ERR" | tr '\n' '|')} host: cpu $(head -1 /proc/pressure/cpu), io $(tail -1 /proc/pressure/io); holders now (2 s, host-wide): ${held:-not measured}; reports, daemon log, metrics and run queues kept in $kept"
}
watch_for 10
verdict "with the host as it was, 10 s after the start"

stop_load() {      # stress-ng ends its workers on SIGTERM; SIGKILL if it does not
	local p
	for p in $CPU_LOAD $HDD_LOAD; do kill -TERM "$p" 2>/dev/null; done
	for p in $CPU_LOAD $HDD_LOAD; do
		live_wait_for 5 _live_gone_or_zombie "$p" || live_kill_task "$p" 5
		wait "$p" 2>/dev/null
	done
	CPU_LOAD= HDD_LOAD=
}
live_on_exit stop_load
nice -n 10 stress-ng --cpu 2 --cpu-load 90 --timeout 45s --quiet </dev/null >"$LIVE_TMP/cpu.out" 2>&1 3>&- &
CPU_LOAD=$!
stress-ng --hdd 1 --hdd-bytes 64M --temp-path "$LIVE_TMP/load" --timeout 45s --quiet \
	</dev/null >"$LIVE_TMP/hdd.out" 2>&1 3>&- &
HDD_LOAD=$!
watch_for 45
kill -0 "$CPU_LOAD" 2>/dev/null || wait "$CPU_LOAD" ||
	live_fail "setup: stress-ng --cpu ended early: $(head -c 300 "$LIVE_TMP/cpu.out")"
stop_load
verdict "under the busy healthy load (45 s)"
dmn_stop
live_pass "no incident in 10 s as the host was and 45 s of stress-ng --cpu 2 --cpu-load 90 (nice 10) and --hdd 1; scans with pressure crossed: cpu ${crossed[cpu]}, memory ${crossed[memory]}, io ${crossed[io]}, with a CPU's run-queue p99 crossed (info) $lat_crossed, of $(scans); largest cpu some avg10 $max_cpu, io full avg10 $max_io"
