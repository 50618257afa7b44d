# Shared code for the live tests; sourced by every tests/live/NAME.sh.
#
# A scenario script calls live_init NAME, registers cleanups with
# live_on_exit CMD..., and ends with live_pass [NOTE] / live_fail MSG / live_skip MSG.
# Whatever happens (failure, error, signal, watchdog), the EXIT trap runs the
# cleanups in reverse order and prints exactly one line on the original stdout:
#   PASS live-NAME[: note] | FAIL live-NAME: reason | SKIP live-NAME: reason
# (vm-NAME for the VM tests: LIVE_PREFIX)
# Everything else the script or its commands print goes to stderr, which is
# discarded unless LIVE_DEBUG=1.
#
# Environment:
#   CGWATCH                 binary to test (default: /work/main/build/cgwatch)
#   CGWATCH_SIGNATURES_DIR  signatures on top of the built-in library (default: none)
#   LIVE_DEBUG=1            keep stderr (commands' noise, cgwatch output on failure)

LIVE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LIVE_BIN=$LIVE_DIR/bin
LIVE_REPO=$(cd "$LIVE_DIR/../.." && pwd)
CGWATCH=${CGWATCH:-$LIVE_REPO/build/cgwatch}
LIVE_BUDGET=${LIVE_BUDGET:-45}   # watchdog, seconds; each step is also bounded
LIVE_PREFIX=${LIVE_PREFIX:-live} # of the result line's name: tests/vm/lib.sh sets vm

LIVE_NAME=
LIVE_RESULT=
LIVE_REASON=
LIVE_CLEANUPS=()
LIVE_WATCHDOG=
LIVE_TMP=

live_init() {
	LIVE_NAME=$1
	exec 3>&1 1>&2          # fd 3: the result line; stdout noise goes to stderr
	[ "${LIVE_DEBUG:-0}" = 1 ] || exec 2>/dev/null
	trap _live_exit EXIT
	trap 'live_fail "interrupted by a signal"' INT TERM HUP
	trap 'live_fail "watchdog: script still running after ${LIVE_BUDGET} s"' USR1
	_live_start_watchdog
	LIVE_T0=$(date +%s.%N)
}

# Watchdog: a subshell that sends SIGUSR1 to the script after LIVE_BUDGET s.
# Bash runs the trap once the current foreground command returns; every
# foreground command is itself bounded (timeout), so the script ends < 60 s.
_live_start_watchdog() {
	(
		trap - EXIT INT HUP USR1
		sleep "$LIVE_BUDGET" 3>&- &
		s=$!
		trap 'kill $s; exit 0' TERM
		wait $s
		kill -USR1 $$
	) 3>&- &
	LIVE_WATCHDOG=$!
}

live_on_exit() { LIVE_CLEANUPS+=("$*"); }

# live_v1_hierarchy MNT NAME [nokeep]: mount a private cgroup v1 named hierarchy (no
# controller) at MNT (made here) with one cgroup MNT/keep (none with nokeep); on exit (after
# the cleanups registered later, which stop what uses it) its cgroups MNT/c* and keep are
# removed (children first: a hierarchy with cgroups left lingers after the unmount) and it is
# unmounted, and a hierarchy left mounted is a cleanup error. Skips when v1 named
# hierarchies cannot be mounted.
live_v1_hierarchy() {
	LIVE_V1_MNT=$1 LIVE_V1_NAME=$2
	grep -qw cgroup /proc/filesystems || live_skip "no cgroup v1 file system in this kernel"
	mkdir "$LIVE_V1_MNT" || live_fail "mkdir $LIVE_V1_MNT"
	live_on_exit _live_v1_cleanup
	timeout 10 mount -t cgroup -o "none,name=$LIVE_V1_NAME" cgroup "$LIVE_V1_MNT" \
		2>"$LIVE_TMP/mount.err" ||
		live_skip "cannot mount a cgroup v1 named hierarchy: $(head -c 200 "$LIVE_TMP/mount.err")"
	[ "${3:-}" = nokeep ] || mkdir "$LIVE_V1_MNT/keep" || live_fail "mkdir $LIVE_V1_MNT/keep"
}
_live_v1_cleanup() {
	local d
	if awk -v d="$LIVE_V1_MNT" '$5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		for d in "$LIVE_V1_MNT"/c* "$LIVE_V1_MNT"/keep; do
			[ -d "$d" ] && { rmdir "$d" 2>/dev/null || live_cleanup_error "rmdir $d failed"; }
		done
		live_umount "$LIVE_V1_MNT"
	fi
	grep -q "name=$LIVE_V1_NAME" /proc/self/mountinfo &&
		live_cleanup_error "hierarchy name=$LIVE_V1_NAME still mounted"
}

