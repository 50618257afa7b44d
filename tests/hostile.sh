#!/usr/bin/env bash
# Hostile files and strings: what cgwatch is given by name, or reads from a host, cannot hang
# it or drive the terminal.
#  - a FIFO given as --config, or named a.conf in a signature directory: a clear "not a
#    regular file" error naming it, within a second (each command bounded by timeout 5);
#  - escape sequences in a config value, key, section and file name, in a signature file and
#    its name, in a replayed host's kernel release, host name and kernel command line (root:
#    mount namespace; text, JSON and the HTML page), and in what the daemon logs at start-up:
#    no raw control byte (C0 but newline, DEL, C1 U+0080..U+009F) on stdout or stderr, the
#    bytes shown as \xNN;
#  - a signature file saved with a UTF-8 byte order mark loads;
#  - 10,000 signature files load, each id found with its own file, and one replaced by id
#    from a later directory (correctness only: the timing is in BENCHMARKS.md).
# Prints only "PASS name", "FAIL name: why" and "SKIP name: why" lines; exits non-zero when
# anything failed. env: CGWATCH (default build/cgwatch).
set -u
cd "$(dirname "$0")/.."
REPO=$PWD
CGW=${CGWATCH:-$REPO/build/cgwatch}
unset CGWATCH_SIGNATURES_DIR
fails=0
pass() { echo "PASS hostile-$1"; }
fail() { echo "FAIL hostile-$1: $2"; fails=$((fails + 1)); }
skip() { echo "SKIP hostile-$1: $2"; }
# a file's head on one line, control bytes visible
show() { head -c "${2:-300}" "$1" | cat -v | tr '\n' '|'; }
# the control bytes a terminal would act on: C0 but newline, DEL, C1 in UTF-8
CTL='[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]'
# clean NAME FILE...: fails NAME when a file holds a raw control byte; returns 1 then
clean() {
	local name=$1 f
	shift
	for f in "$@"; do
		if LC_ALL=C grep -aqP "$CTL" "$f"; then
			fail "$name" "$(basename "$f") holds a raw control byte: $(LC_ALL=C grep -naP "$CTL" "$f" | head -3 | cat -v | tr '\n' '|')"
			return 1
		fi
	done
}
ms() { echo $(($(date +%s%N) / 1000000)); }

[ -x "$CGW" ] || { fail setup "no cgwatch binary at $CGW (make, or set CGWATCH)"; exit 1; }
T=$(mktemp -d) || { fail setup "mktemp -d failed"; exit 1; }
DPID=
trap '[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
ESC=$'\e'

# (1) a FIFO as --config: open(O_NONBLOCK), fstat, refuse; never a read that waits for a writer
mkfifo "$T/fifo.conf"
t0=$(ms)
timeout 5 "$CGW" config --check --config "$T/fifo.conf" >"$T/out" 2>"$T/err"
rc=$? t=$(($(ms) - t0))
if [ $rc = 124 ]; then
	fail config-fifo "config --check --config FIFO hung (killed after 5 s)"
elif [ $rc != 2 ] || [ $t -gt 1000 ] || ! grep -qF "$T/fifo.conf: not a regular file" "$T/err"; then
	fail config-fifo "exit $rc after $t ms, want 2 within 1 s naming the file; stderr: $(show "$T/err")"
else
	pass config-fifo
fi

# (2b) the same for hazard rules: --check names the FIFO at once; as [hazards] local the audit
# skips it with a warning and lists the good rule
mkdir "$T/hazfifo"
mkfifo "$T/hazfifo/a.conf"
printf '[hazard]\nid = b-good\nseverity = info\ntitle = B\nsummary = Fine.\nseed = none\nwhen = cpu.offline >= 0\n[remedies]\nremedy = none\n' >"$T/hazfifo/b.conf"
t0=$(ms)
timeout 5 "$CGW" hazards --check "$T/hazfifo" >"$T/out" 2>"$T/err"
rc=$? t=$(($(ms) - t0))
printf '[hazards]\nlocal = %s/hazfifo\n' "$T" >"$T/hlocal.conf"
if [ $rc = 124 ]; then
	fail hazards-fifo "hazards --check DIR with a FIFO a.conf hung (killed after 5 s)"
elif [ $rc != 2 ] || [ $t -gt 1000 ] || ! grep -qF "$T/hazfifo/a.conf: not a regular file" "$T/err"; then
	fail hazards-fifo "exit $rc after $t ms, want 2 within 1 s naming a.conf; stderr: $(show "$T/err")"
