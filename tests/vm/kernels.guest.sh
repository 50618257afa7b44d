# vm-kernels, the guest side (bash, in the VM; see tests/vm/kernels.sh for what it checks).
# Each check prints its PASS/FAIL/SKIP line; a path seen working end to end (its source named
# and the FUSE-stuck task found with its exact time, or latency measured) also prints
# "PROOF PATH", which the host records in the suite's ledger (tests/proofs.sh) for this kernel.
. "${VM_GUEST_LIB:-/vm/lib.sh}"

REL=$(uname -r)
echo "KERNEL-RELEASE $REL"
IFS=. read -r KMAJ KMIN _ <<<"$REL"
# the open-coded task iterator (bpf_iter_task_new), which the walker needs, is 6.7's
OLD=0
[ "$KMAJ" -lt 6 ] || { [ "$KMAJ" = 6 ] && [ "${KMIN%%[!0-9]*}" -lt 7 ]; } && OLD=1
proven() { echo "PROOF $1"; }
at() { echo "AT $(cut -d' ' -f1 /proc/uptime) $1"; }    # where the time goes (not a result)
now() { echo "$EPOCHREALTIME"; }
fcalc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
short() { tr '\n' '|' | head -c "${1:-300}"; }

printf '[scan]\nsource = walker\n' >/tmp/walker.conf
printf '[scan]\nsource = proc\n' >/tmp/proc.conf
printf '[latency]\nrunq = schedstat\n' >/tmp/schedstat.conf

at fuse
# ---- a task blocked on a FUSE mount that never answers (tests/live/fusehold)
CHILD= T_START=
mkdir -p /tmp/fmnt
if ! grep -qw fuse /proc/filesystems; then
	g_fail fuse "no fuse file system in $REL (insmod: $(short 200 </tmp/insmod.log 2>/dev/null); modules: $(cut -d' ' -f1 /proc/modules | short 100))"
else
	fusehold /tmp/fmnt --child --name cgw-fusestuck >/tmp/fuse.out 2>&1 &
	for i in $(seq 1 100); do
		grep -q '^child ' /tmp/fuse.out && break
		sleep 0.1
	done
	read -r _ CHILD T_START < <(grep '^child ' /tmp/fuse.out)
	[ -n "$CHILD" ] || g_fail fuse "fusehold did not start its child in 10 s: $(short 200 </tmp/fuse.out)"
fi
# (the run-queue checks come first: the task is blocked for a while before the first check,
# and the bounds below then mean something)

