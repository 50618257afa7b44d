#!/usr/bin/env bash
# Bundles that would cost their reader: refused by `check --root FILE` and `bundle --verify
# FILE` within seconds, naming the bundle and the member (tests/mkbomb.py makes them):
#  - a GNU dumpdir member (libarchive reports a directory) whose header says 640 GiB, its
#    data zstd RLE blocks (a 21 MB file): refused from its header, never expanded;
#  - a member whose header says 0 bytes while 640 GiB follow (pax GNU.sparse.realsize), after
#    a problem that lets verify go on: stopped by the cap on what the archive expands to;
#  - 100,000 one-byte members (a 420 KB file): refused once the members cost max_size as a
#    replay's tmpfs keeps them, its memory bounded (peak of a memory cgroup, where one can be
#    made: max_size and 128 MiB for the process);
#  - the boundaries: a member of exactly max_file_size is read, one byte more refused; exactly
#    max_members members are read, one more refused.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# env: CGWATCH (default: <repo>/build/cgwatch); CGWATCH_PLAIN, a build without ASan for the
#      memory measure (default: CGWATCH)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CGW=${CGWATCH:-$repo/build/cgwatch}
PLAIN=${CGWATCH_PLAIN:-$CGW}
T=20                                     # seconds a command may take before it is killed
FAST=5                                   # seconds a refusal from a header may take

. "$here/bundlelib.sh"
bundle_prelude bundlecaps "the mount namespace of a replay" python3 zstd jq
mkdir "$tmp/work"
cd "$tmp/work" || exit 1
src=$repo/tests/fixtures/fuse-mounts     # a small tree with fd links

# A memory cgroup of our own (v1 memory controller, or v2 with memory.peak), for memcg_run.
CG=
own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
if [ -n "$own" ] && [ -d "/sys/fs/cgroup/memory$own" ]; then
	CG=/sys/fs/cgroup/memory$own/cgwatch-bundlecaps.$$
	mkdir "$CG" 2>/dev/null && [ -e "$CG/memory.max_usage_in_bytes" ] || CG=
else
	own=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
	CG=/sys/fs/cgroup$own/cgwatch-bundlecaps.$$
	mkdir "$CG" 2>/dev/null && [ -e "$CG/memory.peak" ] || { rmdir "$CG" 2>/dev/null; CG=; }
fi
[ -n "$CG" ] && trap 'rmdir "$CG" 2>/dev/null; rm -rf "$tmp"' EXIT

# run OUT ERR CMD...: CMD bounded by T, its exit status in rc, its wall time in ms in took,
# the peak memory of its cgroup in peak (bytes; empty without one)
run() {
	local out=$1 err=$2 t0
	shift 2
	peak=
	t0=$(date +%s%N)
	if [ -n "$CG" ]; then
		timeout $T sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$@" \
			>"$out" 2>"$err"
		rc=$?
		peak=$(cat "$CG/memory.max_usage_in_bytes" 2>/dev/null || cat "$CG/memory.peak")
		# the next run measures its own peak (v1: reset by a write; v2: a new cgroup)
		echo 0 >"$CG/memory.max_usage_in_bytes" 2>/dev/null ||
			{ rmdir "$CG" && mkdir "$CG"; }
	else
		timeout $T "$@" >"$out" 2>"$err"
		rc=$?
	fi
	took=$((($(date +%s%N) - t0) / 1000000))
}

