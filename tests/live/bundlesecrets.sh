#!/bin/bash
# live-bundlesecrets: a bundle holds no secret of a user's process beyond what the README
# says, and a redacted one none. As nobody, tests/live/secrethold.c run as
# `prog MNT/x --password=PW` with SECRET=S in its environment, blocked in stat() on a FUSE
# mount of nobody's that never answers, a local array of its frame-pointer code holding
# TOPSECRET-PID (so the user-stack unwind scans its stack for a frame record: the array, the
# arguments and the environment at the stack's top all lie in that scan's view). Then
# `cgwatch bundle` and `cgwatch bundle --redact` (root):
#   - no member of the redacted bundle (the tar decompressed: every file, name and link
#     target, and the memory of a cgwatch/ustack file's mem lines, decoded) holds PW, S or
#     TOPSECRET;
#   - no member of the plain one holds S or TOPSECRET (a command line it may: the README says
#     the tree holds command lines);
#   - the plain bundle's replay (`check --root FILE`, after the process is gone) names the
#     process's user frames as the live run did (hold, outer, main: from outer on recovered
#     by the stack scan), pc for pc.
. "$(dirname "$0")/lib.sh"
live_init_fuse bundlesecrets jq timeout zstd tar setpriv env perl
live_require_helpers secrethold
U=65534
chmod 711 "$LIVE_TMP" || live_fail "setup: chmod $LIVE_TMP"
# the program outside /tmp: a bundle's replay mounts a tmpfs over /tmp
BINDIR=$(mktemp -d /var/tmp/cgwatch-live-bundlesecrets.XXXXXX) || live_fail "setup: mktemp in /var/tmp"
live_on_exit "rm -rf '$BINDIR'"
chmod 711 "$BINDIR" && cp "$LIVE_BIN/secrethold" "$BINDIR/prog" && chmod 755 "$BINDIR/prog" ||
	live_fail "setup: $BINDIR/prog"
MNT=$LIVE_TMP/mnt
mkdir -p "$MNT" || live_fail "setup: mkdir $MNT"
live_fusehold fh --owner "$U" "$MNT"     # as if nobody had mounted it
PW=hunter2-$$-pw SECRET=s3cr3t-$$-env
setpriv --reuid="$U" --regid="$U" --clear-groups --no-new-privs \
	env -i SECRET="$SECRET" "$BINDIR/prog" "$MNT/x" "--password=$PW" \
	>"$LIVE_TMP/prog.out" 2>"$LIVE_TMP/prog.err" 3>&- </dev/null &
PROG=$!
live_on_exit 'live_kill_wait "$PROG"'
_blocked() { grep -q '^blocked ' "$LIVE_TMP/prog.out" && [ "$(live_task_state "$PROG")" = D ]; }
live_wait_for 5 _blocked ||
	live_fail "setup: prog: $(cat "$LIVE_TMP/prog.out" "$LIVE_TMP/prog.err" | head -c 300) state $(live_task_state "$PROG")"
[ "$(awk '$1 == "blocked" { print $2 }' "$LIVE_TMP/prog.out")" = "$PROG" ] &&
	[ "$(stat -c %u "/proc/$PROG")" = "$U" ] && grep -qaF "$SECRET" "/proc/$PROG/environ" &&
	grep -qaF -- "--password=$PW" "/proc/$PROG/cmdline" ||
	live_fail "setup: $PROG is not nobody's blocked process with the secrets: $(cat "$LIVE_TMP/prog.out")"
sleep 1.2

CONF=$LIVE_TMP/c.conf
printf '[thresholds]\nblocked_warning = 1\n' >"$CONF" || live_fail "setup: $CONF"
B=$LIVE_TMP/b.tar.zst R=$LIVE_TMP/r.tar.zst
timeout -k 2 60 "$CGWATCH" bundle --config "$CONF" -o "$B" >"$LIVE_TMP/b.out" 2>"$LIVE_TMP/b.err" 3>&- ||
	live_fail "bundle: $(head -c 300 "$LIVE_TMP/b.err")"
