#!/bin/bash
# live-quickcheck: a healthy live `check` returns as soon as the scan is done, without the
# 1 s counting window and without opening a perf counter; `check --rates` does count.
#
# "Healthy" is made certain rather than hoped for: a config whose thresholds (a day) no task
# on this host reaches, so no finding, hence none whose correlator needs the counts.
# perf_event_open calls are counted by tests/live/syscount.c (seccomp user notification; each
# call goes through unchanged). Checks:
#   - check (json and text), 3 runs each: exit 0, no perf_event_open, no "rates" object, the
#     text says the activity was not counted; the fastest run under QUICK_MAX_S (0.5 s: half
#     the window, which the old behaviour always waited out, plus ~0.3 s of closing);
#   - check --rates: a "rates" object, live, over a window of about 1 s, and (perf here)
#     perf_event_open called: the counter does see them.
. "$(dirname "$0")/lib.sh"
live_init quickcheck
live_require_root
live_require_tools jq timeout awk
live_require_helpers syscount
live_require_binary
live_mktemp

QUICK_MAX_S=${QUICK_MAX_S:-0.5}
CONF=$LIVE_TMP/quiet.conf
cat >"$CONF" <<'EOF' || live_fail "cannot write $CONF"
[thresholds]
blocked_warning = 86400
blocked_critical = 86400
starved = 86400
EOF

# run_counted OUT ARGS...: cgwatch under syscount; sets CG_RC, CG_S (wall seconds), PERF_CALLS
run_counted() {
	local out=$1
	shift
	rm -f "$LIVE_TMP/count"
	CG_T_BEFORE=$(live_now)
	timeout -k 2 "$LIVE_CG_TIMEOUT" "$LIVE_BIN/syscount" "$LIVE_TMP/count" "$CGWATCH" "$@" \
		>"$out" 2>"$out.err" 3>&-
	CG_RC=$?
	CG_S=$(live_elapsed_since "$CG_T_BEFORE")
	[ "$CG_RC" = 125 ] && live_skip "no seccomp user notification here: $(head -c 200 "$out.err")"
	[ "$CG_RC" = 124 ] || [ "$CG_RC" = 137 ] &&
		live_fail "cgwatch $* did not return within $LIVE_CG_TIMEOUT s"
	PERF_CALLS=$(cat "$LIVE_TMP/count" 2>/dev/null)
	[[ $PERF_CALLS =~ ^[0-9]+$ ]] || live_fail "syscount wrote no count for cgwatch $* (rc $CG_RC)"
}

best=
times=
for fmt in json text; do
	for i in 1 2 3; do
		OUT=$LIVE_TMP/check.$fmt.$i
		run_counted "$OUT" check --config "$CONF" --format "$fmt"
		[ "$CG_RC" = 0 ] || live_fail "check --format $fmt: exit $CG_RC, want 0 (healthy by config); stderr: $(head -c 300 "$OUT.err")"
		[ "$PERF_CALLS" = 0 ] ||
			live_fail "check --format $fmt called perf_event_open $PERF_CALLS times; no finding needs the counts"
		times+="$CG_S "
		best=$(awk -v a="$best" -v b="$CG_S" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
done
J=$LIVE_TMP/check.json.1
live_json_check "$J" "check --format json"
jq -e 'has("rates") | not' "$J" >/dev/null ||
	live_fail "a healthy check has a rates object: $(jq -c '.rates | {source, window_s}' "$J")"
grep -q '^cgroup activity: not counted' "$LIVE_TMP/check.text.1" ||
	live_fail "the text does not say cgroup activity was not counted: $(grep -i 'cgroup activity' "$LIVE_TMP/check.text.1" | head -c 200)"
awk -v b="$best" -v m="$QUICK_MAX_S" 'BEGIN { exit !(b < m) }' ||
	live_fail "a healthy check took at best $best s (runs: $times), want < $QUICK_MAX_S s ($(cut -d' ' -f1-3 /proc/loadavg) load)"

# --rates: the user asks, the window opens
J=$LIVE_TMP/rates.json
run_counted "$J" check --config "$CONF" --format json --rates
[ "$CG_RC" = 0 ] || live_fail "check --rates: exit $CG_RC, want 0; stderr: $(head -c 300 "$J.err")"
live_json_check "$J" "check --rates --format json"
jq -e '.rates.live == true and .rates.window_s >= 0.9 and .rates.window_s < 5' "$J" >/dev/null ||
	live_fail "check --rates: rates $(jq -c '.rates | {source, live, window_s}' "$J"), want live over ~1 s"
src=$(jq -r .rates.source "$J")
if [ "$src" = perf ]; then
	[ "$PERF_CALLS" -gt 0 ] ||
		live_fail "check --rates counted with perf, yet syscount saw no perf_event_open: the counter is blind"
	jq -e '.rates.events["sched:sched_process_fork"].count | type == "number"' "$J" >/dev/null ||
		live_fail "check --rates: no fork count: $(jq -c '.rates.events["sched:sched_process_fork"]' "$J")"
else
	# no perf here (the /proc fallback): still a window, and the notes say why
	jq -e '.rates.notes | length > 0' "$J" >/dev/null ||
		live_fail "check --rates: source $src without a note saying why"
fi
live_pass