elif ! timeout 5 "$CGW" hazards --config "$T/hlocal.conf" >"$T/out" 2>"$T/err" ||
     ! grep -q '^b-good ' "$T/out" || ! grep -qF "a.conf: not a regular file" "$T/err"; then
	fail hazards-fifo "as [hazards] local: stdout: $(show "$T/out") stderr: $(show "$T/err")"
else
	pass hazards-fifo
fi

# (2) a FIFO named a.conf in a signature directory: that file is an error, the rest loads
mkdir "$T/sigfifo"
mkfifo "$T/sigfifo/a.conf"
printf '[signature]\nid = b-good\nseverity = warning\ntitle = B\nsummary = Fine.\n[match]\nframe = b_wait\n' >"$T/sigfifo/b.conf"
t0=$(ms)
timeout 5 "$CGW" signatures --check "$T/sigfifo" >"$T/out" 2>"$T/err"
rc=$? t=$(($(ms) - t0))
if [ $rc = 124 ]; then
	fail signatures-fifo "signatures --check DIR with a FIFO a.conf hung (killed after 5 s)"
elif [ $rc != 2 ] || [ $t -gt 1000 ] || ! grep -qF "$T/sigfifo/a.conf: not a regular file" "$T/err"; then
	fail signatures-fifo "exit $rc after $t ms, want 2 within 1 s naming a.conf; stderr: $(show "$T/err")"
else
	# the same directory as [signatures] local: skipped with a warning, b-good loaded
	printf '[signatures]\nlocal = %s/sigfifo\n' "$T" >"$T/local.conf"
	t0=$(ms)
	timeout 5 "$CGW" signatures --config "$T/local.conf" >"$T/out" 2>"$T/err"
	rc=$? t=$(($(ms) - t0))
	if [ $rc != 0 ] || [ $t -gt 1000 ] || ! grep -q '^b-good ' "$T/out" ||
	   ! grep -qF "a.conf: not a regular file" "$T/err"; then
		fail signatures-fifo "as [signatures] local: exit $rc after $t ms; stdout: $(show "$T/out") stderr: $(show "$T/err")"
	else
		pass signatures-fifo
	fi
fi

# (3) escape sequences in a config file and its name: errors with \xNN, no raw byte
C="$T/c${ESC}[31m.conf"
printf '[scan]\ninterval = 5\e[31m\n[run]\nstate_dir = /var/lib/x\e]0;owned\a\nmetrics_file = rel\xc2\x9b2J\n[ev\eil]\nk\e[1m = v\n' >"$C"
timeout 5 "$CGW" config --check --config "$C" >"$T/out" 2>"$T/err"
rc=$?
if clean config-escapes "$T/out" "$T/err"; then
	n=$(grep -c 'control character \\x1b: a line holds text and tabs only' "$T/err")
	if [ $rc != 2 ] || [ "$n" != 4 ] || ! grep -qF 'c\x1b[31m.conf:5: control character \xc2\x9b' "$T/err"; then
		fail config-escapes "exit $rc, $n ESC lines (want 2, 4 and the C1 one); stderr: $(show "$T/err" 600)"
	else
		pass config-escapes
	fi
fi

# (4) signature files: an escape in a value and in a file name; a listing of a file so named
mkdir "$T/sigesc" "$T/signame"
printf '[signature]\nid = esc-title\nseverity = warning\ntitle = Red \e[31mtitle\nsummary = s\n[match]\nframe = f\n' >"$T/sigesc/a.conf"
printf '[signature]\nid = bad\nseverity = urgent\e[2J\ntitle = t\nsummary = s\n[match]\nframe = f\n' >"$T/sigesc/b${ESC}]0;t$(printf '\a').conf"
printf '[signature]\nid = named\nseverity = warning\ntitle = Named\nsummary = s\n[match]\nframe = f\n' >"$T/signame/n${ESC}[5m.conf"
timeout 5 "$CGW" signatures --check "$T/sigesc" >"$T/out" 2>"$T/err"
rc=$?
printf '[signatures]\nlocal = %s/signame\n' "$T" >"$T/named.conf"
timeout 5 "$CGW" signatures --config "$T/named.conf" >"$T/out2" 2>"$T/err2"
rc2=$?
if clean signature-escapes "$T/out" "$T/err" "$T/out2" "$T/err2"; then
	if [ $rc != 2 ] || ! grep -qF 'a.conf:4: control character \x1b' "$T/err" ||
	   ! grep -qF 'b\x1b]0;t\x07.conf:3: control character \x1b' "$T/err"; then
		fail signature-escapes "--check: exit $rc; stderr: $(show "$T/err" 600)"
	elif [ $rc2 != 0 ] || ! grep -qF "(${T}/signame/n\\x1b[5m.conf)" "$T/out2"; then
		fail signature-escapes "listing: exit $rc2; stdout: $(grep named "$T/out2" | cat -v) stderr: $(show "$T/err2")"
	else
		pass signature-escapes
	fi