# fuse_ok JSON LO HI: the child is in tasks[] as fuse-wait, state D, its blocked time exact
# and within LO..HI (s since it blocked, measured around cgwatch's run), and a fuse-wait
# finding lists it; else FUSE_WHY says what was wrong. FUSE_NOTE: what it showed.
fuse_ok() {
	local sig st bound b nf
	FUSE_WHY= FUSE_NOTE=
	[ -n "$CHILD" ] || { FUSE_WHY="no FUSE-stuck task"; return 1; }
	# one jq (each is a fraction of a second under TCG): the task's fields, the findings naming it
	read -r sig st bound b nf < <(jq -r --argjson t "$CHILD" '([.tasks[]? | select(.tid == $t)][0]) as $k |
		([.findings[]? | select(.id == "fuse-wait") | select((.tasks // []) | index($t))] | length) as $f |
		if $k == null then "none" else "\($k.signature) \($k.state) \($k.blocked_bound) \($k.blocked_s) \($f)" end' "$1" 2>/dev/null)
	if [ -z "$sig" ] || [ "$sig" = none ]; then
		FUSE_WHY="the FUSE-stuck task $CHILD is not in tasks[]: findings $(jq -c '[.findings[]?.id]' "$1" 2>&1 | head -c 200), scan.untimed $(jq -r .scan.untimed "$1" 2>&1); in /proc now: state $(cut -d' ' -f3 "/proc/$CHILD/stat" 2>&1), $(grep -E '^se.exec_start' "/proc/$CHILD/sched" 2>&1 | tr -s ' ')"
	elif [ "$sig $st $bound" != "fuse-wait D exact" ]; then
		FUSE_WHY="task $CHILD: signature $sig, state $st, blocked_s $b ($bound), want fuse-wait, D, exact"
	# TCG's clocks are the emulator's: 10 % and half a second either side of the truth
	elif ! awk -v b="$b" -v lo="$2" -v hi="$3" 'BEGIN { exit !(b ~ /^[0-9.]+$/ && b >= 0.9 * lo - 0.5 && b <= 1.1 * hi + 0.5) }'; then
		FUSE_WHY="task $CHILD blocked_s=$b, but it blocked $2..$3 s before (10 % + 0.5 s allowed)"
	elif [ "$nf" = 0 ]; then
		FUSE_WHY="no fuse-wait finding lists task $CHILD: $(jq -c '[.findings[]? | {id, tasks}]' "$1" | head -c 200)"
	else
		FUSE_NOTE="FUSE task blocked ${b} s (exact; truth $2..$3)"
		return 0
	fi
	return 1
}

# generic WHY: a refusal whose reason is only libbpf's summary of it ("failed to load BPF
# skeleton 'x': -22"), not what the kernel or the verifier refused
generic() { grep -qE "refused the task (walker|iterator) \([^()]*libbpf: failed to load (BPF skeleton|object)[^()]*\)" <<<"$1"; }

# src_of WHY SOURCE: walker, iterator or proc, from the report's scan.source and source_why
src_of() {
	case $2:$1 in
	bpf:"task walker loaded"*) echo walker ;;
	bpf:"task iterator loaded"*) echo iterator ;;
	proc:*) echo proc ;;
	*) echo "unknown ($2: $1)" ;;
	esac
}

# kernel_ok JSON WANT_SCAN: where the report has .scan.kernel (the lead's schema), its
# scan_source is WANT_SCAN (task-walker, task-iterator, proc), its release this kernel's, its
# features well formed, and a refused one has its why. KERNEL_WHY when not; KERNEL_NOTE.
kernel_ok() {
	KERNEL_WHY= KERNEL_NOTE=
	jq -e '.scan | has("kernel")' "$1" >/dev/null 2>&1 || { KERNEL_NOTE="(no scan.kernel)"; return 0; }
	if ! jq -e --arg r "$REL" --arg s "$2" '.scan.kernel | .release == $r and .scan_source == $s and
		(.runq_source | IN("runq-program", "schedstat", "none")) and
		(.features | type == "array" and length > 0 and all(.[];
			(.name | IN("task-walker", "task-iterator", "runq-program", "tracepoint-counters")) and
			(.state | IN("used", "available", "refused", "not-tried", "off")) and
			(.state != "refused" or ((.why // "") | length > 0))))' "$1" >/dev/null 2>&1; then
		KERNEL_WHY="scan.kernel is not {release $REL, scan_source $2, runq_source, features with a why where refused}: $(jq -c .scan.kernel "$1" | head -c 400)"
		return 1
	fi
	KERNEL_NOTE="scan.kernel: $(jq -r '.scan.kernel.features | map("\(.name) \(.state)") | join(", ")' "$1")"
}

# check_run NAME ARGS...: cgwatch check --format json --threshold 1 ARGS into /tmp/NAME.json
# (stderr /tmp/NAME.err); LO and HI: the FUSE task's blocked time before and after it ran.
check_run() {
	local n=$1 t0 t1
	shift
	t0=$(now)
	g_run "/tmp/$n.json" "/tmp/$n.err" 90 cgwatch check --format json --threshold 1 "$@"
	t1=$(now)
	LO=$(fcalc "$t0 - ${T_START:-$t0}") HI=$(fcalc "$t1 - ${T_START:-$t1}")
	CHECK_SECS=$(fcalc "$t1 - $t0")
	if [ "$G_RC" != 1 ] && [ "$G_RC" != 0 ]; then
		CHECK_WHY="exit $G_RC: $(short 300 <"/tmp/$n.err")"
	elif ! IFS=$'\t' read -r SRC WHY < <(jq -r '.scan | [.source, .source_why] | @tsv' "/tmp/$n.json" 2>/dev/null) ||
		[ -z "$SRC" ]; then
		CHECK_WHY="no scan.source in the report: $(head -c 300 "/tmp/$n.json")"
	else
		CHECK_WHY=
		return 0
	fi
	return 1
}
ksrc() { case $1 in walker) echo task-walker ;; iterator) echo task-iterator ;; *) echo "$1" ;; esac; }

at runq
# ---- run-queue latency: auto (the sched_switch program where it loads), then schedstat
# (which reads the threads a scan finds runnable), each over 1 s beside two SCHED_OTHER loops
# on each CPU (tests/live/spin), which wait for each other
# runq_ok NAME JSON: a source named, every CPU counted waits, and a loop among those that waited
runq_ok() {
	local src
	src=$(jq -r '.source // empty' "$2" 2>/dev/null)
	if [ "$G_RC" != 0 ] || [ -z "$src" ]; then
		g_fail "$1" "cgwatch runq exit $G_RC, no source: $(jq -c '{source, why}' "$2" 2>&1 | head -c 200) $(short 200 <"/tmp/$1.err")"
		return 1
	elif ! jq -e '(.cpus | length) > 0 and all(.cpus[]; .count > 0 and .sum_ms > 0)' "$2" >/dev/null; then
		g_fail "$1" "source $src ($(jq -r .why "$2")): a CPU counted no wait: $(jq -c '[.cpus[] | {cpu, count, sum_ms}]' "$2")"
		return 1
	elif ! jq -e --argjson l "[$LOOPS]" '[.cpus[].waited[]?.tid] | any(. as $t | $l | index($t))' "$2" >/dev/null; then
		g_fail "$1" "source $src: none of the loops ($LOOPS) among the waiters: $(jq -c '[.cpus[] | {cpu, count, waited: [.waited[]? | {tid, comm, ms}]}]' "$2" | head -c 300)"
		return 1
	fi
	g_pass "$1" "$src ($(jq -r .why "$2" | head -c 120)): $(jq -r '[.cpus[] | "cpu \(.cpu) \(.count) waits, p99 \(.p99_ms) ms"] | join(", ")' "$2")"
	RUNQ_SRC=$src
}
# loops_start: the four loops (nice 19: cgwatch keeps its share of the emulated CPUs), their
# pids in LOOPS; loops_stop ends them
loops_start() {
	local c
	LOOPS=
	for c in 0 0 1 1; do
		if g_spin L "$c" 0 60; then
			LOOPS+="${LOOPS:+,}$L"
			renice -n 19 -p "$L" >/dev/null 2>&1
		else
			g_fail setup "a loop on CPU $c did not start: $(cat /tmp/L.out)"
		fi
	done
}
loops_stop() {
	local p
	for p in ${LOOPS//,/ }; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
loops_start
g_run /tmp/runq.json /tmp/runq.err 40 cgwatch runq --interval 1
loops_stop
if runq_ok runq /tmp/runq.json; then
	case $RUNQ_SRC in
	sched_switch) proven runq-program ;;
	schedstat*) proven runq-schedstat ;;
	esac
fi
loops_start
g_run /tmp/runqss.json /tmp/runqss.err 40 cgwatch runq --interval 1 --config /tmp/schedstat.conf
loops_stop
if [ "$(jq -r '.source // empty' /tmp/runqss.json 2>/dev/null | cut -d: -f1)" != schedstat ]; then
	g_fail runq-schedstat "[latency] runq = schedstat, but the source is $(jq -c '{source, why}' /tmp/runqss.json 2>&1 | head -c 200)"
elif runq_ok runq-schedstat /tmp/runqss.json; then
	proven runq-schedstat
fi

at check-auto
# ---- check (auto, --rates): the iterator where it loads (a check never loads the walker);
# the counters measure a loop of forks beside it
# (the loop is this subshell itself, so that killing it ends it; it ends itself after 20 s)
(
	end=$((SECONDS + 20))
	while [ $SECONDS -lt $end ]; do /bin/true; done
) >/dev/null 2>&1 &
FORKER=$!
check_run auto --rates
ok=$?
kill -KILL "$FORKER" 2>/dev/null
wait "$FORKER" 2>/dev/null
if [ "$ok" = 0 ]; then
	s=$(src_of "$WHY" "$SRC")
	if ! fuse_ok /tmp/auto.json "$LO" "$HI"; then
		g_fail check-auto "scan source $s ($WHY): $FUSE_WHY"
	elif ! kernel_ok /tmp/auto.json "$(ksrc "$s")"; then
		g_fail check-auto "$KERNEL_WHY"
	elif [ "$s" = proc ] && ! grep -q . <<<"$WHY"; then
		g_fail check-auto "scan source /proc without a why"
	else
		g_pass check-auto "$s ($WHY), $FUSE_NOTE, ${CHECK_SECS} s; $KERNEL_NOTE"
		case $s in iterator) proven scan-iterator ;; walker) proven scan-walker ;; proc) proven scan-proc ;; esac
	fi
	# the counters: the fork loop's forks counted over the window
	rs=$(jq -r '.rates.source // empty' /tmp/auto.json) forks=$(jq -r '.rates.forks.count // empty' /tmp/auto.json)
	if [ -z "$rs" ]; then
		g_fail counters "no rates in the report: $(jq -c .rates /tmp/auto.json | head -c 200)"
	elif jq -e '.scan | has("kernel")' /tmp/auto.json >/dev/null &&
		! jq -e --arg st "$([ "$rs" = perf ] && echo used || echo refused)" '[.scan.kernel.features[] | select(.name == "tracepoint-counters" and .state == $st)] | length == 1' /tmp/auto.json >/dev/null; then
		g_fail counters "counted with $rs, but scan.kernel says $(jq -c '[.scan.kernel.features[] | select(.name == "tracepoint-counters")]' /tmp/auto.json | head -c 200)"
	elif ! [ "${forks:-0}" -ge 5 ] 2>/dev/null; then
		g_fail counters "source $rs counted ${forks:-no} forks in $(jq -r .rates.window_s /tmp/auto.json) s beside a fork loop: $(jq -c .rates.notes /tmp/auto.json | head -c 200)"
	else
		g_pass counters "$rs: $forks forks in $(jq -r .rates.window_s /tmp/auto.json) s beside a fork loop ($(jq -r '.rates.forks.from // "?"' /tmp/auto.json))"
		case $rs in perf) proven counters-perf ;; proc) proven counters-proc ;; esac
	fi