# live_frozen_sleeper CG: make the v1 freezer cgroup CG, move a new `sleep 1000` into it (pid in
# SLEEPER) once it sleeps, and freeze it until the sleeper shows D. On exit (in this order):
# thawed, the sleeper killed, CG removed.
live_frozen_sleeper() {
	LIVE_FROZEN_CG=$1
	live_on_exit _live_frozen_rmdir
	live_on_exit 'live_kill_wait "$SLEEPER"'
	live_on_exit _live_frozen_thaw
	mkdir "$LIVE_FROZEN_CG" || live_fail "setup: mkdir $LIVE_FROZEN_CG failed"
	sleep 1000 3>&- &
	SLEEPER=$!
	echo "$SLEEPER" >"$LIVE_FROZEN_CG/cgroup.procs" ||
		live_fail "setup: could not move $SLEEPER into $LIVE_FROZEN_CG"
	_live_asleep() { [ "$(live_task_state "$SLEEPER")" = S ]; }
	live_wait_for 3 _live_asleep || live_fail "setup: sleeper $SLEEPER not asleep"
	echo FROZEN >"$LIVE_FROZEN_CG/freezer.state" || live_fail "setup: could not write FROZEN"
	_live_frozen() {
		[ "$(cat "$LIVE_FROZEN_CG/freezer.state")" = FROZEN ] &&
			[ "$(live_task_state "$SLEEPER")" = D ]
	}
	live_wait_for 5 _live_frozen || live_fail "setup: $LIVE_FROZEN_CG not frozen, or $SLEEPER not in D"
}
_live_frozen_thaw() {
	[ -d "$LIVE_FROZEN_CG" ] || return 0
	echo THAWED >"$LIVE_FROZEN_CG/freezer.state" || live_cleanup_error "could not thaw $LIVE_FROZEN_CG"
}
_live_frozen_rmdir() {
	[ -d "$LIVE_FROZEN_CG" ] || return 0
	live_wait_for 3 rmdir "$LIVE_FROZEN_CG" 2>/dev/null ||
		live_cleanup_error "could not rmdir $LIVE_FROZEN_CG"
}

# live_hard_kill PID: SIGKILL PID from CPU 0 at SCHED_FIFO 99, above any spinner's (a kill on
# a spinner's CPU at its priority might never run), and wait for it; nothing for "".
live_hard_kill() {
	[ -n "$1" ] || return 0
	taskset -c 0 chrt -f 99 kill -KILL "$1" 2>/dev/null
	live_kill_wait "$1"
}

# live_spin VAR CPU PRIO SECONDS: start tests/live/spin.c, a SCHED_FIFO spinner at PRIO pinned
# to CPU that ends itself after SECONDS, its output in $LIVE_TMP/VAR.out and its pid in VAR,
# once it says it spins. The caller registers its kill (a starved task's spinner is killed
# before it).
live_spin() {
	"$LIVE_BIN/spin" "$2" "$3" "$4" >"$LIVE_TMP/$1.out" 2>&1 3>&- &
	printf -v "$1" %s $!
	live_wait_for 3 grep -q '^spinning ' "$LIVE_TMP/$1.out" ||
		live_fail "setup: spinner $1: $(cat "$LIVE_TMP/$1.out")"
}