fi

# (5) a signature file saved with a UTF-8 byte order mark
mkdir "$T/sigbom"
printf '\xef\xbb\xbf[signature]\nid = bom\nseverity = warning\ntitle = Saved by an editor that writes a BOM\nsummary = s\n[match]\nframe = f\n' >"$T/sigbom/bom.conf"
out=$(timeout 5 "$CGW" signatures --check "$T/sigbom" 2>&1)
rc=$?
[ $rc = 0 ] && [ "$out" = "$T/sigbom: 1 signatures OK" ] && pass signature-bom ||
	fail signature-bom "exit $rc: $out"

# (6) the daemon's start-up log: a config with an escape sequence is refused (exit 2) with
# the byte escaped; a good config whose local signature directory holds a FIFO and a bad
# file named with an escape starts, logs both escaped, and stops on SIGTERM with exit 0.
# No incident can open (thresholds of a day): nothing reaches this host's journal.
daemon_conf() {
	printf '[scan]\ninterval = 0.5\n[thresholds]\nblocked_warning = 86400\nblocked_critical = 86400\nstarved = 86400\n'
	printf '[run]\nstate_dir = %s/state\nlock_memory = no\npin_housekeeping = no\nnice = 0\n' "$T"
	printf '[reports]\ndir = %s/reports\n[signatures]\nlocal = %s/sigd\n' "$T" "$T"
}
if [ "$(id -u)" != 0 ]; then
	skip daemon-log "needs root (the daemon reads every task's files)"
else
	mkdir "$T/sigd"
	mkfifo "$T/sigd/a.conf"
	cp "$T/sigesc/b${ESC}]0;t$(printf '\a').conf" "$T/sigd/"
	{ daemon_conf; printf '[incidents]\nupdate_interval = 300\e[1m\n'; } >"$T/dbad.conf"
	timeout 5 "$CGW" run --config "$T/dbad.conf" >"$T/dout" 2>"$T/derr"
	rc=$?
	daemon_conf >"$T/dgood.conf"
	"$CGW" run --config "$T/dgood.conf" >"$T/dout2" 2>"$T/derr2" &
	DPID=$!
	up() { grep -q 'errors, those files skipped' "$T/derr2"; }
	for _ in $(seq 50); do up && break; sleep 0.1; done
	sleep 0.5
	kill -TERM "$DPID" 2>/dev/null
	for _ in $(seq 30); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$DPID" 2>/dev/null; then
		fail daemon-log "the daemon did not stop within 3 s of SIGTERM"
	else
		wait "$DPID"
		rc2=$?
		DPID=
		if clean daemon-log "$T/dout" "$T/derr" "$T/dout2" "$T/derr2"; then
			if [ $rc != 2 ] || ! grep -qF 'dbad.conf:17: control character \x1b' "$T/derr"; then
				fail daemon-log "bad config: exit $rc; stderr: $(show "$T/derr" 600)"
			elif [ $rc2 != 0 ] || ! grep -qF 'sigd/a.conf: not a regular file' "$T/derr2" ||
			     ! grep -qF 'b\x1b]0;t\x07.conf:3: control character \x1b' "$T/derr2"; then
				fail daemon-log "good config: exit $rc2; stderr: $(show "$T/derr2" 600)"
			else
				pass daemon-log
			fi
		fi
	fi
fi

# (7) a replayed host whose kernel release, host name and command line hold escape sequences
# (needs root: the replay's mount namespace)
if [ "$(id -u)" != 0 ]; then
	skip replay-escapes "needs root for the mount namespace of --root"