else
	g_fail check-auto "$CHECK_WHY"
fi

at check-walker
# ---- check with [scan] source = walker: the walker where the kernel takes it; else its
# refusal named (on 6.1, which has no open-coded task iterator, it must be) and the iterator
if check_run walker --config /tmp/walker.conf --verbose; then
	s=$(src_of "$WHY" "$SRC")
	# what libbpf and the verifier said, from --verbose: the line naming what was refused
	vlog=$(grep -E '^libbpf: ' /tmp/walker.err | grep -m2 -iE 'not found in kernel|unknown func|invalid func|not allowed|in rcu_read_lock|BPF program load failed' | short 300)
	if ! fuse_ok /tmp/walker.json "$LO" "$HI"; then
		g_fail check-walker "scan source $s ($WHY): $FUSE_WHY"
	elif ! kernel_ok /tmp/walker.json "$(ksrc "$s")"; then
		g_fail check-walker "$KERNEL_WHY"
	elif [ "$s" = walker ] && [ "$OLD" = 1 ]; then
		g_fail check-walker "the task walker loaded on $REL, which has no open-coded task iterator (6.7+): $WHY"
	elif [ "$s" = walker ]; then
		g_pass check-walker "walker ($WHY), $FUSE_NOTE, ${CHECK_SECS} s; $KERNEL_NOTE"
		proven scan-walker
	elif ! grep -qiE 'walker' <<<"$WHY" || ! grep -qE 'walker[^(]*\(.+\)' <<<"$WHY" || generic "$WHY"; then
		g_fail check-walker "[scan] source = walker, $s used, but the walker's refusal is not named with its reason: $WHY; --verbose: ${vlog:-nothing}"
	elif jq -e '.scan | has("kernel")' /tmp/walker.json >/dev/null &&
		! jq -e '[.scan.kernel.features[] | select(.name == "task-walker" and .state == "refused" and (.why | length > 0))] | length == 1' /tmp/walker.json >/dev/null; then
		g_fail check-walker "the walker was refused ($WHY) but scan.kernel does not say so: $(jq -c .scan.kernel.features /tmp/walker.json | head -c 300)"
	else
		g_pass check-walker "walker refused, $s used: $WHY; --verbose: $vlog; $FUSE_NOTE, ${CHECK_SECS} s; $KERNEL_NOTE"
		case $s in iterator) proven scan-iterator ;; proc) proven scan-proc ;; esac
	fi
