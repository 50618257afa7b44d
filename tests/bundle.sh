#!/usr/bin/env bash
# Bundles: `cgwatch bundle --root DIR` of every fixture tree replayed with `check --root FILE`
# to the same JSON as the tree itself; hostile, truncated and corrupt archives refused (exit 3,
# the member named, nothing written outside the private tree); `bundle --verify` on an intact
# and a tampered bundle; the caps; the file written atomically.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# usage: tests/bundle.sh [NAME...]   (fixture trees to round-trip; default all)
# env:   CGWATCH (default: <repo>/build/cgwatch); CGWATCH_PLAIN, a build without ASan for the
#        valgrind run (default: CGWATCH)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CGW=${CGWATCH:-$repo/build/cgwatch}
T=60                                     # seconds any one command may take

. "$here/bundlelib.sh"
bundle_prelude bundle "the mount namespace of a replay" jq python3
mkdir "$tmp/work" "$tmp/outside"
cd "$tmp/work" || exit 1

# The JSON of a replay without what differs between two runs or two locations: the time,
# the scan's duration, a task's start time (libproc2 reckons it back from the clock now),
# where the kernel messages were read from (named in kmsg evidence too: $2 is that path); and
# lists in one order: a replay walks the tree in the order its file system lists it (hash
# order on ext4, creation order on tmpfs), and its tasks, the tasks and chain of a finding
# (tasks blocked equally long), its evidence lines and the unreadable files come in that order.
norm() {
	jq -S --arg k "${2:-/nonexistent}" '
		del(.time, .scan.duration_ms, .kmsg.source, .tasks[]?.started)
		| walk(if type == "string" then split($k) | join("KMSG") else . end)
		| .tasks |= sort_by(.tid)
		| .findings[]?.tasks |= sort
		| .findings[]?.chain |= sort
		| .findings[]?.evidence |= sort
		| if .scan.unreadable_files then .scan.unreadable_files |= sort_by(.path) else . end' "$1"
}


