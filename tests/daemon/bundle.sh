#!/bin/bash
# live-daemon-bundle: the bundles `cgwatch run` leaves by itself ([bundle] auto), with a real
# journald, thresholds warning 2 s, critical 4 s, scans every 0.5 s, [bundle] keep 2 and
# min_interval 0, the capture's tree under TMPDIR=$LIVE_TMP/tmp:
#   - bundles redacted ([bundle] redact), each with its map beside it;
#   - a task stuck on FUSE: "opened" names no bundle; "escalated" names
#     CGWATCH_BUNDLE=<dir>/cgwatch-bundle-<incident>.tar.zst, and so do its JSON report
#     (incident.bundle) and its text report ("Bundle: FILE"); the file appears within 3 s,
#     it is the only bundle of the incident after more scans, `bundle --verify` says intact,
#     and `check --root FILE` gives the fuse-wait finding with the mount as cause and the
#     task, blocked_s within 0.5 s of the bundle's own report (the scan it captured) and of
#     the "escalated" message (that scan escalated it), which is what the task had been
#     blocked then; no capture tree is left in TMPDIR;
#   - the incident's page <id>.html beside its reports, in the bundle as incidents/<id>.html
#     (of the escalated report or a later one); the task's name <script>"'&x escaped there;
#     loaded in a headless Chromium (tests/live/chromelib.sh, without its control, which
#     htmlpage runs; when chromium is installed): no console error, its chain's task and
#     mount, its header and its states in the DOM, the name as text and no script element;
#   - the user stack's inputs in the bundle (tree/cgwatch/ustack/PID), the memory left out
#     as the bundle is redacted, and the replay says so;
#   - the kernel's ring in the bundle: tree/dev/kmsg holds a line written to /dev/kmsg before
#     the incident, the hung-task sysctls are there, the replay's kmsg object names it with
#     its records, as a check of the
#     bundle's tree (unpacked) has it; with perf counting here, the replay's rates object is
#     the captured scan's (source perf, window, events, forks, cgroups), noted "(captured)";
#   - two more incidents (two more mounts): three bundles made, the newest two kept;
#   - SIGHUP with auto = no: an escalation names no bundle and none is made;
#   - SIGHUP with [bundle] dir on a FUSE mount that never answers: two escalations each
#     sent on time (blocked_s at most critical + interval + 0.5 s, the message at most 1.5 s
#     after the task reached critical), STATUS= every scan (no gap over 0.9 s), the daemon
#     says once "bundle directory ... does not answer", and stops on SIGTERM within 1 s.
LIVE_BUDGET=${LIVE_BUDGET:-130}
. "$(dirname "$0")/lib.sh"
dmn_enter_ns "$@"
live_init daemon-bundle
dmn_require
live_require_tools tar zstd
dmn_journald required

BDIR=$LIVE_TMP/bundles
mkdir -p "$LIVE_TMP/tmp" || live_fail "setup: mkdir $LIVE_TMP/tmp"
dmn_conf bundle.dir="$BDIR" bundle.keep=2 bundle.min_interval=0 bundle.redact=yes \
	scan.read_timeout=1

# stuck TAG NAME: a child NAME blocked under a new uninitialised FUSE mount $LIVE_TMP/mTAG.
# Sets C_TAG (its pid), S_TAG (epoch before it blocked), H_TAG (the helper).
stuck() {
	local tag=$1 mnt=$LIVE_TMP/m$1 out=$LIVE_TMP/h$1.out c t
	mkdir -p "$mnt" || live_fail "setup: mkdir $mnt"
	live_on_exit "live_umount $(printf %q "$mnt")"
	"$LIVE_BIN/fusehold" "$mnt" --child --name "$2" >"$out" 2>"$LIVE_TMP/h$1.err" 3>&- </dev/null &
	local h=$!
	live_on_exit "live_kill_wait $h"
	_line() { grep -q '^child ' "$out"; }
	live_wait_for 5 _line || live_fail "setup: fusehold $mnt printed no child line: $(cat "$out")"
	read -r _ c t < <(grep '^child ' "$out")
	live_on_exit "live_kill_task $c"
	printf -v "C_$tag" %s "$c"
	printf -v "S_$tag" %s "$t"
	printf -v "H_$tag" %s "$h"
	_d() { [ "$(live_task_state "$c")" = D ]; }
	live_wait_for 5 _d || live_fail "setup: child $c under $mnt not in D"
}

