#!/bin/bash
# live-bpfsame: the scan through the BPF task iterator and through /proc give the same
# findings. On one host at once: a task blocked on a FUSE mount that never answers, a sleeper
# frozen in a v1 freezer cgroup, a vfork parent, and a SCHED_FIFO/10 spinner starved by a
# SCHED_FIFO/50 one on CPU 1. `check --format json` with the default source ([scan] source =
# auto: the report's scan.source must say "bpf", the iterator loaded) and with [scan] source
# = proc (scan.source "proc") alternate twice; each pair must agree on every finding (id,
# cause, severity, tasks, chain, cpus), on each finding task's state, bound and kernel stack
# (frame names, as /proc/TID/stack names them), and on the times within the seconds between
# the two runs. With [scan] source = walker the check's source is the task walker (the
# open-coded task iterator: its scan.source_why says so); with only its runs refused
# (tests/live/nobpf --test-run: a kernel without it) it is the iter/task program, which says
# why the walker is not used and finds the same; with source = auto a check (one scan) loads
# the iter/task program only, says so, and finds the same. Then with bpf() refused by a seccomp filter
# (tests/live/nobpf), the default source falls back to /proc, says why in scan.source_why,
# and finds the same. Where this kernel refuses the walker, the report must name the refusal
# (scan.kernel, source_why) and the iter/task program find the same: the test passes on the
# contract, and records in the suite's ledger (tests/proofs.sh) only the paths it saw work.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init_fuse bpfsame jq timeout awk taskset
live_require_helpers vforkhold spin nobpf
grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null || [ "$(nproc --all)" -ge 2 ] ||
	live_skip "needs a second CPU"
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the iterator cannot load here"
FZ=/sys/fs/cgroup/freezer
[ -f "$FZ/tasks" ] || live_skip "no cgroup v1 freezer hierarchy at $FZ"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"

live_fuse_child
FUSECHILD=$CHILD
live_vforkhold
VPARENT=$PARENT

CG=$FZ/cgwatch-bpfsame-$$
live_frozen_sleeper "$CG"

# the starved one dies only once the one starving it is gone: that one is killed first; each
# is moved to CPU 0 first, where no other test's real-time spinner may keep it from dying
unpin_kill() { [ -n "$1" ] && taskset -pc 0 "$1" >/dev/null 2>&1; live_kill_wait "$1"; }
live_on_exit 'unpin_kill "$LOW"'
live_on_exit 'unpin_kill "$HIGH"'
live_spin LOW 1 10 25
sleep 0.2
live_spin HIGH 1 50 20
sleep 2

printf '[thresholds]\nstarved = 1\n' >"$LIVE_TMP/auto.conf"
printf '[thresholds]\nstarved = 1\n[scan]\nsource = walker\n' >"$LIVE_TMP/walker.conf"
printf '[thresholds]\nstarved = 1\n[scan]\nsource = proc\n' >"$LIVE_TMP/proc.conf"
# check free to run on both CPUs (the script stays on CPU 0): it hops onto CPU 1
REAL=$CGWATCH
CGWATCH=$LIVE_TMP/cgwatch-free
printf '#!/bin/sh\nexec taskset -c 0,1 "$@"\n' >"$CGWATCH" && chmod +x "$CGWATCH" || live_fail "setup: wrapper"

# the findings of this test's tasks (other tests on a shared host come and go between runs)
OURS='[.findings[]? | select(.tasks | any(. as $t | $ours | index($t)))]'
KEY="$OURS"' | [.[] | {id, cause, severity, tasks: (.tasks | sort), chain, cpus}] | sort_by(.id, .cause, .tasks)'
TASKS="$OURS"' | [.[].tasks[]] as $f | [$r.tasks[]? | select(.tid as $t | $f | index($t)) | {tid, state, blocked_s, blocked_bound, stack: [.stack[]? | sub("\\+.*"; "")]}] | sort_by(.tid)'