# live_sleepers N SECONDS: N SCHED_OTHER tasks on CPU 1 that sleep 1 ms in a loop
# ($LIVE_TMP/runqspin, which the caller copied from spin: a name of its own), ending
# themselves after SECONDS; their pids in SLEEPERS, each killed at exit. Four, for a run-queue
# test: on a host whose other tasks wake thousands of times a second on CPU 1, the waits
# behind a spinner must still be more than 1 % of CPU 1's waits to be its p99.
live_sleepers() {
	local i
	SLEEPERS=()
	live_on_exit 'for p in "${SLEEPERS[@]}"; do live_hard_kill "$p"; done'
	for ((i = 1; i <= $1; i++)); do
		"$LIVE_TMP/runqspin" 1 0 "$2" 0 1 >"$LIVE_TMP/sleeper$i.out" 2>&1 3>&- &
		SLEEPERS+=($!)
		live_wait_for 3 grep -q '^spinning ' "$LIVE_TMP/sleeper$i.out" ||
			live_fail "setup: sleeper $i: $(cat "$LIVE_TMP/sleeper$i.out")"
	done
}

if [ -f "$LIVE_DIR/../proofs.sh" ]; then
	. "$LIVE_DIR/../proofs.sh"
else
	proof() { :; }                  # a copy without the ledger (a VM's initramfs)
fi

# live_proof PATH: this scenario saw PATH (tests/proofs.sh) work on this kernel; recorded in
# the suite's ledger unless the scenario fails (a SKIP may have proven a fallback first).
LIVE_PROOFS=()
live_proof() { LIVE_PROOFS+=("$1"); }

# live_kernel_feature FILE NAME: "STATE: why" of kernel feature NAME (task-walker, ...) in
# the check report FILE's scan.kernel; "absent" when the report has none.
live_kernel_feature() {
	jq -r --arg n "$2" '[.scan.kernel.features[]? | select(.name == $n)] |
		if length == 1 then .[0].state + ": " + .[0].why else "absent" end' "$1"
}

live_pass() { LIVE_RESULT=PASS; LIVE_REASON=$*; exit 0; }     # optional: what it showed
live_fail() { LIVE_RESULT=FAIL; LIVE_REASON=$*; exit 1; }
live_skip() { LIVE_RESULT=SKIP; LIVE_REASON=$*; exit 0; }

