#!/bin/bash
# live-ustacknsdebug: names from a debug file that only a task's own mount namespace holds
# are marked as such, and never given to a task of another namespace. As an unprivileged
# user (nobody): a stripped copy of ustackhold-O2 runs, a vfork parent in D, inside a user and
# mount namespace of the user's own, where a tmpfs over /usr/lib/debug holds its debug file
# by build-id (/usr/lib/debug/.build-id/xx/rest.debug, what a container or `unshare -r -m`
# can plant: its names are the user's to choose); a second copy of the same build runs in the
# host's namespace, where no debug file of that build exists; and a third copy there whose
# .gnu_debuglink names the debug file beside it. check --format json:
#   the namespaced task's program frames are named from that debug file (symbol_from
#   "debug") and marked symbol_from_task_mntns; its libc frames, named from the host's files,
#   are not marked; the host task's frames are neither marked nor named from the user's
#   debug file (the same build-id: a cached lookup must not carry those names across); the
#   linked copy's are named from its debug file beside it, not marked (the host's namespace);
# check --format text says "symbols from the task's mount namespace" on the marked frames;
# and check run in a mount namespace of its own (as the daemon's unit runs it): the same
# marks (the host's namespace is PID 1's).
. "$(dirname "$0")/lib.sh"
live_init ustacknsdebug
live_require_root
live_require_tools jq timeout objcopy strip readelf setpriv unshare
live_require_binary
live_require_helpers ustackhold-O2
[ -d /usr/lib/debug ] || live_skip "no /usr/lib/debug here for a namespace to mount over"
live_mktemp
U=65534
ASUSER=(setpriv --reuid="$U" --regid="$U" --clear-groups --no-new-privs)   # execs: $! is the program
timeout 5 "${ASUSER[@]}" unshare -U -r -m --propagation private \
	mount -t tmpfs cgwatch-live /usr/lib/debug >/dev/null 2>&1 ||
	live_skip "an unprivileged user cannot mount in a user namespace of its own here"
chmod 711 "$LIVE_TMP" || live_fail "setup: chmod"
D=$LIVE_TMP/user
mkdir "$D" && chown "$U:$U" "$D" || live_fail "setup: $D"
cp "$LIVE_BIN/ustackhold-O2" "$D/orig" && chown "$U:$U" "$D/orig" || live_fail "setup: cp"
"${ASUSER[@]}" sh -c 'cd "$1" && objcopy --only-keep-debug orig prog.debug && strip -o prog orig &&
	cp prog hostprog && cp prog linked && objcopy --add-gnu-debuglink=prog.debug linked &&
	rm orig' sh "$D" >"$LIVE_TMP/setup.log" 2>&1 ||
	live_fail "setup: the user's files: $(head -c 300 "$LIVE_TMP/setup.log")"