# one NAME CONF [WRAP...]: check --format json into $LIVE_TMP/NAME.json, its start in T_NAME
one() {
	local name=$1 conf=$2
	shift 2
	local t0=$(live_now)
	CGWATCH_REAL=$REAL live_cgwatch "$LIVE_TMP/$name.json" "$LIVE_TMP/$name.err" "$@" "$REAL" \
		check --format json --threshold 1 --config "$conf"
	live_json_check "$LIVE_TMP/$name.json" "check ($name)"
	eval "T_$name=$t0 E_$name=$CG_T_AFTER"
}
# same A B: the two reports agree (times within what the runs' spans allow between their
# reads, + 0.2 s)
same() {
	local a b gap
	a=$(jq -c --argjson ours "$IDS" "$KEY" "$LIVE_TMP/$1.json")
	b=$(jq -c --argjson ours "$IDS" "$KEY" "$LIVE_TMP/$2.json")
	[ "$a" = "$b" ] || live_fail "$1 and $2: findings differ: $1 $(head -c 700 <<<"$a") $2 $(head -c 700 <<<"$b")"
	a=$(jq -c --argjson ours "$IDS" ". as \$r | $TASKS" "$LIVE_TMP/$1.json")
	b=$(jq -c --argjson ours "$IDS" ". as \$r | $TASKS" "$LIVE_TMP/$2.json")
	local ta=T_$1 tb=T_$2 ea=E_$1 eb=E_$2
	gap=$(awk -v a="${!ta}" -v b="${!tb}" -v x="${!ea}" -v y="${!eb}" \
		'BEGIN { d = y - a; e = x - b; if (d < 0) d = -d; if (e < 0) e = -e; print (d > e ? d : e) + 0.2 }')
	jq -n -e --argjson a "$a" --argjson b "$b" --argjson g "$gap" '($a | length) == ($b | length) and
		([range($a | length)] | all(. as $i | $a[$i].tid == $b[$i].tid and
			$a[$i].state == $b[$i].state and $a[$i].blocked_bound == $b[$i].blocked_bound and
			$a[$i].stack == $b[$i].stack and
			(($a[$i].blocked_s - $b[$i].blocked_s) | fabs) <= $g))' >/dev/null ||
		live_fail "$1 and $2: task times or stacks differ (gap $gap s): $1 $(head -c 900 <<<"$a") $2 $(head -c 900 <<<"$b")"
}
src() { jq -r '.scan.source + ": " + .scan.source_why' "$LIVE_TMP/$1.json"; }

IDS="[$FUSECHILD,$SLEEPER,$VPARENT,$LOW]"
one bpf1 "$LIVE_TMP/walker.conf" taskset -c 0,1
one proc1 "$LIVE_TMP/proc.conf" taskset -c 0,1
one proc2 "$LIVE_TMP/proc.conf" taskset -c 0,1
one bpf2 "$LIVE_TMP/walker.conf" taskset -c 0,1
# source = walker: the walker where this kernel loads it; where it refuses it, the refusal
# named (scan.kernel: task-walker "refused" with the kernel's reason, and the same in
# source_why) and the iter/task program in its place; never a silent fallback
WALKER=$(live_kernel_feature "$LIVE_TMP/bpf1.json" task-walker)
for r in bpf1 bpf2; do
	[ "$(jq -r .scan.source "$LIVE_TMP/$r.json")" = bpf ] ||
		live_fail "$r: the iterator was not used: $(src $r)"
	w=$(live_kernel_feature "$LIVE_TMP/$r.json" task-walker)
	case $w in
	used:*)
		jq -e '.scan.kernel.scan_source == "task-walker" and (.scan.source_why | test("^task walker loaded"))' \
			"$LIVE_TMP/$r.json" >/dev/null || live_fail "$r: the walker is used but scan.kernel or source_why says otherwise: $(src $r)"
		live_proof scan-walker ;;
	"refused: "?*)
		jq -e '.scan.kernel.scan_source == "task-iterator" and (.scan.source_why | test("^task iterator loaded; the kernel refused the task walker \\(.+\\)"))' \
			"$LIVE_TMP/$r.json" >/dev/null || live_fail "$r: the walker refused ($w), but the iter/task program is not what the scan used, or source_why does not name the refusal: $(src $r)"
		;;
	*) live_fail "$r: the task walker is neither used nor refused with a reason: scan.kernel says '$w'" ;;
	esac
