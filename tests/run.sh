#!/usr/bin/env bash
# The whole test suite: unit tests (cmocka, under valgrind and with ASan+UBSan), config and
# signature golden files, fixture replays (with the AddressSanitizer build), bundles of them,
# a short run of every fuzz harness, a VM of a Debian kernel with the latency tracers, and
# live tests on the real kernel (root).
# Every part prints "PASS name", "FAIL name: why" or "SKIP name: why" lines; the last line is
# the summary "N passed, N failed, N skipped". Exit status is non-zero when anything failed.
set -u
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD=${BUILD:-build}
CGW=$REPO/$BUILD/cgwatch
ASAN=$REPO/$BUILD/asan/cgwatch
# the binaries' built-in signature library, not a directory from the environment
unset CGWATCH_SIGNATURES_DIR
pass=0 fail=0 skip=0
SECONDS=0 t_sec=0
SUITE_TIMES=$(mktemp)             # live and daemon scenarios' wall times (scenarios.sh)
export SUITE_TIMES
SUITE_DEB=$(mktemp -d)            # the package the packaging section built, for the systemd one
SUITE_PROOFS=$(mktemp)            # the scan and latency paths proven, and where (tests/proofs.sh)
export SUITE_PROOFS
. tests/proofs.sh
# "== name" starts a section; the previous one's wall time is printed when the next starts
section() {
	[ -n "${t_name:-}" ] && echo "   ($t_name: $((SECONDS - t_sec)) s)"
	t_name=$1 t_sec=$SECONDS
	[ "$1" = end ] || echo "== $1"
}

tally() {
	local line
	while IFS= read -r line; do
		case $line in
		PASS*) pass=$((pass + 1)); echo "$line" ;;
		FAIL*) fail=$((fail + 1)); echo "$line" ;;
		SKIP*) skip=$((skip + 1)); echo "$line" ;;
		"    "*) echo "$line" ;;              # details of a FAIL
		*) [ -n "${VERBOSE:-}" ] && echo "  $line" ;;
		esac
	done
}

# Run "$@" for each of the words on stdin, JOBS at once (the number of CPUs), each one's
# output kept and printed in input order: the valgrind runs are single-threaded.
JOBS=${JOBS:-$(nproc)}
parallel_ordered() {
	local tmp i=0 n w
	tmp=$(mktemp -d)
	while IFS= read -r w; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
		"$@" "$w" >"$tmp/$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	for ((n = 0; n < i; n++)); do cat "$tmp/$n"; done
	rm -rf "$tmp"
}

# cmocka's TAP output ("ok 3 - test_x", "not ok 4 - test_y"), each binary under valgrind.
VG=()
unit_one() {
	local t=$1 name out rc
	name=$(basename "$t")
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "${VG[@]}" "$t" 2>&1)
	rc=$?
	sed -n -e "s/^ok [0-9]* - \(.*\)/PASS unit-$name:\1/p" \
	       -e "s/^not ok [0-9]* - \(.*\)/FAIL unit-$name:\1/p" <<<"$out"
	if [ $rc = 99 ]; then
		echo "FAIL valgrind-$name: memory errors or leaks:"
		grep '^==' <<<"$out" | head -20 | sed 's/^/    /'
	elif [ $rc != 0 ] && ! grep -q '^not ok' <<<"$out"; then
		echo "FAIL unit-$name: exit $rc"
		tail -5 <<<"$out" | sed 's/^/    /'
	fi
}
unit() {
	if command -v valgrind >/dev/null; then
		VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
		    --suppressions=tests/valgrind.supp)      # libunwind's probes: see the file
	else
		echo "SKIP valgrind: not installed, unit tests run without it"
	fi
	for t in "$BUILD"/tests/test-*; do
		[ -x "$t" ] && echo "$t"
	done | parallel_ordered unit_one
}

# The same unit tests built with AddressSanitizer and UBSan (make asan-unit): any finding
# fails, UBSan's too (halt_on_error: it would only print). Leaks are valgrind's part above.
asan_unit_one() {
	local t=$1 name out rc
	name=$(basename "$t")
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP ASAN_OPTIONS=detect_leaks=0 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 timeout 300 "$t" 2>&1)
	rc=$?
	if [ $rc = 0 ] && ! grep -qE 'runtime error:|ERROR: AddressSanitizer' <<<"$out"; then
		echo "PASS asan-unit-$name"
	else
		echo "FAIL asan-unit-$name: exit $rc"
		grep -m5 -E 'runtime error:|ERROR: AddressSanitizer|^not ok|SUMMARY' <<<"$out" | sed 's/^/    /'
	fi
}
asan_unit() {
	local t
	if ! ls "$BUILD"/asan/tests/test-* >/dev/null 2>&1; then
		echo "FAIL asan-unit: no $BUILD/asan/tests/test-* (make asan-unit)"
		return
	fi
	for t in "$BUILD"/asan/tests/test-*; do
		[ -x "$t" ] && echo "$t"
	done | parallel_ordered asan_unit_one
}

