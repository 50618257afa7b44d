# Shared code for the daemon tests (tests/daemon/NAME.sh): `cgwatch run`
# against real stuck tasks, a real systemd-journald and a notify socket.
# Sourced by every scenario; builds on tests/live/lib.sh (live_init,
# live_on_exit, live_pass/fail/skip, live_wait_for, live_kill_*, live_umount,
# live_mktemp ...), whose conventions hold: one result line
#   PASS live-NAME | FAIL live-NAME: reason | SKIP live-NAME: reason
# cleanups in reverse order of registration from the EXIT trap, every step
# bounded, the whole script bounded by the LIVE_BUDGET watchdog.
#
# A scenario starts with
#   . "$(dirname "$0")/lib.sh"
#   dmn_enter_ns "$@"        # before live_init: re-executes the script
#   live_init NAME
#   dmn_require              # root, namespace, tools, helpers, `cgwatch run`
#
# The namespace. dmn_enter_ns re-executes the script in a private mount
# namespace and a private PID namespace with its own /proc:
#   unshare --mount --propagation private --pid --fork --mount-proc --kill-child
#     /bin/sh -c '"$0" "$@"; exit $?' /bin/bash SCRIPT ARGS
# so that
#   - the tmpfs mounted over /run/systemd, /run/log and /var/log/journal for
#     the private journald (and every FUSE and tmpfs mount a test makes) exist
#     only there and go away with it;
#   - when the script ends, however it ends, the kernel kills every process
#     left in the namespace (journald, the daemon, FUSE helpers, stuck tasks):
#     /bin/sh is PID 1 there, a PID namespace dies with its init, and
#     --kill-child SIGKILLs that init if unshare itself is killed (run.sh's
#     timeout -k). The script's own cleanups still run first, in order (the
#     daemons, then FUSE helpers before their unmounts, journald before its
#     tmpfs). Checked: SIGTERM, the LIVE_BUDGET watchdog and SIGKILL of the
#     whole script leave no process and no mount behind (SIGKILL leaves only
#     the empty temp dir, as for tests/live);
#   - the daemon sees only the tasks of this test: a FUSE task stuck by some
#     other test on the host cannot join or open our incidents.
# /bin/sh and not the script is PID 1 because fusehold treats getppid() == 1 as
# "my parent is gone". DMN_PIDNS=0 drops the PID namespace (mount namespace
# only; the daemon then scans the whole host).
#
# The journald. The Debian systemd-journald (252) runs without systemd as PID 1
# and without socket activation: with no LISTEN_FDS it creates and binds
# /run/systemd/journal/{socket,stdout,dev-log,io.systemd.journal} itself, so
# the test only mounts a tmpfs over /run/systemd (not over /run/systemd/journal:
# that directory does not exist on this host and creating it would change the
# host's /run) and over /run/log (likewise), mkdirs journal/ in each, writes a
# drop-in /run/systemd/journald.conf.d/cgwatch-test.conf (Storage=volatile,
# ReadKMsg=no, Audit=no, no forwarding, RateLimitIntervalSec=0 so a flood is
# counted, not suppressed), starts the binary with SYSTEMD_LOG_TARGET=console
# (else journald logs its own start into the host's kernel ring buffer), waits
# for the socket and reads back a probe sent with `logger --journald`. It needs
# /etc/machine-id. Read back with journalctl -D /run/log/journal -o json.
# It must be started with no argument at all: systemd-journald takes its first
# argument as a journal namespace name ("systemd-journald --help" starts the
# namespace "--help" in /run/systemd/journal.--help and /var/log/journal/ID.--help).
#
# Environment (besides tests/live/lib.sh's CGWATCH, CGWATCH_SIGNATURES_DIR,
# LIVE_DEBUG):
#   DMN_JOURNALD_BIN   default /lib/systemd/systemd-journald
#   DMN_PIDNS=0        no PID namespace (see above)

LIVE_BUDGET=${LIVE_BUDGET:-60}
DMN_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$DMN_DIR/../live/lib.sh"
DMN_BIN=$DMN_DIR/bin
DMN_JOURNALD_BIN=${DMN_JOURNALD_BIN:-/lib/systemd/systemd-journald}
DMN_JOURNAL_DIR=/run/log/journal
DMN_JOURNALD=0          # 1 once our journald answers
DMN_JOURNALD_PID=
DMN_JOURNALD_WHY=
DMN_CONF=
DMN_PIDS=()             # every daemon started, in order
DMN_GUARDS=()           # their time guards
DMN_ERRS=()             # their stderr files, same order
DMN_CLEANUP_SET=
DPID=                   # the daemon running now

# ---- namespace -------------------------------------------------------------

dmn_enter_ns() {
	[ -n "$DMN_IN_NS" ] && return 0
	[ "$(id -u)" = 0 ] || return 0          # dmn_require skips: not root
	local args=(--mount --propagation private) err
	[ "${DMN_PIDNS:-1}" = 0 ] || args+=(--pid --fork --mount-proc --kill-child)
	if ! err=$(timeout -k 1 5 unshare "${args[@]}" -- /bin/true 2>&1); then
		DMN_NS_WHY="unshare ${args[*]} failed: ${err:-exit status $?}"
		return 0
	fi
	export DMN_IN_NS=1
	exec unshare "${args[@]}" -- /bin/sh -c '"$0" "$@"; exit $?' /bin/bash "$0" "$@"
}

# ---- preconditions -----------------------------------------------------------