BID=$(readelf -n "$D/prog" | awk '/Build ID:/ { print $3; exit }')
[ ${#BID} -gt 2 ] || live_fail "setup: $D/prog has no build-id"
[ ! -e "/usr/lib/debug/.build-id/${BID:0:2}/${BID:2}.debug" ] ||
	live_fail "setup: the host has a debug file of this build"

# the user's namespace: its /usr/lib/debug a tmpfs of its own, the debug file planted there
"${ASUSER[@]}" unshare -U -r -m --propagation private sh -c 'mount -t tmpfs -o size=16m cgwatch-live /usr/lib/debug &&
	mkdir -p "/usr/lib/debug/.build-id/$2" && cp "$1/prog.debug" "/usr/lib/debug/.build-id/$2/$3.debug" &&
	exec "$1/prog" vfork 40' sh "$D" "${BID:0:2}" "${BID:2}" \
	>"$LIVE_TMP/t.out" 2>"$LIVE_TMP/t.err" 3>&- </dev/null &
T=$!
live_on_exit 'live_kill_wait "$T"'
"${ASUSER[@]}" "$D/hostprog" vfork 40 >"$LIVE_TMP/h.out" 2>"$LIVE_TMP/h.err" 3>&- </dev/null &
H=$!
live_on_exit 'live_kill_wait "$H"'
"${ASUSER[@]}" "$D/linked" vfork 40 >"$LIVE_TMP/l.out" 2>"$LIVE_TMP/l.err" 3>&- </dev/null &
L=$!
live_on_exit 'live_kill_wait "$L"'
_blocked() { grep -q '^blocked ' "$LIVE_TMP/$1.out" && [ "$(live_task_state "$2")" = D ]; }
live_wait_for 5 _blocked t "$T" ||
	live_fail "setup: prog in the user's namespace: $(cat "$LIVE_TMP/t.out" "$LIVE_TMP/t.err" | head -c 300) state $(live_task_state "$T")"
live_wait_for 5 _blocked h "$H" ||
	live_fail "setup: hostprog: $(cat "$LIVE_TMP/h.out" "$LIVE_TMP/h.err" | head -c 300)"
live_wait_for 5 _blocked l "$L" ||
	live_fail "setup: linked: $(cat "$LIVE_TMP/l.out" "$LIVE_TMP/l.err" | head -c 300)"
[ "$(readlink "/proc/$T/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
	live_fail "setup: prog is in the host's mount namespace"
sleep 1.2

CONF=$LIVE_TMP/c.conf
live_conf_check "$CONF" "ustack_max = 100"
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
# each frame: SYMBOL@MODULE-BASENAME/FROM/MARK
frames() {
	jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] | [.ustack[]? |
		"\(.symbol // "-")@\(.module | split("/") | last)/\(.symbol_from // "-")/\(.symbol_from_task_mntns // false)"] |
		join(" ")' "$OUT"
}
uerr() { jq -r --argjson t "$1" '[.tasks[]? | select(.tid == $t)][0] | [.ustack_error // "", (.ustack[]?.symbol_why // empty)] | unique | join("; ")' "$OUT"; }
# the marks of one check's JSON ($1: which check, for the failure)
marks() {
	live_json_check "$OUT" "$1"
	f=$(frames "$T")
	[[ "$f" == *"@libc.so.6/"*" middle@prog/debug/true outer@prog/debug/true main@prog/debug/true"* ]] ||
		live_fail "$1: the user's namespace: frames '$f', want its program's named from its debug file and marked symbol_from_task_mntns; said: $(uerr "$T")"
	for w in $f; do
		[[ "$w" != *"@libc.so.6/"*"/true" ]] ||
			live_fail "$1: the user's namespace: libc's frame '$w' marked, its names are the host's files'"
	done
	f=$(frames "$H")
	[ -n "$f" ] || live_fail "$1: the host's copy: no user frames; said: $(uerr "$H")"
	for w in $f; do
		[[ "$w" != *"/true" && "$w" != *"@hostprog/debug/"* ]] ||
			live_fail "$1: the host's copy: frame '$w' in '$f': named from the user's debug file, or marked"
	done
	f=$(frames "$L")
	[[ "$f" == *" middle@linked/debug/false outer@linked/debug/false main@linked/debug/false"* &&
	   "$f" != *"/true"* ]] ||
		live_fail "$1: the linked host copy: frames '$f', want named from the debug file beside it, none marked; said: $(uerr "$L")"
}
live_cgwatch "$OUT" "$ERR" check --config "$CONF" --threshold 1 --format json
marks "check --format json"
# cgwatch in a mount namespace of its own, as the daemon's unit runs it
REAL=$CGWATCH
CGWATCH=$LIVE_TMP/cgwatch-ns
printf '#!/bin/sh\nexec unshare -m --propagation private %q "$@"\n' "$REAL" >"$CGWATCH" &&
	chmod 755 "$CGWATCH" || live_fail "setup: cannot write $CGWATCH"
live_cgwatch "$OUT" "$ERR.ns" check --config "$CONF" --threshold 1 --format json
CGWATCH=$REAL
marks "check in a mount namespace of its own"

live_cgwatch "$LIVE_TMP/report.txt" "$ERR.txt" check --config "$CONF" --threshold 1
n=$(grep -c "^ *#[0-9]* \(middle\|outer\|main\)+0x[0-9a-f]* (.*/prog+0x[0-9a-f]*; symbols from the task's mount namespace)" "$LIVE_TMP/report.txt")
[ "$n" = 3 ] ||
	live_fail "text: $n of middle, outer and main marked; the frames: $(grep -m 8 '^ *#[0-9]' "$LIVE_TMP/report.txt" | tr -s ' ' | tr '\n' '|' | head -c 600)"
live_pass "names from the debug file in the user's own mount namespace marked (JSON and text), the host's libc not; the host's copy of the build neither marked nor named from it; a host copy's debuglink file not marked; the same from a check in a mount namespace of its own"
