#!/bin/bash
# cgwatch under a real systemd: a minimal Debian 12 (rootfs.sh, cached) booted with
# systemd-nspawn -b, cgwatch installed into it as a host installs it (install_project in
# lib.sh), then, from inside, one line each:
#   active        cgwatch.service reaches active with a STATUS= text
#   fuse-journal  a task hung on a FUSE mount that never answers (tests/live/fusehold, in a
#                 unit of its own): opened, escalated and resolved journal messages with every
#                 CGWATCH_* field of docs/daemon.md, and the catalog text in journalctl -x
#   restart5      five `systemctl restart` during the open incident: active after each, a new
#                 main PID, NRestarts unchanged, the incident opened once (same id carried over)
#   memlock       all of that under a drop-in LimitMEMLOCK=8M (what a container without
#                 CAP_SYS_RESOURCE clamps LimitMEMLOCK=infinity to): no automatic restart, no
#                 SIGABRT in the unit's journal
#   perf          the daemon's reports count with perf_event_open ("source": "perf") where a
#                 process of the container can (SKIP with the reason where it cannot)
#   watchdog      SIGSTOP of the daemon (drop-in WatchdogSec=3s): "Watchdog timeout", one
#                 automatic restart, active again, the incident carried over
#   reload-broken `systemctl reload` with a broken cgwatch.conf: the old one kept (said in the
#                 journal), the same main PID, active
#   bundle        the first hang's escalation leaves a bundle under the real unit (DynamicUser,
#                 the sandbox): named by CGWATCH_BUNDLE in /var/lib/cgwatch/bundles, intact by
#                 `bundle --verify`, and `check --root` of it gives the fuse-wait finding with
#                 the mount as cause, the task, and its time within 0.5 s of the message's,
#                 the kernel's ring (read under the sandbox into its tree/dev/kmsg: the
#                 replay's kmsg names it, no error) and the scan's counts ("captured")
#                 (SD_ONLY=bundle: only the checks up to this one)
#   recorder      the flight recorder's instance (instances/cgwsdPID, the host's tracefs bound
#                 into the container) made by the unit's ExecStartPre=+ and read by the
#                 sandboxed daemon (the journal says both); where the host has no tracefs, the
#                 unit is active and says the recorder is off and why; the bundle's replay
#                 has the recorder's readout
#   pressure      the daemon registered the kernel's PSI triggers (cpu, memory, io) under the
#                 unit's sandbox (DynamicUser, no CAP_SYS_RESOURCE: 2 s windows), as it says
#   check-kmsg    cgwatch-check.service (drop-in: --format json into a file) reads /dev/kmsg
#   recorder-stop `systemctl stop cgwatch` removes the instance (ExecStopPost=+)
#   purge         with the .deb: `apt-get purge cgwatch` leaves nothing behind
# The test configuration (/etc/cgwatch/cgwatch.conf: 0.5 s scans, 2 s / 4 s thresholds) makes
# the incident take seconds. Once the rootfs is cached (rootfs.sh; building it takes about a
# minute) and the project built, the scenario takes under a minute, bounded by SD_BUDGET
# (300 s). SKIPs with the reason where nspawn cannot boot.
set -u
. "$(dirname "$0")/lib.sh"
sd_init

[ "$(id -u)" = 0 ] || sd_skip_all "not root"
for t in systemd-nspawn nsenter jq mountpoint flock; do
	command -v "$t" >/dev/null || sd_skip_all "missing tool: $t (make deps)"
done
grep -qw overlay /proc/filesystems || sd_skip_all "no overlay filesystem in this kernel"
[ -c /dev/fuse ] || sd_skip_all "no /dev/fuse on the host"
err=$(mktemp) || sd_skip_all "mktemp failed"
ROOTFS=$("$SD_DIR/rootfs.sh" 2>"$err")
rc=$? why=$(tail -c 400 "$err")
rm -f "$err"
case $rc in
0) ;;
2) sd_skip_all "no rootfs: $why" ;;
*) sd_result FAIL rootfs "$why"; SD_DONE=1; exit 1 ;;
esac
"$SD_REPO/tests/live/build.sh" || { sd_result FAIL helpers "tests/live/build.sh failed"; SD_DONE=1; exit 1; }
# the copy installed into the container: this tree's own package when it can be built (so
# that install and purge are the package's), else a build with the Debian paths compiled in
rm -rf "$SD_REPO/${BUILD:-build}/systemd/deb"
if [ -n "${SD_DEB:-}" ] && [ -f "$SD_DEB" ]; then
	# tests/run.sh: the package tests/packaging.sh built from this tree a few minutes ago
	mkdir -p "$SD_REPO/${BUILD:-build}/systemd/deb" && cp "$SD_DEB" "$SD_REPO/${BUILD:-build}/systemd/deb/" ||
		{ sd_result FAIL build "cp $SD_DEB ${BUILD:-build}/systemd/deb/ failed"; SD_DONE=1; exit 1; }