# dmn_require [nofuse]: everything a daemon scenario needs, FUSE included
# unless told otherwise; also makes the temp dir ($LIVE_TMP).
dmn_require() {
	live_require_root
	[ -n "$DMN_IN_NS" ] || live_skip "no private mount namespace: $DMN_NS_WHY"
	[ "${1:-}" = nofuse ] || live_require_fuse
	live_require_tools jq timeout awk unshare mount umount
	"$DMN_DIR/build.sh" || live_fail "could not build the helpers (run $DMN_DIR/build.sh)"
	local h
	for h in "$LIVE_BIN/fusehold" "$LIVE_BIN/hog" "$DMN_BIN/notifylisten" "$DMN_BIN/statmany"; do
		[ -x "$h" ] || live_fail "helper $h missing after build"
	done
	live_require_binary
	dmn_require_run
	live_mktemp
	live_on_exit '_dmn_debug_dump'
}

# With LIVE_DEBUG=1: what the daemons said, once they are gone.
_dmn_debug_dump() {
	[ "${LIVE_DEBUG:-0}" = 1 ] || return 0
	local i
	[ -s "$LIVE_TMP/msgs.json" ] && { echo "--- incident messages:"; jq -c '.[] | {_PID, CGWATCH_STATE, CGWATCH_INCIDENT, CGWATCH_BLOCKED_SEC, CGWATCH_REPORT, MESSAGE}' "$LIVE_TMP/msgs.json"; } >&2
	for ((i = 0; i < ${#DMN_PIDS[@]}; i++)); do
		echo "--- daemon ${DMN_PIDS[i]} stderr (${DMN_ERRS[i]}):" >&2
		tail -c 3000 "${DMN_ERRS[i]}" >&2
	done
	[ -s "$LIVE_TMP/notify.out" ] && { echo "--- notify socket:"; tail -c 3000 "$LIVE_TMP/notify.out"; } >&2
	[ -d "${DMN_REPORTS:-/nonexistent}" ] && { echo "--- reports:"; ls -l "$DMN_REPORTS"; } >&2
	return 0
}

# The daemon must exist: `cgwatch run --help` exits 0.
dmn_require_run() {
	local out rc
	out=$(timeout -k 1 5 "$CGWATCH" run --help 2>&1 3>&-)
	rc=$?
	[ "$rc" = 0 ] || live_fail "\`cgwatch run --help\` exits $rc (the daemon is not there): $(head -c 200 <<<"$out")"
}

# ---- journald ------------------------------------------------------------------

# dmn_journald required|optional: start a private journald (see the top).
# required: SKIP the scenario with the reason when it cannot be started.
# optional: return 1 and leave the reason in DMN_JOURNALD_WHY; the daemon then
# writes its messages to stderr, and dmn_collect reads them from there.
dmn_journald() {
	local mode=${1:-required}
	if _dmn_journald_start; then
		DMN_JOURNALD=1
		return 0
	fi
	DMN_JOURNALD=0
	echo "journald: $DMN_JOURNALD_WHY" >&2
	[ "$mode" = required ] && live_skip "cannot start systemd-journald here: $DMN_JOURNALD_WHY"
	return 1
}

# _dmn_tmpfs DIR: a fresh tmpfs holding DIR. Mounted on DIR when it exists,
# else on its nearest existing ancestor below / (then DIR is mkdir'd in the
# tmpfs): the host's own tree is never written to.
_dmn_tmpfs() {
	local dir=$1 at=$1 mode=${2:-755}
	while [ ! -d "$at" ]; do at=$(dirname "$at"); done
	[ "$at" != / ] || { DMN_JOURNALD_WHY="no existing parent of $dir to mount a tmpfs on"; return 1; }
	live_on_exit "live_umount '$at'"
	mount -t tmpfs -o "mode=$mode,size=64m,nosuid,nodev" cgwatch-test "$at" ||
		{ DMN_JOURNALD_WHY="mount -t tmpfs on $at failed"; return 1; }
	mkdir -p "$dir" || { DMN_JOURNALD_WHY="mkdir $dir in the tmpfs failed"; return 1; }
}

_dmn_journald_start() {
	local i log=$LIVE_TMP/journald.log token
	[ -x "$DMN_JOURNALD_BIN" ] || { DMN_JOURNALD_WHY="no $DMN_JOURNALD_BIN (package systemd)"; return 1; }
	command -v journalctl >/dev/null || { DMN_JOURNALD_WHY="no journalctl"; return 1; }
	command -v logger >/dev/null || { DMN_JOURNALD_WHY="no logger (bsdutils), needed for the probe"; return 1; }
	[ -s /etc/machine-id ] || { DMN_JOURNALD_WHY="/etc/machine-id missing or empty (journald needs it)"; return 1; }
	[ -n "$DMN_IN_NS" ] || { DMN_JOURNALD_WHY="not in a private mount namespace"; return 1; }
	if [ -S /run/systemd/journal/socket ]; then
		# Only possible with DMN_PIDNS=0 on a host with its own journald:
		# our tmpfs hides it from this namespace, which is what we want.
		echo "note: hiding the host's /run/systemd/journal/socket in this namespace" >&2
	fi
	# The dirs the tmpfs go on; /run/systemd first: it also holds the drop-in.
	_dmn_tmpfs /run/systemd/journal || return 1
	_dmn_tmpfs "$DMN_JOURNAL_DIR" || return 1
	if [ -d /var/log/journal ]; then
		_dmn_tmpfs /var/log/journal 2755 || return 1
	fi
	mkdir -p /run/systemd/journald.conf.d &&
		cat >/run/systemd/journald.conf.d/cgwatch-test.conf <<-'EOF' || { DMN_JOURNALD_WHY="cannot write the journald drop-in"; return 1; }
		[Journal]
		Storage=volatile
		ReadKMsg=no
		Audit=no
		ForwardToSyslog=no
		ForwardToKMsg=no
		ForwardToConsole=no
		ForwardToWall=no
		RateLimitIntervalSec=0
		RuntimeMaxUse=32M
		EOF
	live_on_exit '_dmn_journald_stop'
	env -u NOTIFY_SOCKET -u WATCHDOG_USEC -u WATCHDOG_PID -u LISTEN_FDS -u LISTEN_PID -u LISTEN_FDNAMES \
		SYSTEMD_LOG_TARGET=console "$DMN_JOURNALD_BIN" </dev/null >"$log" 2>&1 3>&- &
	DMN_JOURNALD_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -S /run/systemd/journal/socket ] && break
		if _live_gone_or_zombie "$DMN_JOURNALD_PID"; then
			wait "$DMN_JOURNALD_PID"
			DMN_JOURNALD_WHY="$DMN_JOURNALD_BIN exited (status $?) before creating /run/systemd/journal/socket: $(tail -c 300 "$log")"
			DMN_JOURNALD_PID=
			return 1
		fi
		sleep 0.05
	done
	[ -S /run/systemd/journal/socket ] ||
		{ DMN_JOURNALD_WHY="no /run/systemd/journal/socket 5 s after starting $DMN_JOURNALD_BIN: $(tail -c 300 "$log")"; return 1; }
	# The socket is bound before the journal file is opened: a probe must come back.
	token=cgwatch-test-probe-$$-$RANDOM
	printf 'MESSAGE=%s\nSYSLOG_IDENTIFIER=cgwatch-test\n' "$token" | timeout -k 1 5 logger --journald ||
		{ DMN_JOURNALD_WHY="logger --journald could not send a probe"; return 1; }
	_dmn_probe_back() { timeout -k 1 5 journalctl -D "$DMN_JOURNAL_DIR" -o cat --no-pager 2>/dev/null | grep -qF "$token"; }
	live_wait_for 5 _dmn_probe_back ||
		{ DMN_JOURNALD_WHY="journald runs but a probe message did not come back through journalctl -D $DMN_JOURNAL_DIR: $(tail -c 300 "$log")"; return 1; }
	return 0
}

_dmn_journald_stop() {
	[ -n "$DMN_JOURNALD_PID" ] || return 0
	kill -TERM "$DMN_JOURNALD_PID" 2>/dev/null
	if ! live_wait_for 3 _live_gone_or_zombie "$DMN_JOURNALD_PID"; then
		live_kill_wait "$DMN_JOURNALD_PID" 3
	fi
	wait "$DMN_JOURNALD_PID" 2>/dev/null
	DMN_JOURNALD_PID=
}

# ---- configuration ---------------------------------------------------------------

# dmn_conf [section.key=value ...]: write $DMN_CONF ($LIVE_TMP/cgwatch.conf)
# with the short test thresholds, overridden by the arguments (an empty value
# drops the key; the flight recorder is off unless a scenario turns it on, with an
# instance name of its own; the PSI triggers are off too, since on this loaded host a trigger
# that fires moves a scan and the scenarios time scans at the interval: pressure.sh sets its
# own; so are runq-latency incidents, runq_p99_ms = 0, which this host's load would open beside
# the ones a scenario counts: the latency scenarios set their own), make the report and state dirs (bundles go to $LIVE_TMP/bundles,
# never the host's), and have `cgwatch config --check` accept it.
dmn_conf() {
	DMN_CONF=${DMN_CONF:-$LIVE_TMP/cgwatch.conf}
	local -A v=(
		[scan.interval]=0.5
		[thresholds.blocked_warning]=2
		[thresholds.blocked_critical]=4
		[incidents.update_interval]=1
		[reports.dir]=$LIVE_TMP/reports
		[run.state_dir]=$LIVE_TMP/state
		[bundle.dir]=$LIVE_TMP/bundles
		[run.lock_memory]=no
		[run.pin_housekeeping]=yes
		[recorder.enabled]=no
		[pressure.cpu]=no
		[pressure.memory]=no
		[pressure.io]=no
		[latency.runq_p99_ms]=0
	)
	local kv k s out
	for kv in "$@"; do v[${kv%%=*}]=${kv#*=}; done
	{
		echo "# written by tests/daemon/lib.sh for live-$LIVE_NAME"
		for s in scan thresholds signatures hazards audit incidents reports run bundle recorder latency pressure; do
			echo "[$s]"
			for k in $(printf '%s\n' "${!v[@]}" | grep "^$s\." | sort); do
				[ -z "${v[$k]}" ] || echo "${k#*.} = ${v[$k]}"   # empty: the built-in value
			done
		done
	} >"$DMN_CONF" || live_fail "setup: cannot write $DMN_CONF"
	DMN_REPORTS=${v[reports.dir]}
	DMN_STATE=${v[run.state_dir]}
	DMN_INTERVAL=${v[scan.interval]}
	DMN_WARN=${v[thresholds.blocked_warning]}
	DMN_CRIT=${v[thresholds.blocked_critical]}
	DMN_UPDATE=${v[incidents.update_interval]}
	mkdir -p "$DMN_REPORTS" "$DMN_STATE" || live_fail "setup: mkdir $DMN_REPORTS $DMN_STATE"
	out=$(timeout -k 1 5 "$CGWATCH" config --check --config "$DMN_CONF" 2>&1 3>&-) ||
		live_fail "setup: config --check rejects the test config: $(head -c 300 <<<"$out")"
}

# ---- the daemon ------------------------------------------------------------------

# dmn_start NAME [VAR=VALUE ...]: start `cgwatch run --config $DMN_CONF` in the
# background with the given environment (NOTIFY_SOCKET and WATCHDOG_* are
# cleared first; WATCHDOG_PID=self becomes the daemon's own pid, which is why
# the daemon is exec'd by a subshell and not run under timeout(1): sd-event
# only pings when WATCHDOG_PID is its pid). stdout/stderr go to
# $LIVE_TMP/NAME.out/.err. Sets DPID. Bounded: a guard SIGKILLs it after
# LIVE_BUDGET s, the cleanup kills it, and the PID namespace dies with the script.
dmn_start() {
	local name=$1
	shift
	(
		unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID LISTEN_FDNAMES
		export TMPDIR=$LIVE_TMP       # a bundle's tree, left when a daemon is killed mid-way
		for a in "$@"; do
			case $a in
			WATCHDOG_PID=self) export WATCHDOG_PID=$BASHPID ;;
			*) export "${a?}" ;;
			esac
		done
		exec "$CGWATCH" run --config "$DMN_CONF"
	) </dev/null >"$LIVE_TMP/$name.out" 2>"$LIVE_TMP/$name.err" 3>&- &
	DPID=$!
	DMN_PIDS+=("$DPID")
	DMN_ERRS+=("$LIVE_TMP/$name.err")
	(
		trap - EXIT INT TERM HUP USR1
		sleep "$LIVE_BUDGET" &
		s=$!
		trap 'kill $s; exit 0' TERM
		wait $s
		kill -KILL "$DPID" 2>/dev/null
	) </dev/null >/dev/null 2>&1 3>&- &
	DMN_GUARDS+=("$!")
	if [ -z "$DMN_CLEANUP_SET" ]; then
		DMN_CLEANUP_SET=1
		live_on_exit '_dmn_kill_daemons'
	fi
}

_dmn_kill_daemons() {
	local p
	for p in "${DMN_PIDS[@]}"; do
		_live_gone_or_zombie "$p" || live_kill_wait "$p" 5
		wait "$p" 2>/dev/null
	done
	for p in "${DMN_GUARDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

dmn_alive() { ! _live_gone_or_zombie "${1:-$DPID}"; }

# dmn_ctx: the daemon's state and the tail of its stderr, for failure messages.
dmn_ctx() {
	local p=${1:-$DPID} err=${DMN_ERRS[-1]} st d t
	st=$(live_task_state "$p")
	# a thread in D: where in the kernel (its top frames), what held the daemon up
	for t in /proc/"$p"/task/*; do
		[ "$(live_task_state "$p/task/${t##*/}")" = D ] &&
			d+=" [thread ${t##*/} in D: $(head -4 "$t/stack" 2>/dev/null | awk '{ printf "%s ", $2 }')]"
	done
	printf 'daemon %s %s%s; stderr: %s' "$p" "${st:+state }${st:-exited}" "$d" \
		"$(tail -c "${2:-500}" "$err" 2>/dev/null | tr '\n' '|' | cat -v)"
}

