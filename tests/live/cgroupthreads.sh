#!/bin/bash
# live-cgroupthreads: threads of one process in different cgroups are each reported in their
# own. Six threads of one process stat one name under a FUSE mount that never answers; the
# fourth is moved alone (by its TID, as cgroup v1 allows) into a cgroup of the name=systemd
# v1 hierarchy, the report's cgroup where the v2 one is the root. A check through the BPF scan
# (which takes a thread's cgroups from the thread before it when the kernel says both have the
# same set of cgroups) and one through /proc must each show the fourth in its cgroup and the
# others in theirs.
. "$(dirname "$0")/lib.sh"
live_init_fuse cgroupthreads jq timeout awk
live_require_helpers ustackhold-O2
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the task iterator cannot load here"
SD=/sys/fs/cgroup/systemd
[ -f "$SD/tasks" ] || live_skip "no name=systemd v1 hierarchy at $SD (threads cannot be split)"
grep -qx '0::/' /proc/self/cgroup || live_skip "this shell's v2 cgroup is not the root: the report names that one"

SN=
live_on_exit '[ -z "$SN" ] || live_kill_wait "$SN"'   # after the mount's server is gone
MNT=$LIVE_TMP/mnt
mkdir "$MNT" || live_fail "setup: mkdir $MNT"
live_on_exit 'live_umount "$MNT"'
"$LIVE_BIN/fusehold" "$MNT" >"$LIVE_TMP/fh.out" 2>"$LIVE_TMP/fh.err" 3>&- </dev/null &
live_on_exit "live_kill_wait $!"
_mounted() { grep -q mounted "$LIVE_TMP/fh.out"; }
live_wait_for 5 _mounted || live_fail "setup: fusehold: $(cat "$LIVE_TMP/fh.out" "$LIVE_TMP/fh.err")"
CG=$SD/cgwatch-live-$$
mkdir "$CG" || live_fail "setup: mkdir $CG"
live_on_exit "for t in \$(cat $CG/tasks 2>/dev/null); do echo \$t >$SD/tasks; done; rmdir $CG"

live_statn "$MNT/y" 6
# the fourth in the walk's order (by TID, as the kernel lists a process's threads)
mapfile -t SORTED < <(printf '%s\n' "${SNT[@]}" | sort -n)
MOVED=${SORTED[3]}
echo "$MOVED" >"$CG/tasks" || live_fail "setup: cannot move thread $MOVED into $CG"
grep -q "name=systemd:/cgwatch-live-$$\$" "/proc/$SN/task/$MOVED/cgroup" ||
	live_fail "setup: thread $MOVED not in $CG: $(cat "/proc/$SN/task/$MOVED/cgroup")"
sleep 1.2

printf '[scan]\nustack_max = 0\n' >"$LIVE_TMP/bpf.conf"
printf '[scan]\nustack_max = 0\nsource = proc\n' >"$LIVE_TMP/proc.conf"
for src in bpf proc; do
	out=$LIVE_TMP/$src.json
	live_cgwatch "$out" "$out.err" check --config "$LIVE_TMP/$src.conf" --threshold 1 --format json
	live_json_check "$out" "check ($src)"
	[ "$(jq -r .scan.source "$out")" = "$src" ] || {
		[ $src = bpf ] && live_skip "the BPF task iterator did not load: $(jq -r .scan.source_why "$out")"
		live_fail "$src: scan.source $(jq -r .scan.source "$out")"; }
	for t in "${SORTED[@]}"; do
		got=$(jq -r --argjson t "$t" '.tasks[]? | select(.tid == $t) | .cgroup' "$out")
		want=/
		[ "$t" = "$MOVED" ] && want=/cgwatch-live-$$
		[ "$got" = "$want" ] || live_fail "$src: thread $t reported in cgroup '$got', want '$want'"
	done
done
live_pass "the moved thread in its own cgroup and the five others in theirs, through BPF and /proc"
