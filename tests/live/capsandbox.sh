#!/bin/bash
# live-capsandbox: `check` as the daemon's unit runs it: a uid that is not root, with only the
# capabilities units/cgwatch.service.in grants (AmbientCapabilities=, read from the unit), as
# DynamicUser= gives them. The kernel checks the effective ids and these capabilities; a probe
# with access(2) checks the real uid without them and refused tracefs (0700 root), so the
# counts fell back to /proc/cgroups. Checks: `check --rates --format json` there counts with
# "source": "perf", as root does. SKIP when perf counting does not work even for root here.
. "$(dirname "$0")/lib.sh"
live_init capsandbox
live_require_root
live_require_tools jq timeout setpriv
live_require_binary
live_mktemp

UNIT=$(dirname "$0")/../../units/cgwatch.service.in
caps=$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")
[ -n "$caps" ] || live_fail "no AmbientCapabilities= in $UNIT"
spcaps=$(for c in $caps; do printf '+%s,' "$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done)
spcaps=${spcaps%,}

# the binary and a config where the uid can reach them
DIR=$(mktemp -d /tmp/cgw-capsandbox.XXXXXX) || live_fail "mktemp"
live_on_exit "rm -rf '$DIR'"
chmod 755 "$DIR"
cp "$CGWATCH" "$DIR/cgwatch" && chmod 755 "$DIR/cgwatch" || live_fail "cannot copy $CGWATCH"
printf '[thresholds]\nblocked_warning = 86400\nblocked_critical = 86400\nstarved = 86400\n' \
	>"$DIR/quiet.conf" && chmod 644 "$DIR/quiet.conf"

CGWATCH=$DIR/cgwatch live_cgwatch "$LIVE_TMP/root.json" "$LIVE_TMP/root.err" \
	check --rates --format json --config "$DIR/quiet.conf"
src=$(jq -r '.rates.source // "none"' "$LIVE_TMP/root.json" 2>/dev/null)
[ "$src" = perf ] || live_skip "perf counting does not work as root here (source '$src': $(jq -r '.rates.notes // [] | join("; ")' "$LIVE_TMP/root.json" 2>/dev/null | head -c 200))"

U=61234
SANDBOX=(setpriv --reuid=$U --regid=$U --clear-groups --inh-caps="-all,$spcaps"
	--ambient-caps="-all,$spcaps" --bounding-set="-all,$spcaps" --no-new-privs)
out=$("${SANDBOX[@]}" grep -E '^(Uid|CapEff):' /proc/self/status 2>&1) ||
	live_skip "setpriv cannot run as uid $U with $spcaps here: $(head -c 200 <<<"$out")"
grep -q "^Uid:[[:space:]]*$U" <<<"$out" || live_fail "setpriv did not change the uid: $out"

CGWATCH=$DIR/cgwatch
timeout -k 2 "$LIVE_CG_TIMEOUT" "${SANDBOX[@]}" "$CGWATCH" check --rates --format json \
	--config "$DIR/quiet.conf" >"$LIVE_TMP/uid.json" 2>"$LIVE_TMP/uid.err"
CG_RC=$?
[ "$CG_RC" -le 1 ] || live_fail "check as uid $U with $caps: exit $CG_RC; stderr: $(head -c 300 "$LIVE_TMP/uid.err")"
live_json_check "$LIVE_TMP/uid.json" "check as uid $U"
src=$(jq -r '.rates.source // "none"' "$LIVE_TMP/uid.json")
[ "$src" = perf ] ||
	live_fail "as uid $U with $caps the counts come from '$src', want perf as for root: $(jq -r '.rates.notes // [] | join("; ")' "$LIVE_TMP/uid.json" | head -c 300)"
live_pass "uid $U with $caps counts with perf"
