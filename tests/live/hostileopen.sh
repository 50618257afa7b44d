#!/bin/bash
# live-hostileopen: root never opens what a user planted where it looks for a debug file.
# As an unprivileged user (nobody): a stripped copy of ustackhold whose .gnu_debuglink names
# real.debug, and beside it real.debug -> a FIFO of the user's, whose writer (the user's too)
# blocks in open() until someone opens the FIFO to read: the same trap as a symlink to
# /dev/watchdog, whose open and close would reboot the host, but one the test can see. The
# program runs as that user, a vfork parent in D. `check --format json --threshold 0` (root)
# unwinds and names its user stack, looking for the debug file: the task is reported with
# its frames, and the FIFO's writer is never woken (cgwatch learned the file's type without
# opening it). Before the fix, the lookup opened the FIFO (O_NONBLOCK: no wait, but the open
# itself is what a device acts on).
. "$(dirname "$0")/lib.sh"
live_init hostileopen
live_require_root
live_require_tools jq timeout objcopy strip setpriv mkfifo
live_require_binary
live_require_helpers ustackhold-O2
live_mktemp
U=65534
chmod 711 "$LIVE_TMP" || live_fail "setup: chmod"
D=$LIVE_TMP/user
mkdir "$D" && chown "$U:$U" "$D" || live_fail "setup: $D"
cp "$LIVE_BIN/ustackhold-O2" "$D/orig" && chown "$U:$U" "$D/orig" || live_fail "setup: cp"
ASUSER=(setpriv --reuid="$U" --regid="$U" --clear-groups --no-new-privs)   # execs: $! is the program
"${ASUSER[@]}" sh -c 'cd "$1" && objcopy --only-keep-debug orig real.debug && strip -o prog orig &&
	objcopy --add-gnu-debuglink=real.debug prog && rm real.debug orig && mkfifo trap &&
	ln -s trap real.debug' sh "$D" >"$LIVE_TMP/setup.log" 2>&1 ||
	live_fail "setup: the user's files: $(head -c 300 "$LIVE_TMP/setup.log")"
# the trap's writer: "woken" once a reader opened the FIFO
"${ASUSER[@]}" sh -c 'exec 3>"$1/trap"; echo woken >"$1/woken"; sleep 60' sh "$D" 3>&- </dev/null &
WRITER=$!
live_on_exit 'live_kill_wait "$WRITER"'
"${ASUSER[@]}" "$D/prog" vfork 40 >"$LIVE_TMP/prog.out" 2>"$LIVE_TMP/prog.err" 3>&- </dev/null &
PROG=$!
live_on_exit 'live_kill_wait "$PROG"'
_blocked() { grep -q '^blocked ' "$LIVE_TMP/prog.out" && [ "$(live_task_state "$PROG")" = D ]; }
live_wait_for 5 _blocked || live_fail "setup: prog: $(cat "$LIVE_TMP/prog.out" "$LIVE_TMP/prog.err") state $(live_task_state "$PROG")"
[ ! -e "$D/woken" ] || live_fail "setup: the FIFO's writer was woken before the check"

live_cgwatch "$LIVE_TMP/c.json" "$LIVE_TMP/c.err" check --format json --threshold 0
live_json_check "$LIVE_TMP/c.json" "check"
n=$(jq --argjson t "$PROG" '[.tasks[] | select(.tid == $t) | .ustack[]?] | length' "$LIVE_TMP/c.json")
[ "${n:-0}" -gt 0 ] || live_fail "the user's vfork parent $PROG has no user stack in the report (its debug file was never looked for): $(jq -c --argjson t "$PROG" '[.tasks[] | select(.tid == $t) | {ustack, ustack_error}]' "$LIVE_TMP/c.json" | head -c 300)"
sleep 0.3                                 # the writer's echo, had it been woken
[ ! -e "$D/woken" ] || live_fail "root opened the user's FIFO (real.debug -> trap): its writer was woken"
live_pass "$n frames of the user's program unwound; its real.debug -> FIFO never opened"
