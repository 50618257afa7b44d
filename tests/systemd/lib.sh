# Shared code for tests/systemd/run.sh: a Debian 12 container booted with systemd-nspawn, the
# project installed into it, commands run inside it. Sourced.
#
# Output: one line per check on the original stdout (fd 3),
#   PASS systemd-NAME[: note] | FAIL systemd-NAME: why | SKIP systemd-NAME: why
# everything else goes to stderr, discarded unless SD_DEBUG=1.
#
# The container. rootfs.sh gives a cached tree that is never written: an overlay (upper in a
# temp dir) is mounted on it for each run and booted with
#   systemd-nspawn -b --register=no --keep-unit
# (no machined and no systemd on the host needed), from a cgroup of its own
# (cgwatch-test-PID, in every named/unified hierarchy the host has) so that everything the
# container started can be killed at once (cgroup.kill) and the cgroups removed. Commands run
# inside with nsenter into the container's PID 1 (sd_in). Cleanup, from the EXIT trap whatever
# ends the script (a failure, a signal, the budget): SIGTERM to nspawn (an orderly poweroff),
# then cgroup.kill, the overlay unmounted, the temp dir and the cgroups removed.
#
# Environment: SD_DEBUG=1 (keep stderr, and the container's console in it), SD_BUDGET (the
# scenario once the rootfs and the build are ready, seconds; default 300), BUILD (the suite's build dir; the copy installed into the
# container is built in $BUILD/systemd with PREFIX=/usr), SD_DEB (a .deb of this tree to install
# instead of building one: tests/run.sh passes the one tests/packaging.sh built).

SD_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SD_REPO=$(cd "$SD_DIR/../.." && pwd)
SD_BUDGET=${SD_BUDGET:-300}
SD_T=                   # the temp dir: upper/ work/ root/ nspawn.log
SD_ROOT=                # the container's root (the overlay)
SD_NSPAWN=              # the systemd-nspawn process
SD_LEADER=              # the container's PID 1, seen from the host
SD_CG=()                # our cgroup in each hierarchy
SD_MACHINE=cgwatch-test-$$
SD_WATCHDOG=
SD_CLEANING=
SD_WHY=                 # why the last sd_* setup step failed
SD_INSTALLED=

sd_init() {
	exec 3>&1 1>&2
	[ "${SD_DEBUG:-0}" = 1 ] || exec 2>/dev/null
	trap _sd_exit EXIT
	trap 'sd_result FAIL budget "interrupted by a signal"; SD_DONE=1; exit 1' INT HUP
	trap 'sd_result FAIL budget "the run was still going after $SD_BUDGET s"; SD_DONE=1; exit 1' TERM
}

# sd_budget: from now on the run has SD_BUDGET seconds (the rootfs build and the compile
# before it have their own bounds); past that, SIGTERM: a FAIL line and the cleanup.
sd_budget() {
	(
		trap - EXIT INT HUP TERM
		sleep "$SD_BUDGET" 3>&- &
		s=$!
		trap 'kill $s; exit 0' TERM
		wait $s
		kill -TERM $$
	) 3>&- &
	SD_WATCHDOG=$!
}

