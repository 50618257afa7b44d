#!/usr/bin/env bash
# A fresh copy of the sources, built with plain `make`, does its job from the build tree with
# an empty environment (no CGWATCH_SIGNATURES_DIR, nothing installed):
#   fresh-build  make in a new directory succeeds
#   fresh-no-clang-14, fresh-no-bpftool  make without the one or the other stops and names
#                the Debian package to install
#   fresh-check  `env -i build/cgwatch check` exits 0 or 1 and prints a report
#   fresh-run    `env -i build/cgwatch run --config cgwatch.conf` scans once and exits 0 on
#                SIGTERM. The shipped cgwatch.conf keeps state in /var/lib/cgwatch and reports
#                in /var/log/cgwatch, so the daemon runs in a private mount namespace with
#                tmpfs over /var/lib, /var/log, /run and /sys/kernel/tracing: whatever it
#                writes goes with it (its flight recorder finds no tracefs and says so), and
#                it sends nothing to the host's journal (root only; SKIP otherwise).
# usage: tests/fresh-build.sh [SOURCE_DIR]   (default: this checkout, uncommitted files too)
# Prints only "PASS name", "FAIL name: why" and "SKIP name: why" lines; exits non-zero when
# anything failed. Bounded: build 600 s, check 60 s, run 60 s; everything made is removed.
set -u
cd "$(dirname "$0")/.." || exit 1
SRC=$(cd "${1:-.}" && pwd) || { echo "FAIL fresh-build: no source directory ${1:-}"; exit 1; }
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
skip() { echo "SKIP $1: $2"; }
oneline() { tr '\n' ' ' | sed 's/  */ /g; s/ $//' | cut -c1-400; }

T=$(mktemp -d /tmp/cgwatch-fresh.XXXXXX) || { fail fresh-build "mktemp -d failed"; exit 1; }
DPID=
cleanup() {
	if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then
		kill -KILL "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the copy: tracked and new files as they are now (a git checkout), else everything but build/
mkdir "$T/src"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -C "$T/src" -xf -
else
	tar -C "$SRC" --exclude=./build -cf - . | tar -C "$T/src" -xf -
fi
if [ ! -f "$T/src/Makefile" ]; then
	fail fresh-build "copying $SRC to $T/src failed"
	exit 1
fi

if ! out=$(cd "$T/src" && timeout 600 make -s -j2 2>&1) || [ ! -x "$T/src/build/cgwatch" ]; then
	fail fresh-build "make in a copy of $SRC failed: $(tail -3 <<<"$out" | oneline)"
	exit 1
fi
pass fresh-build
cd "$T/src" || exit 1

# without clang or bpftool, make stops before the task iterator and names the package: in a
# copy of the build above without the iterator's files (the rest up to date, not built again)
for tool in BPF_CLANG:clang-14 BPFTOOL:bpftool; do
	nb="$T/nobpf-${tool%%:*}"
	cp -a build "$nb" && rm -f "$nb"/gen/taskiter.* "$nb"/gen/taskwalk.* "$nb"/obj/source-bpf.o "$nb"/cgwatch
	out=$(timeout 120 make -s BUILD="$nb" "${tool%%:*}=/nonexistent/${tool#*:}" 2>&1)
	rc=$?
	if [ $rc = 0 ] || [ -x "$T/nobpf-${tool%%:*}/cgwatch" ]; then
		fail "fresh-no-${tool#*:}" "make with ${tool%%:*}=/nonexistent/${tool#*:} succeeded"
	elif ! grep -q "install the Debian package ${tool#*:}" <<<"$out"; then
		fail "fresh-no-${tool#*:}" "make failed without naming the package: $(tail -2 <<<"$out" | oneline)"
	else
		pass "fresh-no-${tool#*:}"
	fi
done

# check: 0 nothing found, 1 findings; 2 (no signature library, bad config) or 3 is a failure
timeout 60 env -i build/cgwatch check >"$T/check.out" 2>"$T/check.err"
rc=$?
if [ $rc -gt 1 ]; then
	fail fresh-check "env -i build/cgwatch check: exit $rc: $(oneline <"$T/check.err")"
elif ! grep -q '^summary: ' "$T/check.out"; then
	fail fresh-check "exit $rc but no report on stdout: $(head -3 "$T/check.out" | oneline)"
else
	pass fresh-check
fi

# run: the first scan ends with the daemon pinning itself ("running on the housekeeping CPUs"
# or "cannot pin ..."); then SIGTERM, and exit 0
if [ "$(id -u)" != 0 ]; then
	skip fresh-run "not root: the daemon needs a private mount namespace for /var and /run"
elif ! command -v unshare >/dev/null; then
	skip fresh-run "no unshare (util-linux)"
else
	before=$(ls -d /var/lib/cgwatch /var/log/cgwatch /sys/kernel/tracing/instances/cgwatch 2>/dev/null)
	# shellcheck disable=SC2016 # the inner shell expands $d
	# (tracefs too: the shipped config starts the flight recorder, whose instance would be the
	# host's, instances/cgwatch, which a cgwatch.service running here owns)
	unshare --mount --propagation private -- sh -c '
		for d in /var/lib /var/log /run /sys/kernel/tracing; do
			[ -d "$d" ] && { mount -t tmpfs -o mode=755 cgwatch-fresh "$d" || exit 97; }
		done
		exec env -i build/cgwatch run --config cgwatch.conf' >"$T/run.out" 2>"$T/run.err" &
	DPID=$!
	why=
	for _ in $(seq 300); do          # 30 s for start-up and the first scan
		grep -qE 'running on the housekeeping CPUs|cannot pin to the housekeeping' "$T/run.err" && break
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "$DPID" 2>/dev/null; then
		wait "$DPID"
		why="exited $? before its first scan was done: $(oneline <"$T/run.err")"
	elif ! grep -qE 'running on the housekeeping CPUs|cannot pin to the housekeeping' "$T/run.err"; then
		why="no first scan within 30 s: $(oneline <"$T/run.err")"
	else
		kill -TERM "$DPID"
		for _ in $(seq 50); do       # it stops within a second; 5 s of slack under load
			kill -0 "$DPID" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$DPID" 2>/dev/null; then
			why="still running 5 s after SIGTERM"
		else
			wait "$DPID"
			rc=$?
			[ $rc = 0 ] || why="exit $rc after SIGTERM: $(oneline <"$T/run.err")"
		fi
	fi
	DPID=
	after=$(ls -d /var/lib/cgwatch /var/log/cgwatch /sys/kernel/tracing/instances/cgwatch 2>/dev/null)
	[ "$before" = "$after" ] || why="${why:+$why; }left on the host: $after"
	if [ -n "$why" ]; then
		fail fresh-run "env -i build/cgwatch run --config cgwatch.conf: $why"
	else
		pass fresh-run
	fi
fi

[ $fails = 0 ]
