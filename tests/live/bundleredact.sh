#!/bin/bash
# live-bundleredact: `cgwatch bundle --redact -o FILE` of this host while a task named after
# the host (`hostname`) is stuck on a FUSE mount that never answers: written (exit 0), FILE.map
# named on stdout, 0600, mapping a host token back to the host name; --verify passes; no
# member name, link target or content holds the host name on name boundaries (not inside a
# longer name, not a kernel symbol's "NAME+0x"), or for a name of letters only (a word, as
# "vm"), neither the hostname file, the manifest nor the reports name the host by it; the
# manifest says "redacted": true; and
# `check --root FILE` replays it to the findings its own report.json has, the stuck task's
# fuse-wait among them.
. "$(dirname "$0")/lib.sh"
live_init_fuse bundleredact timeout jq zstd tar hostname
H=$(hostname)
[ -n "$H" ] || live_skip "hostname prints nothing"
live_fuse_child "$H"

CONF=$LIVE_TMP/cgwatch.conf
printf '[thresholds]\nblocked_warning = 1\n' >"$CONF" || live_fail "setup: $CONF"
sleep 2
OUT=$LIVE_TMP/host.tar.zst
timeout -k 2 60 "$CGWATCH" bundle --config "$CONF" --redact -o "$OUT" >"$LIVE_TMP/out" 2>"$LIVE_TMP/err" 3>&-
RC=$?
msg="rc=$RC out=$(head -c 300 "$LIVE_TMP/out") err=$(head -c 300 "$LIVE_TMP/err" | cat -v)"
[ "$RC" = 0 ] || live_fail "bundle --redact exit $RC, want 0: $msg"
grep -qxF "$OUT.map: the redaction map (token, value): keep it on this host" "$LIVE_TMP/out" ||
	live_fail "stdout does not name $OUT.map: $msg"
[ "$(stat -c %a "$OUT.map" 2>/dev/null)" = 600 ] || live_fail "$OUT.map: mode $(stat -c %a "$OUT.map" 2>&1), not 600"
grep -qP "^REDACTED-host-[0-9]+\t\Q$H\E$" "$OUT.map" || live_fail "$OUT.map has no host token for $H"

timeout -k 2 30 "$CGWATCH" bundle --verify "$OUT" >"$LIVE_TMP/verify" 2>&1 3>&- ||
	live_fail "bundle --verify: $(head -c 300 "$LIVE_TMP/verify")"

X=$LIVE_TMP/x
mkdir "$X" || live_fail "setup: mkdir $X"
timeout 30 zstd -dc "$OUT" | timeout 30 tar -xf - -C "$X" || live_fail "cannot unpack the bundle"
timeout 30 zstd -dc "$OUT" | timeout 30 tar -tvf - >"$LIVE_TMP/names" || live_fail "cannot list the bundle"
[ "$(jq .redacted "$X/manifest.json")" = true ] || live_fail "manifest.json: \"redacted\" is not true"
if [[ "$H" =~ ^[A-Za-z]+$ ]]; then
	# a name of letters only ("vm") may be a word of the kernel's ("vm.dirty_ratio"): where it
	# names the host it is replaced
	for f in "$X/tree/proc/sys/kernel/hostname"; do
		[ "$(cat "$f" 2>/dev/null)" != "$H" ] || live_fail "$f says $H"
	done
	for f in manifest.json report.json; do
		[ "$(jq -r .host "$X/$f")" != "$H" ] || live_fail "$f: the host is $H"
	done
	! grep -q "^cgwatch check on $H " "$X/report.txt" || live_fail "report.txt: the host is $H"
else
	re="(?<![A-Za-z0-9_\\x80-\\xff])\\Q$H\\E(?![A-Za-z0-9_\\x80-\\xff])(?!\\+0x)"
	hits=$(LC_ALL=C grep -raoP "$re" "$LIVE_TMP/names" "$X" | head -5)
	[ -z "$hits" ] || live_fail "the host name $H is in the bundle: $(tr '\n' ' ' <<<"$hits" | head -c 300)"
fi
# the bundle holds the task named after the host (so there was something to redact)
jq -e --argjson t "$CHILD" '.tasks[] | select(.tid == $t)' "$X/report.json" >/dev/null ||
	live_fail "report.json does not hold the stuck task $CHILD"

timeout -k 2 30 "$CGWATCH" check --config "$CONF" --root "$OUT" --format json >"$LIVE_TMP/replay.json" 2>"$LIVE_TMP/replay.err" 3>&-
RRC=$?
[ "$RRC" = 1 ] || live_fail "check --root FILE exit $RRC, want 1: $(head -c 300 "$LIVE_TMP/replay.err")"
norm='[.findings[] | {id, severity, tasks: (.tasks | sort), chain: ((.chain // []) | sort), cpus}] | sort_by(.id, (.tasks | tostring))'
a=$(jq -c "$norm" "$X/report.json")
r=$(jq -c "$norm" "$LIVE_TMP/replay.json")
[ "$a" = "$r" ] || live_fail "the replay differs: bundle $a, replay $r"
jq -e --argjson t "$CHILD" '.findings[] | select(.id == "fuse-wait" and (.tasks | index($t)))' \
	"$LIVE_TMP/replay.json" >/dev/null || live_fail "the replay has no fuse-wait of $CHILD: $r"
live_pass "no '$H' in $(wc -l <"$LIVE_TMP/names") members; replays to $(jq length <<<"$r") findings"
