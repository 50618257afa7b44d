#!/bin/bash
# live-htmlpage: the incident page (`cgwatch check --format html`) in a real headless Chromium:
# the seed 004 fixture's page and the page of a live FUSE incident whose blocked task is named
# <script>"'&x. Each page loads with no console error and no Content-Security-Policy
# violation (a control page with an inline script shows that such a violation would be seen);
# the chain's nodes and the starved CPUs are in the dumped DOM; the hostile name is text there
# and no script element exists. The pressure fixture's page, one of its cgroups named
# session-<script>"'&x.scope: each resource's row (io crossed, with why) and the findings'
# cgroups' pressure are in the DOM, that name as text. Screenshots and the pages are kept as test artefacts in
# build/test-artefacts/htmlpage/ (HTML_ARTEFACTS overrides). SKIP when chromium is missing.
LIVE_BUDGET=${LIVE_BUDGET:-150}
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
. "$(dirname "$0")/chromelib.sh"
chrome_init "${HTML_ARTEFACTS:-$LIVE_REPO/build/test-artefacts/htmlpage}"

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

# ---- the pressure fixture's page, a cgroup named to break it ----
# (tests/fixtures/pressure copied, its session-3.scope renamed session-<script>"'&x.scope in
# the tasks' cgroup files and under sys/fs/cgroup)
cp -a "$LIVE_REPO/tests/fixtures/pressure" "$LIVE_TMP/psi" || live_fail "setup: copy the pressure fixture"
python3 - "$LIVE_TMP/psi" <<'PY' || live_fail "setup: rename the fixture's cgroup"
import glob, os, sys
root, old, new = sys.argv[1], 'session-3.scope', 'session-<script>"\'&x.scope'
for f in glob.glob(root + '/proc/*/cgroup') + glob.glob(root + '/proc/*/task/*/cgroup'):
    t = open(f).read()
    if old in t:
        open(f, 'w').write(t.replace(old, new))
d = root + '/sys/fs/cgroup/user.slice/user-1000.slice/'
os.rename(d + old, d + new)
PY
live_cgwatch "$LIVE_TMP/psi.html" "$LIVE_TMP/psi.err" check --root "$LIVE_TMP/psi" --format html
[ "$CG_RC" = 1 ] || live_fail "pressure: check --format html exited $CG_RC: $(head -c 300 "$LIVE_TMP/psi.err")"
page_check pressure "$LIVE_TMP/psi.html"
dom=$LIVE_TMP/pressure-dom.out
for want in '<tr id="pressure-cpu"><td>cpu</td><td>62.37 %</td><td>41.02 %</td>' \
	'<tr id="pressure-io" class="crossed"><td>io</td><td>31.20 %</td>' \
	'<td>yes: io full avg10 28 % (threshold 500 ms in 2 s, 25 %)</td>' \
	'<tr><td><code>/system.slice/postgresql.service</code></td><td>some 2.01 %, full 1.00 %</td>' \
	"<tr><td><code>/user.slice/user-1000.slice/session-&lt;script&gt;\"'&amp;x.scope</code></td><td>some 42.17 %"; do
	grep -qF -- "$want" "$dom" || live_fail "pressure: $want is not in the DOM: $(grep -m3 -E 'pressure-|<code>/' "$dom" | head -c 600)"
done
grep -qi '<script' "$dom" && live_fail "pressure: a script element is in the DOM: $(grep -m1 -i '<script' "$dom" | head -c 300)"
grep -qE '<tr id="pressure-(cpu|memory)" class="crossed"' "$dom" && live_fail "pressure: cpu or memory marked crossed"

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

live_pass "screenshots in $CHROME_ART"
