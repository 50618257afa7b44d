# Shared by the scenarios that load a cgwatch page in a real headless Chromium (sourced after
# lib.sh, after live_mktemp): tests/live/htmlpage.sh, tests/daemon/bundle.sh.
#
# chrome_init DIR [nocontrol]: the artefacts (pages, dumped DOMs, screenshots, Chromium's
# logs) go to DIR, made here (its old pages, DOMs, screenshots and logs removed); then the
# control (but with nocontrol: a scenario short of time whose page htmlpage's control covers):
# a page whose policy forbids the inline script it holds must leave its violation in
# Chromium's log, or a clean log would prove nothing. Needs chromium (the caller SKIPs
# without it).
chrome_init() {
	CHROME_ART=$1
	mkdir -p "$CHROME_ART" || live_fail "setup: mkdir $CHROME_ART"
	rm -f "$CHROME_ART"/*.png "$CHROME_ART"/*.html "$CHROME_ART"/*.dom "$CHROME_ART"/*.log
	[ "${2:-}" = nocontrol ] && return 0
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
	return 0
}

# chromium_run NAME ARGS...: headless Chromium in a process group of its own, with its profile
# in the temp dir, bounded to 40 s; its stdout in $LIVE_TMP/NAME.out, its log in NAME.log (and
# a copy in the artefacts). A run past its bound is killed and tried once more (on a host
# loaded by others, Chromium's start has taken longer than 25 s); the group is killed when it is
# done, and at exit whatever happens. Sets CHROME_RC.
chromium_run() {
	local name=$1 pid i try
	shift
	for try in 1 2; do
		setsid chromium --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
			--disable-background-networking --disable-sync --disable-default-apps \
			--user-data-dir="$LIVE_TMP/profile-$name-$try" --enable-logging=stderr --v=0 \
			"$@" >"$LIVE_TMP/$name.out" 2>"$LIVE_TMP/$name.log" 3>&- </dev/null &
		pid=$!
		live_on_exit "kill -KILL -- -$pid 2>/dev/null; true"
		i=0
		while kill -0 "$pid" 2>/dev/null && [ "$i" -le 200 ]; do
			i=$((i + 1))
			sleep 0.2
		done
		kill -0 "$pid" 2>/dev/null || break
		kill -KILL -- -"$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		[ "$try" = 2 ] && live_fail "chromium $name did not finish within 40 s, twice: $(tail -c 300 "$LIVE_TMP/$name.log")"
		echo "chromium $name did not finish within 40 s: tried again" >&2
	done
	wait "$pid"
	CHROME_RC=$?
	kill -KILL -- -"$pid" 2>/dev/null
	cp "$LIVE_TMP/$name.log" "$CHROME_ART/$name.log" 2>/dev/null
	return 0
}

# console_errors LOG: what the console said that is an error: a policy violation, an uncaught
# exception, a console error, a resource that failed to load.
console_errors() {
	grep -aE 'CONSOLE|Content.Security.Policy|Refused to|Uncaught|Failed to load' "$1" | head -3
}

# page_check NAME PAGE: load PAGE (dump its DOM into $LIVE_TMP/NAME-dom.out, take a
# screenshot) and check the console; the page, its DOM and the screenshot are kept as
# artefacts. The DOM must hold the verdict.
page_check() {
	local name=$1 page=$2 err
	cp "$page" "$CHROME_ART/$name.html"
	chromium_run "$name-dom" --dump-dom "file://$page"
	[ "$CHROME_RC" = 0 ] || live_fail "chromium --dump-dom $name exited $CHROME_RC: $(tail -c 300 "$LIVE_TMP/$name-dom.log")"
	cp "$LIVE_TMP/$name-dom.out" "$CHROME_ART/$name.dom"
	grep -q '<div class="verdict' "$LIVE_TMP/$name-dom.out" ||
		live_fail "$name: the dumped DOM has no verdict: $(head -c 300 "$LIVE_TMP/$name-dom.out")"
	chromium_run "$name-shot" --screenshot="$CHROME_ART/$name.png" --window-size=1280,1600 \
		--hide-scrollbars "file://$page"
	[ "$CHROME_RC" = 0 ] || live_fail "chromium --screenshot $name exited $CHROME_RC: $(tail -c 300 "$LIVE_TMP/$name-shot.log")"
	file "$CHROME_ART/$name.png" | grep -q 'PNG image data, 1280 x 1600' ||
		live_fail "$name: no screenshot: $(file "$CHROME_ART/$name.png")"
	for l in "$name-dom" "$name-shot"; do
		err=$(console_errors "$LIVE_TMP/$l.log")
		[ -z "$err" ] || live_fail "$name: the console says: $err"
	done
}