else
	g_fail check-walker "$CHECK_WHY"
fi

at check-proc
# ---- check with [scan] source = proc
if check_run proc --config /tmp/proc.conf; then
	s=$(src_of "$WHY" "$SRC")
	if [ "$s" != proc ]; then
		g_fail check-proc "[scan] source = proc, but the scan read $s ($WHY)"
	elif ! fuse_ok /tmp/proc.json "$LO" "$HI"; then
		g_fail check-proc "$FUSE_WHY"
	elif ! kernel_ok /tmp/proc.json proc; then
		g_fail check-proc "$KERNEL_WHY"
	else
		g_pass check-proc "/proc ($WHY), $FUSE_NOTE, ${CHECK_SECS} s"
		proven scan-proc
	fi
else
	g_fail check-proc "$CHECK_WHY"
fi

at daemon
# ---- the daemon: its log names its scan source (once) and its run-queue source, and the
# "kernel: NAME STATE (why)" lines where it has them; it opens the FUSE task's incident
mkdir -p /tmp/reports /tmp/state
timeout -s KILL 60 cgwatch run --config "$VM_FILES/kernels.conf" >/tmp/run.out 2>/tmp/run.err &
D=$!
rep=
for i in $(seq 1 60); do
	sleep 0.5
	grep -q 'run-queue latency: ' /tmp/run.err || continue
	[ -n "$CHILD" ] || break
	for f in /tmp/reports/*.json; do
		[ -f "$f" ] || continue
		if jq -e --argjson t "$CHILD" '[.. | objects | select(.tid? == $t and .blocked_bound? == "exact")] | length > 0' "$f" >/dev/null 2>&1 &&
			jq -e '[.. | objects | select(.signature? == "fuse-wait")] | length > 0' "$f" >/dev/null 2>&1; then
			rep=$f
			break 2
		fi
	done
done
sleep 1.5                             # a scan or two more: the source is said once
kill -TERM "$D" 2>/dev/null
wait "$D" 2>/dev/null
scanl=$(grep -E '^cgwatch: scan source: ' /tmp/run.err)
runql=$(grep -m1 -E '^cgwatch: run-queue latency: ' /tmp/run.err | cut -d' ' -f2-)
kl=$(grep -E '^cgwatch: kernel: ' /tmp/run.err | cut -d' ' -f2-)
bad_kl=$(grep -vE '^kernel: (task-walker|task-iterator|runq-program|tracepoint-counters) (used|available|refused|not-tried|off)( \(.+\))?$' <<<"$kl" | grep .)
ds=$(src_of "$(sed -n 's/^cgwatch: scan source: [^ ]* (\(.*\))$/\1/p' <<<"$scanl" | head -1)" \
	"$(sed -n 's/^cgwatch: scan source: \([^ ]*\) .*/\1/p' <<<"$scanl" | head -1 | sed 's|^/proc$|proc|')")