SD_FAILED=0
# sd_result PASS|FAIL|SKIP NAME [WHY]: one result line (newlines folded).
sd_result() {
	local st=$1 name=$2 why=${3:-}
	why=${why//$'\n'/ | }
	[ "$st" = FAIL ] && SD_FAILED=1
	if [ -n "$why" ]; then
		printf '%s systemd-%s: %s\n' "$st" "$name" "${why:0:900}" >&3
	else
		printf '%s systemd-%s\n' "$st" "$name" >&3
	fi
}

# sd_skip_all WHY: nothing can run here; one SKIP line and out.
sd_skip_all() { sd_result SKIP boot "$1"; SD_DONE=1; exit 0; }

SD_DONE=
_sd_exit() {
	local rc=$? line=${BASH_LINENO[0]}
	trap - EXIT INT HUP TERM
	[ -n "$SD_DONE" ] || sd_result FAIL run "the script ended early (exit $rc, line $line)"
	sd_cleanup
	# the flight recorder's instance (run.sh: REC_INST), should the container have left it
	! declare -F rec_cleanup >/dev/null || rec_cleanup
	if [ -n "$SD_WATCHDOG" ]; then
		kill -TERM "$SD_WATCHDOG" 2>/dev/null
		wait "$SD_WATCHDOG" 2>/dev/null
	fi
	exit $SD_FAILED
}

# ---- the container --------------------------------------------------------------------------

# sd_cgroup_make: a cgroup cgwatch-test-PID in each hierarchy nspawn uses (cgroup2 at
# /sys/fs/cgroup, or the hybrid pair unified/ and systemd/); sd_boot starts nspawn in it.
sd_cgroup_make() {
	local d
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		SD_CG=(/sys/fs/cgroup/$SD_MACHINE)
	else
		for d in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd; do
			[ -d "$d" ] && SD_CG+=("$d/$SD_MACHINE")
		done
	fi
	[ ${#SD_CG[@]} -gt 0 ] || { SD_WHY="no cgroup2 or name=systemd hierarchy under /sys/fs/cgroup"; return 1; }
	for d in "${SD_CG[@]}"; do
		mkdir -p "$d" || { SD_WHY="cannot make $d"; return 1; }
	done
}

# Everything left in our cgroups is killed, then the cgroups (and what the container's systemd
# made in them) removed, deepest first.
_sd_cgroup_remove() {
	local d i
	for d in "${SD_CG[@]}"; do
		[ -d "$d" ] || continue
		if [ -f "$d/cgroup.kill" ]; then
			echo 1 >"$d/cgroup.kill"
		else
			find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		fi
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		for d in "${SD_CG[@]}"; do
			[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		done
		local left=0
		for d in "${SD_CG[@]}"; do [ -d "$d" ] && left=1; done
		[ $left = 0 ] && return 0
		sleep 0.3
	done
	for d in "${SD_CG[@]}"; do [ -d "$d" ] && sd_result FAIL cleanup "cgroup $d still there"; done
}

# sd_overlay LOWER: a fresh writable root on LOWER in $SD_T/root.
sd_overlay() {
	SD_WHY="cannot make a temp dir in /tmp"
	SD_T=$(mktemp -d /tmp/cgwatch-systemd.XXXXXX) || return 1
	mkdir "$SD_T/upper" "$SD_T/work" "$SD_T/root" || return 1
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$SD_T/upper,workdir=$SD_T/work" "$SD_T/root" || {
		SD_WHY="mount -t overlay on $1 failed"
		return 1
	}
	SD_ROOT=$SD_T/root
	_sd_reaper
}

# A SIGKILL of this script runs no trap: a process of its own session (out of reach of the
# killer of our process group) waits for the script to go, then kills whatever is left in
# our cgroups (nspawn, the container), unmounts the overlay and removes the temp dir. When
# the script cleaned up itself, it finds nothing to do.
_sd_reaper() {
	setsid bash -c '
		while kill -0 "$1" 2>/dev/null; do sleep 1; done
		t=$2 root=$3
		shift 3
		for d; do [ -f "$d/cgroup.kill" ] && echo 1 >"$d/cgroup.kill"; done
		sleep 1
		for d; do [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + ; done
		mountpoint -q "$root" && umount -l "$root"
		mountpoint -q "$root" || rm -rf -- "$t"
	' sd-reaper $$ "$SD_T" "$SD_ROOT" "${SD_CG[@]}" </dev/null >/dev/null 2>&1 3>&- &
}

# sd_boot [NSPAWN-ARGS...]: boot $SD_ROOT in the background, wait for its PID 1 and for
# `systemctl is-system-running --wait` (degraded is fine). Returns 1 with the reason in SD_WHY.
sd_boot() {
	local i st
	(
		for d in "${SD_CG[@]}"; do echo $BASHPID >"$d/cgroup.procs"; done
		exec systemd-nspawn -q -D "$SD_ROOT" -b --register=no --keep-unit \
			--machine="$SD_MACHINE" --console=passive --link-journal=no \
			--resolv-conf=off --timezone=off "$@"
	) </dev/null >"$SD_T/nspawn.log" 2>&1 3>&- &
	SD_NSPAWN=$!
	for ((i = 0; i < 200; i++)); do
		SD_LEADER=$(_sd_leader)
		[ -n "$SD_LEADER" ] && break
		kill -0 "$SD_NSPAWN" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$SD_LEADER" ]; then
		SD_WHY="systemd-nspawn -b did not start a PID 1: $(tail -c 400 "$SD_T/nspawn.log")"
		return 1
	fi
	# systemctl needs the manager's socket, which comes a moment after PID 1
	for ((i = 0; i < 300; i++)); do
		sd_in test -S /run/systemd/private && break
		kill -0 "$SD_NSPAWN" 2>/dev/null || break
		sleep 0.1
	done
	st=$(sd_in_t 60 systemctl is-system-running --wait 2>&1)
	case $st in
	running | degraded) return 0 ;;
	esac
	SD_WHY="the container's systemd did not come up (is-system-running: ${st:-nothing}): $(tail -c 400 "$SD_T/nspawn.log")"
	return 1
}

# The container's PID 1: the child of nspawn whose pid namespace is not ours.
_sd_leader() {
	local c
	for c in $(cat /proc/"$SD_NSPAWN"/task/*/children 2>/dev/null); do
		[ "$(readlink /proc/$c/ns/pid)" != "$(readlink /proc/self/ns/pid)" ] &&
			[ "$(awk '/^NSpid:/ { print $NF }' /proc/$c/status)" = 1 ] && { echo "$c"; return; }
	done
}

# sd_in CMD...: run CMD in the container (all its namespaces), bounded to 30 s.
# sd_in_t SECONDS CMD...: the same with another bound.
sd_in() { sd_in_t 30 "$@"; }
sd_in_t() {
	local t=$1
	shift
	timeout -k 2 "$t" nsenter -t "$SD_LEADER" -a -- "$@" 3>&-
}

# sd_show UNIT PROPERTY: one property's value.
sd_show() { sd_in systemctl show -P "$2" "$1"; }

sd_cleanup() {
	[ -z "$SD_CLEANING" ] || return 0
	SD_CLEANING=1
	local i
	if [ -n "$SD_NSPAWN" ] && kill -0 "$SD_NSPAWN" 2>/dev/null; then
		kill -TERM "$SD_NSPAWN" 2>/dev/null    # nspawn -b: an orderly poweroff
		for ((i = 0; i < 50; i++)); do
			kill -0 "$SD_NSPAWN" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$SD_NSPAWN" 2>/dev/null
	fi
	[ -z "$SD_NSPAWN" ] || wait "$SD_NSPAWN" 2>/dev/null
	[ ${#SD_CG[@]} = 0 ] || _sd_cgroup_remove
	if [ "${SD_DEBUG:-0}" = 1 ] && [ -n "$SD_T" ] && [ -s "$SD_T/nspawn.log" ]; then
		echo "--- container console (tail):" >&2
		tail -c 3000 "$SD_T/nspawn.log" >&2
	fi
	if [ -n "$SD_ROOT" ] && mountpoint -q "$SD_ROOT"; then
		umount "$SD_ROOT" 2>/dev/null || umount -l "$SD_ROOT" ||
			sd_result FAIL cleanup "cannot unmount $SD_ROOT"
	fi
	if [ -n "$SD_T" ] && ! awk -v d="$SD_T" 'index($5, d) == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		rm -rf -- "$SD_T"
	fi
	return 0
}

# ---- the project in it ------------------------------------------------------------------------

# install_project: cgwatch into the running container the way a host installs it: its .deb
# when one was built (run.sh: `make deb` into build/systemd/deb), else `make install` with the
# Debian paths and `systemctl enable --now`. Sets SD_INSTALLED (how); returns 1 with SD_WHY.
install_project() {
	local deb out
	deb=$(ls -t "$SD_REPO/${BUILD:-build}"/systemd/deb/cgwatch_*.deb 2>/dev/null | head -1)
	if [ -n "$deb" ]; then
		cp "$deb" "$SD_ROOT/root/cgwatch.deb" || return 1
		out=$(sd_in_t 120 env DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold --force-confdef \
			/root/cgwatch.deb 2>&1) || { SD_WHY="dpkg -i $(basename "$deb") failed: $(tail -c 400 <<<"$out")"; return 1; }
		SD_INSTALLED=deb:$(basename "$deb")
	else
		out=$(make -s -C "$SD_REPO" install BUILD="${BUILD:-build}/systemd" DESTDIR="$SD_ROOT" \
			PREFIX=/usr SYSCONFDIR=/etc LOCALSTATEDIR=/var 2>&1) ||
			{ SD_WHY="make install into the container failed: $(tail -c 400 <<<"$out")"; return 1; }
		out=$(sd_in sh -c 'systemctl daemon-reload && journalctl --update-catalog &&
			systemctl enable cgwatch.service' 2>&1) ||
			{ SD_WHY="enabling cgwatch.service failed: $(tail -c 400 <<<"$out")"; return 1; }
		# whether it starts is the tests' business (as with the package's postinst)
		sd_in_t 60 systemctl start cgwatch.service
		SD_INSTALLED="make install"
	fi
}

# ---- what the container's journal says ------------------------------------------------------

# sd_msgs [JOURNALCTL-ARGS]: every cgwatch incident message (has CGWATCH_STATE), one JSON
# object a line, into $SD_T/msgs.json (as a JSON array).
# The latency incidents (runq-latency, pressure-stall) are left out: run-queue latency and
# pressure are the host's, whose load opens them in the container too, beside the hangs the
# checks make and count.
sd_msgs() {
	sd_in journalctl -o json --no-pager "$@" >"$SD_T/journal.json" 2>/dev/null
	jq -s '[.[] | select(has("CGWATCH_STATE") and .CGWATCH_SIGNATURE != "runq-latency" and .CGWATCH_SIGNATURE != "pressure-stall")]' "$SD_T/journal.json" >"$SD_T/msgs.json" 2>/dev/null ||
		echo '[]' >"$SD_T/msgs.json"
}

# sd_count STATE [INCIDENT]: collected messages in that state (of that incident).
sd_count() {
	jq --arg s "$1" --arg i "${2:-}" '[.[] | select(.CGWATCH_STATE == $s and ($i == "" or .CGWATCH_INCIDENT == $i))] | length' "$SD_T/msgs.json"
}

# sd_wait_state STATE SECONDS: until a message in that state was logged; 1 on timeout.
sd_wait_state() {
	local i n=$(($2 * 2))
	for ((i = 0; i <= n; i++)); do
		sd_msgs
		[ "$(sd_count "$1")" -ge 1 ] && return 0
		sleep 0.5
	done
	return 1
}

# sd_digest: the incident messages in short, for failure messages.
sd_digest() {
	jq -r '[.[] | "\(.CGWATCH_STATE)/\(.CGWATCH_INCIDENT)/pid \(._PID)"] | join(" ")' "$SD_T/msgs.json" 2>/dev/null | head -c 600
}

# sd_unit_log UNIT [N]: the last N lines the unit's journal has (systemd's and its own).
sd_unit_log() { sd_in journalctl -u "$1" -n "${2:-15}" -o cat --no-pager 2>&1 | tr '\n' '|' | tail -c 700; }