# inc_of PID: the incident whose "opened" names PID (waits for it).
inc_of() {
	dmn_wait_msg $((DMN_WARN + 4)) ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$1\"" ||
		live_fail "no \"opened\" for pid $1; messages: [$(dmn_digest)]; $(dmn_ctx)"
	dmn_get ".CGWATCH_STATE == \"opened\" and .CGWATCH_PID == \"$1\"" CGWATCH_INCIDENT
}

# escalated INC: wait for its "escalated"; sets ESC (the message) and EB (its CGWATCH_BUNDLE).
escalated() {
	dmn_wait_state escalated 1 $((DMN_CRIT + 3)) "$1" ||
		live_fail "no \"escalated\" for $1; messages: [$(dmn_digest)]; $(dmn_ctx)"
	ESC=$(dmn_msgs "select(.CGWATCH_INCIDENT == \"$1\" and .CGWATCH_STATE == \"escalated\")" | head -1)
	EB=$(jq -r '.CGWATCH_BUNDLE // "absent"' <<<"$ESC")
}

dmn_notify_listen
dmn_start daemon NOTIFY_SOCKET="$NOTIFY_SOCK" TMPDIR="$LIVE_TMP/tmp"
# a line in the kernel's ring before the incident (from user space: facility 1, never taken as
# a kernel report), which the bundle's tree must hold
MARK="cgw-kmsg-mark-$RANDOM$RANDOM"
echo "$MARK" >/dev/kmsg || live_fail "setup: cannot write to /dev/kmsg"

# ---- one incident, one bundle ----
NAME_A="<script>\"'&x"                  # a name to break its page with
stuck a "$NAME_A"
INC=$(inc_of "$C_a")
got=$(dmn_get ".CGWATCH_INCIDENT == \"$INC\" and .CGWATCH_STATE == \"opened\"" 'CGWATCH_BUNDLE // "absent"')
[ -z "$got" ] || live_fail "\"opened\" (warning) names a bundle: CGWATCH_BUNDLE='$got', want it empty"
escalated "$INC"
want=$BDIR/cgwatch-bundle-$INC.tar.zst
[ "$EB" = "$want" ] || live_fail "\"escalated\": CGWATCH_BUNDLE='$EB', want $want"
_made() { [ -s "$want" ]; }
live_wait_for 3 _made || live_fail "no bundle $want 3 s after \"escalated\": $(ls -A "$BDIR" 2>&1 | tr '\n' ' '); $(dmn_ctx 800)"
rep=$(jq -r .CGWATCH_REPORT <<<"$ESC")
got=$(jq -r '.incident.bundle // "absent"' "$rep" 2>&1)
[ "$got" = "$want" ] || live_fail "escalated report $rep: incident.bundle is '$got', want $want"
grep -qxF "Bundle: $want" "${rep%.json}.txt" || live_fail "text report ${rep%.json}.txt has no line 'Bundle: $want'"
sleep 2                                  # more scans, "updated" ones: no second bundle
n=$(ls -A "$BDIR" | grep -c "$INC")           # the bundle and its redaction map
[ "$n" = 2 ] && [ -f "$want.map" ] ||
	live_fail "$n files for $INC in $BDIR after more scans, want the bundle and its map: $(ls -A "$BDIR" | tr '\n' ' ')"
[ -z "$(ls -A "$LIVE_TMP/tmp")" ] || live_fail "the capture's tree is left in TMPDIR: $(ls -A "$LIVE_TMP/tmp")"
out=$(timeout -k 1 20 "$CGWATCH" bundle --verify "$want" 2>&1) ||
	live_fail "bundle --verify $want: $(head -c 400 <<<"$out")"
timeout -k 1 30 "$CGWATCH" check --root "$want" --config "$DMN_CONF" --format json >"$LIVE_TMP/replay.json" 2>"$LIVE_TMP/replay.err"
rc=$?
[ "$rc" = 1 ] || live_fail "check --root $want exits $rc, want 1: $(head -c 400 "$LIVE_TMP/replay.err")"
got=$(jq -r --argjson p "$C_a" '[.findings[] | select(.id == "fuse-wait" and (.tasks | index($p)))][0] | .cause // "none"' "$LIVE_TMP/replay.json")
[ "$got" = "mount $LIVE_TMP/ma" ] ||
	live_fail "replay of $want: fuse-wait finding of pid $C_a has cause '$got', want 'mount $LIVE_TMP/ma': $(jq -c '[.findings[] | {id, cause, tasks}]' "$LIVE_TMP/replay.json" | head -c 400)"
