#!/bin/bash
# live-daemon-bundleopen: a bundle holds the newest reports of the incidents the daemon has
# open, both `cgwatch bundle` of the host and the daemon's own bundles. A real journald,
# thresholds warning 2 s, critical 4 s, scans every 0.5 s, update_interval 60 s (an
# incident's newest report stays its escalation's), [bundle] min_interval 0:
#   - a task stuck on FUSE (incident A) escalates: A's own bundle holds
#     incidents/<A>-02-escalated.json and .txt and its page incidents/<A>.html, the very
#     files of the reports directory;
#   - `cgwatch bundle -o F --config CONF` with the daemon running holds the report its state
#     file names for A (incidents/<A>-NN-<state>.json, and the .txt) and A's page equal to
#     the files in the reports directory, nothing else under incidents/; `bundle --verify F`
#     says intact; `check --root F` still replays it: the fuse-wait finding with the task,
#     exit 1; `check --root F --format html` writes its page;
#   - a second task on another mount (incident B) escalates: B's own bundle holds B's
#     escalation reports and A's newest ones.
LIVE_BUDGET=${LIVE_BUDGET:-60}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-bundleopen
dmn_require
live_require_tools tar zstd cmp
dmn_journald required

BDIR=$LIVE_TMP/bundles
mkdir -p "$LIVE_TMP/tmp" || live_fail "setup: mkdir $LIVE_TMP/tmp"
dmn_conf bundle.dir="$BDIR" bundle.min_interval=0 incidents.update_interval=60 \
	scan.read_timeout=1

# stuck TAG NAME: a child NAME blocked under a new uninitialised FUSE mount $LIVE_TMP/mTAG;
# sets C_TAG (its pid).
stuck() {
	local tag=$1 mnt=$LIVE_TMP/m$1 out=$LIVE_TMP/h$1.out c
	mkdir -p "$mnt" || live_fail "setup: mkdir $mnt"
	live_on_exit "live_umount $(printf %q "$mnt")"
	"$LIVE_BIN/fusehold" "$mnt" --child --name "$2" >"$out" 2>"$LIVE_TMP/h$1.err" 3>&- </dev/null &
	live_on_exit "live_kill_wait $!"
	_line() { grep -q '^child ' "$out"; }
	live_wait_for 5 _line || live_fail "setup: fusehold $mnt printed no child line: $(cat "$out")"
	read -r _ c _ < <(grep '^child ' "$out")
	live_on_exit "live_kill_task $c"
	printf -v "C_$tag" %s "$c"
	_d() { [ "$(live_task_state "$c")" = D ]; }
	live_wait_for 5 _d || live_fail "setup: child $c under $mnt not in D"
}

# escalated PID: the incident whose "opened" names PID, once it has escalated; sets INC and
# EB (the bundle its "escalated" message names).
escalated() {
	dmn_wait_msg $((DMN_WARN + 4)) ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$1\"" ||
		live_fail "no \"opened\" for pid $1; messages: [$(dmn_digest)]; $(dmn_ctx)"
	INC=$(dmn_get ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$1\"" CGWATCH_INCIDENT)
	dmn_wait_state escalated 1 $((DMN_CRIT + 3)) "$INC" ||
		live_fail "no \"escalated\" for $INC; messages: [$(dmn_digest)]; $(dmn_ctx)"
	EB=$(dmn_get ".CGWATCH_INCIDENT == \"$INC\" and .CGWATCH_STATE == \"escalated\"" CGWATCH_BUNDLE)
	[ -n "$EB" ] || live_fail "\"escalated\" of $INC names no bundle"
	_made() { [ -s "$EB" ]; }
	live_wait_for 5 _made || live_fail "no bundle $EB 5 s after \"escalated\"; $(dmn_ctx 800)"
}