else
	cp -a tests/fixtures/unreadable-stack "$T/tree"
	printf '6.18.44\e[31m-evil\e]0;title\a\n' >"$T/tree/proc/sys/kernel/osrelease"
	printf 'web\e[2J\xc2\x9b1m\n' >"$T/tree/proc/sys/kernel/hostname"
	printf 'BOOT_IMAGE=/vmlinuz nohz_full=1\e[1m isolcpus=\e[5m3 rcu_nocbs=x\x9by irqaffinity=\ec\n' >"$T/tree/proc/cmdline"
	bad=0
	for fmt in text json html; do
		timeout 30 "$CGW" check --root "$T/tree" --format $fmt >"$T/r.$fmt" 2>"$T/r.$fmt.err"
		rc=$?
		[ $rc = 1 ] || { fail replay-escapes "--format $fmt: exit $rc, want 1; stderr: $(show "$T/r.$fmt.err")"; bad=1; break; }
		clean replay-escapes "$T/r.$fmt" "$T/r.$fmt.err" || { bad=1; break; }
	done
	if [ $bad = 0 ]; then
		if ! grep -qF 'cgwatch check on web\x1b[2J\xc2\x9b1m (kernel 6.18.44\x1b[31m-evil\x1b]0;title\x07)' "$T/r.text"; then
			fail replay-escapes "text header: $(show "$T/r.text" 200)"
		elif ! grep -qF 'nohz_full=1\x1b[1m not understood' "$T/r.text.err" ||
		     ! grep -qF 'isolcpus=\x1b[5m3 not understood' "$T/r.text.err" ||
		     ! grep -qF 'rcu_nocbs=x\x9by not understood' "$T/r.text.err"; then
			fail replay-escapes "/proc/cmdline warnings: $(show "$T/r.text.err" 600)"
		elif [ "$(jq -r .kernel "$T/r.json")" != $'6.18.44\e[31m-evil\e]0;title\a' ]; then
			fail replay-escapes "JSON .kernel is not the real string: $(jq -c .kernel "$T/r.json")"
		elif ! grep -qF '<h1>cgwatch check of web\x1b[2J\xc2\x9b1m</h1>' "$T/r.html" ||
		     ! grep -qF 'Kernel 6.18.44\x1b[31m-evil\x1b]0;title\x07;' "$T/r.html"; then
			fail replay-escapes "html header: $(grep -a -m2 -E '<h1>|Kernel ' "$T/r.html" | cat -v)"
		else
			pass replay-escapes
		fi
	fi
fi

# (8) 10,000 signature files: every id loads with its own file; a later directory replaces one
mkdir "$T/many" "$T/later"
for i in $(seq -w 1 10000); do
	printf '[signature]\nid = s%s\nseverity = warning\npriority = %d\ntitle = Title %s\nsummary = S.\n[match]\nframe = f%s_wait\n' \
		"$i" $((10#$i % 1000)) "$i" "$i" >"$T/many/s$i.conf"
done
printf '[signature]\nid = s05000\nseverity = critical\ntitle = Replaced\nsummary = S.\n[match]\nframe = other_wait\n' >"$T/later/s05000.conf"
out=$(timeout 60 "$CGW" signatures --check "$T/many" 2>&1)
rc=$?
printf '[signatures]\nshipped = %s/many\nlocal = %s/later\n' "$T" "$T" >"$T/many.conf"
timeout 60 "$CGW" signatures --config "$T/many.conf" >"$T/list" 2>"$T/list.err"
rc2=$?
# each sNNNNN line names Title NNNNN and file sNNNNN.conf, but s05000: the later one
wrong=$(awk -v d="$T/many" '$1 ~ /^s[0-9]+$/ { n++; id = substr($1, 2)
	if (id == "05000") { if ($0 !~ /critical .*Replaced \(.*later\/s05000.conf, replacing .*many\/s05000.conf\)$/) print; next }
	if ($0 !~ ("Title " id " \\(" d "/s" id ".conf\\)$")) print }
	END { if (n != 10000) print "lines: " n }' "$T/list" | head -3)
show_ok=$(timeout 60 "$CGW" signatures --config "$T/many.conf" --show s07777 2>&1 | grep -c '^id = s07777$')
if [ $rc != 0 ] || [ "$out" != "$T/many: 10000 signatures OK" ]; then
	fail signatures-10000 "--check: exit $rc: $(head -c 300 <<<"$out")"
elif [ $rc2 != 0 ] || [ -n "$wrong" ]; then
	fail signatures-10000 "listing: exit $rc2; wrong: $wrong; stderr: $(show "$T/list.err")"
elif [ "$show_ok" != 1 ]; then
	fail signatures-10000 "--show s07777 did not print s07777's file"
else
	pass signatures-10000
fi

exit $((fails > 0))