# ---- the round trip over every fixture ----
names=("$@")
if [ ${#names[@]} = 0 ]; then
	for e in "$repo"/tests/fixtures/*/expect; do
		names+=("$(basename "$(dirname "$e")")")
	done
fi
# roundtrip NAME: the PASS or FAIL line of one fixture (its files under $tmp/rt-NAME)
roundtrip() {
	local name=$1 dir out rc drc brc why man b w=$tmp/rt-$1
	mkdir -p "$w"
	dir=$repo/tests/fixtures/$name
	if [ ! -d "$dir/proc" ]; then
		rm -rf "$w/gen"
		if ! out=$(python3 "$repo/tests/fixtures/mkfixtures.py" --out "$w/gen" "$name" 2>&1); then
			echo "FAIL bundle-roundtrip-$name: cannot generate the tree: $(clip "$out")"
			rm -rf "$w"; return
		fi
		dir=$w/gen/$name
	fi
	b=$tmp/work/$name.tar.zst
	out=$(timeout $T "$CGW" bundle --config "$conf" --root "$dir" -o "$b" 2>&1)
	rc=$?
	if [ $rc != 0 ] || [ ! -s "$b" ]; then
		echo "FAIL bundle-roundtrip-$name: bundle exit $rc: $(clip "$out")"
		rm -rf "$w"; return
	fi
	timeout $T "$CGW" check --config "$conf" --root "$dir" --format json >"$w/d.json" 2>"$w/d.err"
	drc=$?
	timeout $T "$CGW" check --config "$conf" --root "$b" --format json >"$w/b.json" 2>"$w/b.err"
	brc=$?
	why=""
	if [ $drc != $brc ]; then
		why="exit $brc from the bundle, $drc from the tree ($(clip "$(cat "$w/b.err")"))"
	elif [ $drc = 3 ]; then
		# no report: the same reason, but for the name of the root
		if [ "$(sed "s|$dir|ROOT|" "$w/d.err")" != "$(sed "s|$b|ROOT|" "$w/b.err")" ]; then
			why="stderr differs: $(clip "$(cat "$w/b.err")") / $(clip "$(cat "$w/d.err")")"
		fi
	elif ! diff <(norm "$w/d.json" "$dir/dev/kmsg") <(norm "$w/b.json" "$b:tree/dev/kmsg") \
	            >"$w/diff"; then
		why="the JSON differs: $(clip "$(head -12 "$w/diff")")"
	elif [ "$(jq -c '[.findings[] | {id, cause, severity, tasks, chain}]' "$w/b.json")" = "[]" ] &&
	     [ "$(jq -c '[.findings[]]' "$w/d.json")" != "[]" ]; then
		why="no findings from the bundle"
	fi
	if [ -z "$why" ] && command -v zstd >/dev/null; then
		# the bundle's own report is the same check's
		man=$(zstd -dc "$b" | tar -xOf - manifest.json)
		if [ "$(jq .check_exit <<<"$man")" != "$drc" ]; then
			why="manifest check_exit $(jq .check_exit <<<"$man"), the tree's check exits $drc"
		elif [ $drc != 3 ] && ! diff <(norm "$w/d.json" "$dir/dev/kmsg") \
		          <(zstd -dc "$b" | tar -xOf - report.json | norm /dev/stdin "$dir/dev/kmsg") \
		          >/dev/null; then
			why="report.json in the bundle differs from check --root DIR"
		fi
	fi
	if [ -n "$why" ]; then
		echo "FAIL bundle-roundtrip-$name: $why"
	else
		echo "PASS bundle-roundtrip-$name"
	fi
	rm -rf "$w"
}
# as many at once as there are CPUs, the lines in the fixtures' order
jobs_max=$(nproc)
i=0
for name in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	roundtrip "$name" >"$tmp/rt.$i.out" 2>&1 &
	i=$((i + 1))
done
wait
for ((k = 0; k < i; k++)); do cat "$tmp/rt.$k.out"; rm -f "$tmp/rt.$k.out"; done

src=$repo/tests/fixtures/fuse-mounts   # a small tree with fd links
good=$tmp/work/fuse-mounts.tar.zst
[ -s "$good" ] || timeout $T "$CGW" bundle --config "$conf" --root "$src" -o "$good" >/dev/null 2>&1

# Nothing may appear outside the private tree: the target directory, the working directory
# (the archive's only), /tmp/tree on the host.
host_tree_before=$( [ -e /tmp/tree ] && echo yes || echo no )
outside_clean() {
	local left
	left=$(ls -A "$tmp/outside")
	[ -z "$left" ] || { echo "written outside: $tmp/outside/$left"; return 1; }
	left=$(ls -A "$tmp/work" | grep -v '\.tar\.\(zst\|gz\)$')
	[ -z "$left" ] || { echo "written in the working directory: $left"; return 1; }
	if [ "$host_tree_before" = no ] && [ -e /tmp/tree ]; then
		echo "written on the host: /tmp/tree"
		return 1
	fi
	return 0
}

# One refusal: exit 3, the member named with the reason, nothing written outside.
refused() {
	local name=$1 file=$2 want=$3 reason=${4:-} err rc why
	err=$(timeout $T "$CGW" check --config "$conf" --root "$file" 2>&1 >/dev/null)
	rc=$?
	if [ $rc != 3 ]; then
		echo "FAIL bundle-$name: exit $rc, not 3: $(clip "$err")"
	elif ! grep -qF -- "refusing the bundle: $want" <<<"$err"; then
		echo "FAIL bundle-$name: the message does not name \"$want\": $(clip "$err")"
	elif ! grep -qF -- "$reason" <<<"$err"; then
		echo "FAIL bundle-$name: the message does not say \"$reason\": $(clip "$err")"
	elif ! why=$(outside_clean); then
		echo "FAIL bundle-$name: $why"
	else
		echo "PASS bundle-$name"
	fi
}

# ---- hostile archives (python3's tarfile, gzip) ----
declare -A reason=(
	[absolute]="an absolute name" [dotdot]='a ".." component'
	[symlink-abs]="points outside the tree (absolute)" [symlink-rel]="points outside the tree (..)"
	[symlink-through]="a component is a symlink or a file" [hardlink]="a hard link"
	[device]="a character device" [fifo]="a FIFO"
	[sparse]="10737418240 bytes: larger than max_file_size" [huge]="10737418240 bytes: larger than max_file_size"
	[wrong-hash]="does not match the manifest's hash" [extra]="in the archive, not in the manifest"
	[incidents-symlink]="points outside the tree (absolute)" [incidents-dotdot]='a ".." component'
	[incidents-device]="a character device")
for kind in absolute dotdot symlink-abs symlink-rel symlink-through hardlink device fifo \
            sparse huge wrong-hash extra incidents-symlink incidents-dotdot incidents-device; do
	f=$tmp/work/hostile-$kind.tar.gz
	if ! member=$(python3 "$here/mkbundle.py" hostile $kind "$src" "$f" "$tmp/outside" 2>&1); then
		echo "FAIL bundle-hostile-$kind: mkbundle.py: $(clip "$member")"
		continue
	fi
	refused "hostile-$kind" "$f" "$member" "${reason[$kind]}"
done

# ---- truncated and corrupt ----
size=$(stat -c %s "$good")
head -c $((size / 2)) "$good" >"$tmp/work/truncated.tar.zst"
refused truncated "$tmp/work/truncated.tar.zst" "the archive is truncated or corrupt"
cp "$good" "$tmp/work/corrupt.tar.zst"
# one byte in the middle of the compressed stream, inverted
python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[len(b)//2]^=0xff; open(p,"wb").write(b)' \
	"$tmp/work/corrupt.tar.zst"
err=$(timeout $T "$CGW" check --config "$conf" --root "$tmp/work/corrupt.tar.zst" 2>&1 >/dev/null)
rc=$?
if [ $rc = 3 ] && grep -qE 'refusing the bundle: .*(truncated or corrupt|sha256|size)' <<<"$err" &&
   why=$(outside_clean); then
	echo "PASS bundle-corrupt"
else
	echo "FAIL bundle-corrupt: exit $rc: $(clip "$err") ${why:-}"
fi
: >"$tmp/work/empty.tar.zst"
refused empty "$tmp/work/empty.tar.zst" "the archive is truncated or corrupt, or not a bundle"

# ---- verify ----
out=$(timeout $T "$CGW" bundle --config "$conf" --verify "$good" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q 'intact' <<<"$out" && echo "PASS bundle-verify-intact" ||
	echo "FAIL bundle-verify-intact: exit $rc: $(clip "$out")"
python3 "$here/mkbundle.py" good "$src" "$tmp/work/py.tar.gz"
out=$(timeout $T "$CGW" bundle --config "$conf" --verify "$tmp/work/py.tar.gz" 2>&1)
rc=$?
[ $rc = 0 ] && echo "PASS bundle-verify-other-writer" ||
	echo "FAIL bundle-verify-other-writer: a bundle made by tests/mkbundle.py: exit $rc: $(clip "$out")"
member=$(python3 "$here/mkbundle.py" tampered "$src" "$tmp/work/tampered.tar.gz")
out=$(timeout $T "$CGW" bundle --config "$conf" --verify "$tmp/work/tampered.tar.gz" 2>&1)
rc=$?
if [ $rc = 3 ] && grep -qF "sha256: $member" <<<"$out" && grep -q 'not intact' <<<"$out"; then
	echo "PASS bundle-verify-tampered"
else
	echo "FAIL bundle-verify-tampered: exit $rc, want 3 naming sha256: $member: $(clip "$out")"
fi
# every problem of an archive is named, not only the first
python3 "$here/mkbundle.py" hostile extra "$src" "$tmp/work/two.tar.gz" "$tmp/outside" >/dev/null
out=$(timeout $T "$CGW" bundle --config "$conf" --verify "$tmp/work/two.tar.gz" 2>&1)
rc=$?
if [ $rc = 3 ] && grep -q 'extra: tree/proc/extra' <<<"$out"; then
	echo "PASS bundle-verify-extra"
else
	echo "FAIL bundle-verify-extra: exit $rc: $(clip "$out")"
fi

# ---- what the capture could not read (its cgwatch/unreadable) is in the manifest's unreadable
# too, but a host file this kernel does not have (absent) ----
cp -a "$repo/tests/fixtures/unreadable-stack" "$tmp/capunr"
mkdir -p "$tmp/capunr/cgwatch"
printf '%s\n' 'timed-out cgwatch/mem/4100-7ffd10 timed out after 2 s' \
	'absent proc/pressure/irq No such file or directory' \
	'vanished proc/99\x20x/stat No such file or directory' >"$tmp/capunr/cgwatch/unreadable"
out=$(timeout $T "$CGW" bundle --config "$conf" --root "$tmp/capunr" -o "$tmp/work/capunr.tar.zst" 2>&1)
rc=$?
man=$(zstd -dc "$tmp/work/capunr.tar.zst" 2>/dev/null | tar -xOf - manifest.json 2>/dev/null)
if [ $rc = 0 ] && grep -q ', 2 unreadable' <<<"$out" && jq -e '.unreadable == [
	{"path": "tree/cgwatch/mem/4100-7ffd10", "why": "captured as timed-out: timed out after 2 s"},
	{"path": "tree/proc/99 x/stat", "why": "captured as vanished: No such file or directory"}] and
	(.members | any(.path == "tree/cgwatch/unreadable"))' <<<"$man" >/dev/null; then
	echo "PASS bundle-capture-unreadable"
else
	echo "FAIL bundle-capture-unreadable: exit $rc: $(clip "$out") unreadable: $(jq -c .unreadable <<<"$man" 2>&1 | head -c 300)"
fi

# ---- caps: a file over max_file_size is left out, and listed ----
cp -a "$repo/tests/fixtures/unreadable-stack" "$tmp/capped"
head -c $((2 * 1024 * 1024)) /dev/zero >"$tmp/capped/proc/big"
printf '[bundle]\nmax_file_size = 1\n' >"$tmp/caps.conf"
out=$(timeout $T "$CGW" bundle --config "$tmp/caps.conf" --root "$tmp/capped" -o "$tmp/work/capped.tar.zst" 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q ', 1 left out' <<<"$out"; then
	if command -v zstd >/dev/null && ! zstd -dc "$tmp/work/capped.tar.zst" | tar -xOf - manifest.json |
	     jq -e '.left_out | any(.path == "tree/proc/big" and .size == 2097152 and (.why | test("max_file_size")))' >/dev/null; then
		echo "FAIL bundle-cap-file: tree/proc/big is not in the manifest's left_out"
	else
		echo "PASS bundle-cap-file"
	fi
else
	echo "FAIL bundle-cap-file: exit $rc: $(clip "$out")"
fi
# the reader's cap: the same file in a bundle made by another writer is refused from its header
python3 "$here/mkbundle.py" good "$tmp/capped" "$tmp/work/big.tar.gz"
err=$(timeout $T "$CGW" check --config "$tmp/caps.conf" --root "$tmp/work/big.tar.gz" 2>&1 >/dev/null)
rc=$?
[ $rc = 3 ] && grep -qF 'tree/proc/big: 2097152 bytes: larger than max_file_size (1 MiB)' <<<"$err" &&
	echo "PASS bundle-cap-read" || echo "FAIL bundle-cap-read: exit $rc: $(clip "$err")"
printf '[bundle]\nmax_size = 1\n' >"$tmp/total.conf"
err=$(timeout $T "$CGW" check --config "$tmp/total.conf" --root "$tmp/work/big.tar.gz" 2>&1 >/dev/null)
rc=$?
[ $rc = 3 ] && grep -qF 'add up to more than max_size (1 MiB)' <<<"$err" &&
	echo "PASS bundle-cap-total" || echo "FAIL bundle-cap-total: exit $rc: $(clip "$err")"

# ---- caps on a big host: the 192-CPU seed 004 tree (3,690 files, 5 MiB) within max_size = 1:
# written, what was left out listed (each with the cap and its size), the members within the
# cap, intact, and its report still the whole check of the tree ----
rm -rf "$tmp/gen"
if ! out=$(python3 "$repo/tests/fixtures/mkfixtures.py" --out "$tmp/gen" seed004-192cpus 2>&1); then
	echo "FAIL bundle-cap-bighost: cannot generate the tree: $(clip "$out")"
else
	printf '[bundle]\nmax_size = 1\n' >"$tmp/big.conf"
	out=$(timeout $T "$CGW" bundle --config "$tmp/big.conf" --root "$tmp/gen/seed004-192cpus" \
	      -o "$tmp/work/bighost.tar.zst" 2>&1)
	rc=$?
	man=$(zstd -dc "$tmp/work/bighost.tar.zst" 2>/dev/null | tar -xOf - manifest.json 2>/dev/null)
	rep=$(zstd -dc "$tmp/work/bighost.tar.zst" 2>/dev/null | tar -xOf - report.json 2>/dev/null)
	vout=$(timeout $T "$CGW" bundle --config "$tmp/big.conf" --verify "$tmp/work/bighost.tar.zst" 2>&1)
	vrc=$?
	if [ $rc != 0 ]; then
		echo "FAIL bundle-cap-bighost: exit $rc: $(clip "$out")"
	elif ! jq -e '(.left_out | length) > 100 and
	              all(.left_out[]; .why | test("max_size|more members left out by the caps")) and
	              (.left_out[-1].why | test("^and [0-9]+ more members left out")) and
	              ([.members[].size] | add) <= 1048576' <<<"$man" >/dev/null; then
		echo "FAIL bundle-cap-bighost: manifest: $(jq -c '{n: (.members | length), left: (.left_out | length), sum: ([.members[].size] | add), first: .left_out[0]}' <<<"$man" 2>&1 | head -c 300)"
	elif ! grep -qE " [0-9]{4} left out" <<<"$out" || [ $vrc != 0 ]; then
		echo "FAIL bundle-cap-bighost: said: $(clip "$out"); verify exit $vrc: $(clip "$vout")"
	elif ! jq -e '[.findings[].id] == ["lru-drain-isolated"] and (.tasks | length) > 150' <<<"$rep" >/dev/null; then
		echo "FAIL bundle-cap-bighost: its report is not the whole check: $(jq -c '[.findings[].id], (.tasks | length)' <<<"$rep" 2>&1 | head -c 200)"
	else
		echo "PASS bundle-cap-bighost: $(jq -r '.left_out[-1].why' <<<"$man")"
	fi
fi

# ---- caps with thousands of blocked tasks: seed 000 with 2,000 copies of its blocked cadvisor
# thread (tests/mkblocked.py, 24,000 files, 20 MB) and a mountinfo of 20,000 container mounts
# (3 MB), under max_size = 2 and max_file_size = 1: written within seconds; the mountinfo and
# report.json (2,003 tasks) left out for max_file_size, task files for max_size, each listed
# or counted in the last note; the host files a replay needs bundled before the tasks'; the
# members and the manifest together within 2 MiB, and the file too; intact; and `check --root`
# of it, with the same caps, replays the finding with the tasks the bundle holds. The time is
# printed (0.7 s alone here, 3 s with ASan, 6 s while other suites ran): past 30 s it fails ----
# (made in /dev/shm when it can be: 24,000 files took 24 s of a loaded ext4 here, 0.9 s there)
shm=$(mktemp -d /dev/shm/cgwatch-bundle.XXXXXX 2>/dev/null) || shm=$tmp
trap 'rm -rf "$tmp" "$shm"' EXIT
many=$shm/many
if ! out=$(python3 "$here/mkblocked.py" "$repo/tests/fixtures/seed000-pidlist" "$many" 2301 2315 2000 2>&1); then
	echo "FAIL bundle-cap-manytasks: cannot generate the tree: $(clip "$out")"
else
	awk 'BEGIN { for (i = 0; i < 20000; i++)
		printf "%d 30 0:%d / /run/containers/%d/rootfs rw,relatime shared:%d - overlay overlay rw,lowerdir=/var/lib/containers/l/%d,upperdir=/var/lib/containers/u/%d\n", 5000 + i, 100 + i, i, 900 + i, i, i }' \
		>>"$many/proc/self/mountinfo"
	printf '[bundle]\nmax_size = 2\nmax_file_size = 1\n' >"$tmp/many.conf"
	t0=$(date +%s.%N)
	out=$(timeout $T "$CGW" bundle --config "$tmp/many.conf" --root "$many" -o "$tmp/work/many.tar.zst" 2>&1)
	rc=$?
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	man=$(zstd -dc "$tmp/work/many.tar.zst" 2>/dev/null | tar -xOf - manifest.json 2>/dev/null)
	vout=$(timeout $T "$CGW" bundle --config "$tmp/many.conf" --verify "$tmp/work/many.tar.zst" 2>&1)
	vrc=$?
	rout=$(timeout $T "$CGW" check --config "$tmp/many.conf" --root "$tmp/work/many.tar.zst" --format json 2>&1 >"$tmp/many.json")
	rrc=$?
	fsize=$(stat -c %s "$tmp/work/many.tar.zst" 2>/dev/null || echo 0)
	if [ $rc != 0 ]; then
		echo "FAIL bundle-cap-manytasks: exit $rc: $(clip "$out")"
	elif ! jq -e --argjson m "${#man}" '
	        (.left_out | any(.path == "tree/proc/self/mountinfo" and .size > 1048576 and (.why | test("max_file_size")))) and
	        (.left_out | any(.path == "report.json" and (.why | test("max_file_size")))) and
	        (.left_out | any(.path | startswith("tree/proc/1"))) and
	        all(.left_out[]; .why | test("max_size|max_file_size|more members left out by the caps")) and
	        ([.members[].size] | add) + $m <= 2097152' <<<"$man" >/dev/null; then
		echo "FAIL bundle-cap-manytasks: manifest: $(jq -c '{n: (.members | length), left: (.left_out | length), sum: ([.members[].size] | add), first: .left_out[0:3], last: .left_out[-1]}' <<<"$man" 2>&1 | head -c 400) (${#man} bytes)"
	elif ! jq -e '[.members[].path] as $p | ["tree/proc/self/sched", "tree/proc/uptime", "tree/proc/stat",
	        "tree/proc/cmdline", "tree/sys/devices/system/cpu/online"] | all(. as $f | $p | index($f))' <<<"$man" >/dev/null; then
		echo "FAIL bundle-cap-manytasks: host files left out: $(jq -c '[.left_out[] | select(.path | test("^tree/(proc/[a-z]|sys/)"))] | .[0:4]' <<<"$man" 2>&1 | head -c 300)"
	elif [ "$fsize" -gt 2097152 ]; then
		echo "FAIL bundle-cap-manytasks: the file is $fsize bytes, over max_size"
	elif [ $vrc != 0 ]; then
		echo "FAIL bundle-cap-manytasks: verify exit $vrc: $(clip "$vout")"
	elif [ $rrc != 1 ] || ! jq -e '[.findings[].id] == ["cgroup1-pidlist-flush"] and (.findings[0].tasks | length) > 10 and .findings[0].chain == [21877, 412]' "$tmp/many.json" >/dev/null; then
		echo "FAIL bundle-cap-manytasks: check --root of the bundle: exit $rrc, $(jq -c '[.findings[] | {id, n: (.tasks | length)}]' "$tmp/many.json" 2>&1 | head -c 200) $(clip "$rout")"
	elif ! awk -v t="$took" 'BEGIN { exit !(t < 30) }'; then
		echo "FAIL bundle-cap-manytasks: bundling took $took s"
	else
		echo "PASS bundle-cap-manytasks: bundled in $took s, $(jq '.members | length' <<<"$man") members, $(jq '.left_out | length' <<<"$man") notes of left-out files (last: $(jq -r '.left_out[-1].why' <<<"$man")); replayed: $(jq -r '.findings[0].id + " with " + (.findings[0].tasks | length | tostring) + " tasks"' "$tmp/many.json")"
	fi
fi
rm -rf "$many"

# ---- the file: default name in the working directory, atomic, private ----
mkdir "$tmp/named" && cd "$tmp/named" || exit 1
out=$(timeout $T "$CGW" bundle --config "$conf" --root "$src" 2>&1)
rc=$?
f=$(ls -A)
if [ $rc = 0 ] && [[ "$f" =~ ^cgwatch-bundle-web-03-[0-9]{8}T[0-9]{6}Z\.tar\.(zst|gz)$ ]] &&
   [ "$(stat -c %a "$f")" = 600 ]; then
	echo "PASS bundle-default-name"
else
	echo "FAIL bundle-default-name: exit $rc, files: $(clip "$f") $(clip "$out")"
fi
cd "$tmp/work" || exit 1
out=$(timeout $T "$CGW" bundle --config "$conf" --root "$src" -o "$tmp/nosuchdir/x.tar.zst" 2>&1)
rc=$?
[ $rc = 3 ] && [ ! -e "$tmp/nosuchdir" ] && echo "PASS bundle-unwritable" ||
	echo "FAIL bundle-unwritable: exit $rc: $(clip "$out")"
# a full disk half way through: the temporary file goes, nothing is left (a 16 KiB tmpfs in
# a mount namespace of its own)
mkdir "$tmp/full"
out=$(timeout $T unshare -m sh -c 'mount -t tmpfs -o size=16k cgw-full "$1" || exit 99
	"$2" bundle --config "$3" --root "$4" -o "$1/x.tar.zst"; rc=$?
	echo "left: $(ls -A "$1")"; exit $rc' sh "$tmp/full" "$CGW" "$conf" "$src" 2>&1)
rc=$?
if [ $rc = 99 ]; then
	echo "SKIP bundle-full-disk: cannot mount a tmpfs: $(clip "$out")"
elif [ $rc = 3 ] && grep -q '^left: $' <<<"$out" && grep -q 'No space left' <<<"$out"; then
	echo "PASS bundle-full-disk"
else
	echo "FAIL bundle-full-disk: exit $rc, want 3 and nothing left: $(clip "$out")"
fi

# ---- under valgrind: a bundle made, replayed and verified, with no memory error or leak ----
if bundle_valgrind bundle-valgrind; then
	vg=(valgrind -q --vgdb=no --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
	kdir=$repo/tests/fixtures/seed004-kmsg
	out=$(timeout 300 "${vg[@]}" "$VG_CGW" bundle --config "$conf" --root "$kdir" -o "$tmp/work/vg.tar.zst" 2>&1)
	rc1=$?
	out+=$(timeout 300 "${vg[@]}" "$VG_CGW" check --config "$conf" --root "$tmp/work/vg.tar.zst" 2>&1 >/dev/null)
	rc2=$?
	out+=$(timeout 300 "${vg[@]}" "$VG_CGW" bundle --config "$conf" --verify "$tmp/work/vg.tar.zst" 2>&1)
	rc3=$?
	out+=$(timeout 300 "${vg[@]}" "$VG_CGW" check --config "$conf" --root "$tmp/work/hostile-sparse.tar.gz" 2>&1)
	rc4=$?
	if [ $rc1 = 0 ] && [ $rc2 = 1 ] && [ $rc3 = 0 ] && [ $rc4 = 3 ]; then
		echo "PASS bundle-valgrind"
	else
		echo "FAIL bundle-valgrind: exits $rc1 $rc2 $rc3 $rc4 (want 0 1 0 3): $(clip "$(grep '==' <<<"$out" | head -8)")"
	fi
fi

# ---- a bundle written inside the tree it bundles: not a member of itself ----
cp -a "$src" "$tmp/self"
out=$(cd "$tmp/self" && timeout $T "$CGW" bundle --config "$conf" --root . -o self.tar.zst 2>&1)
rc=$?
if [ $rc != 0 ]; then
	echo "FAIL bundle-inside-tree: exit $rc: $(clip "$out")"
elif ! command -v zstd >/dev/null; then
	echo "SKIP bundle-inside-tree: zstd is not installed to read the manifest"
elif zstd -dc "$tmp/self/self.tar.zst" | tar -tf - | grep -q 'self\.tar\.zst'; then
	echo "FAIL bundle-inside-tree: the bundle holds its own temporary file"
elif timeout $T "$CGW" check --config "$conf" --root "$tmp/self/self.tar.zst" >/dev/null 2>&1
     rc=$?; [ $rc != 1 ]; then
	echo "FAIL bundle-inside-tree: its replay exits $rc, not 1"
else
	echo "PASS bundle-inside-tree"
fi

out=$(timeout $T "$CGW" bundle --config "$conf" --root "$good" -o "$tmp/work/again.tar.zst" 2>&1)
rc=$?
[ $rc = 3 ] && grep -q 'not a directory' <<<"$out" && [ ! -e "$tmp/work/again.tar.zst" ] &&
	echo "PASS bundle-of-a-file" || echo "FAIL bundle-of-a-file: exit $rc: $(clip "$out")"

# ---- the daemon's open incidents: a bundle of this host holds their newest reports ----
# A state file as the daemon writes it ([run] state_dir, this boot's id), its reports in
# [reports] dir; another incident whose report is a symlink (to a file outside): not followed.
# Without a state file nothing is added; a malformed one, or a FIFO, is a note.
idir=$tmp/inc
mkdir -p "$idir/state" "$idir/reports"
printf '[run]\nstate_dir = %s/state\n[reports]\ndir = %s/reports\n' "$idir" "$idir" >"$idir/conf"
iid=20261130T071622Z-fuse-wait
inc_state() {                         # inc_state ID REPORT...: the state file of these incidents
	local boot a=() i
	boot=$(cat /proc/sys/kernel/random/boot_id)
	while [ $# -ge 2 ]; do
		a+=("{\"id\": \"$1\", \"signature\": \"${1#*Z-}\", \"severity\": 2, \"opened_at\": 1796022982.0, \"last_event_at\": 1796022982.0, \"reports\": 2, \"report\": \"$2\"}")
		shift 2
	done
	i=$(IFS=,; echo "${a[*]}")
	printf '{"schema": "cgwatch.state/1", "boot_id": "%s", "incidents": [%s]}' "$boot" "$i" \
		>"$idir/state/incidents.json"
}
# ibundle NAME [ARGS...]: a bundle of this host with $idir/conf into $idir/NAME.tar.zst; its
# manifest in $idir/NAME.json; exit status in irc, what it said in iout
ibundle() {
	local n=$1
	shift
	iout=$(timeout $T "$CGW" bundle --config "$idir/conf" -o "$idir/$n.tar.zst" "$@" 2>&1)
	irc=$?
	zstd -dc "$idir/$n.tar.zst" 2>/dev/null | tar -xOf - manifest.json >"$idir/$n.json" 2>/dev/null
}
ibundle none
if [ $irc != 0 ]; then
	echo "FAIL bundle-incidents-none: exit $irc: $(clip "$iout")"
elif ! jq -e '([.members[].path, .unreadable[].path, .left_out[].path] | map(select(startswith("incidents"))) | length) == 0' \
	"$idir/none.json" >/dev/null; then
	echo "FAIL bundle-incidents-none: no state file, yet: $(jq -c '[.members[].path, .unreadable[]] | map(select(tostring | test("incidents")))' "$idir/none.json" | head -c 300)"
else
	echo "PASS bundle-incidents-none"
fi
printf '{"schema": "cgwatch.state/1", "incidents": ' >"$idir/state/incidents.json"
ibundle malformed
if [ $irc != 0 ]; then
	echo "FAIL bundle-incidents-malformed: exit $irc: $(clip "$iout")"
elif ! jq -e '.unreadable | any(.path == "incidents" and (.why | test("not a cgwatch state file")))' \
	"$idir/malformed.json" >/dev/null; then
	echo "FAIL bundle-incidents-malformed: no note in the manifest: $(jq -c .unreadable "$idir/malformed.json" | head -c 300)"
else
	echo "PASS bundle-incidents-malformed"
fi
rm -f "$idir/state/incidents.json"
mkfifo "$idir/state/incidents.json"
t0=$(date +%s%N)
ibundle fifo
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $irc != 0 ]; then
	echo "FAIL bundle-incidents-fifo: exit $irc: $(clip "$iout")"
elif ! jq -e '.unreadable | any(.path == "incidents" and (.why | test("not a regular file")))' \
	"$idir/fifo.json" >/dev/null; then
	echo "FAIL bundle-incidents-fifo: no note in the manifest: $(jq -c .unreadable "$idir/fifo.json" | head -c 300)"
else
	echo "PASS bundle-incidents-fifo (${ms} ms)"
fi
rm -f "$idir/state/incidents.json"
printf '{"cgwatch": "report of %s", "user": "%s"}\n' "$iid" "$(hostname)" >"$idir/reports/$iid-02-escalated.json"
printf 'cgwatch incident %s: escalated\n' "$iid" >"$idir/reports/$iid-02-escalated.txt"
echo secret >"$tmp/outside-secret"
ln -s "$tmp/outside-secret" "$idir/reports/20261130T071623Z-nfs-wait-01-opened.json"
inc_state "$iid" "$idir/reports/$iid-02-escalated.json" \
	20261130T071623Z-nfs-wait "$idir/reports/20261130T071623Z-nfs-wait-01-opened.json"
ibundle good
why=
if [ $irc != 0 ]; then
	why="exit $irc: $(clip "$iout")"
else
	for ext in json txt; do
		zstd -dc "$idir/good.tar.zst" | tar -xOf - "incidents/$iid-02-escalated.$ext" >"$idir/got.$ext" 2>/dev/null
		cmp -s "$idir/got.$ext" "$idir/reports/$iid-02-escalated.$ext" ||
			why+="incidents/$iid-02-escalated.$ext is not the report file; "
	done
	jq -e --arg p "incidents/$iid-02-escalated.json" '.members | any(.path == $p)' "$idir/good.json" >/dev/null ||
		why+="the manifest does not list it; "
	jq -e '.unreadable | any(.path == "incidents/20261130T071623Z-nfs-wait-01-opened.json" and (.why | test("symlink")))' \
		"$idir/good.json" >/dev/null || why+="the symlinked report is not noted: $(jq -c .unreadable "$idir/good.json" | head -c 200); "
	zstd -dc "$idir/good.tar.zst" | tar -tf - | grep -q '^incidents/.*nfs-wait' && why+="the symlinked report is in it; "
	zstd -dc "$idir/good.tar.zst" | tar -xOf - 2>/dev/null | grep -q secret && why+="the file the symlink names is in it; "
	vout=$(timeout $T "$CGW" bundle --config "$conf" --verify "$idir/good.tar.zst" 2>&1) ||
		why+="verify: $(clip "$vout"); "
	timeout $T "$CGW" check --config "$conf" --root "$idir/good.tar.zst" --format json >"$idir/replay.json" 2>"$idir/replay.err"
	rrc=$?
	if [ $rrc != 0 ] && [ $rrc != 1 ]; then
		why+="its replay exits $rrc: $(clip "$(cat "$idir/replay.err")"); "
	fi
fi
[ -z "$why" ] && echo "PASS bundle-incidents" || echo "FAIL bundle-incidents: $why"
# redacted: the JSON report's values redacted (the host name), its keys and structure kept
ibundle redacted --redact
why=
if [ $irc != 0 ]; then
	why="exit $irc: $(clip "$iout")"
else
	zstd -dc "$idir/redacted.tar.zst" | tar -xOf - "incidents/$iid-02-escalated.json" >"$idir/red.json" 2>/dev/null
	[ -s "$idir/red.json" ] && jq -e '.cgwatch and .user' "$idir/red.json" >/dev/null || why+="incidents/$iid-02-escalated.json lost its keys: $(head -c 200 "$idir/red.json"); "
	grep -qw "$(hostname)" "$idir/red.json" && why+="it still names the host; "
fi
[ -z "$why" ] && echo "PASS bundle-incidents-redacted" || echo "FAIL bundle-incidents-redacted: $why"
# a bundle with incidents/ members made by another writer replays and verifies
python3 "$here/mkbundle.py" incidents "$src" "$tmp/work/inc.tar.gz"
timeout $T "$CGW" check --config "$conf" --root "$tmp/work/inc.tar.gz" >/dev/null 2>"$idir/inc.err"
rc=$?
vout=$(timeout $T "$CGW" bundle --config "$conf" --verify "$tmp/work/inc.tar.gz" 2>&1)
vrc=$?
if { [ $rc = 0 ] || [ $rc = 1 ]; } && [ $vrc = 0 ] && why=$(outside_clean); then
	echo "PASS bundle-incidents-replay"
else
	echo "FAIL bundle-incidents-replay: replay exit $rc ($(clip "$(cat "$idir/inc.err")")), verify $vrc ($(clip "$vout")) ${why:-}"
fi

# ---- the live host: a capture directory that cannot be made is said, and nothing written ----
out=$(cd "$tmp" && TMPDIR=$tmp/none timeout $T "$CGW" bundle --config "$conf" -o nodir.tar.zst 2>&1)
rc=$?
[ $rc = 3 ] && grep -q "cannot make a directory for the capture ($tmp/none/" <<<"$out" &&
	[ ! -e "$tmp/nodir.tar.zst" ] && echo "PASS bundle-live-no-tmpdir" ||
	echo "FAIL bundle-live-no-tmpdir: exit $rc: $(clip "$out")"
exit 0