b_replay=$(jq -r --argjson p "$C_a" '.tasks[] | select(.tid == $p) | .blocked_s' "$LIVE_TMP/replay.json")
tar -xOf "$want" report.json >"$LIVE_TMP/breport.json" 2>"$LIVE_TMP/tar.err" ||
	live_fail "tar -xOf $want report.json: $(head -c 300 "$LIVE_TMP/tar.err")"
b_cap=$(jq -r --argjson p "$C_a" '.tasks[] | select(.tid == $p) | .blocked_s' "$LIVE_TMP/breport.json")
t_cap=$(date -d "$(jq -r .time "$LIVE_TMP/breport.json")" +%s.%N) || live_fail "bundle report.json: bad time"
dmn_fcmp "$b_replay" '>=' "$(dmn_fcalc "$b_cap - 0.5")" && dmn_fcmp "$b_replay" '<=' "$(dmn_fcalc "$b_cap + 0.5")" ||
	live_fail "replay: pid $C_a blocked_s $b_replay, the captured scan said $b_cap (want within 0.5 s)"
b_esc=$(jq -r .CGWATCH_BLOCKED_SEC <<<"$ESC")        # the escalating scan is the one captured
dmn_fcmp "$b_replay" '>=' "$(dmn_fcalc "$b_esc - 0.5")" && dmn_fcmp "$b_replay" '<=' "$(dmn_fcalc "$b_esc + 0.5")" ||
	live_fail "replay: pid $C_a blocked_s $b_replay, the \"escalated\" message said $b_esc (want within 0.5 s)"
# the user stack's inputs: the scan's unwind of the task is in the tree, its memory left out
# (redacted), and the replay says so rather than unwinding nothing
tar -xOf "$want" "tree/cgwatch/ustack/$C_a" >"$LIVE_TMP/bustack" 2>"$LIVE_TMP/tar.err" ||
	live_fail "the bundle has no tree/cgwatch/ustack/$C_a: $(head -c 300 "$LIVE_TMP/tar.err")"
grep -qx redacted "$LIVE_TMP/bustack" && ! grep -q '^mem ' "$LIVE_TMP/bustack" &&
	grep -qE "^(unwound|note) $C_a( |\$)" "$LIVE_TMP/bustack" ||
	live_fail "tree/cgwatch/ustack/$C_a: $(head -c 300 "$LIVE_TMP/bustack")"
ue=$(jq -r --argjson p "$C_a" '.tasks[] | select(.tid == $p) | .ustack_error // ""' "$LIVE_TMP/replay.json")
[[ "$ue" == "user stack not replayed: the bundle was redacted"* || "$ue" == *" (as captured)" ]] ||
	live_fail "replay: pid $C_a ustack_error '$ue', want the redaction (or the capture's note) said"
# the kernel's ring, read whole on the bundles lane: tree/dev/kmsg holds it, marker included,
# and the replay links it as a check of that ring does
tar -xOf "$want" tree/dev/kmsg >"$LIVE_TMP/bkmsg" 2>"$LIVE_TMP/tar.err" ||
	live_fail "the bundle has no tree/dev/kmsg: $(head -c 300 "$LIVE_TMP/tar.err"); members: $(tar -tf "$want" | grep -v '^tree/proc/[0-9]' | head -30 | tr '\n' ' ')"
grep -q ";$MARK\$" "$LIVE_TMP/bkmsg" ||
	live_fail "tree/dev/kmsg of $want lacks the line written before the incident ($MARK): $(wc -l <"$LIVE_TMP/bkmsg") lines, last $(tail -1 "$LIVE_TMP/bkmsg" | head -c 200)"
for f in hung_task_warnings hung_task_detect_count; do
	[ ! -e /proc/sys/kernel/$f ] || tar -tf "$want" | grep -qxF "tree/proc/sys/kernel/$f" ||
		live_fail "the bundle lacks tree/proc/sys/kernel/$f, which a replay reads the ring with"