timeout -k 2 60 "$CGWATCH" bundle --redact --config "$CONF" -o "$R" >"$LIVE_TMP/r.out" 2>"$LIVE_TMP/r.err" 3>&- ||
	live_fail "bundle --redact: $(head -c 300 "$LIVE_TMP/r.err")"
live_kill_wait "$PROG"
[ ! -e "/proc/$PROG" ] || live_fail "setup: $PROG still there after its kill"

# WHAT BUNDLE SECRET...: fail when a member of BUNDLE (its content, name or link target,
# decompressed; of a cgwatch/ustack file, the memory its mem lines hold in hex too) holds one
# of the SECRETs
no_secret() {
	local what=$1 b=$2 x s f hits
	x=$LIVE_TMP/x-$what
	mkdir "$x" && timeout 30 zstd -dc "$b" >"$x.tar" && timeout 30 tar -xf "$x.tar" -C "$x" ||
		live_fail "cannot unpack the $what bundle"
	[ -s "$x/manifest.json" ] || live_fail "the $what bundle has no manifest.json"
	mkdir "$x.mem" || live_fail "setup: mkdir $x.mem"
	for f in "$x"/tree/cgwatch/ustack/*; do
		[ -f "$f" ] || continue
		perl -ne 'print pack("H*", (split)[2]) if /^mem /' "$f" >"$x.mem/${f##*/}" ||
			live_fail "cannot decode the mem lines of $f"
	done
	shift 2
	hits=$(for s in "$@"; do
		{ LC_ALL=C grep -rlaF -- "$s" "$x" "$x.mem"
		  [ "$(LC_ALL=C grep -caF -- "$s" "$x.tar")" = 0 ] || echo "the tar stream"; } |
			sed -e "s|^$x.mem/\(.*\)|tree/cgwatch/ustack/\1 (its mem lines)|" -e "s|^$x/||" \
			    -e "s|^|'$s' in |" | head -3
	done)
	[ -z "$hits" ] || live_fail "the $what bundle holds secrets: $(tr '\n' ';' <<<"$hits")"
}
no_secret redacted "$R" "$PW" "$SECRET" TOPSECRET
no_secret plain "$B" "$SECRET" TOPSECRET
# they were there to be found: the plain bundle holds the unwind's record of the process
grep -q '^mem ' "$LIVE_TMP/x-plain/tree/cgwatch/ustack/$PROG" 2>/dev/null ||
	live_fail "the plain bundle has no memory in cgwatch/ustack/$PROG: $(ls "$LIVE_TMP/x-plain/tree/cgwatch/ustack" 2>&1 | tr '\n' ' ' | head -c 300)"

# the plain bundle's replay unwinds the same frames, the stack scan's among them
ustack() { jq -c --argjson t "$PROG" '[.tasks[]? | select(.tid == $t)][0] | {ustack, ustack_error}' "$1"; }
frames() {
	jq -r --argjson t "$PROG" '[.tasks[]? | select(.tid == $t)][0] |
		[.ustack[]? | "\(.symbol // "-")@\(.module | split("/") | last)\(if .fp_recovered then "(R)" else "" end)"] | join(" ")' "$1"
}
live_cgwatch "$LIVE_TMP/replay.json" "$LIVE_TMP/replay.err" check --config "$CONF" --format json --root "$B"
live_json_check "$LIVE_TMP/replay.json" "check --root FILE"
f=$(frames "$LIVE_TMP/x-plain/report.json")
[[ "$f" == *" hold@prog outer@prog(R) main@prog(R) "* ]] ||
	live_fail "live: frames '$f' ($(ustack "$LIVE_TMP/x-plain/report.json" | jq -r .ustack_error)), want ... hold outer main (recovered by the stack scan) ..."
[ "$(ustack "$LIVE_TMP/replay.json")" = "$(ustack "$LIVE_TMP/x-plain/report.json")" ] ||
	live_fail "the replay's frames '$(frames "$LIVE_TMP/replay.json")' ($(ustack "$LIVE_TMP/replay.json" | jq -r .ustack_error)), the live '$f'"
live_pass "no argument, environment or local secret in the redacted bundle, no environment or local one in the plain; replayed '$f'"
