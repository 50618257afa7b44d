#!/bin/bash
# Live: cgroup churn on a private cgroup v1 named hierarchy is counted.
#
# Mounts `-o none,name=cgwtest$$` in a private temp dir, creates, reads (`tasks`: builds a
# pidlist, so destroy work is queued) and removes CHURN_N cgroups (default 200) while the
# rates module counts (tests/live/rates/ratecount.c, linked against build/obj like the
# daemon), and checks:
#   - perf: cgroup:cgroup_mkdir and cgroup_rmdir counted >= N each, per_s = count / window,
#     window about what was asked; work queued on cgroup_pidlist_destroy counted (the
#     tracepoint filter on the workqueue name works);
#   - the /proc fallback with perf_event_open denied by seccomp (as the systemd unit's
#     SystemCallFilter does): source proc-cgroups, the notes say why, forks counted from
#     /proc/stat >= N;
#   - `cgwatch check --rates --format json` (a healthy check counts only when asked): its
#     "rates" object counted the churn too.
# Everything made is removed at exit (cgroups, the mount, the temp dir), even on failure.
. "$(dirname "$0")/lib.sh"
live_init churn
live_require_root
live_require_tools jq cc pkg-config mount umount timeout
live_mktemp

N=${CHURN_N:-200}
OBJDIR=${CGW_OBJDIR:-$LIVE_REPO/build/obj}
COUNTER=$LIVE_TMP/ratecount

# ---- the counter: source-rates.c and the rest of cgwatch, without main.o
[ -f "$OBJDIR/source-rates.o" ] || live_fail "no $OBJDIR/source-rates.o (run make -C $LIVE_REPO)"
live_cgwatch_objs "$OBJDIR"
timeout 30 cc -std=gnu11 -O1 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-include "$OBJDIR/../config.h" -I"$LIVE_REPO/src" "${cg_cflags[@]}" \
	-o "$COUNTER" "$LIVE_DIR/rates/ratecount.c" "${objs[@]}" \
	"${cg_libs[@]}" ||
	live_fail "could not build $LIVE_DIR/rates/ratecount.c against $OBJDIR"

# ---- the private hierarchy
MNT=$LIVE_TMP/hier
NAME=cgwtest$$
live_v1_hierarchy "$MNT" "$NAME" nokeep

# mkdir, read tasks, rmdir: N times (or, with "forever", until the file stop exists);
# fork-heavy on purpose: every command is a new process
cat >"$LIVE_TMP/churn.sh" <<EOF
i=0
while if [ "\$1" = forever ]; then [ ! -e "$LIVE_TMP/stop" ]; else [ \$i -lt $N ]; fi; do
	mkdir "$MNT/c\$i" && cat "$MNT/c\$i/tasks" >/dev/null && rmdir "$MNT/c\$i" || exit 1
	i=\$((i + 1))
done
EOF

# ---- perf
timeout 30 "$COUNTER" -w 1000 -- sh "$LIVE_TMP/churn.sh" >"$LIVE_TMP/perf.json" 2>"$LIVE_TMP/perf.err" ||
	live_fail "ratecount failed (rc $?): $(head -c 300 "$LIVE_TMP/perf.err")"
J=$LIVE_TMP/perf.json
jq -e . "$J" >/dev/null 2>&1 || live_fail "ratecount output is not JSON: $(head -c 200 "$J")"
[ "$(jq -r .cmd_exit "$J")" = 0 ] || live_fail "the churn loop failed (exit $(jq -r .cmd_exit "$J"))"
# fallback_ok: the report $J counted from /proc (source proc-cgroups), saying why perf is
# not used, the forks counted from /proc/stat
fallback_ok() {
	[ "$(jq -r .rates.source "$J")" = proc-cgroups ] ||
		live_fail "$1: the source is $(jq -r .rates.source "$J"), want proc-cgroups"
	jq -e '.rates.notes | any(test(".: counting from /proc/cgroups"))' "$J" >/dev/null ||
		live_fail "$1: the notes do not say why perf is not used: $(jq -c .rates.notes "$J")"
	jq -e '.rates.events["cgroup:cgroup_mkdir"].missing == true' "$J" >/dev/null ||
		live_fail "$1: mkdir is not reported missing without perf: $(jq -c '.rates.events["cgroup:cgroup_mkdir"]' "$J")"
	jq -e --argjson n "$N" '.rates.forks.from == "/proc/stat processes" and .rates.forks.count >= $n' \
		"$J" >/dev/null || live_fail "$1: forks from /proc/stat: $(jq -c .rates.forks "$J"), want >= $N"
}
src=$(jq -r .rates.source "$J")
if [ "$src" != perf ]; then                # refused here: the fallback, saying why
	fallback_ok "perf refused by this kernel"
	live_proof counters-proc
	live_skip "perf is not available here ($(jq -r '.rates.notes | join("; ")' "$J" | head -c 200)); the /proc fallback counted the forks"