elif command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null; then
	out=$(timeout -k 5 900 make -s -C "$SD_REPO" deb BUILD="${BUILD:-build}/systemd" 2>&1) ||
		{ sd_result FAIL build "make deb BUILD=${BUILD:-build}/systemd failed: $(tail -c 300 <<<"$out")"; SD_DONE=1; exit 1; }
else
	out=$(timeout -k 5 900 make -s -C "$SD_REPO" BUILD="${BUILD:-build}/systemd" PREFIX=/usr SYSCONFDIR=/etc \
		LOCALSTATEDIR=/var 2>&1) || { sd_result FAIL build "make BUILD=${BUILD:-build}/systemd PREFIX=/usr failed: $(tail -c 300 <<<"$out")"; SD_DONE=1; exit 1; }
fi
sd_budget

sd_cgroup_make || sd_skip_all "$SD_WHY"
sd_overlay "$ROOTFS" || sd_skip_all "$SD_WHY"
# everything below writes under $SD_ROOT: never the host's own /etc
case $SD_ROOT in
/*/*) mountpoint -q "$SD_ROOT" || { sd_result FAIL overlay "$SD_ROOT is not mounted"; SD_DONE=1; exit 1; } ;;
*) sd_result FAIL overlay "no container root (SD_ROOT='$SD_ROOT')"; SD_DONE=1; exit 1 ;;
esac

# ---- before boot: the helper, the test configuration, unit drop-ins ---------------------------
install -Dm755 "$SD_REPO/tests/live/bin/fusehold" "$SD_ROOT/usr/local/bin/fusehold"
mkdir -p "$SD_ROOT/etc/cgwatch" "$SD_ROOT/etc/systemd/system/cgwatch.service.d" \
	"$SD_ROOT/etc/systemd/system/cgwatch-check.service.d"
cat >"$SD_ROOT/etc/cgwatch/cgwatch.conf" <<'EOF'
# tests/systemd: short thresholds, so that an incident takes seconds
[scan]
interval = 0.5
[thresholds]
blocked_warning = 2
blocked_critical = 4
[incidents]
update_interval = 30
EOF
# the flight recorder: an instance of this run's own name in the host's tracefs (bound into
# the container below), removed here too should the container leave it
REC_NAME=cgwsd$$
REC_INST=/sys/kernel/tracing/instances/$REC_NAME
printf '[recorder]\ninstance = %s\n' "$REC_NAME" >>"$SD_ROOT/etc/cgwatch/cgwatch.conf"
rec_cleanup() {
	[ -d "$REC_INST" ] || return 0
	rmdir "$REC_INST" 2>/dev/null || sd_result FAIL cleanup "cannot remove $REC_INST"
}
cp "$SD_ROOT/etc/cgwatch/cgwatch.conf" "$SD_T/good.conf"
cat >"$SD_ROOT/etc/systemd/system/cgwatch.service.d/50-cgwatch-test.conf" <<'EOF'
[Service]
# what a container without CAP_SYS_RESOURCE makes of LimitMEMLOCK=infinity
LimitMEMLOCK=8M
RestartSec=1s
EOF
cat >"$SD_ROOT/etc/systemd/system/cgwatch-check.service.d/50-cgwatch-test.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=/usr/sbin/cgwatch check --format json
StandardOutput=truncate:/run/cgwatch-check.json
EOF

# ---- boot -------------------------------------------------------------------------------------
# nspawn's own seccomp filter refuses the mlock calls without CAP_IPC_LOCK and perf_event_open
# always: allowed here, as a host (or a container so configured) allows them; CAP_SYSLOG for
# /dev/kmsg under dmesg_restrict. No CAP_IPC_LOCK: LimitMEMLOCK is the limit.
args=(--bind=/dev/fuse --capability=CAP_SYSLOG '--system-call-filter=@memlock perf_event_open')
[ -c /dev/kmsg ] && args+=(--bind-ro=/dev/kmsg)
# tracefs read-write: the unit's ExecStartPre=+ makes the recorder's instance there (as root);
# the daemon under the sandbox only reads it
[ -d /sys/kernel/tracing/events ] && args+=(--bind=/sys/kernel/tracing)
sd_boot "${args[@]}" || sd_skip_all "$SD_WHY"
install_project || { sd_result FAIL install "$SD_WHY"; SD_DONE=1; exit 1; }

# ---- 1. active, with a status -----------------------------------------------------------------
for ((i = 0; i < 40; i++)); do
	[ "$(sd_show cgwatch ActiveState)" = active ] && [ -n "$(sd_show cgwatch StatusText)" ] && break
	sleep 0.25
done
st=$(sd_show cgwatch ActiveState) txt=$(sd_show cgwatch StatusText)
if [ "$st" = active ] && [ -n "$txt" ]; then
	sd_result PASS active "installed by $SD_INSTALLED; StatusText \"$txt\""
else
	sd_result FAIL active "ActiveState=$st StatusText=\"$txt\"; $(sd_unit_log cgwatch)"
fi
# freshly installed: any automatic restart since then is one too many
NR_BOOT=0

# ---- the flight recorder: made by ExecStartPre=+ as root, read by the sandboxed daemon --------
# (on a host without tracefs instances: the unit is active and says that the recorder is off)
log=$(sd_in journalctl -u cgwatch -o cat --no-pager 2>&1 | grep -E 'flight recorder' | tr '\n' '|')
if [ ! -d /sys/kernel/tracing/instances ]; then
	if [ "$(sd_show cgwatch ActiveState)" = active ] && grep -q 'the flight recorder is off' <<<"$log"; then
		sd_result PASS recorder "no tracefs instances on this host: active, and says \"$(grep -o 'the flight recorder is off[^|]*' <<<"$log" | head -1 | head -c 200)\""
	else
		sd_result FAIL recorder "no tracefs here: ActiveState=$(sd_show cgwatch ActiveState), log: ${log:-nothing about the recorder}"
	fi
elif [ ! -d "$REC_INST" ]; then
	sd_result FAIL recorder "no $REC_INST while cgwatch.service runs: ${log:-nothing about the recorder}; $(sd_unit_log cgwatch 8)"
elif ! grep -q "flight recorder instance $REC_INST made" <<<"$log" ||
	! grep -qF "flight recorder on: $REC_INST, made by \`cgwatch recorder start\`" <<<"$log"; then
	sd_result FAIL recorder "the journal does not say ExecStartPre made $REC_INST and the daemon uses it: ${log:-nothing}"
else
	sd_result PASS recorder "$REC_INST made by ExecStartPre=+ (as root); the daemon (DynamicUser, sandboxed) reads it"
fi

# ---- pressure: the kernel's PSI triggers, registered by the daemon under the sandbox ----------
# (DynamicUser, no CAP_SYS_RESOURCE: the default 2 s windows are what the kernel takes from it)
log=$(sd_in journalctl -u cgwatch -o cat --no-pager 2>&1 | grep -E 'pressure triggers' | tr '\n' '|')
if [ ! -e /proc/pressure/cpu ]; then
	sd_result SKIP pressure "no /proc/pressure on this host (a kernel without PSI)"
elif grep -q 'pressure triggers not registered' <<<"$log"; then
	sd_result FAIL pressure "the daemon could not register its triggers under the unit: $log"
elif ! grep -qF 'pressure triggers: cpu some 1500ms 2s, memory some 200ms 2s, io full 500ms 2s' <<<"$log"; then
	sd_result FAIL pressure "the journal does not say the triggers were registered: ${log:-nothing about them}"
else
	sd_result PASS pressure "cpu, memory and io triggers registered by the sandboxed daemon"
fi

# ---- FUSE hangs -------------------------------------------------------------------------------
# hang_start N: a task blocked on /run/cgwatch-test/mntN, a FUSE mount whose server
# (fusehold, in the unit cgwatch-test-fuseN; under sh: fusehold takes a parent that is PID 1
# for "my parent is gone") never answers. hang_stop N: the server stopped (the task returns).
hang_start() {
	sd_in mkdir -p "/run/cgwatch-test/mnt$1"
	sd_in systemd-run -q --unit="cgwatch-test-fuse$1" --service-type=exec /bin/sh -c \
		"/usr/local/bin/fusehold /run/cgwatch-test/mnt$1 --child --name cgw-stuck & wait" >/dev/null
}
hang_stop() {
	sd_in systemctl stop "cgwatch-test-fuse$1"
	sd_in umount -l "/run/cgwatch-test/mnt$1"
}

# inc_of STATE N: the incident of the Nth message in that state (0: the first), or empty.
inc_of() { jq -r --arg s "$1" --argjson n "$2" '[.[] | select(.CGWATCH_STATE == $s)][$n].CGWATCH_INCIDENT // empty' "$SD_T/msgs.json"; }

# opened_once WHAT: the incident INC was opened once, and no other incident of its signature
# since it (the first hang's incident, resolved before, is not counted).
opened_once() {
	sd_msgs
	local n_inc n_all
	n_inc=$(sd_count opened "$INC")
	n_all=$(jq --arg i "$INC1" '[.[] | select(.CGWATCH_STATE == "opened" and .CGWATCH_SIGNATURE == "fuse-wait" and .CGWATCH_INCIDENT != $i)] | length' "$SD_T/msgs.json")
	[ "$n_inc" = 1 ] && [ "$n_all" = 1 ] && return 0
	echo "$1: incident $INC opened $n_inc times, $n_all fuse-wait incidents opened: $(sd_digest)"
	return 1
}

# ---- 2. a hang: opened, escalated, resolved; every field; the catalog ---------------------------
hang_start 1
INC1=
sd_wait_state escalated 20 && INC1=$(inc_of opened 0)
hang_stop 1
INC=$INC1
if [ -z "$INC" ]; then
	sd_result FAIL fuse-journal "no opened and escalated messages within 20 s of the FUSE hang: $(sd_digest); fusehold: $(sd_unit_log cgwatch-test-fuse1 5); cgwatch: $(sd_unit_log cgwatch)"
elif ! sd_wait_state resolved 10; then
	sd_result FAIL fuse-journal "no resolved message within 10 s of the release: $(sd_digest)"
else
	why=
	fields=(MESSAGE_ID PRIORITY CGWATCH_INCIDENT CGWATCH_STATE CGWATCH_SIGNATURE CGWATCH_SEVERITY
		CGWATCH_PID CGWATCH_COMM CGWATCH_UNIT CGWATCH_BLOCKED_SEC CGWATCH_BLOCKED_BOUND
		CGWATCH_REPORT CGWATCH_BUNDLE)
	for s in opened escalated resolved; do
		n=$(sd_count "$s" "$INC")
		[ "$n" = 1 ] || { why+="$s $n times; "; continue; }
		m=$(jq -c --arg i "$INC" --arg s "$s" '[.[] | select(.CGWATCH_INCIDENT == $i and .CGWATCH_STATE == $s)][0]' "$SD_T/msgs.json")
		for f in "${fields[@]}"; do
			jq -e --arg f "$f" 'has($f)' <<<"$m" >/dev/null || why+="$s has no $f; "
		done
	done
	o=$(jq -c --arg i "$INC" '[.[] | select(.CGWATCH_INCIDENT == $i and .CGWATCH_STATE == "opened")][0]' "$SD_T/msgs.json")
	got=$(jq -r '[.CGWATCH_SIGNATURE, .CGWATCH_COMM, .CGWATCH_UNIT] | join(" ")' <<<"$o")
	[ "$got" = "fuse-wait cgw-stuck cgwatch-test-fuse1.service" ] ||
		why+="opened says signature/comm/unit \"$got\", want \"fuse-wait cgw-stuck cgwatch-test-fuse1.service\"; "
	mid=$(jq -r '.MESSAGE_ID // empty' <<<"$o")
	subj=$(sd_in journalctl --dump-catalog "$mid" 2>/dev/null | sed -n 's/^Subject: //p' | head -1)
	# journalctl -x fills in @FIELD@ from the message: the opened one comes first
	while [[ $subj =~ @([A-Z0-9_]+)@ ]]; do
		f=${BASH_REMATCH[1]}
		subj=${subj//@$f@/$(jq -r --arg f "$f" '.[$f] // ""' <<<"$o")}
	done
	x=$(sd_in journalctl -x --no-pager -u cgwatch MESSAGE_ID="$mid" 2>/dev/null)
	if [ -z "$mid" ] || [ -z "$subj" ]; then
		why+="no catalog entry for MESSAGE_ID ${mid:-(none)} (journalctl --dump-catalog); "
	elif ! grep -qF "Subject: $subj" <<<"$x"; then
		why+="journalctl -x does not show the catalog text \"Subject: $subj\": $(tail -c 300 <<<"$x"); "
	fi
	if [ -z "$why" ]; then
		sd_result PASS fuse-journal "$INC: opened, escalated, resolved with every field; journalctl -x: $subj"
	else
		sd_result FAIL fuse-journal "$why$(sd_digest 300)"
	fi
fi

# ---- the user-stack unwinder's child under the unit's sandbox: confined, and it unwinds ----------
uw=$(sd_in journalctl -u cgwatch -o cat --no-pager 2>/dev/null | grep -m2 -E 'unwinder process' | tr '\n' '|')
nfr=$(sd_in sh -c 'cat /var/log/cgwatch/*.json 2>/dev/null' |
	jq -s '[.[] | .tasks[]? | select(.comm == "cgw-stuck") | (.ustack // []) | length] | max // 0' 2>/dev/null)
if [ -n "$uw" ]; then
	sd_result FAIL unwinder "the daemon's journal: $uw"
elif [ "${nfr:-0}" -lt 1 ]; then
	sd_result FAIL unwinder "no report in /var/log/cgwatch has a user stack of cgw-stuck: $(sd_in sh -c 'cat /var/log/cgwatch/*.json 2>/dev/null' | jq -rs '[.[] | .tasks[]? | select(.comm == "cgw-stuck") | .ustack_error // empty] | first // "no such task"' 2>/dev/null | head -c 300)"
else
	sd_result PASS unwinder "cgw-stuck's user stack, $nfr frames, unwound by the confined child under cgwatch.service (capset and seccomp allowed, no warning)"
fi

# ---- 9. the first hang's bundle, made by the daemon under the unit's sandbox --------------------
if [ -z "$INC1" ]; then
	sd_result FAIL bundle "no escalated incident of the first hang: $(sd_digest)"
else
	why=
	e=$(jq -c --arg i "$INC1" '[.[] | select(.CGWATCH_INCIDENT == $i and .CGWATCH_STATE == "escalated")][0]' "$SD_T/msgs.json")
	b=$(jq -r '.CGWATCH_BUNDLE // ""' <<<"$e") bs=$(jq -r '.CGWATCH_BLOCKED_SEC // ""' <<<"$e")
	bpid=$(jq -r '.CGWATCH_PID // ""' <<<"$e")
	[ "$b" = "/var/lib/cgwatch/bundles/cgwatch-bundle-$INC1.tar.zst" ] ||
		why="escalated: CGWATCH_BUNDLE='$b', want /var/lib/cgwatch/bundles/cgwatch-bundle-$INC1.tar.zst"
	if [ -z "$why" ]; then
		for ((i = 0; i < 40; i++)); do
			sd_in test -s "$b" && break
			sleep 0.25
		done
		sd_in test -s "$b" || why="no $b 10 s after the escalation: $(sd_in ls -la /var/lib/private/cgwatch/bundles 2>&1 | tr '\n' ' '); $(sd_unit_log cgwatch 8)"
	fi
	if [ -z "$why" ]; then
		out=$(sd_in_t 60 cgwatch bundle --verify "$b" 2>&1) || why="bundle --verify: $(tail -c 300 <<<"$out")"
	fi
	if [ -z "$why" ]; then
		sd_in_t 60 cgwatch check --root "$b" --config /etc/cgwatch/cgwatch.conf --format json >"$SD_T/replay.json" 2>"$SD_T/replay.err"
		got=$(jq -r --argjson p "$bpid" '[.findings[] | select(.id == "fuse-wait" and (.tasks | index($p)))][0].cause // "none"' "$SD_T/replay.json" 2>/dev/null)
		br=$(jq -r --argjson p "$bpid" '.tasks[] | select(.tid == $p) | .blocked_s' "$SD_T/replay.json" 2>/dev/null)
		if [ "$got" != "mount /run/cgwatch-test/mnt1" ]; then
			why="check --root $b: the fuse-wait finding of PID $bpid has cause '$got', want 'mount /run/cgwatch-test/mnt1': $(head -c 300 "$SD_T/replay.err") $(jq -c '[.findings[]? | {id, cause, tasks}]' "$SD_T/replay.json" 2>/dev/null | head -c 300)"
		elif ! awk -v a="$br" -v b="$bs" 'BEGIN { d = a - b; exit !(a != "" && d <= 0.5 && d >= -0.5) }'; then
			why="check --root $b: PID $bpid blocked_s $br, the escalated message said $bs (want within 0.5 s)"
		elif ! jq -e --arg s "$b:tree/dev/kmsg" '.kmsg.source == $s and (.kmsg | has("error") | not) and .kmsg.records > 0' "$SD_T/replay.json" >/dev/null 2>&1; then
			why="check --root $b: the kernel's ring is not in the bundle's tree (read under the sandbox): kmsg $(jq -c '.kmsg | {source, error, records}' "$SD_T/replay.json" 2>/dev/null | head -c 300)"
		elif ! jq -e '.rates.captured == true' "$SD_T/replay.json" >/dev/null 2>&1; then
			why="check --root $b: the scan's counts are not in the bundle: rates $(jq -c '.rates | {source, live, captured, window_s}' "$SD_T/replay.json" 2>/dev/null | head -c 300)"
		elif [ -d /sys/kernel/tracing/instances ] && ! jq -e '(.recorder | has("error") | not) and (.recorder.enabled | index("cgroup:cgroup_rmdir")) and .recorder.anchor != null' "$SD_T/replay.json" >/dev/null 2>&1; then
			why="check --root $b: the flight recorder's readout (read by the sandboxed daemon) is not in the bundle: recorder $(jq -c '.recorder | del(.events)' "$SD_T/replay.json" 2>/dev/null | head -c 300)"
		fi
	fi
	if [ -z "$why" ]; then
		sd_result PASS bundle "$b: intact; replays to fuse-wait on /run/cgwatch-test/mnt1, PID $bpid blocked $br s (message: $bs s), the ring's $(jq -r .kmsg.records "$SD_T/replay.json") records, the scan's $(jq -r .rates.source "$SD_T/replay.json") counts"
	else
		sd_result FAIL bundle "$why"
	fi
fi
if [ "${SD_ONLY:-}" = bundle ]; then
	SD_DONE=1
	exit 0
fi

# ---- the second hang, open through tests 3, 8, 6 and 5 -------------------------------------------
hang_start 2
INC=
for ((i = 0; i < 40; i++)); do
	[ -z "$INC" ] || break
	sleep 0.5
	sd_msgs
	INC=$(jq -r --arg i "$INC1" '[.[] | select(.CGWATCH_STATE == "escalated" and .CGWATCH_INCIDENT != $i)][0].CGWATCH_INCIDENT // empty' "$SD_T/msgs.json")
done
HANG_WHY="no incident opened and escalated within 20 s of the second FUSE hang: $(sd_digest); cgwatch: $(sd_unit_log cgwatch)"

# ---- 3. five restarts during the open incident -------------------------------------------------
if [ -z "$INC" ]; then
	sd_result FAIL restart5 "$HANG_WHY"
else
	why=
	pid=$(sd_show cgwatch MainPID)
	for k in 1 2 3 4 5; do
		out=$(sd_in systemctl restart cgwatch 2>&1) || { why="restart $k: systemctl restart failed: $out"; break; }
		st=$(sd_show cgwatch ActiveState) nr=$(sd_show cgwatch NRestarts) new=$(sd_show cgwatch MainPID)
		[ "$st" = active ] || { why="restart $k: ActiveState=$st"; break; }
		[ "$nr" = "$NR_BOOT" ] || { why="restart $k: NRestarts $NR_BOOT -> $nr (the daemon died and was restarted)"; break; }
		[ "$new" != "$pid" ] && [ "$new" != 0 ] || { why="restart $k: MainPID $pid -> $new"; break; }
		pid=$new
		sleep 2.5      # 5 starts in 10 s is systemd's default start limit
	done
	sleep 2            # a few scans of the last one
	nr=$(sd_show cgwatch NRestarts) st=$(sd_show cgwatch ActiveState)
	[ -n "$why" ] || [ "$nr" = "$NR_BOOT" ] || why="after the restarts: NRestarts $NR_BOOT -> $nr"
	[ -n "$why" ] || [ "$st" = active ] || why="after the restarts: ActiveState=$st"
	[ -n "$why" ] || why=$(opened_once "after 5 restarts")
	txt=$(sd_show cgwatch StatusText)
	[ -n "$why" ] || [[ $txt =~ \;\ 1\ open\ incident(\;|$) ]] || why="after the restarts: StatusText \"$txt\", want 1 open incident (the host's latency incidents counted apart)"
	if [ -z "$why" ]; then
		sd_result PASS restart5 "incident $INC carried over 5 restarts; \"$txt\""
	else
		sd_result FAIL restart5 "$why; $(sd_unit_log cgwatch 10)"
	fi
fi

# ---- 8. memory lock under LimitMEMLOCK=8M ----------------------------------------------------
sleep 2
lim=$(sd_show cgwatch LimitMEMLOCK) nr=$(sd_show cgwatch NRestarts) st=$(sd_show cgwatch ActiveState)
pid=$(sd_show cgwatch MainPID)
lck=$(sd_in awk '/^VmLck/ { print $2 " " $3 }' "/proc/$pid/status")
abrt=$(sd_in journalctl -u cgwatch -o cat --no-pager | grep -m3 -E 'SIGABRT|status=6/ABRT|core-dump|dumped core')
if sd_in journalctl -u cgwatch -o cat --no-pager | grep -q 'mlockall): Operation not permitted'; then
	sd_result SKIP memlock "mlockall is refused in this container (seccomp): nothing locked, nothing to test"
elif [ "$lim" != 8388608 ]; then
	sd_result FAIL memlock "LimitMEMLOCK is $lim, the drop-in says 8M"
elif [ "$nr" = "$NR_BOOT" ] && [ "$st" = active ] && [ -z "$abrt" ]; then
	sd_result PASS memlock "no restart and no abort under LimitMEMLOCK=8M; VmLck ${lck:-?}"
else
	sd_result FAIL memlock "NRestarts $NR_BOOT -> $nr, ActiveState=$st, VmLck ${lck:-?}: ${abrt:-no abort logged}; $(sd_unit_log cgwatch 8)"
fi

# ---- 6. perf counting -------------------------------------------------------------------------
# Can a process of this container count with perf at all (nspawn's seccomp filter, the host's
# perf_event_paranoid)? A transient unit as root, without cgwatch.service's sandbox, tells.
probe=$(sd_in_t 40 systemd-run -q --wait --pipe --collect /usr/sbin/cgwatch check --rates --format json 2>/dev/null)
psrc=$(jq -r '.rates.source // "none"' <<<"$probe" 2>/dev/null)
rep=$(sd_in sh -c 'ls -t /var/log/cgwatch/*.json 2>/dev/null | head -1')
dsrc=$(sd_in cat "$rep" 2>/dev/null | jq -r '.rates.source // "none"' 2>/dev/null)
dnotes=$(sd_in cat "$rep" 2>/dev/null | jq -r '(.rates.notes // []) | join("; ")' 2>/dev/null)
if [ "$psrc" != perf ]; then
	sd_result SKIP perf "a plain unit in this container cannot count with perf (source ${psrc:-none}: $(jq -r '(.rates.notes // []) | join("; ")' <<<"$probe" 2>/dev/null | head -c 300))"
elif [ -z "$rep" ]; then
	sd_result FAIL perf "no report JSON in /var/log/cgwatch: $(sd_in journalctl -u cgwatch -o cat --no-pager | grep -m1 'cannot write the report')"
elif [ "$dsrc" = perf ]; then
	sd_result PASS perf "$(basename "$rep"): source perf"
else
	sd_result FAIL perf "a plain unit counts with perf, cgwatch.service does not: $(basename "$rep") has source ${dsrc:-none}: $dnotes"
fi

# ---- 5. the watchdog --------------------------------------------------------------------------
if [ -z "$INC" ]; then
	sd_result FAIL watchdog "$HANG_WHY"
else
	cat >"$SD_ROOT/etc/systemd/system/cgwatch.service.d/60-watchdog.conf" <<'EOF'
[Service]
WatchdogSec=3s
TimeoutAbortSec=2s
EOF
	why=
	sd_in systemctl daemon-reload
	sd_in systemctl restart cgwatch || why="restart with WatchdogSec=3s failed"
	nr0=$(sd_show cgwatch NRestarts) pid0=$(sd_show cgwatch MainPID)
	[ -n "$why" ] || [ "$(sd_show cgwatch WatchdogUSec)" = 3s ] || why="WatchdogUSec is $(sd_show cgwatch WatchdogUSec), want 3s"
	[ -n "$why" ] || sd_in kill -STOP "$pid0" || why="kill -STOP $pid0 failed"
	if [ -z "$why" ]; then
		for ((i = 0; i < 60; i++)); do
			nr=$(sd_show cgwatch NRestarts) st=$(sd_show cgwatch ActiveState) pid=$(sd_show cgwatch MainPID)
			[ "$nr" = $((nr0 + 1)) ] && [ "$st" = active ] && [ "$pid" != "$pid0" ] && break
			sleep 0.5
		done
		if [ "$nr" != $((nr0 + 1)) ] || [ "$st" != active ]; then
			why="30 s after SIGSTOP: NRestarts $nr0 -> $nr, ActiveState=$st, MainPID $pid0 -> $pid"
		elif ! sd_in journalctl -u cgwatch -o cat --no-pager | grep -q 'Watchdog timeout'; then
			why="restarted, but no \"Watchdog timeout\" in the unit's journal"
		else
			sleep 2
			why=$(opened_once "after the watchdog restart")
		fi
	fi
	rm -f "$SD_ROOT/etc/systemd/system/cgwatch.service.d/60-watchdog.conf"
	sd_in systemctl daemon-reload
	if [ -z "$why" ]; then
		sd_result PASS watchdog "SIGSTOP -> Watchdog timeout -> restarted (NRestarts $nr0 -> $nr), $INC carried over"
	else
		sd_result FAIL watchdog "$why; $(sd_unit_log cgwatch 10)"
	fi
fi

hang_stop 2

# ---- 4. reload with a broken config ------------------------------------------------------------
pid=$(sd_show cgwatch MainPID)
t0=$(sd_in date +%s)
printf '[scan]\ninterval = banana\n' >"$SD_ROOT/etc/cgwatch/cgwatch.conf"
sd_in systemctl reload cgwatch
said=
for ((i = 0; i < 20; i++)); do
	said=$(sd_in journalctl -u cgwatch -o cat --no-pager --since "@$t0" | grep -m1 'keeping the old one')
	[ -n "$said" ] && break
	sleep 0.25
done
st=$(sd_show cgwatch ActiveState) new=$(sd_show cgwatch MainPID)
cp "$SD_T/good.conf" "$SD_ROOT/etc/cgwatch/cgwatch.conf"
if [ -n "$said" ] && [ "$st" = active ] && [ "$new" = "$pid" ]; then
	sd_in systemctl reload cgwatch
	sd_result PASS reload-broken "\"$said\""
else
	sd_result FAIL reload-broken "said \"$said\", ActiveState=$st, MainPID $pid -> $new; $(sd_unit_log cgwatch 8)"
fi

# ---- 7. cgwatch-check.service reads /dev/kmsg ----------------------------------------------------
if [ ! -c /dev/kmsg ]; then
	sd_result SKIP check-kmsg "no /dev/kmsg on the host"
else
	sd_in_t 60 systemctl start cgwatch-check
	res=$(sd_show cgwatch-check Result)
	j=$(sd_in cat /run/cgwatch-check.json 2>/dev/null)
	if ! jq -e 'has("kmsg")' <<<"$j" >/dev/null 2>&1; then
		sd_result FAIL check-kmsg "cgwatch-check.service (Result=$res) wrote no report with a kmsg object: $(head -c 200 <<<"$j"); $(sd_unit_log cgwatch-check 6)"
	elif jq -e '.kmsg | has("error")' <<<"$j" >/dev/null; then
		sd_result FAIL check-kmsg "cgwatch-check.service cannot read /dev/kmsg: $(jq -c .kmsg <<<"$j" | head -c 300)"
	else
		sd_result PASS check-kmsg "Result=$res, kmsg $(jq -c '.kmsg | del(.records?, .events?)' <<<"$j" | head -c 200)"
	fi
fi

# ---- the recorder's instance removed when the unit stops (ExecStopPost=+) ----------------------
if [ -d /sys/kernel/tracing/instances ]; then
	sd_in systemctl stop cgwatch
	if [ -d "$REC_INST" ]; then
		sd_result FAIL recorder-stop "$REC_INST is still there after systemctl stop cgwatch: $(sd_unit_log cgwatch 5)"
	else
		sd_result PASS recorder-stop "$REC_INST removed by ExecStopPost=+"
	fi
	rec_cleanup
	sd_in systemctl start cgwatch
fi

# ---- purge (the .deb only) ---------------------------------------------------------------------
if [[ $SD_INSTALLED != deb:* ]]; then
	sd_result SKIP purge "installed by make install: no package was built (dpkg-buildpackage or debhelper missing)"
else
	rm -rf "$SD_ROOT/etc/systemd/system/cgwatch.service.d" "$SD_ROOT/etc/systemd/system/cgwatch-check.service.d"
	out=$(sd_in_t 90 env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q cgwatch 2>&1)
	rc=$?
	left=$(sd_in sh -c 'ls -d /etc/cgwatch /var/lib/cgwatch /var/lib/private/cgwatch /var/log/cgwatch \
		/var/log/private/cgwatch /lib/systemd/system/cgwatch*.service /etc/systemd/system/*/cgwatch*.service \
		/usr/sbin/cgwatch /usr/lib/systemd/catalog/cgwatch.catalog 2>/dev/null')
	if [ $rc != 0 ]; then
		sd_result FAIL purge "apt-get purge cgwatch exited $rc: $(tail -c 300 <<<"$out")"
	elif [ -n "$left" ]; then
		sd_result FAIL purge "left behind: $(tr '\n' ' ' <<<"$left")"
	else
		sd_result PASS purge
	fi
fi
SD_DONE=1
exit 0