_live_exit() {
	local rc=$? i extra=
	trap - EXIT INT TERM HUP USR1
	if [ -z "$LIVE_RESULT" ]; then
		LIVE_RESULT=FAIL
		LIVE_REASON="script ended unexpectedly (exit $rc, line ${BASH_LINENO[0]})"
	fi
	for ((i = ${#LIVE_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${LIVE_CLEANUPS[i]}"
	done
	if [ -n "$LIVE_WATCHDOG" ]; then
		kill -TERM "$LIVE_WATCHDOG" 2>/dev/null
		wait "$LIVE_WATCHDOG" 2>/dev/null
	fi
	if [ -n "$LIVE_CLEANUP_ERR" ]; then
		# Something this script made is left behind: that is a failure too.
		if [ "$LIVE_RESULT" = FAIL ]; then
			LIVE_REASON="$LIVE_REASON; cleanup: $LIVE_CLEANUP_ERR"
		else
			LIVE_RESULT=FAIL LIVE_REASON="cleanup: $LIVE_CLEANUP_ERR"
		fi
	fi
	if [ "$LIVE_RESULT" != FAIL ]; then    # a SKIP may have proven a fallback first
		for i in "${LIVE_PROOFS[@]}"; do
			proof "$i" "${LIVE_PROOF_WHERE:-host $(uname -r)}" "$LIVE_PREFIX-$LIVE_NAME"
		done
	fi
	# One line, whatever the reason contains.
	LIVE_REASON=${LIVE_REASON//$'\n'/ | }
	case $LIVE_RESULT in
	PASS) printf 'PASS %s-%s%s\n' "$LIVE_PREFIX" "$LIVE_NAME" "${LIVE_REASON:+: $LIVE_REASON}" >&3 ;;
	*) printf '%s %s-%s: %s\n' "$LIVE_RESULT" "$LIVE_PREFIX" "$LIVE_NAME" "$LIVE_REASON" >&3 ;;
	esac
	[ "$LIVE_RESULT" = FAIL ] && exit 1
	exit 0
}

LIVE_CLEANUP_ERR=
live_cleanup_error() { LIVE_CLEANUP_ERR="${LIVE_CLEANUP_ERR:+$LIVE_CLEANUP_ERR; }$*"; }

# ---- preconditions -------------------------------------------------------

live_require_root() {
	[ "$(id -u)" = 0 ] || live_skip "not root"
}

live_require_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || live_skip "missing tool: $t"
	done
}

# The objects of cgwatch in directory $1, main.o left out, into the array objs (an object
# whose source is gone, left by an older build, is not linked; sigs-builtin.o is generated),
# and what linking against them takes: cg_cflags and cg_libs, as the Makefile says.
live_cgwatch_objs() {
	local o n
	read -r -a cg_cflags <<<"$(make -s -C "$LIVE_REPO" print-cflags)"
	read -r -a cg_libs <<<"$(make -s -C "$LIVE_REPO" print-libs)"
	objs=()
	for o in "$1"/*.o; do
		n=$(basename "$o" .o)
		[ "$n" != main ] && { [ -f "$LIVE_REPO/src/$n.c" ] || [[ "$n" == *-builtin ]]; } &&
			objs+=("$o")
	done
	return 0
}

live_require_binary() {
	[ -x "$CGWATCH" ] || live_fail "cgwatch binary not found at $CGWATCH (run make -C $LIVE_REPO)"
	[ -z "${CGWATCH_SIGNATURES_DIR:-}" ] || [ -d "$CGWATCH_SIGNATURES_DIR" ] ||
		live_fail "signatures dir not found: $CGWATCH_SIGNATURES_DIR"
}

live_require_helpers() {
	local h
	"$LIVE_DIR/build.sh" || live_fail "could not build the helpers (run $LIVE_DIR/build.sh)"
	for h in "$@"; do
		[ -x "$LIVE_BIN/$h" ] || live_fail "helper $LIVE_BIN/$h missing after build"
	done
}

live_require_fuse() {
	[ -c /dev/fuse ] || live_skip "no /dev/fuse"
	grep -qw fuse /proc/filesystems || live_skip "fuse filesystem not in /proc/filesystems"
}

# live_init_fuse NAME TOOL...: live_init, then what every FUSE scenario needs: root, FUSE,
# the tools, the fusehold helper, the binary and a private temp dir.
live_init_fuse() {
	live_init "$1"
	shift
	live_require_root
	live_require_fuse
	live_require_tools "$@"
	live_require_helpers fusehold
	live_require_binary
	live_mktemp
}

# A private temp dir, removed at exit (after everything mounted in it is gone).
live_mktemp() {
	LIVE_TMP=$(mktemp -d /tmp/cgwatch-live-"$LIVE_NAME".XXXXXX) || live_fail "mktemp failed"
	live_on_exit _live_rm_tmp
}

_live_rm_tmp() {
	[ -n "$LIVE_TMP" ] && [ -d "$LIVE_TMP" ] || return 0
	# Never descend into a mount that might still be stuck.
	if awk -v d="$LIVE_TMP" '$5 == d || index($5, d "/") == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		live_cleanup_error "mount still present under $LIVE_TMP, left it in place"
		return
	fi
	rm -rf -- "$LIVE_TMP" || live_cleanup_error "could not remove $LIVE_TMP"
}

# ---- time and processes ----------------------------------------------------

live_now() { date +%s.%N; }

# live_elapsed_since T: seconds (float) since live_now value T
live_elapsed_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }

# live_task_state TID -> state letter, or empty if gone
live_task_state() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	printf '%s' "${s%% *}"
}

# live_count_state STATE TID...: how many of the TIDs are in STATE, in LIVE_COUNT; the
# first that is not, as "TID(state)" ("TID()" if gone), in LIVE_NOT. Bash builtins only,
# no fork per task: polling 200 tasks with $(live_task_state) took 2.6 s under load.
live_count_state() {
	local want=$1 t s n=0
	shift
	LIVE_NOT=
	for t; do
		s=
		{ read -r -d '' s <"/proc/$t/stat"; } 2>/dev/null
		if [ -n "$s" ]; then
			s=${s##*) }
			s=${s%% *}
		fi
		if [ "$s" = "$want" ]; then
			n=$((n + 1))
		elif [ -z "$LIVE_NOT" ]; then
			LIVE_NOT="$t($s)"
		fi
	done
	LIVE_COUNT=$n
}

# live_wait_for SECONDS CMD...: poll CMD every 0.05 s until it succeeds.
live_wait_for() {
	local deadline i
	deadline=$(awk -v s="$1" 'BEGIN { printf "%d", s * 20 }')
	shift
	for ((i = 0; i < deadline; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}

# live_kill_wait PID [SECONDS]: SIGKILL our own child PID and reap it, bounded.
live_kill_wait() {
	local pid=$1 secs=${2:-5}
	[ -n "$pid" ] || return 0
	kill -KILL "$pid" 2>/dev/null
	if live_wait_for "$secs" _live_gone_or_zombie "$pid"; then
		wait "$pid" 2>/dev/null
		return 0
	fi
	live_cleanup_error "pid $pid did not die within ${secs} s (state $(live_task_state "$pid"))"
	return 1
}

_live_gone_or_zombie() {
	local s
	s=$(live_task_state "$1")
	[ -z "$s" ] || [ "$s" = Z ] || [ "$s" = X ]
}

# live_kill_task TID: SIGKILL a task that is not our child and wait for it to go.
live_kill_task() {
	local tid=$1 secs=${2:-5}
	[ -n "$tid" ] || return 0
	kill -KILL "$tid" 2>/dev/null
	live_wait_for "$secs" _live_gone_or_zombie "$tid" ||
		live_cleanup_error "task $tid did not die within ${secs} s (state $(live_task_state "$tid"))"
}

# live_umount DIR: lazy unmount if DIR is a mount point (DIR may hold spaces: mountinfo
# writes them as \040).
live_umount() {
	local e
	e=$(printf '%s' "$1" | sed 's/\\/\\134/g; s/ /\\040/g; s/\t/\\011/g')
	if D=$e awk '$5 == ENVIRON["D"] { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		timeout -k 1 5 umount -l -- "$1" || live_cleanup_error "umount -l $1 failed"
	fi
}

# ---- stuck tasks -----------------------------------------------------------

# live_fusehold TAG [--file] PATH: an uninitialised FUSE mount on PATH (tests/live/fusehold
# in the background, HELPER its pid, its output in $LIVE_TMP/TAG.out and TAG.err), once it
# says it is mounted: from then on, until the helper is dead, any access to PATH blocks.
# Cleanups (reverse order): kill the helper (closing its fd releases every waiter), then
# unmount PATH.
live_fusehold() {
	local tag=$1 path=${!#}
	shift
	live_on_exit "live_umount $(printf %q "$path")"
	"$LIVE_BIN/fusehold" "$@" >"$LIVE_TMP/$tag.out" 2>"$LIVE_TMP/$tag.err" 3>&- </dev/null &
	HELPER=$!
	live_on_exit "live_kill_wait $HELPER"
	_live_mounted() { grep -q '^mounted' "$LIVE_TMP/$tag.out"; }
	live_wait_for 5 _live_mounted ||
		live_fail "setup: fusehold on $path: $(cat "$LIVE_TMP/$tag.out" "$LIVE_TMP/$tag.err")"
}

# live_conf_check CONF LINE: CONF holds [scan] LINE, and `config --check` accepts it.
live_conf_check() {
	printf '[scan]\n%s\n' "$2" >"$1" || live_fail "setup: could not write $1"
	timeout -k 2 10 "$CGWATCH" config --check --config "$1" >"$LIVE_TMP/conf.out" 2>&1 3>&- ||
		live_fail "setup: config --check rejects $2: $(head -c 300 "$LIVE_TMP/conf.out")"
}

# live_vforkhold: tests/live/vforkhold holding a vfork child for 30 s; sets HELPER, PARENT
# (the helper, in D in kernel_clone) and CHILD, with their cleanups. Needs live_mktemp.
live_vforkhold() {
	live_on_exit 'live_kill_task "$CHILD"'
	live_on_exit 'live_kill_wait "$HELPER"'
	"$LIVE_BIN/vforkhold" 30 >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- &
	HELPER=$!
	_live_vfork_both() { grep -q '^parent ' "$LIVE_TMP/helper.out" && grep -q '^child ' "$LIVE_TMP/helper.out"; }
	live_wait_for 5 _live_vfork_both ||
		live_fail "setup: helper output: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err")"
	PARENT=$(awk '/^parent /{print $2}' "$LIVE_TMP/helper.out")
	CHILD=$(awk '/^child /{print $2}' "$LIVE_TMP/helper.out")
	[ "$PARENT" = "$HELPER" ] || live_fail "setup: parent tid $PARENT is not the helper pid $HELPER"
	_live_in_vfork() { [ "$(live_task_state "$PARENT")" = D ] && grep -q kernel_clone "/proc/$PARENT/stack"; }
	live_wait_for 3 _live_in_vfork ||
		live_fail "setup: parent $PARENT not in D with kernel_clone: state=$(live_task_state "$PARENT") stack=$(tr '\n' ' ' <"/proc/$PARENT/stack")"
}

# live_fuse_child [NAME]: an uninitialised FUSE mount on $LIVE_TMP/mnt
# (tests/live/fusehold) and a child blocked in D in fuse_get_req under it,
# renamed NAME when given. Needs live_mktemp and the fusehold helper. Sets
# MNT, HELPER, CHILD, T_START (epoch before its stat()). Cleanups (reverse
# order): kill the helper (releases the child), the child, then unmount.
live_fuse_child() {
	local name=()
	[ -z "${1:-}" ] || name=(--name "$1")
	MNT=$LIVE_TMP/mnt
	mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
	live_on_exit 'live_umount "$MNT"'
	live_on_exit 'live_kill_task "$CHILD"'
	live_on_exit 'live_kill_wait "$HELPER"'
	"$LIVE_BIN/fusehold" "$MNT" --child "${name[@]}" >"$LIVE_TMP/helper.out" 2>"$LIVE_TMP/helper.err" 3>&- &
	HELPER=$!
	_live_child_line() { grep -q '^child ' "$LIVE_TMP/helper.out"; }
	live_wait_for 5 _live_child_line ||
		live_fail "setup: fusehold printed no child line: $(cat "$LIVE_TMP/helper.out" "$LIVE_TMP/helper.err")"
	read -r _ CHILD T_START < <(grep '^child ' "$LIVE_TMP/helper.out")
	_live_in_fuse_wait() { [ "$(live_task_state "$CHILD")" = D ] && grep -q fuse_get_req "/proc/$CHILD/stack"; }
	live_wait_for 5 _live_in_fuse_wait ||
		live_fail "setup: child $CHILD not in D with fuse_get_req: state=$(live_task_state "$CHILD") stack=$(tr '\n' ' ' <"/proc/$CHILD/stack")"
}

# live_statn PATH N: N threads of one process (tests/live/ustackhold-O2 statn) each stat
# PATH, under a FUSE mount that never answers; returns once all N are in D. Sets SN (the
# process) and SNT (the threads' TIDs). The caller kills SN: after the mount's server when
# the threads wait behind one lookup (uninterruptibly).
live_statn() {
	local out=$LIVE_TMP/statn.$RANDOM n=$2     # n: seen by the tests below (dynamic scope)
	"$LIVE_BIN/ustackhold-O2" statn "$1" "$n" >"$out" 2>"$out.err" 3>&- </dev/null &
	SN=$!
	_live_statn_all() { [ "$(grep -c '^blocked ' "$out")" = "$n" ]; }
	live_wait_for 10 _live_statn_all ||
		live_fail "setup: ustackhold statn: $(cat "$out" "$out.err" | head -c 300)"
	mapfile -t SNT < <(awk '/^blocked /{print $2}' "$out")
	live_wait_for 10 eval 'live_count_state D "${SNT[@]}"; [ "$LIVE_COUNT" = "$n" ]' ||
		live_fail "setup: $LIVE_COUNT of the $n statn threads in D (first not: $LIVE_NOT)"
}

# ---- running cgwatch -------------------------------------------------------

# live_cgwatch_leftover: every task (tid(comm,state,wchan)) still running the
# cgwatch binary, e.g. a reader thread stuck on a hung file; empty if none.
live_cgwatch_leftover() {
	local d exe out=
	exe=$(readlink -f "$CGWATCH")
	for d in /proc/[0-9]*/task/[0-9]*; do
		[ "$d/exe" -ef "$exe" ] || continue     # same inode; no fork per task
		out+="${d##*/}($(cat "$d/comm" 2>/dev/null),$(live_task_state "${d##*/}"),$(cat "$d/wchan" 2>/dev/null)) "
	done
	printf '%s' "$out"
}

# live_cgwatch OUT ERR ARGS...: run cgwatch (bounded to LIVE_CG_TIMEOUT s);
# sets CG_RC, CG_T_BEFORE, CG_T_AFTER (epoch seconds, float).
LIVE_CG_TIMEOUT=${LIVE_CG_TIMEOUT:-10}
live_cgwatch() {
	local out=$1 err=$2
	shift 2
	CG_T_BEFORE=$(live_now)
	timeout -k 2 "$LIVE_CG_TIMEOUT" "$CGWATCH" "$@" >"$out" 2>"$err" 3>&-
	CG_RC=$?
	CG_T_AFTER=$(live_now)
	if [ "$CG_RC" = 124 ] || [ "$CG_RC" = 137 ]; then
		live_fail "cgwatch $* did not return within ${LIVE_CG_TIMEOUT} s (killed by timeout, rc $CG_RC); stderr: $(head -c 300 "$err")"
	fi
	if [ "${LIVE_DEBUG:-0}" = 1 ]; then
		echo "--- cgwatch $* -> rc $CG_RC" >&2
		head -c 20000 "$out" >&2
		head -c 2000 "$err" >&2
	fi
}

# live_json_check FILE WHAT: the output is exactly one JSON object of schema
# cgwatch.report/1 (note: `jq .` alone accepts an empty file).
live_json_check() {
	local f=$1 what=$2 schema
	[ -s "$f" ] || live_fail "$what: empty output (rc $CG_RC); stderr: $(head -c 300 "${f%.*}.err" 2>/dev/null | cat -v)"
	jq . "$f" >/dev/null 2>&1 || live_fail "$what: output is not valid JSON (rc $CG_RC): $(head -c 300 "$f" | cat -v)"
	jq -se 'length == 1 and (.[0] | type) == "object"' "$f" >/dev/null 2>&1 ||
		live_fail "$what: output is not exactly one JSON object (rc $CG_RC): $(head -c 300 "$f" | cat -v)"
	schema=$(jq -r '.schema // "missing"' "$f")
	[ "$schema" = cgwatch.report/1 ] || live_fail "$what: schema is '$schema', want cgwatch.report/1"
}

# live_task_json FILE TID -> the task object for TID (compact), or empty
live_task_json() { jq -c --argjson t "$2" '[.tasks[]? | select(.tid == $t)][0] // empty' "$1"; }

# live_findings_for FILE TID -> "id:severity" for every finding naming TID
live_findings_for() {
	jq -r --argjson t "$2" '[.findings[]? | select((.tasks // []) | index($t)) | "\(.id):\(.severity)"] | join(",")' "$1"
}

# live_summary FILE: a short digest of a report for failure messages
live_summary() {
	jq -r '"tasks=" + ([.tasks[]? | "\(.tid)/\(.comm)/\(.state)/\(.signature)/\(.blocked_s)"] | join(",")) + " findings=" + ([.findings[]? | "\(.id):\(.severity):\(.tasks)"] | join(","))' "$1" 2>/dev/null | head -c 600
}