done
nrec=$(grep -c '^[0-9]' "$LIVE_TMP/bkmsg")
jq -e --arg s "$want:tree/dev/kmsg" --argjson n "$nrec" '.kmsg.source == $s and (.kmsg | has("error") | not) and .kmsg.records == $n and .kmsg.not_kernel >= 1' "$LIVE_TMP/replay.json" >/dev/null ||
	live_fail "replay of $want: kmsg $(jq -c '.kmsg | {source, error, records, kernel_records, not_kernel}' "$LIVE_TMP/replay.json"), want source $want:tree/dev/kmsg and $nrec records"
mkdir "$LIVE_TMP/btree" && tar -xf "$want" -C "$LIVE_TMP/btree" tree 2>"$LIVE_TMP/tar.err" ||
	live_fail "tar -xf $want tree: $(head -c 300 "$LIVE_TMP/tar.err")"
timeout -k 1 30 "$CGWATCH" check --root "$LIVE_TMP/btree/tree" --config "$DMN_CONF" --format json >"$LIVE_TMP/dir.json" 2>/dev/null
k='.kmsg | del(.source)'
[ "$(jq -cS "$k" "$LIVE_TMP/dir.json")" = "$(jq -cS "$k" "$LIVE_TMP/replay.json")" ] ||
	live_fail "the bundle's kmsg object differs from a check of its tree: $(jq -cS "$k" "$LIVE_TMP/replay.json" | head -c 300) vs $(jq -cS "$k" "$LIVE_TMP/dir.json" | head -c 300)"
# the counts of the scan it captured, as the daemon had them
if [ "$(jq -r '.rates.source // "none"' "$LIVE_TMP/breport.json")" = perf ]; then
	key='.rates | {source, window_s, events, forks, cgroups}'
	a=$(jq -cS "$key" "$LIVE_TMP/breport.json") b=$(jq -cS "$key" "$LIVE_TMP/replay.json")
	[ "$a" = "$b" ] && jq -e '.rates.captured == true and (.rates.notes[0] | test("^counted on the host with perf over [0-9.]+ s \\(captured\\)$"))' "$LIVE_TMP/replay.json" >/dev/null ||
		live_fail "replay of $want: rates $(head -c 400 <<<"$b") $(jq -c '.rates | {captured, notes}' "$LIVE_TMP/replay.json" | head -c 200), the daemon's scan had $(head -c 400 <<<"$a")"
	RATES="the scan's perf counts"
else
	RATES="no perf here: $(jq -c '.rates.notes // []' "$LIVE_TMP/breport.json" | head -c 120)"
fi
truth=$(dmn_fcalc "$t_cap - $S_a")
dmn_fcmp "$b_cap" '>=' "$(dmn_fcalc "$truth - 1.5")" && dmn_fcmp "$b_cap" '<=' "$(dmn_fcalc "$truth + 1.5")" &&
	dmn_fcmp "$b_cap" '>=' "$DMN_CRIT" ||
	live_fail "the captured scan says pid $C_a blocked $b_cap s; at its time ($(jq -r .time "$LIVE_TMP/breport.json")) it had been blocked $truth s"

# the incident's page: <id>.html beside its reports, the escalated one's, in the bundle
page=$DMN_REPORTS/$INC.html
[ -s "$page" ] || live_fail "no page $page beside the reports: $(ls -A "$DMN_REPORTS" | tr '\n' ' ')"
tar -tf "$want" | grep -qxF "incidents/$INC.html" ||
	live_fail "the bundle has no incidents/$INC.html: $(tar -tf "$want" | grep -v '^tree/' | tr '\n' ' ')"
tar -xOf "$want" "incidents/$INC.html" >"$LIVE_TMP/bpage.html" 2>"$LIVE_TMP/tar.err" ||
	live_fail "tar -xOf $want incidents/$INC.html: $(head -c 300 "$LIVE_TMP/tar.err")"
# (the page as the bundle read it: of the escalated report or a later "updated" one)
grep -qF "<h1>cgwatch incident $INC</h1>" "$LIVE_TMP/bpage.html" &&
	grep -qE ">this report \((escalated|updated)\) \(" "$LIVE_TMP/bpage.html" ||
	live_fail "the bundle's incidents/$INC.html is not the page of its escalated report or a later one: $(grep -m1 -oE '<h1>[^<]*</h1>' "$LIVE_TMP/bpage.html"), $(grep -oE '>this report \([a-z]+\)' "$LIVE_TMP/bpage.html")"
