#!/bin/bash
# live-walkdefer: the task walker's stacks, read after its RCU section, for more blocked tasks
# than one run notes (128). 300 children of statmany blocked on one uninitialised FUSE mount;
# `check --format json --threshold 0 --verbose` with [scan] source = walker: the walker was
# used, it walked in 3 runs or more (each run notes at most 128 threads for their stacks,
# then stops and the next run resumes after them), and every child is reported in D with a
# kernel stack through fuse_get_req, under one fuse-wait finding: none lost between a run's
# walk and its stack reads, none twice. Where this kernel refuses the walker, the report must
# name the refusal and the iter/task program find all 300 the same way: then SKIP, saying so.
# In the initial PID namespace (the walker's ids are the host's), a mount namespace of its own.
DMN_PIDNS=0
LIVE_BUDGET=${LIVE_BUDGET:-60}
. "$(dirname "$0")/../daemon/lib.sh"
dmn_enter_ns "$@"
live_init walkdefer
dmn_require
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the walker cannot load here"
N=300
# above 4,000 processes the walker reads the iterator in its place (README 2b): wait for
# another test's processes to be gone first
few_procs() { set -- /proc/[0-9]*; [ $# -lt 3000 ]; }
live_wait_for 15 few_procs || live_skip "more than 3,000 processes on this host: the walker would read the iterator in its place"

dmn_block_many "$N" --name cgw-defer
kids_json=$(printf '%s\n' "${KIDS[@]}" | jq -s -c .)
printf '[scan]\nsource = walker\n' >"$LIVE_TMP/walker.conf"
live_cgwatch "$LIVE_TMP/w.json" "$LIVE_TMP/w.err" check --format json --threshold 0 --verbose \
	--config "$LIVE_TMP/walker.conf"
live_json_check "$LIVE_TMP/w.json" "check"
# every child once, in D, with its stack, in one fuse-wait finding
all_found() {
	local why
	why=$(jq -r --argjson kids "$kids_json" '
		[.tasks[]? | select(.tid as $t | $kids | index($t))] as $mine
		| [.findings[]? | select(.id == "fuse-wait") | .tasks[] | select(. as $t | $kids | index($t))] as $inf
		| if ($mine | length) != ($kids | length) then "\($mine | length) of \($kids | length) children reported"
		  elif ([$mine[].tid] | unique | length) != ($kids | length) then "a child reported twice"
		  elif ([$mine[] | select(.state != "D")] | length) > 0 then "not all in D"
		  elif ([$mine[] | select(any(.stack[]?; startswith("fuse_get_req")) | not)] | length) > 0
		  then "\([$mine[] | select(any(.stack[]?; startswith("fuse_get_req")) | not)] | length) without fuse_get_req in their stack, e.g. \([$mine[] | select(any(.stack[]?; startswith("fuse_get_req")) | not)][0] | {tid, stack})"
		  elif ($inf | unique | length) != ($kids | length) then "\($inf | unique | length) of them in fuse-wait findings"
		  else empty end' "$LIVE_TMP/w.json")
	[ -z "$why" ] || live_fail "$1: $why"
}
why=$(jq -r '.scan.source + ": " + .scan.source_why' "$LIVE_TMP/w.json")
case $(live_kernel_feature "$LIVE_TMP/w.json" task-walker) in
used:*) ;;
"refused: "?*)
	[[ $why == "bpf: task iterator loaded; the kernel refused the task walker ("* ]] ||
		live_fail "the walker refused, but source_why does not say so: $why"
	all_found "the iter/task program in the walker's place"
	live_proof scan-iterator
	live_skip "this kernel refused the task walker ($(live_kernel_feature "$LIVE_TMP/w.json" task-walker | head -c 200)); the iter/task program found all $N with their stacks" ;;
*) live_fail "the task walker neither used nor refused with a reason: $(live_kernel_feature "$LIVE_TMP/w.json" task-walker); $why" ;;
esac
[[ $why == "bpf: task walker loaded"* ]] || live_fail "the walker is not the scan source: $why"
line=$(grep -m1 -E '^cgwatch: debug: task walk: [0-9]+ threads in [0-9]+ runs' "$LIVE_TMP/w.err") ||
	live_fail "no 'task walk' line in check --verbose: $(grep -m3 debug "$LIVE_TMP/w.err" | tr '\n' '|' | head -c 300)"
runs=$(sed -E 's/^.* in ([0-9]+) runs.*$/\1/' <<<"$line")
[ "$runs" -ge 3 ] || live_fail "$N blocked children walked in $runs runs, want 3 or more (128 noted a run): $line"
all_found "the walker"
live_proof scan-walker
live_pass "${line#cgwatch: debug: }; all $N children in D with fuse_get_req, one fuse-wait finding"
