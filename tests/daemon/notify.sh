#!/bin/bash
# live-daemon-notify: the service protocol of `cgwatch run`, against a notify
# socket this test provides (bin/notifylisten), with NOTIFY_SOCKET set,
# WATCHDOG_USEC=1000000 and WATCHDOG_PID the daemon's own pid:
#   - READY=1 arrives once, from the daemon's pid, after the first scan (a
#     STATUS=watching N tasks; M open incidents came with it or before it);
#   - a STATUS= line every scan (interval 0.5 s: the gaps between them are the
#     interval; checked last: at most 20 % + 50 ms late);
#   - WATCHDOG=1 keeps coming, never more than the 1 s watchdog apart;
#   - SIGHUP with a broken config (interval changed to 2 and an invalid
#     blocked_warning) keeps the daemon running with the old config: stderr has
#     every `file:line: message` that `cgwatch config --check` gives for that
#     file and "configuration reload failed, keeping the old one", and the
#     STATUS lines still come every 0.5 s;
#   - SIGHUP with that interval and no error applies it (STATUS every 2 s):
#     the check above is not vacuous;
#   - SIGTERM: exit 0 within 1 s.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-notify
dmn_require nofuse
dmn_conf
cp "$DMN_CONF" "$LIVE_TMP/good.conf" || live_fail "setup: cp"
dmn_notify_listen
dmn_start daemon NOTIFY_SOCKET="$NOTIFY_SOCK" WATCHDOG_USEC=1000000 WATCHDOG_PID=self
T0=$(live_now)

# fields NAME [FROM [TO]]: "TIME VALUE" of every NAME= assignment the daemon
# sent (epoch window optional).
fields() {
	dmn_notify_fields "$DPID" | awk -v n="$1=" -v a="${2:-0}" -v b="${3:-1e12}" \
		'index($3, n) == 1 && $1 >= a && $1 <= b { v = $0; sub(/^[^ ]+ [^ ]+ /, "", v); print $1, substr(v, length(n) + 1) }'
}
# gaps LIST-OF-TIMES -> "count min max" of the gaps between consecutive times
gaps() { awk '{ if (NR > 1) { g = $1 - p; if (n == 0 || g < mn) mn = g; if (g > mx) mx = g; n++ } p = $1 } END { printf "%d %.3f %.3f", n, mn, mx }'; }
ready() { fields READY | grep -q ' 1$'; }
live_wait_for 5 ready || {
	dmn_require_alive "waiting for READY=1"
	live_fail "no READY=1 from the daemon (pid $DPID) within 5 s; notify socket got: $(tail -c 400 "$NOTIFY_OUT" | tr '\n' '|'); $(dmn_ctx)"
}
t_ready=$(fields READY | head -1 | cut -d' ' -f1)
others=$(dmn_notify_fields | awk -v p="$DPID" '$2 != p' | head -3)
[ -z "$others" ] || live_fail "notify messages from a pid other than the daemon's ($DPID): $(tr '\n' '|' <<<"$others")"