# dmn_require_alive WHAT: FAIL with its stderr if the daemon has exited.
dmn_require_alive() {
	if ! dmn_alive; then
		wait "$DPID" 2>/dev/null
		live_fail "$1: the daemon exited (status $?); stderr: $(tail -c 600 "${DMN_ERRS[-1]}" | tr '\n' '|' | cat -v)"
	fi
}

# dmn_stop [SIGNAL] [SECONDS]: signal the daemon and wait (bounded) for it to
# exit. Sets DMN_STOP_RC (exit status, or "none" if it did not exit in
# SECONDS, then it is SIGKILLed) and DMN_STOP_SEC (how long it took).
dmn_stop() {
	local sig=${1:-TERM} secs=${2:-5} t0 i n
	t0=$(live_now)
	kill -"$sig" "$DPID" 2>/dev/null
	n=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 100 }')
	for ((i = 0; i < n; i++)); do
		_live_gone_or_zombie "$DPID" && break
		sleep 0.01
	done
	DMN_STOP_SEC=$(live_elapsed_since "$t0")
	if _live_gone_or_zombie "$DPID"; then
		wait "$DPID"
		DMN_STOP_RC=$?
	else
		DMN_STOP_RC=none
		live_kill_wait "$DPID" 5
	fi
}

# ---- what the daemon said ------------------------------------------------------------

