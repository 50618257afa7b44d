#!/usr/bin/env bash
# tests/fuzz/run.sh [NAME...]: the libFuzzer harnesses (tests/fuzz/fuzz-NAME.c), each run for
# FUZZ_SECONDS (3 by default; `make fuzz` gives 60) under ASan and UBSan, from a seed corpus
# assembled from the fixtures (tests/fuzz/seeds.py). Corpora grow in BUILD/fuzz/corpus/NAME and
# are kept; a finding (crash, sanitizer report, leak, a broken guarantee, an input slower than
# 5 s or a process above 1 GiB) is kept as BUILD/fuzz/crashes/NAME-*. FUZZ_JOBS harnesses run
# at once (the number of CPUs). Prints "PASS fuzz-NAME", "FAIL fuzz-NAME: why" with the report's
# first lines and how to reproduce it, or "SKIP fuzz: why".
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
FUZZ_CC=${FUZZ_CC:-clang-14}
SECS=${FUZZ_SECONDS:-3}
OUT=$BUILD/fuzz

if ! command -v "$FUZZ_CC" >/dev/null; then
	echo "SKIP fuzz: $FUZZ_CC is not installed (Debian: clang-14 libclang-rt-14-dev)"
	exit 0
fi
rt=$("$FUZZ_CC" -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-x86_64.a
if [ ! -f "$rt" ]; then
	echo "SKIP fuzz: the libFuzzer runtime $rt is missing (Debian: libclang-rt-14-dev)"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "SKIP fuzz: python3 is needed to assemble the seed corpora"
	exit 0
fi

log=$(mktemp)
trap 'rm -f "$log"; [ -n "${tmp:-}" ] && rm -rf "$tmp"' EXIT
if ! make -s -j"$(nproc)" BUILD="$BUILD" FUZZ_CC="$FUZZ_CC" fuzz-build >"$log" 2>&1; then
	echo "FAIL fuzz-build: make fuzz-build failed:"
	tail -15 "$log" | sed 's/^/    /'
	exit 0
fi

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for src in tests/fuzz/fuzz-*.c; do
		n=${src##*/fuzz-}
		names+=("${n%.c}")
	done
fi
if ! python3 tests/fuzz/seeds.py "$OUT/seeds" "${names[@]}" >"$log" 2>&1; then
	echo "FAIL fuzz-seeds: tests/fuzz/seeds.py failed:"
	tail -10 "$log" | sed 's/^/    /'
	exit 0
fi
mkdir -p "$OUT/crashes"
tmp=$(mktemp -d)                  # results, and scratch files of the harnesses

# One harness: its PASS or FAIL lines into $tmp/NAME.out.
run_one() {
	local name=$1 bin=$OUT/bin/fuzz-$1 log=$tmp/$1.log why crash rc
	mkdir -p "$tmp/$name.tmp" "$OUT/corpus/$name"
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz-$name: $bin was not built"
		return
	fi
	local args=(-max_total_time="$SECS" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1
	            -artifact_prefix="$OUT/crashes/$name-")
	[ -f "tests/fuzz/$name.dict" ] && args+=(-dict="tests/fuzz/$name.dict")
	TMPDIR=$tmp/$name.tmp ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		timeout -k 5 $((SECS * 2 + 60)) "$bin" "${args[@]}" "$OUT/corpus/$name" \
		"$OUT/seeds/$name" >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "PASS fuzz-$name"
		return
	fi
	local pat='ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|guarantee broken'
	why=$(grep -m1 -E "$pat" "$log")
	[ -n "$why" ] || why="exit $rc"
	crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	echo "FAIL fuzz-$name: ${why#"${why%%[! ]*}"}"
	[ -n "$crash" ] && echo "    reproduce: $bin $crash"
	grep -m1 -A14 -E "$pat" "$log" | sed 's/^/    /'
}

# FUZZ_JOBS harnesses at a time (the number of CPUs), results printed in order.
jobs=${FUZZ_JOBS:-$(nproc)}
for name in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	run_one "$name" >"$tmp/$name.out" 2>&1 &
done
wait
for name in "${names[@]}"; do
	cat "$tmp/$name.out"
done
