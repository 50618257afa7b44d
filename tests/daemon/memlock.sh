#!/bin/bash
# live-daemon-memlock: a clamped RLIMIT_MEMLOCK cannot crash-loop the daemon.
# A container's service manager may be unable to apply LimitMEMLOCK=infinity
# and leave the 8 MiB default; with [run] lock_memory = yes, memory locked with
# mlockall(MCL_FUTURE) up to that limit made a later allocation fail and the
# daemon abort() at every start. Here: the daemon under
#   setpriv --bounding-set=-ipc_lock prlimit --memlock=8388608:8388608
# (no CAP_IPC_LOCK, which would lift the limit) with an incident open, stopped
# and started again three times: every run keeps scanning for 3 s (no SIGABRT,
# no ENOMEM), exits 0 on SIGTERM, says once what it did about locking and why,
# and the incident is opened once across the runs. The first run has INVOCATION_ID set (as
# under systemd) and must say that the unit's OOMScoreAdjust=-900 was not applied. Last, one
# run with
# CAP_IPC_LOCK locks its memory; its VmLck with the incident open is printed.
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-memlock
dmn_require
live_require_tools setpriv prlimit
dmn_journald optional
dmn_conf run.lock_memory=yes

REAL=$CGWATCH
WRAP=$LIVE_TMP/cgwatch-clamped
printf '#!/bin/sh\nexec setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock prlimit --memlock=8388608:8388608 %q "$@"\n' \
	"$REAL" >"$WRAP" && chmod 755 "$WRAP" || live_fail "setup: cannot write $WRAP"
out=$(CGWATCH=$WRAP; "$WRAP" config --check --config "$DMN_CONF" 2>&1) ||
	live_skip "setpriv/prlimit cannot run cgwatch here: $(head -c 200 <<<"$out")"

dmn_fuse_child cgw-stuck
for run in 1 2 3 4; do
	# run 1 as systemd starts it (INVOCATION_ID): the unit's OOMScoreAdjust=-900 is not
	# applied here (oom_score_adj 0), which the daemon must say
	CGWATCH=$WRAP dmn_start "run$run" ${run/#1/INVOCATION_ID=cgwatch-test}
	[ "$run" != 1 ] || [ "$(cat /proc/$DPID/oom_score_adj)" = -900 ] || oom_said=want
	lim=$(awk '/^Max locked memory/ { print $4 }' "/proc/$DPID/limits" 2>/dev/null)
	[ "$lim" = 8388608 ] || live_fail "run $run: RLIMIT_MEMLOCK is '$lim', want 8388608 (the wrapper did not apply)"
	if [ "$run" = 1 ]; then
		dmn_wait_state opened 1 $((DMN_WARN + 4)) ||
			live_fail "run 1: no \"opened\" within $((DMN_WARN + 4)) s; $(dmn_ctx)"
	fi
	sleep 3                            # six scans with the incident open
	dmn_require_alive "run $run, incident open, RLIMIT_MEMLOCK 8 MiB"
	err=${DMN_ERRS[-1]}
	n=$(grep -c 'locking memory' "$err")
	[ "$n" = 1 ] || live_fail "run $run: want one line on locking memory, got $n; $(dmn_ctx)"
	grep -q 'not locking memory: RLIMIT_MEMLOCK 8 MiB is below' "$err" ||
		live_fail "run $run: does not say it left memory unlocked and why; $(dmn_ctx)"
	grep -Eqi 'abort|cannot allocate|out of memory' "$err" &&
		live_fail "run $run: $(grep -Ei 'abort|cannot allocate|out of memory' "$err" | head -1)"
	if [ "$run" = 1 ] && [ "$oom_said" = want ]; then
		grep -q "OOMScoreAdjust=-900 was not applied (oom_score_adj is $(cat /proc/$DPID/oom_score_adj))" "$err" ||
			live_fail "run 1 (INVOCATION_ID set): does not say OOMScoreAdjust=-900 was not applied; $(dmn_ctx)"
	fi
	[ "$run" = 1 ] || ! grep -q 'OOMScoreAdjust' "$err" ||
		live_fail "run $run (not under systemd): speaks of OOMScoreAdjust; $(dmn_ctx)"
	dmn_stop TERM 3
	[ "$DMN_STOP_RC" = 0 ] ||
		live_fail "run $run: exit status $DMN_STOP_RC on SIGTERM, want 0; $(dmn_ctx)"
done
dmn_collect
[ "$(dmn_count opened)" = 1 ] ||
	live_fail "want the incident opened once across four runs, got $(dmn_count opened): [$(dmn_digest)]"

# With CAP_IPC_LOCK the limit does not apply: locked, and how much.
eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
if (( (0x${eff:-0} >> 14) & 1 )); then            # CAP_IPC_LOCK
	dmn_start locked
	sleep 3
	dmn_require_alive "with CAP_IPC_LOCK"
	grep -q 'locking memory (mlockall): CAP_IPC_LOCK' "${DMN_ERRS[-1]}" ||
		live_fail "with CAP_IPC_LOCK: does not say it locked; $(dmn_ctx)"
	lck=$(awk '/^VmLck/ { print $2 }' "/proc/$DPID/status")
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$DPID/status")
	# libarchive (with libxml2 and ICU, 40 MiB) is loaded for a bundle only: locked from the
	# start it would be five times the daemon's own footprint
	big=$(grep -oE 'lib(archive|icudata|xml2)[^ ]*' "/proc/$DPID/maps" | sort -u | tr '\n' ' ')
	[ -z "$big" ] || live_fail "with CAP_IPC_LOCK: the daemon maps $big before any bundle (VmLck ${lck} kB)"
	dmn_stop TERM 3
	[ "$DMN_STOP_RC" = 0 ] || live_fail "with CAP_IPC_LOCK: exit status $DMN_STOP_RC; $(dmn_ctx)"
	live_pass "4 runs at RLIMIT_MEMLOCK 8 MiB, not locked, alive; with CAP_IPC_LOCK VmLck ${lck} kB (VmHWM ${hwm} kB) with the incident open"
fi
live_pass "4 runs at RLIMIT_MEMLOCK 8 MiB, not locked, alive (no CAP_IPC_LOCK here to measure the locked footprint)"