fi
ev() { jq -r --arg e "$1" ".rates.events[\$e].$2 // \"missing: \" + (.rates.events[\$e].why // \"?\")" "$J"; }
mk=$(ev cgroup:cgroup_mkdir count)
rm=$(ev cgroup:cgroup_rmdir count)
pl=$(ev workqueue:workqueue_queue_work/cgroup_pidlist_destroy count)
win=$(jq -r .rates.window_s "$J")
atleast() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ]; }
atleast "$mk" "$N" || live_fail "cgroup_mkdir counted $mk, want >= $N"
atleast "$rm" "$N" || live_fail "cgroup_rmdir counted $rm, want >= $N"
# the window: at least the 1 s asked, and not absurdly longer (the loop takes < 1 s here)
jq -e '.rates.window_s >= 1.0 and .rates.window_s < 30' "$J" >/dev/null ||
	live_fail "window_s is $win, want 1.0 .. 30"
# rates are counts over that window, and plausible: not more than N*10 per second
jq -e '[.rates.events["cgroup:cgroup_mkdir", "cgroup:cgroup_rmdir"]
        | (.per_s * $w - .count) | (if . < 0 then -. else . end) < 0.1 * $w + 1] | all' --argjson w "$win" "$J" >/dev/null ||
	live_fail "per_s is not count / window_s ($(jq -c '.rates.events["cgroup:cgroup_mkdir"]' "$J"), window $win)"
jq -e --argjson n "$N" '.rates.events["cgroup:cgroup_mkdir"].per_s <= $n * 10' "$J" >/dev/null ||
	live_fail "mkdir rate implausible: $(jq -c '.rates.events["cgroup:cgroup_mkdir"]' "$J")"
atleast "$pl" 1 || live_fail "no work counted on cgroup_pidlist_destroy after $N pidlists ($pl)"

# ---- the fallback: perf_event_open denied
timeout 30 "$COUNTER" -n -w 500 -- sh "$LIVE_TMP/churn.sh" >"$LIVE_TMP/proc.json" 2>"$LIVE_TMP/proc.err" ||
	live_fail "ratecount -n failed (rc $?): $(head -c 300 "$LIVE_TMP/proc.err")"
J=$LIVE_TMP/proc.json
fallback_ok "perf_event_open denied"
jq -e '.rates.notes | any(test("perf_event_open.*Operation not permitted"))' "$J" >/dev/null ||
	live_fail "the notes do not say why perf is not used: $(jq -c .rates.notes "$J")"

# ---- cgwatch check --rates
if [ -x "$CGWATCH" ]; then
	sh "$LIVE_TMP/churn.sh" forever & churner=$!
	live_on_exit "touch $LIVE_TMP/stop; live_kill_wait $churner"
	live_cgwatch "$LIVE_TMP/check.json" "$LIVE_TMP/check.err" check --rates --format json
	touch "$LIVE_TMP/stop"
	live_wait_for 5 _live_gone_or_zombie "$churner" || live_fail "the churn loop did not stop"
	wait "$churner" 2>/dev/null
	[ "$CG_RC" -le 1 ] || live_fail "check --rates: exit $CG_RC; stderr: $(head -c 300 "$LIVE_TMP/check.err")"
	J=$LIVE_TMP/check.json
	jq -e '.rates.source == "perf" and .rates.live == true and .rates.window_s >= 0.9' \
		"$J" >/dev/null || live_fail "check --rates .rates: $(jq -c '.rates | {source, live, window_s, notes}' "$J")"
	jq -e '.rates.events["cgroup:cgroup_mkdir"].count >= 1 and
	       .rates.events["cgroup:cgroup_rmdir"].count >= 1' "$J" >/dev/null ||
		live_fail "check .rates counted no churn: $(jq -c '.rates.events["cgroup:cgroup_mkdir","cgroup:cgroup_rmdir"]' "$J")"
	[[ $(live_kernel_feature "$J" tracepoint-counters) == "used: perf_event_open"* ]] ||
		live_fail "check --rates: scan.kernel says tracepoint-counters $(live_kernel_feature "$J" tracepoint-counters)"
fi
live_proof counters-perf
live_proof counters-proc
live_pass