# mk KIND FILE ARG: a bundle from tests/mkbomb.py; the member it names in member, its member
# count in count; false (FAIL printed for NAME) when it cannot be made
mk() {
	local name=$1 out
	shift
	if ! out=$(python3 "$here/mkbomb.py" "$1" "$src" "$2" "$3" 2>&1); then
		echo "FAIL bundlecaps-$name: mkbomb.py $1: $(clip "$out")"
		return 1
	fi
	member=${out%%$'\t'*}
	count=${out##*$'\t'}
}

# refused NAME WHAT FILE MEMBER REASON LIMIT_S CMD...: CMD (check --root or bundle --verify of
# FILE) exits 3 within LIMIT_S naming FILE, MEMBER and REASON, and blames no host
refused() {
	local name=$1 what=$2 file=$3 want=$4 reason=$5 limit=$6 msg
	shift 6
	run "$tmp/out" "$tmp/err" "$@"
	msg=$(cat "$tmp/out" "$tmp/err")
	if [ $rc = 124 ]; then
		echo "FAIL bundlecaps-$name: $what was killed after $T s: $(clip "$msg")"
	elif [ $rc != 3 ]; then
		echo "FAIL bundlecaps-$name: $what exits $rc, not 3, after $took ms: $(clip "$msg")"
	elif [ $took -gt $((limit * 1000)) ]; then
		echo "FAIL bundlecaps-$name: $what took $took ms, over $limit s: $(clip "$msg")"
	elif ! grep -qF -- "$file" <<<"$msg" || ! grep -qF -- "$want" <<<"$msg" ||
	     ! grep -qF -- "$reason" <<<"$msg"; then
		echo "FAIL bundlecaps-$name: $what does not name $file, \"$want\" and \"$reason\": $(clip "$msg")"
	elif grep -q 'system being diagnosed' <<<"$msg"; then
		echo "FAIL bundlecaps-$name: $what blames the host: $(clip "$msg")"
	else
		return 0
	fi
	return 1
}

# accepted NAME FILE CONF: check --root FILE (exit 0 or 1) and bundle --verify FILE (intact)
accepted() {
	local name=$1 file=$2 c=$3
	run "$tmp/out" "$tmp/err" "$CGW" check --config "$c" --root "$file"
	if [ $rc != 0 ] && [ $rc != 1 ]; then
		echo "FAIL bundlecaps-$name: check --root exits $rc: $(clip "$(cat "$tmp/err")")"
		return 1
	fi
	run "$tmp/out" "$tmp/err" "$CGW" bundle --config "$c" --verify "$file"
	if [ $rc != 0 ] || ! grep -q intact "$tmp/out"; then
		echo "FAIL bundlecaps-$name: bundle --verify exits $rc: $(clip "$(cat "$tmp/out" "$tmp/err")")"
		return 1
	fi
}

# ---- the dumpdir bomb: refused from its header by both ----
f=$tmp/work/dumpdir.tar.zst
if mk dumpdir dumpdir "$f" 640; then
	refused dumpdir-verify "bundle --verify" "$f" "$member" "a directory" $FAST \
		"$CGW" bundle --config "$conf" --verify "$f" &&
		echo "PASS bundlecaps-dumpdir-verify ($took ms)"
	refused dumpdir-replay "check --root" "$f" "refusing the bundle: $member" "a directory" \
		$FAST "$CGW" check --config "$conf" --root "$f" &&
		echo "PASS bundlecaps-dumpdir-replay ($took ms)"
fi

# ---- data a header hides: the archive's expansion is capped ----
f=$tmp/work/hidden.tar.zst
mk hidden hidden "$f" 640 &&
	refused hidden-verify "bundle --verify" "$f" "$member" "the archive expands to more than" \
		$FAST "$CGW" bundle --config "$conf" --verify "$f" &&
	echo "PASS bundlecaps-hidden-verify ($took ms)"

# ---- 100,000 one-byte members: refused at the cost of max_size, memory bounded ----
f=$tmp/work/many.tar.zst
if mk many many "$f" 100000; then
	why="add up to more than max_size (256 MiB)"
	if refused many-replay "check --root" "$f" "refusing the bundle: $member" "$why" 15 \
		"$PLAIN" check --config "$conf" --root "$f"; then
		if [ -z "$CG" ]; then
			echo "PASS bundlecaps-many-replay ($took ms; memory not measured: no memory cgroup could be made)"
		elif [ "$peak" -gt $(((256 + 128) << 20)) ]; then
			echo "FAIL bundlecaps-many-replay: its memory peaked at $((peak >> 20)) MiB, over max_size (256 MiB) and 128 MiB"
		else
			echo "PASS bundlecaps-many-replay ($took ms, memory peak $((peak >> 20)) MiB)"
		fi
	fi
	refused many-verify "bundle --verify" "$f" "$member" "$why" 15 \
		"$CGW" bundle --config "$conf" --verify "$f" &&
		echo "PASS bundlecaps-many-verify ($took ms)"
fi

# ---- caps so high that only the deadline stops them: check_timeout for verify, half of it
# for a replay (the other half is its check's), both before check's watchdog blames the host ----
printf '[scan]\ncheck_timeout = 1\n[bundle]\nmax_size = 65536\n' >"$tmp/slow.conf"
f=$tmp/work/hidden.tar.zst
[ -s "$f" ] && refused deadline-verify "bundle --verify" "$f" "/hidden" "still not read after 1 s" \
	$FAST "$CGW" bundle --config "$tmp/slow.conf" --verify "$f" &&
	echo "PASS bundlecaps-deadline-verify ($took ms)"
f=$tmp/work/many.tar.zst
[ -s "$f" ] && refused deadline-replay "check --root" "$f" "refusing the bundle: tree/many/" \
	"still not read after 0.5 s" $FAST "$CGW" check --config "$tmp/slow.conf" --root "$f" &&
	echo "PASS bundlecaps-deadline-replay ($took ms)"

# ---- the boundaries: max_file_size ----
printf '[bundle]\nmax_file_size = 1\n' >"$tmp/file.conf"
f=$tmp/work/file-at.tar.zst
mk file-at file "$f" $((1 << 20)) && accepted file-at "$f" "$tmp/file.conf" &&
	echo "PASS bundlecaps-file-at"
f=$tmp/work/file-over.tar.zst
if mk file-over file "$f" $(((1 << 20) + 1)); then
	why="1048577 bytes: larger than max_file_size (1 MiB)"
	refused file-over-replay "check --root" "$f" "refusing the bundle: $member" "$why" \
		$FAST "$CGW" check --config "$tmp/file.conf" --root "$f" &&
		refused file-over-verify "bundle --verify" "$f" "$member" "$why" $FAST \
		"$CGW" bundle --config "$tmp/file.conf" --verify "$f" &&
		echo "PASS bundlecaps-file-over"
fi

# ---- the boundaries: max_members (the manifest included), the last member the one over ----
f=$tmp/work/members.tar.zst
if mk members many "$f" 1000; then
	printf '[bundle]\nmax_members = %d\n' "$count" >"$tmp/at.conf"
	accepted members-at "$f" "$tmp/at.conf" && echo "PASS bundlecaps-members-at ($count)"
	printf '[bundle]\nmax_members = %d\n' $((count - 1)) >"$tmp/over.conf"
	why="more than $((count - 1)) members (max_members)"
	refused members-over-replay "check --root" "$f" "refusing the bundle: manifest.json" \
		"$why" $FAST "$CGW" check --config "$tmp/over.conf" --root "$f" &&
		refused members-over-verify "bundle --verify" "$f" "manifest.json" "$why" $FAST \
		"$CGW" bundle --config "$tmp/over.conf" --verify "$f" &&
		echo "PASS bundlecaps-members-over"
fi

# ---- the writer counts as the reader does: a tree of 5,000 small files bundled under
# max_size = 8 (each file costs a replay 5 KiB: 25 MB in all, its bytes 20 KB) and under
# max_members = 300 leaves files out, and what it writes replays and verifies with those caps
cp -a "$src" "$tmp/small"
mkdir "$tmp/small/zz-junk"          # after proc/ and sys/, which go first
for i in $(seq -w 1 5000); do echo "$i" >"$tmp/small/zz-junk/$i"; done
printf '[bundle]\nmax_size = 8\n' >"$tmp/w8.conf"
printf '[bundle]\nmax_members = 300\n' >"$tmp/w300.conf"
for c in w8 w300; do
	f=$tmp/work/$c.tar.zst
	out=$(timeout $T "$CGW" bundle --config "$tmp/$c.conf" --root "$tmp/small" -o "$f" 2>&1)
	rc=$?
	man=$(zstd -dc "$f" 2>/dev/null | tar -xOf - manifest.json 2>/dev/null)
	want=$([ $c = w8 ] && echo "over max_size (8 MiB)" || echo "over max_members (300)")
	if [ $rc != 0 ]; then
		echo "FAIL bundlecaps-writer-$c: bundle exits $rc: $(clip "$out")"
	elif ! jq -e --arg w "$want" '.left_out | any(.why | contains($w))' <<<"$man" >/dev/null; then
		echo "FAIL bundlecaps-writer-$c: nothing left out \"$want\": $(clip "$out")"
	elif [ $c = w300 ] && [ "$(zstd -dc "$f" | tar -tf - | wc -l)" -gt 300 ]; then
		echo "FAIL bundlecaps-writer-$c: $(zstd -dc "$f" | tar -tf - | wc -l) members"
	elif accepted "writer-$c" "$f" "$tmp/$c.conf"; then
		echo "PASS bundlecaps-writer-$c ($(clip "$out"))"
	fi
done
exit 0
