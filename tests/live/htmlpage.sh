#!/bin/bash
# live-htmlpage: the incident page (`cgwatch check --format html`) in a real headless Chromium:
# the seed 004 fixture's page and the page of a live FUSE incident whose blocked task is named
# <script>"'&x. Each page loads with no console error and no Content-Security-Policy
# violation (a control page with an inline script shows that such a violation would be seen);
# the chain's nodes and the starved CPUs are in the dumped DOM; the hostile name is text there
# and no script element exists. Screenshots and the pages are kept as test artefacts in
# build/test-artefacts/htmlpage/ (HTML_ARTEFACTS overrides). SKIP when chromium is missing.
LIVE_BUDGET=${LIVE_BUDGET:-70}
. "$(dirname "$0")/lib.sh"
live_init htmlpage
command -v chromium >/dev/null 2>&1 ||
	live_skip "chromium is not installed (Debian package chromium; make deps installs it)"
live_require_root
live_require_fuse
live_require_tools jq timeout python3 setsid file
live_require_helpers fusehold
live_require_binary
live_mktemp
ART=${HTML_ARTEFACTS:-$LIVE_REPO/build/test-artefacts/htmlpage}
mkdir -p "$ART" || live_fail "setup: mkdir $ART"
rm -f "$ART"/*.png "$ART"/*.html "$ART"/*.dom "$ART"/*.log

# chromium NAME ARGS...: headless Chromium in a process group of its own, with its profile in
# the temp dir, bounded to 25 s; its stdout in $LIVE_TMP/NAME.out, its log in NAME.log. The
# group is killed when it is done, and at exit whatever happens.
chromium_run() {
	local name=$1 pid i=0
	shift
	setsid chromium --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
		--disable-background-networking --disable-sync --disable-default-apps \
		--user-data-dir="$LIVE_TMP/profile-$name" --enable-logging=stderr --v=0 \
		"$@" >"$LIVE_TMP/$name.out" 2>"$LIVE_TMP/$name.log" 3>&- </dev/null &
	pid=$!
	live_on_exit "kill -KILL -- -$pid 2>/dev/null; true"
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -gt 125 ]; then
			kill -KILL -- -"$pid" 2>/dev/null
			live_fail "chromium $name did not finish within 25 s: $(tail -c 300 "$LIVE_TMP/$name.log")"
		fi
		sleep 0.2
	done
	wait "$pid"
	CHROME_RC=$?
	kill -KILL -- -"$pid" 2>/dev/null
	cp "$LIVE_TMP/$name.log" "$ART/$name.log" 2>/dev/null
	return 0
}

# What the console said that is an error: a policy violation, an uncaught exception, a
# console error, a resource that failed to load.
console_errors() {
	grep -aE 'CONSOLE|Content.Security.Policy|Refused to|Uncaught|Failed to load' "$1" | head -3
}

# page_check NAME PAGE: load PAGE (dump its DOM, take a screenshot) and check the console.
page_check() {
	local name=$1 page=$2 err
	cp "$page" "$ART/$name.html"
	chromium_run "$name-dom" --dump-dom "file://$page"
	[ "$CHROME_RC" = 0 ] || live_fail "chromium --dump-dom $name exited $CHROME_RC: $(tail -c 300 "$LIVE_TMP/$name-dom.log")"
	cp "$LIVE_TMP/$name-dom.out" "$ART/$name.dom"
	grep -q '<div class="verdict' "$LIVE_TMP/$name-dom.out" ||
		live_fail "$name: the dumped DOM has no verdict: $(head -c 300 "$LIVE_TMP/$name-dom.out")"
	chromium_run "$name-shot" --screenshot="$ART/$name.png" --window-size=1280,1600 \
		--hide-scrollbars "file://$page"
	[ "$CHROME_RC" = 0 ] || live_fail "chromium --screenshot $name exited $CHROME_RC: $(tail -c 300 "$LIVE_TMP/$name-shot.log")"
	file "$ART/$name.png" | grep -q 'PNG image data, 1280 x 1600' ||
		live_fail "$name: no screenshot: $(file "$ART/$name.png")"
	for l in "$name-dom" "$name-shot"; do
		err=$(console_errors "$LIVE_TMP/$l.log")
		[ -z "$err" ] || live_fail "$name: the console says: $err"
	done
}

# The control: a page whose policy forbids the inline script it holds. Its violation must show
# in the log, or a clean log proves nothing.
cat >"$LIVE_TMP/control.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'none'">
<title>control</title></head><body><p>control</p>
<script>document.body.textContent = "ran";</script></body></html>
EOF
chromium_run control --dump-dom "file://$LIVE_TMP/control.html"
[ -n "$(console_errors "$LIVE_TMP/control.log")" ] ||
	live_fail "control: an inline script under script-src 'none' left no trace in the log: console errors would go unseen ($(tail -c 300 "$LIVE_TMP/control.log"))"
grep -q '>ran<' "$LIVE_TMP/control.out" && live_fail "control: the forbidden script ran"

# ---- the seed 004 fixture's page ----
python3 "$LIVE_REPO/tests/fixtures/mkfixtures.py" --out "$LIVE_TMP/gen" seed004-64cpus \
	>"$LIVE_TMP/gen.out" 2>&1 || live_fail "setup: mkfixtures seed004-64cpus: $(tail -c 300 "$LIVE_TMP/gen.out")"
live_cgwatch "$LIVE_TMP/seed004.html" "$LIVE_TMP/seed004.err" check \
	--root "$LIVE_TMP/gen/seed004-64cpus" --format html
[ "$CG_RC" = 1 ] || live_fail "seed 004: check --format html exited $CG_RC: $(head -c 300 "$LIVE_TMP/seed004.err")"
page_check seed004 "$LIVE_TMP/seed004.html"
dom=$LIVE_TMP/seed004-dom.out
for want in '>PID 1</text>' '>systemd</text>' '>PID 1765</text>' \
	'>kworker/u256:1+cpuset_migrate_mm</text>' '>CPUs 4-31,36-63</text>' \
	'>56 starved tasks</text>' '>PIDs 5031-5086</text>' '>56x repro_worker</text>'; do
	grep -qF -- "$want" "$dom" || live_fail "seed 004: the chain's $want is not in the DOM"
done
[ "$(grep -c '<g class="chain-node">' "$dom")" = 4 ] ||
	live_fail "seed 004: $(grep -c '<g class="chain-node">' "$dom") chain nodes in the DOM, want 4"
starved=$(grep -oE '<div class="cpu[a-z ]* starved" id="cpu[0-9]+"' "$dom" | grep -oE '[0-9]+"$' | tr -d '"' | sort -n | tr '\n' ',')
want=$(printf '%s,' $(seq 4 31) $(seq 36 63))
[ "$starved" = "$want" ] || live_fail "seed 004: starved CPUs in the DOM: $starved, want $want"
grep -qE 'id="cpu4" [^>]*><b>4</b><span class="pid">5031</span>' "$dom" ||
	live_fail "seed 004: CPU 4 does not show its spinner's PID 5031: $(grep -m1 'id="cpu4"' "$dom")"

# ---- a live FUSE incident, its task named to break the page ----
NAME="<script>\"'&x"
live_fuse_child "$NAME"
sleep 2
live_cgwatch "$LIVE_TMP/fuse.html" "$LIVE_TMP/fuse.err" check --format html --threshold 1
[ "$CG_RC" = 1 ] || live_fail "fuse: check --format html exited $CG_RC: $(head -c 300 "$LIVE_TMP/fuse.err")"
page_check fuse "$LIVE_TMP/fuse.html"
dom=$LIVE_TMP/fuse-dom.out
grep -qF ">PID $CHILD</text>" "$dom" || live_fail "fuse: the chain has no node PID $CHILD"
grep -qF "&lt;script&gt;\"'&amp;x" "$dom" ||
	live_fail "fuse: the name is not text in the DOM: $(grep -m2 -F 'script' "$dom" | head -c 300)"
grep -qi '<script' "$dom" && live_fail "fuse: a script element is in the DOM: $(grep -m1 -i '<script' "$dom" | head -c 300)"
grep -qF 'fuse-wait' "$dom" || live_fail "fuse: no fuse-wait finding on the page"
# a blocked task starves no CPU: its chain ends at the mount it waits on, no CPU is marked
grep -qF ">$MNT</text>" "$dom" || live_fail "fuse: the chain does not end at the mount $MNT"
grep -qE 'class="node (cpus|spin)"|<div class="cpu[a-z ]* starved"' "$dom" &&
	live_fail "fuse: CPUs marked starved: $(grep -m1 -oE 'class="node (cpus|spin)"[^/]*|class="cpu[a-z ]* starved"[^>]*' "$dom")"

live_pass "screenshots in $ART"