done
for r in proc1 proc2; do
	[ "$(jq -r .scan.source "$LIVE_TMP/$r.json")" = proc ] || live_fail "$r: $(src $r), want proc"
	jq -e '.scan.kernel.scan_source == "proc" and ([.scan.kernel.features[] | select(.name | test("^task-")) | .state] == ["off", "off"])' \
		"$LIVE_TMP/$r.json" >/dev/null || live_fail "$r: scan.kernel does not say the programs are off: $(jq -c .scan.kernel "$LIVE_TMP/$r.json")"
done
# every scenario is found at all
for want in "fuse-wait $FUSECHILD" "frozen $SLEEPER" "vfork-wait $VPARENT" "starved $LOW"; do
	set -- $want
	jq -e --arg id "$1" --argjson t "$2" '[.findings[]? | select(.id == $id and (.tasks | index($t)))] | length == 1' \
		"$LIVE_TMP/bpf1.json" >/dev/null || live_fail "bpf: no $1 finding for $2: $(live_summary "$LIVE_TMP/bpf1.json")"
done
same bpf1 proc1
same proc2 bpf2

# the walker cannot run: the iter/task program, saying why
one nowalk "$LIVE_TMP/walker.conf" taskset -c 0,1 "$LIVE_BIN/nobpf" --test-run
[ "$(jq -r .scan.source "$LIVE_TMP/nowalk.json")" = bpf ] ||
	live_fail "the walker's runs refused: $(src nowalk), want bpf through the iter/task program"
jq -e '.scan.source_why | test("^task iterator loaded; the task walker could not be run")' \
	"$LIVE_TMP/nowalk.json" >/dev/null ||
	live_fail "the walker's runs refused: the report does not say why: $(src nowalk)"
same bpf2 nowalk
live_proof scan-iterator

# source = auto: a check (one scan) loads only the iter/task program, saying why
one once "$LIVE_TMP/auto.conf" taskset -c 0,1
jq -e '.scan.source == "bpf" and (.scan.source_why | test("^task iterator loaded; one scan"))' \
	"$LIVE_TMP/once.json" >/dev/null || live_fail "source = auto, one check: $(src once), want the iter/task program"
same bpf2 once

one nobpf "$LIVE_TMP/auto.conf" taskset -c 0,1 "$LIVE_BIN/nobpf"
[ "$(jq -r .scan.source "$LIVE_TMP/nobpf.json")" = proc ] ||
	live_fail "bpf() refused: $(src nobpf), want proc"
jq -e '.scan.source_why | test("refused")' "$LIVE_TMP/nobpf.json" >/dev/null ||
	live_fail "bpf() refused: the report does not say why: $(src nobpf)"
jq -e '.scan.kernel.scan_source == "proc" and ([.scan.kernel.features[] | select(.name == "task-iterator") | .state == "refused" and (.why | test("refused"))] == [true])' \
	"$LIVE_TMP/nobpf.json" >/dev/null || live_fail "bpf() refused: scan.kernel does not name the refusal: $(jq -c .scan.kernel "$LIVE_TMP/nobpf.json")"
same bpf2 nobpf
live_proof scan-proc
case $WALKER in
used:*) how="the walker, the iter/task program and /proc" ;;
*) how="the iter/task program (this kernel refused the walker: ${WALKER#refused: }) and /proc" ;;
esac
live_pass "$(src bpf1 | head -c 160); $(jq --argjson ours "$IDS" "$OURS | length" "$LIVE_TMP/bpf1.json") findings alike through $how; walker's runs refused: $(src nowalk | head -c 120); bpf() refused: $(src nobpf | head -c 80)"