# its task's name as text, nothing of it as markup
grep -qF "&lt;script&gt;&quot;&#39;&amp;x" "$page" ||
	live_fail "page $page: the name $NAME_A is not escaped there: $(grep -m1 -oF 'script' "$page" | head -c 200)"
grep -qi '<script' "$page" && live_fail "page $page has a script element: $(grep -m1 -oiE '<script[^>]{0,80}' "$page")"
if command -v chromium >/dev/null 2>&1 && command -v file >/dev/null 2>&1; then
	. "$LIVE_DIR/chromelib.sh"
	chrome_init "${HTML_ARTEFACTS:-$LIVE_REPO/build/test-artefacts/daemon-bundle}" nocontrol
	page_check incident "$page"
	dom=$LIVE_TMP/incident-dom.out
	for w in ">PID $C_a</text>" ">$LIVE_TMP/ma</text>" "<h1>cgwatch incident $INC</h1>" \
		">scan: opened (warning), " ">scan: escalated (critical), "; do
		grep -qF -- "$w" "$dom" || live_fail "incident page: $w is not in its DOM (artefacts in $CHROME_ART)"
	done
	grep -qF "&lt;script&gt;\"'&amp;x" "$dom" ||
		live_fail "incident page: the name is not text in the DOM: $(grep -m2 -F 'script' "$dom" | head -c 300)"
	grep -qi '<script' "$dom" && live_fail "incident page: a script element is in the DOM: $(grep -m1 -i '<script' "$dom" | head -c 300)"
	PAGE="its page loads clean in chromium"
else
	PAGE="its page not loaded: no chromium"
fi

# ---- keep = 2 over three incidents ----
stuck b cgw-bundle-b
INC_B=$(inc_of "$C_b")
escalated "$INC_B"
[ "$EB" = "$BDIR/cgwatch-bundle-$INC_B.tar.zst" ] || live_fail "second incident: CGWATCH_BUNDLE='$EB'"
stuck c cgw-bundle-c
INC_C=$(inc_of "$C_c")
escalated "$INC_C"
[ "$EB" = "$BDIR/cgwatch-bundle-$INC_C.tar.zst" ] || live_fail "third incident: CGWATCH_BUNDLE='$EB'"
_c_made() { [ -s "$EB" ]; }
live_wait_for 3 _c_made || live_fail "no bundle $EB 3 s after \"escalated\"; $(dmn_ctx 800)"
sleep 0.5
got=$(ls -A "$BDIR" | sort | tr '\n' ' ')
want_ls=$(printf '%s\n' "cgwatch-bundle-$INC_B.tar.zst" "cgwatch-bundle-$INC_C.tar.zst" \
	"cgwatch-bundle-$INC_B.tar.zst.map" "cgwatch-bundle-$INC_C.tar.zst.map" | sort | tr '\n' ' ')
[ "$got" = "$want_ls" ] || live_fail "keep = 2 after three bundles: $BDIR holds '$got', want '$want_ls'"

# ---- two incidents that escalate together: both named; in one scan, one bundle holds both ----
stuck g cgw-bundle-g
stuck h cgw-bundle-h
INC_G=$(inc_of "$C_g")
INC_H=$(inc_of "$C_h")
escalated "$INC_G"
EB_G=$EB
escalated "$INC_H"
EB_H=$EB
[ -n "$EB_G" ] && [ -n "$EB_H" ] ||
	live_fail "two incidents escalating together: bundles '$EB_G' and '$EB_H', want both named"
_gh_made() { [ -s "$EB_G" ] && [ -s "$EB_H" ]; }
live_wait_for 5 _gh_made || live_fail "no bundle $EB_G / $EB_H 5 s after \"escalated\"; $(dmn_ctx 800)"
timeout -k 1 30 "$CGWATCH" check --root "$EB_H" --config "$DMN_CONF" --format json >"$LIVE_TMP/gh.json" 2>/dev/null
causes=$(jq -r '[.findings[] | select(.id == "fuse-wait") | .cause] | sort | join(",")' "$LIVE_TMP/gh.json")
grep -q "mount $LIVE_TMP/mh" <<<"$causes" ||
	live_fail "the bundle $EB_H named by $INC_H does not hold its finding: fuse-wait causes '$causes'"