if [ "$(grep -c . <<<"$scanl")" != 1 ]; then
	g_fail daemon "'scan source:' said $(grep -c . <<<"$scanl") times, want once: $(short 300 <<<"$scanl"); log $(tail -c 300 /tmp/run.err | short)"
elif [ -z "$runql" ]; then
	g_fail daemon "no 'run-queue latency:' line: log $(tail -c 400 /tmp/run.err | short 400)"
elif [ -n "$bad_kl" ]; then
	g_fail daemon "kernel lines not 'kernel: NAME STATE (why)': $(short 300 <<<"$bad_kl")"
elif grep -qE '^kernel: [a-z-]+ refused$' <<<"$kl"; then
	g_fail daemon "a refusal without its reason: $(short 300 <<<"$kl")"
elif [ "$ds" = walker ] && [ "$OLD" = 1 ]; then
	g_fail daemon "the walker on $REL, which has no open-coded task iterator: $scanl"
elif [ "$ds" != walker ] && { ! grep -qE 'walker[^(]*\(.+\)' <<<"$scanl" || generic "$scanl"; }; then
	g_fail daemon "scan source $ds, but the walker's refusal is not named with its reason: $scanl"
elif [ -n "$CHILD" ] && [ -z "$rep" ]; then
	g_fail daemon "no report on the FUSE task $CHILD with its exact time in 30 s: reports $(ls /tmp/reports | short 200); log $(tail -c 300 /tmp/run.err | short)"
else
	g_pass daemon "${scanl#cgwatch: }; $runql${kl:+; $(short 400 <<<"$kl")}; ${rep:+incident of the FUSE task opened ($(basename "$rep"))}"
	[ -z "$rep" ] || case $ds in walker) proven scan-walker ;; iterator) proven scan-iterator ;; proc) proven scan-proc ;; esac
fi
at end
