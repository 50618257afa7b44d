#!/bin/bash
# live-daemon-leaks: the daemon frees what it allocated by the time it exits. The
# AddressSanitizer build (`make asan`: CGWATCH_ASAN, default build/asan/cgwatch beside
# $CGWATCH's build/cgwatch) runs with LeakSanitizer on (ASAN_OPTIONS=detect_leaks=1) in the
# initial PID namespace (DMN_PIDNS=0: the task iterator is the scan source there): a
# FUSE-stuck task's incident opened (its report and the state file written by the writer's
# lanes, the metrics file too), a SIGHUP reload, the task released and its incident resolved,
# then SIGTERM: exit status 0 and no LeakSanitizer report on its stderr. The other daemon
# scenarios run the plain build (the suite's time budget; ASan's leak check runs here).
DMN_PIDNS=${DMN_PIDNS_LEAKS:-0}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-leaks
dmn_require
ASAN_BIN=${CGWATCH_ASAN:-$(dirname "$CGWATCH")/asan/cgwatch}
[ -x "$ASAN_BIN" ] || live_fail "no AddressSanitizer build at $ASAN_BIN (run make asan, or set CGWATCH_ASAN)"
CGWATCH=$ASAN_BIN
dmn_journald optional
dmn_conf run.metrics_file="$LIVE_TMP/cgwatch.prom"
COMM=cgw-leakstuck
dmn_fuse_child "$COMM"
dmn_start leaks ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=86
sel() { echo ".CGWATCH_STATE == \"$1\" and .CGWATCH_COMM == \"$COMM\" and (._PID | tostring) == \"$DPID\""; }
dmn_wait_msg 15 "$(sel opened)" ||
	live_fail "no incident opened for the stuck task within 15 s: $(dmn_digest); $(dmn_ctx)"
kill -HUP "$DPID"
reloaded() { grep -q 'configuration reloaded' "$LIVE_TMP/leaks.err"; }
live_wait_for 10 reloaded || live_fail "SIGHUP: no 'configuration reloaded' within 10 s: $(tail -c 300 "$LIVE_TMP/leaks.err")"
dmn_fuse_release
dmn_wait_msg 10 "$(sel resolved)" ||
	live_fail "no \"resolved\" 10 s after the release: $(dmn_digest); $(dmn_ctx)"
dmn_stop TERM 15
leak=$(grep -A12 -m1 'ERROR: LeakSanitizer' "$LIVE_TMP/leaks.err" | grep -E 'leak of|#[0-4] ' | head -8 | tr -s ' \n' ' ')
[ -z "$leak" ] || live_fail "LeakSanitizer at exit: $leak"
! grep -qE 'ERROR: AddressSanitizer|runtime error:' "$LIVE_TMP/leaks.err" ||
	live_fail "sanitizer: $(grep -m1 -E 'ERROR: AddressSanitizer|runtime error:' "$LIVE_TMP/leaks.err")"
[ "$DMN_STOP_RC" = 0 ] || live_fail "SIGTERM: exit status $DMN_STOP_RC after $DMN_STOP_SEC s: $(tail -c 300 "$LIVE_TMP/leaks.err")"
live_pass "$(grep -m1 'scan source' "$LIVE_TMP/leaks.err" | cut -c10-); exit 0 in $DMN_STOP_SEC s, no leak"