# Golden files: tests/conf/N.in through `config --check` must print N.ok exactly.
golden() {
	local in ok got
	for in in tests/conf/*.in; do
		ok=${in%.in}.ok
		got=$({ "$CGW" config --check --config "$in" 2>&1; echo "exit $?"; })
		if [ "$got" = "$(cat "$ok")" ]; then
			echo "PASS conf-$(basename "$in")"
		else
			echo "FAIL conf-$(basename "$in"): output differs:"
			diff <(echo "$got") "$ok" | sed 's/^/    /'
		fi
	done
	got=$("$CGW" config --check --config cgwatch.conf 2>&1)
	[ "$got" = "configuration OK" ] && echo "PASS conf-shipped" ||
		echo "FAIL conf-shipped: cgwatch.conf: $got"
	got=$("$CGW" signatures --check conf/signatures.d 2>&1)
	[ $? = 0 ] && echo "PASS signatures-shipped" ||
		echo "FAIL signatures-shipped: $got"
	got=$("$CGW" hazards --check conf/hazards.d 2>&1)
	[ $? = 0 ] && echo "PASS hazards-shipped" || echo "FAIL hazards-shipped: $got"
	got=$({ "$CGW" hazards --check tests/hazards/bad 2>&1; echo "exit $?"; })
	if [ "$got" = "$(cat tests/hazards/bad.ok)" ]; then
		echo "PASS hazards-broken"
	else
		echo "FAIL hazards-broken: output differs:"
		diff <(echo "$got") tests/hazards/bad.ok | sed 's/^/    /'
	fi
	got=$({ "$CGW" signatures --check tests/sigs/bad 2>&1; echo "exit $?"; })
	if [ "$got" = "$(cat tests/sigs/bad.ok)" ]; then
		echo "PASS signatures-broken"
	else
		echo "FAIL signatures-broken: output differs:"
		diff <(echo "$got") tests/sigs/bad.ok | sed 's/^/    /'
	fi
	# a local file replaces the built-in signature with the same id, and only that one; so
	# does the same directory named by CGWATCH_SIGNATURES_DIR (in place of [signatures] shipped)
	local conf name env
	conf=$(mktemp)
	for name in override override-env; do
		if [ $name = override ]; then
			printf '[signatures]\nlocal = %s/tests/sigs/override\n' "$REPO" >"$conf"
			env=()
		else
			printf '[signatures]\nlocal =\n' >"$conf"
			env=(CGWATCH_SIGNATURES_DIR="$REPO/tests/sigs/override")
		fi
		got=$(env "${env[@]}" "$CGW" signatures --config "$conf" 2>&1)
		if grep -qF "Local override: our FUSE daemon is stuck ($REPO/tests/sigs/override/fuse-wait.conf, replacing built in)" <<<"$got" &&
		   grep -q '^io-wait .* (built in)$' <<<"$got"; then
			echo "PASS signatures-$name"
		else
			echo "FAIL signatures-$name: listing: $(head -c 600 <<<"$got")"
		fi
	done
	rm -f "$conf"
}

# The VM scenarios (tests/vm: Debian kernels under KVM or qemu's TCG: the latency tracers, the
# kernel matrix, seed 004 live) run from here to their section below, beside the unit tests,
# the fixture replays and the bundles, which have no timing assertions; never beside the live
# tests.
VM_OUT=$(mktemp)
CGWATCH=$CGW tests/vm/run.sh >"$VM_OUT" 2>&1 &
vm_pid=$!
section "unit tests (cmocka, valgrind)"
tally < <(unit)
section "unit tests (AddressSanitizer and UBSan)"
tally < <(asan_unit)
section "configuration and signature files"
tally < <(golden)
section "layout: data flows one way through the stages, no files call each other, pure parsers"
tally < <(python3 tests/layout.py "$BUILD/obj" src)
section "the Prometheus text-format checker refuses broken metrics files"
tally < <(python3 tests/promcheck.py --self-test)
section "hostile files and strings: FIFOs, escape sequences, 10,000 signatures"
tally < <(CGWATCH=$CGW tests/hostile.sh)
# The fuzz harnesses (built by make test-build) run at nice 10 from here to the fuzzing
# section, where their lines are printed: the packaging, bundle and redaction tests leave a
# CPU idle much of the time, which they take. Never beside the live tests: timing tests there
# fail with a CPU-bound neighbour, even a niced one.
FUZZ_OUT=$(mktemp)
BUILD=$BUILD FUZZ_SECONDS=${FUZZ_SECONDS:-1} nice -n 10 tests/fuzz/run.sh >"$FUZZ_OUT" 2>&1 &
fuzz_pid=$!
section "packaging: make install, units, catalog, man pages, the Debian package"
# the package it builds is the one the systemd section installs (SD_DEB): built once
tally < <(DEB_KEEP=$SUITE_DEB tests/packaging.sh)
section "a fresh build: check and run from its build tree, with an empty environment"
tally < <(tests/fresh-build.sh)
# Replays under valgrind: leaks and memory errors of the whole check path, libproc2 included.
# (LeakSanitizer cannot run there: it reads /proc/self/task, which a replay replaces.)
# Trees without proc/ are generated first, as tests/fixtures/run.sh does.
valgrind_replay_one() {
	local dir=$1 name root gen out rc fmt
	name=$(basename "$dir")
	root=$dir
	gen=$(mktemp -d)
	if [ ! -d "$dir/proc" ]; then
		if ! out=$(python3 tests/fixtures/mkfixtures.py --out "$gen" "$name" 2>&1); then
			echo "FAIL valgrind-replay-$name: cannot generate the tree: $out"
			rm -rf "$gen"
			return
		fi
		root=$gen/$name
	fi
	local cmd=check xargs_
	grep -qx 'mode audit' "$dir/expect" && cmd=audit
	read -r -a xargs_ <<<"$(sed -n 's/^args //p' "$dir/expect" | head -n1)"   # as run.sh does
	for fmt in json text; do
		out=$(timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite --suppressions=tests/valgrind.supp \
			"$CGW" "$cmd" "${xargs_[@]}" --root "$root" --format $fmt \
			2>&1 >/dev/null)
		rc=$?
		[ $rc = 99 ] || [ $rc -gt 3 ] && break
	done
	if [ $rc = 99 ] || [ $rc -gt 3 ]; then
		echo "FAIL valgrind-replay-$name: --format $fmt exit $rc"
		head -30 <<<"$out" | sed 's/^/    /'
	else
		echo "PASS valgrind-replay-$name"
	fi
	rm -rf "$gen"
}
valgrind_replays() {
	local dir
	if ! command -v valgrind >/dev/null; then
		echo "SKIP valgrind-replay: valgrind not installed"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP valgrind-replay: needs root for the mount namespace"
		return
	fi
	for dir in tests/fixtures/*/; do
		[ -f "$dir/expect" ] && echo "${dir%/}"
	done | parallel_ordered valgrind_replay_one
}