[ "$EB_G" != "$EB_H" ] || grep -q "mount $LIVE_TMP/mg" <<<"$causes" ||
	live_fail "one bundle for both, but it lacks $INC_G's finding: fuse-wait causes '$causes'"

# ---- auto = no ----
printf '[bundle]\nauto = no\n' >>"$DMN_CONF"
kill -HUP "$DPID"
sleep 1
stuck d cgw-bundle-d
INC_D=$(inc_of "$C_d")
escalated "$INC_D"
[ -z "$EB" ] || live_fail "auto = no: \"escalated\" names a bundle: '$EB'"
sleep 1
[ -z "$(ls -A "$BDIR" | grep -F "$INC_D")" ] || live_fail "auto = no: a bundle of $INC_D was made: $(ls -A "$BDIR")"

# ---- a bundle directory that does not answer ----
BMNT=$LIVE_TMP/bmnt
mkdir -p "$BMNT" || live_fail "setup: mkdir $BMNT"
live_fusehold hold "$BMNT"
sed -i -e '/^auto = no$/d' -e "s|^dir = $BDIR\$|dir = $BMNT/bundles|" "$DMN_CONF"
grep -qxF "dir = $BMNT/bundles" "$DMN_CONF" || live_fail "setup: cannot edit $DMN_CONF"
kill -HUP "$DPID"
sleep 1
for tag in e f; do
	stuck $tag cgw-bundle-$tag
	c=C_$tag s=S_$tag
	inc=$(inc_of "${!c}")
	escalated "$inc"
	b=$(jq -r '.CGWATCH_BLOCKED_SEC' <<<"$ESC")
	t=$(dmn_msg_time ".CGWATCH_INCIDENT == \"$inc\" and .CGWATCH_STATE == \"escalated\"")
	late=$(dmn_fcalc "$t - ${!s} - $DMN_CRIT")
	dmn_fcmp "$b" '<=' "$(dmn_fcalc "$DMN_CRIT + $DMN_INTERVAL + 0.5")" && dmn_fcmp "$late" '<=' 1.5 ||
		live_fail "incident $tag with the bundle dir stuck: \"escalated\" blocked_s $b, sent $late s after the task reached critical"
	[ $tag = e ] && { [ "$EB" = "$BMNT/bundles/cgwatch-bundle-$inc.tar.zst" ] || live_fail "first escalation with the stuck dir names '$EB'"; }
	[ $tag = f ] && { [ -z "$EB" ] || live_fail "escalation while the bundle dir does not answer names '$EB'"; }
done
fields() {
	dmn_notify_fields "$DPID" | awk -v a="$1" 'index($3, "STATUS=") == 1 && $1 >= a { print $1 }'
}
t0=$(live_now)
sleep 2
read -r n mx < <(fields "$t0" | awk '{ if (NR > 1) { g = $1 - p; if (g > mx) mx = g; n++ } p = $1 } END { printf "%d %.3f", n, mx }')
[ "$n" -ge 2 ] && dmn_fcmp "$mx" '<=' 0.9 ||
	live_fail "STATUS every scan while the bundle dir hangs: $n gaps in 2 s, max $mx s"
dmn_collect
c=$(grep -cF "bundle directory $BMNT/bundles does not answer" "$LIVE_TMP/log.txt")
[ "$c" = 1 ] || live_fail "\"bundle directory $BMNT/bundles does not answer\" said $c times, want once: $(tail -c 600 "$LIVE_TMP/log.txt" | tr '\n' '|')"
dmn_stop TERM 3
[ "$DMN_STOP_RC" = 0 ] && dmn_fcmp "$DMN_STOP_SEC" '<' 1.0 ||
	live_fail "SIGTERM with a bundle stuck: exit status $DMN_STOP_RC after $DMN_STOP_SEC s, want 0 within 1 s"

live_pass "$PAGE; bundle of $INC replays (blocked $b_replay s, captured $b_cap s, escalated at $b_esc s; the ring's $nrec records; $RATES); keep 2 of 3; two at once $([ "$EB_G" = "$EB_H" ] && echo "in one bundle" || echo "in two scans"); auto = no; a stuck bundle dir costs no alert"
