#!/bin/bash
# live-kmsgcaps: the one-shot unit reads /dev/kmsg, and a report that could not says so.
# cgwatch-check.service runs `check` as root within its CapabilityBoundingSet= (read from
# units/cgwatch-check.service.in); with kernel.dmesg_restrict = 1 (set for the test and
# restored) /dev/kmsg needs CAP_SYSLOG. Checks:
#   - within the unit's bounding set, `check --format json` reads kmsg (no "kmsg.error");
#   - within it minus CAP_SYSLOG, the read is refused, and the TEXT report names the source,
#     why, and what it costs in its header ("kernel messages: /dev/kmsg: Operation not
#     permitted: ..."), not only the JSON.
. "$(dirname "$0")/lib.sh"
live_init kmsgcaps
live_require_root
live_require_tools jq timeout setpriv
live_require_binary
live_mktemp
[ -r /dev/kmsg ] || live_skip "no readable /dev/kmsg here"

UNIT=$(dirname "$0")/../../units/cgwatch-check.service.in
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || live_fail "no CapabilityBoundingSet= in $UNIT"
spcaps=$(for c in $caps; do printf '+%s,' "$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done)
spcaps=${spcaps%,}
nosyslog=$(tr ',' '\n' <<<"$spcaps" | grep -v '^+syslog$' | paste -sd,)

SYSCTL=/proc/sys/kernel/dmesg_restrict
old=$(cat "$SYSCTL") || live_skip "cannot read $SYSCTL"
if [ "$old" != 1 ]; then
	echo 1 >"$SYSCTL" 2>/dev/null || live_skip "cannot set $SYSCTL (read-only /proc/sys?)"
	live_on_exit "echo '$old' >'$SYSCTL'"
fi
printf '[thresholds]\nblocked_warning = 86400\nblocked_critical = 86400\nstarved = 86400\n' \
	>"$LIVE_TMP/quiet.conf"

# check as root within a bounding set: FORMAT CAPS OUT
bounded() {
	timeout -k 2 "$LIVE_CG_TIMEOUT" setpriv --bounding-set="-all,$2" --inh-caps=-all \
		"$CGWATCH" check --format "$1" --config "$LIVE_TMP/quiet.conf" >"$3" 2>"$3.err" 3>&-
	CG_RC=$?
	[ "$CG_RC" -le 1 ] || live_fail "check --format $1 within $2: exit $CG_RC; stderr: $(head -c 300 "$3.err")"
}

bounded json "$spcaps" "$LIVE_TMP/unit.json"
live_json_check "$LIVE_TMP/unit.json" "check within the unit's bounding set"
err=$(jq -r '.kmsg.error // empty' "$LIVE_TMP/unit.json")
[ -z "$err" ] || live_fail "within the one-shot unit's CapabilityBoundingSet ($caps), dmesg_restrict=1: kmsg error '$err'"

bounded json "$nosyslog" "$LIVE_TMP/nosyslog.json"
err=$(jq -r '.kmsg.error // empty' "$LIVE_TMP/nosyslog.json")
[ -n "$err" ] || live_skip "/dev/kmsg is readable without CAP_SYSLOG here even with dmesg_restrict=1"
bounded text "$nosyslog" "$LIVE_TMP/nosyslog.txt"
head=$(sed -n '1,/^$/p' "$LIVE_TMP/nosyslog.txt")
grep -Eq "^not read: kernel messages: /dev/kmsg: $err: .+" <<<"$head" ||
	live_fail "without CAP_SYSLOG the text report's header does not name /dev/kmsg ($err): $(head -c 400 <<<"$head" | tr '\n' '|')"
live_pass "reads kmsg within the unit's bounding set; without CAP_SYSLOG the text header says: $(grep -m1 '^not read: kernel messages' <<<"$head")"
