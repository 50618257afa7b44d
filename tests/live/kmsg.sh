#!/bin/bash
# live-kmsg: whoever can write to /dev/kmsg must not forge a diagnosis. A process writes the
# kernel's report lines there (a hung task, a blocker line, the suppression line, a soft
# lockup, a workqueue lockup; plain and with "<0>"/"<3>" prefixes asking for the kernel's
# facility): the kernel stamps them facility user, the reader sees them in the ring as
# facility 1, and none becomes a report -- neither in a whole-ring read (check) nor in
# follow mode (the daemon, kmsg_open_follow + kmsg_poll, which must also skip what was in
# the ring before it opened). When cgwatch check has a "kmsg" object, it counts none either.
# The module is driven by tests/live/kmsg/kmsgdump.c, built here from build/obj.
. "$(dirname "$0")/lib.sh"
live_init kmsg
live_require_root
live_require_tools cc pkg-config awk timeout
live_mktemp
[ -r /dev/kmsg ] && [ -w /dev/kmsg ] || live_skip "no readable and writable /dev/kmsg"
[ "$(cat /proc/sys/kernel/printk_devkmsg 2>/dev/null)" != off ] ||
	live_skip "printk.devkmsg=off: the kernel drops what processes write to /dev/kmsg"

# the helper, linked with cgwatch's objects (main.o left out); BUILD as make's
case ${BUILD:-build} in
/*) OBJ=$BUILD/obj ;;
*) OBJ=$LIVE_REPO/${BUILD:-build}/obj ;;
esac
[ -f "$OBJ/source-kmsg.o" ] || live_fail "no $OBJ/source-kmsg.o: run make -C $LIVE_REPO"
live_cgwatch_objs "$OBJ"
timeout 60 cc -O1 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$LIVE_REPO/src" "${cg_cflags[@]}" \
	-o "$LIVE_TMP/kmsgdump" "$LIVE_DIR/kmsg/kmsgdump.c" "${objs[@]}" \
	"${cg_libs[@]}" 2>"$LIVE_TMP/cc.err" ||
	live_fail "could not build kmsgdump: $(head -c 300 "$LIVE_TMP/cc.err")"
DUMP=$LIVE_TMP/kmsgdump

MARK=cgwforge$$r$RANDOM
# each line as the kernel prints it; the comms carry the marker where the format has one
FORGED=(
	"INFO: task ${MARK}:$$ blocked for more than 122 seconds."
	"<0>INFO: task ${MARK}:$$ is blocked on a mutex likely owned by task ${MARK}o:1."
	"<3>INFO: task ${MARK}:$$ blocked for more than 245 seconds."
	"<6>Future hung task reports are suppressed, see sysctl kernel.hung_task_warnings"
	"<0>watchdog: BUG: soft lockup - CPU#0 stuck for 99s! [${MARK}:$$]"
	"<0>BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 99s!"
	"<3>rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
)

# ---- whole ring ----
BEFORE=$(timeout 10 "$DUMP" lastseq) || live_fail "kmsgdump lastseq failed"
for l in "${FORGED[@]}"; do
	printf '%s\n' "$l" >/dev/kmsg || live_fail "setup: cannot write to /dev/kmsg"
done
timeout 20 "$DUMP" read /dev/kmsg "$BEFORE" >"$LIVE_TMP/read.out" 2>"$LIVE_TMP/read.err" ||
	live_fail "kmsgdump read: $(head -c 300 "$LIVE_TMP/read.err")"

# The seqs of our lines in the ring, each checked to be facility user (1).
forged_seqs() {      # FILE -> "seq" per forged line found, fails on a non-user facility
	local out=$1 l msg seq fac
	for l in "${FORGED[@]}"; do
		msg=${l#<[0-9]>}
		# rec SEQ FAC LEVEL MSG: the newest record with exactly this text
		read -r seq fac < <(awk -v m="$msg" '$1 == "rec" { t = $0; sub(/^rec [0-9]+ [0-9]+ [0-9]+ /, "", t); if (t == m) { s = $2; f = $3 } } END { if (s != "") print s, f }' "$out")
		[ -n "$seq" ] || { echo "missing: $msg"; return 1; }
		[ "$fac" = 1 ] || { echo "facility $fac, not 1 (user), for: $msg"; return 1; }
		echo "$seq"
	done
}
SEQS=$(forged_seqs "$LIVE_TMP/read.out") || live_fail "whole ring: our lines in the ring: $SEQS"
[ "$(wc -l <<<"$SEQS")" = "${#FORGED[@]}" ] || live_fail "whole ring: found $(wc -l <<<"$SEQS") of ${#FORGED[@]} lines"

# No event (hung, blocker, wq, soft, rcu, suppressed) from one of our records, or naming us.
check_events() {     # WHAT FILE
	local what=$1 out=$2 s bad
	bad=$(grep -F "$MARK" "$out" | grep -v '^rec ' | head -3 | tr '\n' ' ')
	[ -z "$bad" ] || live_fail "$what: forged lines taken as kernel reports: $bad"
	for s in $SEQS; do
		bad=$(awk -v s="$s" '$1 ~ /^(hung|blocker|wq|soft|rcu|suppressed)$/ && $2 == s' "$out" |
			head -3 | tr '\n' ' ')
		[ -z "$bad" ] || live_fail "$what: record $s (facility user) taken as: $bad"
	done
}
check_events "whole ring" "$LIVE_TMP/read.out"
other=$(awk '$1 == "other" { print $2 }' "$LIVE_TMP/read.out")
[ "${other:-0}" -ge "${#FORGED[@]}" ] ||
	live_fail "whole ring: $other records of other facilities counted, want >= ${#FORGED[@]}"

# ---- follow mode: only what arrives after the open, and still no report ----
PRE="INFO: task ${MARK}pre:$$ blocked for more than 122 seconds."
printf '%s\n' "$PRE" >/dev/kmsg || live_fail "setup: cannot write to /dev/kmsg"
PRESEQ=$(timeout 10 "$DUMP" lastseq) || live_fail "kmsgdump lastseq failed"
FOLLOW=()
for l in "${FORGED[@]}"; do
	FOLLOW+=("$l"$'\n')
done
timeout 20 "$DUMP" follow /dev/kmsg "${FOLLOW[@]}" >"$LIVE_TMP/follow.out" 2>"$LIVE_TMP/follow.err" ||
	live_fail "kmsgdump follow: $(head -c 300 "$LIVE_TMP/follow.err")"
first=$(awk '$1 == "first_seq" { print $2 }' "$LIVE_TMP/follow.out")
records=$(awk '$1 == "records" { print $2 }' "$LIVE_TMP/follow.out")
other=$(awk '$1 == "other" { print $2 }' "$LIVE_TMP/follow.out")
[ "${records:-0}" -ge "${#FORGED[@]}" ] ||
	live_fail "follow: read $records records after writing ${#FORGED[@]}: $(tr '\n' ' ' <"$LIVE_TMP/follow.out")"
[ "$first" -gt "$PRESEQ" ] ||
	live_fail "follow: first record read is seq $first, but the ring held $PRESEQ before the open"
[ "${other:-0}" -ge "${#FORGED[@]}" ] || live_fail "follow: only $other records of other facilities"
grep -q "${MARK}pre" "$LIVE_TMP/follow.out" && live_fail "follow: read a line from before the open"
timeout 20 "$DUMP" read /dev/kmsg "$PRESEQ" >"$LIVE_TMP/read2.out" 2>"$LIVE_TMP/read2.err" ||
	live_fail "kmsgdump read: $(head -c 300 "$LIVE_TMP/read2.err")"
SEQS=$(forged_seqs "$LIVE_TMP/read2.out") || live_fail "follow: our lines in the ring: $SEQS"
for s in $SEQS; do
	[ "$s" -ge "$first" ] || live_fail "follow: our line $s is older than the first record read ($first)"
done
check_events "follow" "$LIVE_TMP/follow.out"

# ---- cgwatch check, once it reports what the kernel said ----
if [ -x "$CGWATCH" ] && command -v jq >/dev/null; then
	OUT=$LIVE_TMP/check.json ERR=$LIVE_TMP/check.err
	live_cgwatch "$OUT" "$ERR" check --format json
	if jq -e 'has("kmsg")' "$OUT" >/dev/null 2>&1; then
		SEQS=$(forged_seqs "$LIVE_TMP/read.out")
		for s in $SEQS; do
			jq -e --argjson s "$s" '[.kmsg.events[]? | select(.seq == $s)] | length == 0' "$OUT" >/dev/null ||
				live_fail "check: .kmsg.events has our record $s: $(jq -c --argjson s "$s" '[.kmsg.events[] | select(.seq == $s)]' "$OUT" | head -c 300)"
		done
		jq -e --arg m "$MARK" '[.kmsg.events[]? | select(tostring | contains($m))] | length == 0' "$OUT" >/dev/null ||
			live_fail "check: .kmsg.events names the forged comm"
		kernel_hung=$(awk '$1 == "hung"' "$LIVE_TMP/read.out" | wc -l)
		got=$(jq '.kmsg.hung_task_reports' "$OUT")
		[ "$got" -le "$kernel_hung" ] ||
			live_fail "check: .kmsg.hung_task_reports is $got, the kernel wrote $kernel_hung"
		jq -e --arg m "$MARK" '[.findings[]?.evidence[]? | select(contains($m))] | length == 0' "$OUT" >/dev/null ||
			live_fail "check: a finding's evidence quotes a forged line"
	else
		echo "cgwatch check has no kmsg object yet: checked the module alone" >&2
	fi
fi
live_pass