# dmn_collect: every incident message so far, as a JSON array in
# $LIVE_TMP/msgs.json, oldest first. From our journald (journalctl -o json)
# when it runs, else parsed from the daemons' stderr lines
#   cgwatch: MESSAGE [CGWATCH_STATE=... KEY=VALUE ...]
# into the same field names (plus _PID, the daemon's pid, and _SOURCE).
# Also writes $LIVE_TMP/log.txt: everything else the daemons said (stderr, and
# their journal messages that are not incident messages).
dmn_collect() {
	local i pids
	pids=$(printf '"%s",' "${DMN_PIDS[@]}")
	if [ "$DMN_JOURNALD" = 1 ]; then
		timeout -k 1 10 journalctl -D "$DMN_JOURNAL_DIR" -o json --no-pager >"$LIVE_TMP/journal.json" 2>"$LIVE_TMP/journal.err" ||
			live_fail "journalctl -D $DMN_JOURNAL_DIR -o json failed: $(head -c 300 "$LIVE_TMP/journal.err")"
		jq -s '[.[] | select(has("CGWATCH_STATE")) | . + {_SOURCE: "journal"}]' "$LIVE_TMP/journal.json" >"$LIVE_TMP/msgs.json" ||
			live_fail "journalctl -o json output does not parse: $(head -c 300 "$LIVE_TMP/journal.json")"
		jq -r -s --argjson p "[${pids%,}]" '.[] | select((._PID as $x | any($p[]; . == $x)) and (has("CGWATCH_STATE") | not))
			| .MESSAGE | if type == "string" then . else tostring end' "$LIVE_TMP/journal.json" >"$LIVE_TMP/log.txt"
	else
		: >"$LIVE_TMP/log.txt"
		echo '[]' >"$LIVE_TMP/msgs.json"
	fi
	for ((i = 0; i < ${#DMN_PIDS[@]}; i++)); do
		cat "${DMN_ERRS[i]}" >>"$LIVE_TMP/log.txt"
		[ "$DMN_JOURNALD" = 1 ] && continue
		jq -R -s --arg pid "${DMN_PIDS[i]}" '
			split("\n")
			| map(capture("^cgwatch: (?<MESSAGE>.*) \\[(?<f>[A-Z][A-Z0-9_]*=.*)\\]$"))
			| map(. as $m | ($m.f | [splits(" (?=[A-Z][A-Z0-9_]*=)")]
				| map(capture("^(?<k>[A-Z][A-Z0-9_]*)=(?<v>.*)$") | {(.k): .v}) | add)
				+ {MESSAGE: $m.MESSAGE, _PID: $pid, _SOURCE: "stderr"})
			| map(select(has("CGWATCH_STATE")))' "${DMN_ERRS[i]}" >"$LIVE_TMP/msgs.part" &&
			jq -s '.[0] + .[1]' "$LIVE_TMP/msgs.json" "$LIVE_TMP/msgs.part" >"$LIVE_TMP/msgs.tmp" &&
			mv -f "$LIVE_TMP/msgs.tmp" "$LIVE_TMP/msgs.json" ||
			live_fail "cannot parse the daemon's stderr ${DMN_ERRS[i]}"
	done
}

# dmn_msgs [JQ-FILTER]: the collected messages (compact, one per line),
# optionally filtered (e.g. 'select(.CGWATCH_STATE == "opened")').
dmn_msgs() { jq -c ".[] | ${1:-.}" "$LIVE_TMP/msgs.json"; }

# dmn_count STATE [INCIDENT]: how many collected messages have that state.
dmn_count() {
	jq --arg s "$1" --arg i "${2:-}" '[.[] | select(.CGWATCH_STATE == $s and ($i == "" or .CGWATCH_INCIDENT == $i))] | length' "$LIVE_TMP/msgs.json"
}

# dmn_digest: the collected messages in short, for failure messages.
dmn_digest() {
	jq -r '[.[] | "\(.CGWATCH_STATE)/\(.CGWATCH_INCIDENT)/pid \(._PID)/\(.MESSAGE)"] | join(" | ")' "$LIVE_TMP/msgs.json" 2>/dev/null | head -c "${1:-900}"
}

# dmn_wait_state STATE COUNT SECONDS [INCIDENT]: wait until at least COUNT
# messages with that state were collected; FAIL at once if the daemon exits.
# Returns 1 on timeout (the caller says why it matters).
dmn_wait_state() {
	local st=$1 want=$2 secs=$3 inc=${4:-} end
	end=$(awk -v n="$(date +%s.%N)" -v s="$secs" 'BEGIN { printf "%.3f", n + s }')
	while :; do
		dmn_collect
		[ "$(dmn_count "$st" "$inc")" -ge "$want" ] && return 0
		dmn_require_alive "waiting for a \"$st\" message"
		awk -v e="$end" -v n="$(date +%s.%N)" 'BEGIN { exit !(n < e) }' || return 1
		sleep 0.2
	done
}

# dmn_wait_msg SECONDS JQ-SELECT: like dmn_wait_state, for the first message
# matching a select expression, e.g. '.CGWATCH_STATE == "opened" and .CGWATCH_COMM == "x"'.
dmn_wait_msg() {
	local secs=$1 sel=$2 end
	end=$(awk -v n="$(date +%s.%N)" -v s="$secs" 'BEGIN { printf "%.3f", n + s }')
	while :; do
		dmn_collect
		jq -e "[.[] | select($sel)] | length > 0" "$LIVE_TMP/msgs.json" >/dev/null && return 0
		dmn_require_alive "waiting for a message with $sel"
		awk -v e="$end" -v n="$(date +%s.%N)" 'BEGIN { exit !(n < e) }' || return 1
		sleep 0.2
	done
}

# ---- stuck tasks -----------------------------------------------------------------------

# dmn_fuse_child [NAME]: live_fuse_child (tests/live/lib.sh): a child blocked in D in
# fuse_get_req under an uninitialised FUSE mount on $LIVE_TMP/mnt, renamed NAME.
dmn_fuse_child() { live_fuse_child "${1:-cgw-stuck}"; }

# dmn_fuse_release: kill the FUSE helper (closing the fd aborts the connection)
# and wait for the child to return ENOTCONN. Sets T_REL0/T_REL1: epoch just
# before the kill and once the child is seen released.
dmn_fuse_release() {
	T_REL0=$(live_now)
	live_kill_wait "$HELPER" 5 || live_fail "FUSE helper $HELPER did not die"
	HELPER=
	_dmn_released() { grep -q '^released ' "$LIVE_TMP/helper.out"; }
	live_wait_for 5 _dmn_released ||
		live_fail "child $CHILD not released after the FUSE fd closed: state=$(live_task_state "$CHILD")"
	T_REL1=$(live_now)
	live_wait_for 3 _live_gone_or_zombie "$CHILD" || live_fail "child $CHILD still alive after release"
	CHILD=
}

# ---- load, and many stuck tasks ----------------------------------------------------------

# dmn_hogs N: N busy loops (tests/live/hog: SCHED_OTHER, nice 0, not pinned) for at most
# LIVE_BUDGET s; they die with the script. Sets HOG (their parent) and HOGS (the loops).
# Cleanup: dmn_hogs_stop, which the test may also call itself.
dmn_hogs() {
	[ -x "$LIVE_BIN/hog" ] || live_fail "helper $LIVE_BIN/hog missing"
	live_on_exit 'dmn_hogs_stop'
	"$LIVE_BIN/hog" "$1" "$LIVE_BUDGET" >"$LIVE_TMP/hog.out" 2>"$LIVE_TMP/hog.err" 3>&- </dev/null &
	HOG=$!
	_dmn_hogging() { grep -q '^hogs ' "$LIVE_TMP/hog.out"; }
	live_wait_for 5 _dmn_hogging || live_fail "setup: hog: $(cat "$LIVE_TMP/hog.err")"
	read -r -a HOGS < <(sed -n 's/^hogs //p' "$LIVE_TMP/hog.out")
}

# dmn_hogs_stop: stop the hog and each of its loops, by PID.
dmn_hogs_stop() {
	local p
	[ -n "$HOG" ] || return 0
	live_kill_wait "$HOG" 5
	for p in "${HOGS[@]}"; do live_kill_task "$p" 5; done
	HOG= HOGS=()
}

# dmn_block_many N [STATMANY-ARGS...]: a fresh uninitialised FUSE mount ($LIVE_TMP/mntK,
# tests/live/fusehold) and N children of bin/statmany stat()ing it, all in D in
# fuse_get_req. With --shuffle, waits for the shuffler to end as well. Sets MNT, HELPER,
# STORM, SM_OUT (statmany's output), KIDS (the children), T_START (epoch before the first
# fork), T_ALLD (epoch once all were seen in D). Cleanups (reverse order): kill statmany
# (its children die with it), fusehold, unmount. dmn_release_many ends it earlier.
DMN_NMOUNTS=0
dmn_block_many() {
	local n=$1 k
	shift
	k=$((++DMN_NMOUNTS))
	MNT=$LIVE_TMP/mnt$k
	SM_OUT=$LIVE_TMP/statmany$k.out
	mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
	live_fusehold "helper$k" "$MNT"
	"$DMN_BIN/statmany" "$MNT" "$n" "$@" >"$SM_OUT" 2>"$LIVE_TMP/statmany$k.err" 3>&- </dev/null &
	STORM=$!
	live_on_exit "live_kill_wait $STORM"
	_dmn_forked() { grep -q "^forked $n\$" "$SM_OUT"; }
	live_wait_for 15 _dmn_forked ||
		live_fail "setup: statmany: $(grep -v '^child' "$SM_OUT" | head -5) $(cat "$LIVE_TMP/statmany$k.err")"
	if [[ " $* " == *" --shuffle "* ]]; then
		_dmn_shuffled() { grep -q '^shuffled ' "$SM_OUT"; }
		live_wait_for 15 _dmn_shuffled || live_fail "setup: statmany's shuffler did not finish"
	fi
	T_START=$(awk '$1 == "start" { print $2 }' "$SM_OUT")
	mapfile -t KIDS < <(awk '$1 == "child" { print $2 }' "$SM_OUT")
	_dmn_all_d() { live_count_state D "${KIDS[@]}"; [ "$LIVE_COUNT" = "$n" ]; }
	live_wait_for 10 _dmn_all_d || live_fail "setup: only $LIVE_COUNT of $n children in D (e.g. $LIVE_NOT)"
	T_ALLD=$(live_now)
}

# dmn_release_many: kill this round's fusehold and wait (bounded) until statmany says all
# its children returned; sets SM_RELEASED to that line.
dmn_release_many() {
	live_kill_wait "$HELPER" 5 || live_fail "fusehold $HELPER did not die"
	_dmn_released_many() { grep -q '^released ' "$SM_OUT"; }
	live_wait_for 10 _dmn_released_many || live_fail "the children of $SM_OUT were not all released after the FUSE fd closed: $(tail -1 "$SM_OUT")"
	SM_RELEASED=$(grep '^released ' "$SM_OUT")
	live_wait_for 5 _live_gone_or_zombie "$STORM" || live_fail "statmany $STORM still there after its children returned"
	wait "$STORM" 2>/dev/null
}

# dmn_exec0: which of KIDS are in D with se.exec_start 0 (the kernel forgot when they last
# ran: they were moved while still queued). Bash builtins only. Sets EXEC0 (how many) and
# EXEC0_KIDS (them, space-separated).
dmn_exec0() {
	local t s st
	EXEC0=0 EXEC0_KIDS=
	for t in "${KIDS[@]}"; do
		s= st=
		{ read -r -d '' st <"/proc/$t/stat"; } 2>/dev/null
		st=${st##*) }
		[ "${st%% *}" = D ] || continue
		{ read -r -d '' s <"/proc/$t/sched"; } 2>/dev/null
		s=${s#*se.exec_start}
		s=${s%%$'\n'*}
		s=${s##* }
		if [ "$s" = 0.000000 ]; then
			EXEC0=$((EXEC0 + 1))
			EXEC0_KIDS+="${EXEC0_KIDS:+ }$t"
		fi
	done
}

# dmn_block_forgotten N NAME: dmn_block_many N children named NAME that first burn 2 ms of
# CPU and are shuffled between CPUs as they block (statmany --spin 2 --shuffle 0.3), again
# until some of them sleep in D with se.exec_start 0 (dmn_exec0; about half of them here);
# after 3 tries without one, SKIP: such a run would prove nothing.
dmn_block_forgotten() {
	local n=$1 name=$2 try
	for try in 1 2 3; do
		dmn_block_many "$n" --name "$name" --spin 2 --shuffle 0.3
		dmn_exec0
		[ "$EXEC0" -gt 0 ] && return 0
		echo "try $try: no child with se.exec_start 0; blocking them again" >&2
		dmn_release_many
	done
	live_skip "3 tries of $n children blocked while shuffled between CPUs under load left none in D with se.exec_start 0: nothing to test on this kernel"
}

# ---- notify socket -----------------------------------------------------------------

# dmn_notify_listen: start bin/notifylisten on $LIVE_TMP/notify.sock (bounded
# to LIVE_BUDGET s); output in $NOTIFY_OUT. Sets NOTIFY_SOCK, NOTIFY_PID.
dmn_notify_listen() {
	NOTIFY_SOCK=$LIVE_TMP/notify.sock
	NOTIFY_OUT=$LIVE_TMP/notify.out
	live_on_exit 'live_kill_wait "$NOTIFY_PID"'
	"$DMN_BIN/notifylisten" "$NOTIFY_SOCK" "$LIVE_BUDGET" >"$NOTIFY_OUT" 2>"$LIVE_TMP/notify.err" 3>&- </dev/null &
	NOTIFY_PID=$!
	_dmn_listening() { grep -q '^listening ' "$NOTIFY_OUT"; }
	live_wait_for 5 _dmn_listening || live_fail "setup: notifylisten did not bind $NOTIFY_SOCK: $(cat "$LIVE_TMP/notify.err")"
}

# dmn_notify_fields [PID]: one line per assignment received, "TIME PID
# KEY=VALUE" (a datagram "READY=1\nSTATUS=x" gives two lines with the same
# TIME), optionally only those sent by PID.
dmn_notify_fields() {
	awk -v want="${1:-}" '
		$1 == "listening" { next }
		{
			t = $1; p = $2; sub(/^pid=/, "", p)
			if (want != "" && p != want) next
			rest = $0; sub(/^[^ ]+ [^ ]+ /, "", rest)
			n = split(rest, a, /\\n/)
			for (i = 1; i <= n; i++) print t, p, a[i]
		}' "$NOTIFY_OUT"
}

# ---- checking messages and reports ---------------------------------------------------

# dmn_get JQ-SELECT FIELD: FIELD of the first collected message matching the
# select expression (empty if none), e.g. dmn_get '.CGWATCH_STATE == "opened"' CGWATCH_PID
dmn_get() { jq -r "[.[] | select($1)][0].$2 // empty" "$LIVE_TMP/msgs.json"; }

# dmn_msg_time JQ-SELECT: epoch seconds (float) at which journald received the
# first matching message; empty for messages read from stderr.
dmn_msg_time() {
	jq -r "[.[] | select($1)][0].__REALTIME_TIMESTAMP // empty | tonumber / 1000000 | tostring" "$LIVE_TMP/msgs.json"
}

# dmn_states INCIDENT: the incident's states in order, space-separated.
dmn_states() { jq -r --arg i "$1" '[.[] | select(.CGWATCH_INCIDENT == $i) | .CGWATCH_STATE] | join(" ")' "$LIVE_TMP/msgs.json"; }

# dmn_incidents: every distinct incident id among the messages, one a line.
dmn_incidents() { jq -r '[.[].CGWATCH_INCIDENT] | unique | .[]' "$LIVE_TMP/msgs.json"; }

# dmn_duration MESSAGE: the seconds in "... was blocked 12.3 s in ..." (or "at least 12.3 s");
# empty if absent.
dmn_duration() { sed -nE 's/.* was blocked (at least )?([0-9]+(\.[0-9]+)?) s in .*/\2/p' <<<"$1" | head -1; }

# dmn_fcmp A OP B: float comparison (awk), e.g. dmn_fcmp "$x" '<=' 2.5
dmn_fcmp() { awk -v a="$1" -v b="$3" "BEGIN { exit !(a ~ /^-?[0-9]+(\\.[0-9]+)?\$/ && a $2 b) }"; }

# dmn_fcalc EXPR: float arithmetic (awk), 3 decimals.
dmn_fcalc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# dmn_longest_ok D START LAST END: D, the longest time a task was seen blocked, fits a block
# from START that the scans (every DMN_INTERVAL s) last saw by LAST and that ended by END:
# at least (LAST - START - one interval), at most (END - START), 10 % either way. Sets LO and
# HI, the bounds.
dmn_longest_ok() {
	LO=$(dmn_fcalc "($3 - $2 - $DMN_INTERVAL - 0.5) * 0.9")
	HI=$(dmn_fcalc "($4 - $2) * 1.1 + 0.05")
	dmn_fcmp "$1" '>=' "$LO" && dmn_fcmp "$1" '<=' "$HI"
}

# dmn_check_reports INCIDENT SIGNATURE: the report files the incident's
# messages name (CGWATCH_REPORT) exist, are named <dir>/<id>-<NN>-<state>.json
# with NN counting from 01 in message order, each has its .txt, parses as one
# cgwatch.report/1 object, and agrees with its message: incident id, state,
# signature, severity (when the message has one), timeline (NN entries, the
# last one this state), the task the message names in incident.tasks and (but
# in a resolved report) in the incident's finding, the only finding. No other
# report file of the incident exists; its page <dir>/<id>.html is of its last
# report. FAILs with the first disagreement. A message may name no report only when the
# daemon said its reports directory did not answer (a disk slower than [scan] read_timeout
# under the host's load: the alert goes out without it, by design); the reports written are
# then numbered on without it.
dmn_check_reports() {
	local inc=$1 sig=$2 i n m st path want base sev pid got txt nn w=0
	n=$(jq --arg i "$inc" '[.[] | select(.CGWATCH_INCIDENT == $i)] | length' "$LIVE_TMP/msgs.json")
	[ "$n" -gt 0 ] || live_fail "no message for incident $inc"
	for ((i = 0; i < n; i++)); do
		m=$(jq -c --arg i "$inc" --argjson k "$i" '[.[] | select(.CGWATCH_INCIDENT == $i)][$k]' "$LIVE_TMP/msgs.json")
		st=$(jq -r .CGWATCH_STATE <<<"$m")
		path=$(jq -r '.CGWATCH_REPORT // empty' <<<"$m")
		sev=$(jq -r '.CGWATCH_SEVERITY // empty' <<<"$m")
		pid=$(jq -r '.CGWATCH_PID // empty' <<<"$m")
		if [ -z "$path" ]; then
			grep -q "reports directory .* does not answer" "$LIVE_TMP/log.txt" 2>/dev/null ||
				live_fail "\"$st\" message of $inc has no CGWATCH_REPORT (and the daemon did not say its reports directory did not answer): $m"
			continue
		fi
		w=$((w + 1))
		nn=$(printf '%02d' "$w")
		want="$DMN_REPORTS/$inc-$nn-$st.json"
		[ "$path" -ef "$want" ] || [ "$path" = "$want" ] ||
			live_fail "\"$st\" message #$((i + 1)) of $inc names report $path, want $want (reports dir: $(ls "$DMN_REPORTS" | tr '\n' ' '))"
		[ -f "$path" ] || live_fail "report $path (of the \"$st\" message) does not exist; reports dir: $(ls "$DMN_REPORTS" | tr '\n' ' ')"
		txt=${path%.json}.txt
		[ -s "$txt" ] || live_fail "text report $txt missing or empty"
		jq -se 'length == 1 and (.[0] | type) == "object"' "$path" >/dev/null 2>&1 ||
			live_fail "report $path is not one JSON object: $(head -c 200 "$path" | cat -v)"
		got=$(jq -r '[.schema, .incident.id, .incident.state, .incident.signature, .incident.severity] | map(tostring) | join(" ")' "$path")
		[ "${got% *}" = "cgwatch.report/1 $inc $st $sig" ] ||
			live_fail "report $path says schema/id/state/signature '${got% *}', its message says 'cgwatch.report/1 $inc $st $sig'"
		[ -z "$sev" ] || [ "${got##* }" = "$sev" ] ||
			live_fail "report $path has incident.severity ${got##* }, its message CGWATCH_SEVERITY=$sev"
		got=$(jq -r '[(.incident.timeline | length), .incident.timeline[-1].state] | map(tostring) | join(" ")' "$path")
		[ "$got" = "$((i + 1)) $st" ] ||
			live_fail "report $path: timeline has $got (length, last state), want $((i + 1)) $st: $(jq -c .incident.timeline "$path" | head -c 300)"
		if [ -n "$pid" ]; then
			jq -e --argjson p "$pid" '[.incident.tasks[]? | select(.pid == $p)] | length > 0' "$path" >/dev/null ||
				live_fail "report $path: incident.tasks does not list pid $pid (the message's CGWATCH_PID): $(jq -c '[.incident.tasks[]? | .pid]' "$path" | head -c 200)"
			# A resolved report may describe the tasks only in incident.tasks.
			[ "$st" = resolved ] ||
			jq -e --argjson p "$pid" --arg s "$sig" '[.findings[]? | select(.id == $s) | select((.tasks // []) | index($p))] | length > 0' "$path" >/dev/null ||
				live_fail "report $path: no $sig finding listing tid $pid: $(jq -c '[.findings[]? | {id, tasks}]' "$path" | head -c 300)"
		fi
		jq -e '[.findings[]?] | length <= 1' "$path" >/dev/null ||
			live_fail "report $path has $(jq '[.findings[]?] | length' "$path") findings, want only the incident's one"
	done
	got=$(cd "$DMN_REPORTS" && ls -A | grep -F "$inc-" | grep -v -E "^$inc-[0-9]{2}-(opened|escalated|updated|resolved)\.(json|txt)\$")
	[ -z "$got" ] || live_fail "unexpected files for $inc in $DMN_REPORTS: $(tr '\n' ' ' <<<"$got")"
	got=$(cd "$DMN_REPORTS" && ls -A | grep -c -E "^$inc-[0-9]{2}-[a-z]+\.json\$")
	[ "$got" = "$w" ] || live_fail "$got JSON reports for $inc in $DMN_REPORTS, but $w messages naming one: $(ls "$DMN_REPORTS" | tr '\n' ' ')"
	# its page, <id>.html, as of its last report
	path=$DMN_REPORTS/$inc.html
	[ -s "$path" ] || live_fail "no page $path of incident $inc: $(ls "$DMN_REPORTS" | tr '\n' ' ')"
	grep -qF "<h1>cgwatch incident $inc</h1>" "$path" && grep -qF ">this report ($st) (" "$path" ||
		live_fail "page $path is not $inc's as of its last report ($st): $(grep -m1 -oE '<h1>[^<]*</h1>' "$path"), $(grep -oE '>this report \([a-z]+\)' "$path")"
}
