#!/usr/bin/env bash
# Loading a big signature library: `cgwatch signatures --check DIR` of N generated files (one
# signature each, ids in file order), RUNS times; prints the median wall and CPU (user + sys)
# time per N. Loading must grow as N log N at most: twice the files, about twice the time.
# usage: bench/signatures.sh [N...]   (default 10000 20000)   env: RUNS (default 5), CGWATCH
# No root needed: the files go to a temporary directory.
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-5}
CGW=${CGWATCH:-build/cgwatch}
[ $# -gt 0 ] || set -- 10000 20000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# one run: "wall_s cpu_s" (bash's time: ms resolution)
run() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-8s %12s %12s\n' files "wall ms" "CPU ms"
for n in "$@"; do
	d=$tmp/$n
	mkdir "$d"
	for i in $(seq -w 1 "$n"); do
		printf '[signature]\nid = s%s\nseverity = warning\ntitle = T %s\nsummary = S.\n[match]\nframe = f%s\n' \
			"$i" "$i" "$i" >"$d/s$i.conf"
	done
	"$CGW" signatures --check "$d" >/dev/null || { echo "cgwatch signatures --check $d failed" >&2; exit 1; }
	for _ in $(seq "$RUNS"); do run "$CGW" signatures --check "$d"; done >"$tmp/t"
	printf '%-8s %12.0f %12.0f\n' "$n" "$(cut -d' ' -f1 "$tmp/t" | median | awk '{ print $1 * 1000 }')" \
		"$(cut -d' ' -f2 "$tmp/t" | median | awk '{ print $1 * 1000 }')"
	rm -rf "$d"
done
