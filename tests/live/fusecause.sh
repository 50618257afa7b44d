#!/bin/bash
# live-fusecause: FUSE mounts whose servers never answer, one child blocked in stat() under
# each (one mount point holds a space; one mount lives in a mount namespace of its own, as in
# a container or a service with PrivateTmp=): check reports one fuse-wait finding per mount,
# each with the mount as its cause and only its own child.
. "$(dirname "$0")/lib.sh"
live_init_fuse fusecause jq timeout awk

# hold N DIR [CMD...]: an uninitialised FUSE mount on DIR and a child blocked under it, the
# helper run through CMD when given; sets HELPERS[N], CHILDREN[N]. Cleanups (reverse order):
# the helper (closing its fd releases the child), the child, the mount.
HELPERS=() CHILDREN=()
hold() {
	local n=$1 dir=$2 out=$LIVE_TMP/helper$1.out
	shift 2
	mkdir -p "$dir" || live_fail "setup: mkdir $dir"
	live_on_exit "live_umount $(printf '%q' "$dir")"
	live_on_exit "live_kill_task \"\${CHILDREN[$n]:-}\""
	live_on_exit "live_kill_wait \"\${HELPERS[$n]:-}\""
	"$@" "$LIVE_BIN/fusehold" "$dir" --child >"$out" 2>"$LIVE_TMP/helper$n.err" 3>&- &
	HELPERS[n]=$!
	_child_line() { grep -q '^child ' "$1"; }
	live_wait_for 5 _child_line "$out" ||
		live_fail "setup: fusehold on $dir printed no child line: $(cat "$out" "$LIVE_TMP/helper$n.err")"
	local c
	read -r _ c _ < <(grep '^child ' "$out")
	CHILDREN[n]=$c
	_in_fuse_wait() { [ "$(live_task_state "$1")" = D ] && grep -q fuse_get_req "/proc/$1/stack"; }
	live_wait_for 5 _in_fuse_wait "$c" ||
		live_fail "setup: child $c not in D with fuse_get_req: state=$(live_task_state "$c")"
}

A=$LIVE_TMP/mnt-a
B="$LIVE_TMP/mnt b"
C=$LIVE_TMP/mnt-c
hold 0 "$A"
hold 1 "$B"
# C is mounted in a mount namespace of its own: not in cgwatch's mountinfo, only in its
# child's (unshare execs the helper: the same pid)
command -v unshare >/dev/null || live_skip "unshare (util-linux) not installed"
hold 2 "$C" unshare -m --propagation private

sleep 2
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --format json --threshold 1
live_json_check "$OUT" "check --format json --threshold 1"
[ "$CG_RC" = 1 ] || live_fail "exit code $CG_RC, want 1; stderr: $(head -c 200 "$ERR")"

# (other tests may hang FUSE mounts of their own meanwhile: only ours count)
n=$(jq --arg p "mount $LIVE_TMP/" '[.findings[]? | select(.id == "fuse-wait" and (.cause // "" | startswith($p)))] | length' "$OUT")
[ "$n" = 3 ] || live_fail "$n fuse-wait findings on our mounts, want 3: $(jq -c '[.findings[]? | {id, cause, tasks}]' "$OUT")"
MNTS=("$A" "$B" "$C")
for k in 0 1 2; do
	mnt=${MNTS[k]}
	c=${CHILDREN[k]}
	f=$(jq -c --arg c "mount $mnt" '[.findings[]? | select(.id == "fuse-wait" and .cause == $c)][0] // empty' "$OUT")
	[ -n "$f" ] || live_fail "no fuse-wait finding with cause 'mount $mnt': $(jq -c '[.findings[]? | {id, cause, tasks}]' "$OUT")"
	[ "$(jq -c '.tasks' <<<"$f")" = "[$c]" ] ||
		live_fail "finding of mount $mnt lists tasks $(jq -c '.tasks' <<<"$f"), want [$c]"
	jq -e --arg m "$mnt" --argjson c "$c" '.evidence | any(startswith("PID \($c) waits in ") and contains(" on the fuse.x mount \($m) (connection "))' <<<"$f" >/dev/null ||
		live_fail "finding of mount $mnt lacks the evidence line of PID $c: $(jq -c '.evidence' <<<"$f")"
done

# the text report names the cause under the finding's header, the space as it is
TXT=$LIVE_TMP/report.txt
live_cgwatch "$TXT" "$ERR" check --threshold 1
grep -qxF "  Cause: mount $B" "$TXT" || live_fail "text report lacks '  Cause: mount $B': $(grep -n 'Cause' "$TXT" | head -5)"

live_pass "three fuse-wait findings, causes 'mount $A', 'mount $B' and 'mount $C' (its own namespace)"