section "fixture replays (AddressSanitizer build), and under valgrind"
if [ -x "$ASAN" ]; then
	# one fixture per run of tests/fixtures/run.sh, as many at once as there are CPUs
	fixture_one() { CGWATCH=$ASAN ASAN_OPTIONS=detect_leaks=0 tests/fixtures/run.sh -v "$1"; }
	tally < <(for e in tests/fixtures/*/expect; do basename "$(dirname "$e")"; done |
		parallel_ordered fixture_one)
else
	tally < <(echo "FAIL asan-build: $ASAN missing (make asan)")
fi
tally < <(valgrind_replays)
section "bundles: every fixture through an archive and back; hostile, corrupt and tampered ones"
tally < <(CGWATCH=$ASAN CGWATCH_PLAIN=$CGW ASAN_OPTIONS=detect_leaks=0:exitcode=86 \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1 tests/bundle.sh)
section "bundles that would cost their reader: a dumpdir bomb, 100,000 members, the caps"
tally < <(CGWATCH=$ASAN CGWATCH_PLAIN=$CGW ASAN_OPTIONS=detect_leaks=0:exitcode=86 \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1 tests/bundlecaps.sh)
section "redacted bundles: no host, user or home path left; the same findings from the archive"
tally < <(CGWATCH=$ASAN CGWATCH_PLAIN=$CGW ASAN_OPTIONS=detect_leaks=0:exitcode=86 \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1 tests/redact.sh)
section "Debian kernels in a VM: the latency tracers, the kernel matrix, seed 004 (the time past the sections it ran beside)"
wait $vm_pid
tally <"$VM_OUT"
section "fuzzing: every parser's libFuzzer harness for a few seconds (ASan, UBSan; the time past the sections they ran beside)"
wait $fuzz_pid
tally <"$FUZZ_OUT"
section "live tests on this kernel"
tally < <(CGWATCH=$CGW tests/live/run.sh)
section "the daemon, live: journald, notify, restart, full disk, storm"
# The container's test starts now, beside the daemon's scenarios: each of those runs in PID
# and mount namespaces of its own, as the container does, so no daemon sees another's tasks
# (the live tests, which look at the whole host, are done). Its lines are printed after theirs.
# Bounded by its own budget (SD_BUDGET, 300 s); this is only a backstop. The first run
# builds the rootfs (mmdebstrap, cached in /var/cache/cgwatch-tests).
SD_OUT=$(mktemp)
BUILD=$BUILD SD_DEB=$(ls "$SUITE_DEB"/cgwatch_*.deb 2>/dev/null | head -1) \
	timeout -k 10 1500 tests/systemd/run.sh >"$SD_OUT" &
sd_pid=$!
# (the scenarios with busy loops wait for it: they load both CPUs as they are)
tally < <(CGWATCH=$CGW SCENARIO_ALONE_AFTER=$sd_pid tests/daemon/run.sh)
section "under a real systemd: a Debian 12 container booted with systemd-nspawn (the time past the daemon's)"
wait $sd_pid
tally <"$SD_OUT"
section "every scan and latency path proven on some kernel: the host's or a VM's"
tally < <(proofs_verdict)
section end
echo "   (slowest scenarios: $(sort -rn "$SUITE_TIMES" | head -8 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}'))"
rm -rf "$SUITE_TIMES" "$SUITE_DEB" "$SD_OUT" "$FUZZ_OUT" "$VM_OUT" "$SUITE_PROOFS"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