# READY after the first scan: a STATUS with a task count is in the same
# datagram (same time) or an earlier one.
st1=$(fields STATUS 0 "$t_ready" | head -1)
[ -n "$st1" ] || live_fail "READY=1 came before any STATUS=: the first scan had not reported; notify: $(head -c 400 "$NOTIFY_OUT" | tr '\n' '|')"
[[ ${st1#* } =~ ^watching\ ([0-9][0-9,]*)\ tasks?\;\ ([0-9]+)\ open\ incidents?(\;\ [1-9][0-9]*\ latency\ incidents?)?$ ]] ||
	live_fail "STATUS is '${st1#* }', want 'watching N tasks; M open incidents[; K latency incidents]'"
[ "${BASH_REMATCH[1]//,/}" -gt 0 ] || live_fail "first STATUS counts no tasks: '${st1#* }'"
[ "${BASH_REMATCH[2]}" = 0 ] || live_fail "first STATUS '${st1#* }': open incidents on an idle namespace"

# Scans at the configured interval, watchdog pings within its deadline.
sleep 3
t1=$(live_now)
read -r n mn mx < <(fields STATUS "$t_ready" "$t1" | gaps)
[ "$n" -ge 3 ] && dmn_fcmp "$mn" '>=' 0.3 && dmn_fcmp "$mx" '<=' 0.9 ||
	live_fail "STATUS every scan at interval 0.5: $n gaps in 3 s, min $mn s, max $mx s"
SCAN_GAPS="$n $mn $mx"   # checked closely at the end
read -r n mn mx < <(fields WATCHDOG "$T0" "$t1" | gaps)
[ "$n" -ge 2 ] || live_fail "WATCHDOG=1 with WATCHDOG_USEC=1000000 and WATCHDOG_PID=$DPID: $(fields WATCHDOG | wc -l) pings in $(dmn_fcalc "$t1 - $T0") s; notify socket got: $(tail -c 300 "$NOTIFY_OUT" | tr '\n' '|')"
dmn_fcmp "$mx" '<' 1.0 || live_fail "WATCHDOG=1 pings up to $mx s apart with a 1 s watchdog: $(fields WATCHDOG | cut -d' ' -f1 | tr '\n' ' ')"
[ "$(fields READY | wc -l)" = 1 ] || live_fail "READY=1 sent $(fields READY | wc -l) times before any reload"

# ---- SIGHUP with a broken config ----
sed -e 's/^interval = .*/interval = 2/' -e 's/^blocked_warning = .*/blocked_warning = banana/' \
	"$LIVE_TMP/good.conf" >"$DMN_CONF" || live_fail "setup: cannot write the broken config"
timeout -k 1 5 "$CGWATCH" config --check --config "$DMN_CONF" >"$LIVE_TMP/broken.check" 2>&1 3>&-
rc=$?
[ "$rc" = 2 ] || live_fail "setup: config --check on the broken config exits $rc: $(head -c 300 "$LIVE_TMP/broken.check")"
grep -E "^$DMN_CONF:[0-9]+: " "$LIVE_TMP/broken.check" | sed -E 's/^cgwatch: //' >"$LIVE_TMP/broken.errors"
[ -s "$LIVE_TMP/broken.errors" ] || live_fail "setup: config --check printed no file:line: error: $(head -c 300 "$LIVE_TMP/broken.check")"
errlines=$(wc -c <"${DMN_ERRS[-1]}")
t_hup=$(live_now)
kill -HUP "$DPID"
reload_failed() {
	tail -c +"$((errlines + 1))" "${DMN_ERRS[-1]}" >"$LIVE_TMP/hup1.err"
	grep -qF 'configuration reload failed, keeping the old one' "$LIVE_TMP/hup1.err"
}
live_wait_for 3 reload_failed || {
	dmn_require_alive "after SIGHUP with a broken config"
	live_fail "after SIGHUP with a broken config, no \"configuration reload failed, keeping the old one\" on stderr within 3 s; new stderr: $(head -c 400 "$LIVE_TMP/hup1.err" | tr '\n' '|')"
}
while IFS= read -r e; do
	grep -qF -- "$e" "$LIVE_TMP/hup1.err" ||
		live_fail "after SIGHUP with a broken config, stderr lacks '$e' (as config --check says it); new stderr: $(head -c 400 "$LIVE_TMP/hup1.err" | tr '\n' '|')"
done <"$LIVE_TMP/broken.errors"
sleep 3
t2=$(live_now)
dmn_require_alive "3 s after SIGHUP with a broken config"
read -r n mn mx < <(fields STATUS "$t_hup" "$t2" | gaps)
[ "$n" -ge 3 ] && dmn_fcmp "$mx" '<=' 0.9 ||
	live_fail "after a failed reload the interval must stay 0.5 s (the broken config said 2): $n STATUS gaps in 3 s, min $mn s, max $mx s"
read -r n mn mx < <(fields WATCHDOG "$t1" "$t2" | gaps)
dmn_fcmp "$mx" '<' 1.0 || live_fail "WATCHDOG=1 pings up to $mx s apart around the failed reload"

# ---- SIGHUP with a valid config: the interval does change ----
sed 's/^interval = .*/interval = 2/' "$LIVE_TMP/good.conf" >"$DMN_CONF" || live_fail "setup: cannot write the new config"
errlines=$(wc -c <"${DMN_ERRS[-1]}")
t_hup=$(live_now)
kill -HUP "$DPID"
sleep 5.5
t3=$(live_now)
dmn_require_alive "after SIGHUP with a valid config"
tail -c +"$((errlines + 1))" "${DMN_ERRS[-1]}" >"$LIVE_TMP/hup2.err"
! grep -qF 'reload failed' "$LIVE_TMP/hup2.err" ||
	live_fail "a valid config was refused on SIGHUP: $(head -c 300 "$LIVE_TMP/hup2.err" | tr '\n' '|')"
# From 1 s after the HUP (one old-interval scan may still be due), scans every 2 s.
read -r n mn mx < <(fields STATUS "$(dmn_fcalc "$t_hup + 1")" "$t3" | gaps)
[ "$n" -ge 1 ] && [ "$n" -le 3 ] && dmn_fcmp "$mn" '>=' 1.7 ||
	live_fail "after SIGHUP with interval = 2 (valid), STATUS gaps: $n, min $mn s, max $mx s; want every ~2 s: $(fields STATUS "$t_hup" | cut -d' ' -f1 | tr '\n' ' ')"
read -r n mn mx < <(fields WATCHDOG "$t2" "$t3" | gaps)
[ "$n" -ge 4 ] && dmn_fcmp "$mx" '<' 1.0 ||
	live_fail "WATCHDOG=1 with 2 s scans: $n gaps, max $mx s (must stay < 1 s: pings come from the loop, not the scan)"

# ---- SIGTERM ----
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s; $(dmn_ctx)"

# ---- last, the scan period itself: "every [scan] interval seconds" ----
# (Checked last so that the checks above say what they can first.) A scan may
# come a little late, not half an interval late.
read -r n mn mx <<<"$SCAN_GAPS"
dmn_fcmp "$mx" '<=' "$(dmn_fcalc "$DMN_INTERVAL * 1.2 + 0.05")" ||
	live_fail "scans every $mn..$mx s with [scan] interval = $DMN_INTERVAL (allowed up to $(dmn_fcalc "$DMN_INTERVAL * 1.2 + 0.05") s): STATUS at $(fields STATUS "$t_ready" "$t1" | cut -d' ' -f1 | tr '\n' ' ')"

live_pass