# holds BUNDLE BASE...: BUNDLE holds incidents/BASE.json and .txt, and the incident's page
# incidents/ID.html (BASE is ID-NN-STATE), each the reports directory's file byte for byte.
holds() {
	local b=$1 base f
	shift
	for base; do
		for f in "$base.json" "$base.txt" "${base%-*-*}.html"; do
			zstd -dc "$b" | tar -xOf - "incidents/$f" >"$LIVE_TMP/member" 2>"$LIVE_TMP/tar.err" ||
				live_fail "$b has no incidents/$f: $(zstd -dc "$b" | tar -tf - | grep '^incidents' | tr '\n' ' ') $(jq -c '.unreadable' <(zstd -dc "$b" | tar -xOf - manifest.json) | head -c 300)"
			cmp -s "$LIVE_TMP/member" "$DMN_REPORTS/$f" ||
				live_fail "$b: incidents/$f differs from $DMN_REPORTS/$f"
		done
	done
}

dmn_start daemon TMPDIR="$LIVE_TMP/tmp"

# ---- A: its own bundle holds its escalation's reports ----
stuck a cgw-open-a
escalated "$C_a"
INC_A=$INC
holds "$EB" "$INC_A-02-escalated"

# ---- cgwatch bundle with the daemon running ----
F=$LIVE_TMP/ondemand.tar.zst
out=$(TMPDIR=$LIVE_TMP/tmp timeout -k 1 30 "$CGWATCH" bundle --config "$DMN_CONF" -o "$F" 2>&1) ||
	live_fail "cgwatch bundle: $(head -c 400 <<<"$out")"
rep=$(jq -r --arg i "$INC_A" '.incidents[] | select(.id == $i) | .report' "$DMN_STATE/incidents.json")
base=$(basename "${rep%.json}")
[[ "$base" =~ ^$INC_A-[0-9]{2}-(opened|escalated|updated)$ ]] ||
	live_fail "the state file names report '$rep' for $INC_A"
holds "$F" "$base"
got=$(zstd -dc "$F" | tar -tf - | grep '^incidents/' | sort | tr '\n' ' ')
[ "$got" = "incidents/$base.json incidents/$base.txt incidents/$INC_A.html " ] ||
	live_fail "$F holds under incidents/: '$got', want only $base.json and .txt and $INC_A.html"
out=$(timeout -k 1 20 "$CGWATCH" bundle --verify "$F" 2>&1) ||
	live_fail "bundle --verify $F: $(head -c 400 <<<"$out")"
timeout -k 1 30 "$CGWATCH" check --root "$F" --config "$DMN_CONF" --format json >"$LIVE_TMP/replay.json" 2>"$LIVE_TMP/replay.err"
rc=$?
[ "$rc" = 1 ] || live_fail "check --root $F exits $rc, want 1: $(head -c 400 "$LIVE_TMP/replay.err")"
jq -e --argjson p "$C_a" '[.findings[] | select(.id == "fuse-wait" and (.tasks | index($p)))] | length == 1' \
	"$LIVE_TMP/replay.json" >/dev/null ||
	live_fail "replay of $F: no fuse-wait finding with pid $C_a: $(jq -c '[.findings[] | {id, tasks}]' "$LIVE_TMP/replay.json" | head -c 300)"

# and as a page, from the archive
timeout -k 1 30 "$CGWATCH" check --root "$F" --config "$DMN_CONF" --format html >"$LIVE_TMP/replay.html" 2>"$LIVE_TMP/replay.err"
rc=$?
[ "$rc" = 1 ] && grep -q '<div class="verdict critical"' "$LIVE_TMP/replay.html" &&
	grep -qF ">PID $C_a</text>" "$LIVE_TMP/replay.html" ||
	live_fail "check --root $F --format html exits $rc, want 1 and a page with the verdict and PID $C_a in its chain: $(head -c 300 "$LIVE_TMP/replay.err")"

# ---- B: its own bundle holds A's newest reports too ----
stuck b cgw-open-b
escalated "$C_b"
INC_B=$INC
rep=$(jq -r --arg i "$INC_A" '.incidents[] | select(.id == $i) | .report' "$DMN_STATE/incidents.json")
holds "$EB" "$INC_B-02-escalated" "$(basename "${rep%.json}")"

live_pass "$INC_A's reports in its own bundle, in cgwatch bundle's ($base) and in $INC_B's bundle"
