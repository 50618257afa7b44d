#!/usr/bin/env bash
# Redacted bundles: a fixture tree whose host name, users and home paths are planted in many
# files (a status Uid, a command line, a mountinfo line under /home/USER, a kernel message, a
# cgroup path under a user slice, cgroups and a directory of the tree named after them) bundled with
# `bundle --redact`, as the host's users are known from a passwd file bind-mounted on
# /etc/passwd in a mount namespace of its own. Then: no member name, content or link target of
# the bundle holds any of them; it replays (`check --root FILE`) to the findings of the tree
# (ids, severities, tasks, chains, CPUs, and causes once the map turns the tokens back); its
# FILE.map is there, 0600, and maps each token back; --verify passes; the manifest says
# "redacted": true; [bundle] redact = yes does the same without the option. Every fixture tree,
# redacted, replays to its findings; a redacted bundle made under valgrind.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# env: CGWATCH (default: <repo>/build/cgwatch); CGWATCH_PLAIN, a build without ASan for the
#      valgrind run (default: CGWATCH)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CGW=${CGWATCH:-$repo/build/cgwatch}
T=60

. "$here/bundlelib.sh"
bundle_prelude redact "a mount namespace for the passwd file and the replay" jq zstd tar unshare

# ---- the planted tree: fuse-mounts (two FUSE waits, one on a mount under /home) ----
HOST=zeta-web7 DOMAIN=corp-secret.example U1=quillon U2=vexmoor HOME2=/srv/vexmoor-data
SECRETS=("$HOST" "$DOMAIN" "$U1" "$U2" "$HOME2" "/home/$U1" "$U1/remote" "notes.txt")
t=$tmp/tree
cp -a "$repo/tests/fixtures/fuse-mounts" "$t"
rm -f "$t/expect"
echo "$HOST.$DOMAIN" >"$t/proc/sys/kernel/hostname"
sed -i "s|/home/u/remote|/home/$U1/remote|; s|u@nas:/srv|$U1@$HOST:$HOME2|" "$t/proc/self/mountinfo"
ln -sfn "/home/$U1/remote/notes.txt" "$t/proc/4100/fd/3"
for f in "$t/proc/4100/status" "$t/proc/4100/task/4100/status"; do
	sed -i "s/^Uid:.*/Uid:\t4321\t4321\t4321\t4321/" "$f"
done
for f in "$t/proc/4100/cgroup" "$t/proc/4100/task/4100/cgroup"; do
	echo "0::/user.slice/user-4321.slice/app-$U1-sync.scope" >"$f"
done
mkdir -p "$t/sys/fs/cgroup/user.slice/user-4321.slice/app-$U1-sync.scope"
printf 'populated 1\nfrozen 0\n' >"$t/sys/fs/cgroup/user.slice/user-4321.slice/app-$U1-sync.scope/cgroup.events"
mkdir -p "$t/sys/fs/cgroup/$HOST-batch.slice"
printf '0-1\n' >"$t/sys/fs/cgroup/$HOST-batch.slice/cpuset.cpus.effective"
printf 'sshfs\0%s@%s:/srv\0/home/%s/remote\0' "$U1" "$HOST" "$U1" >"$t/proc/4100/cmdline"
printf '/usr/bin/python3\0%s/job.py\0--host\0%s\0' "$HOME2" "$HOST" >"$t/proc/23/cmdline"
mkdir -p "$t/dev"
printf '6,100,1000,-;fuse: sshfs %s@%s.%s on /home/%s/remote\n6,101,1001,-;%s login: %s\n' \
	"$U1" "$HOST" "$DOMAIN" "$U1" "$HOST" "$U2" >"$t/dev/kmsg"
mkdir -p "$t/home/$U1/remote"
echo "notes of $U1" >"$t/home/$U1/remote/notes.txt"
# the host's users: this host's passwd and the two planted ones
pw=$tmp/passwd
{ cat /etc/passwd; echo "$U1:x:4321:4321:Q:/home/$U1:/bin/sh"; echo "$U2:x:4322:4322::$HOME2:/bin/sh"; } >"$pw"

# `cgwatch ARGS...` with $pw as /etc/passwd
as_host() {
	timeout $T unshare -m sh -c 'mount --bind "$1" /etc/passwd || exit 99; shift; exec "$@"' \
		sh "$pw" "$CGW" "$@"
}

# Every secret found in the bundle $1 (member names with link targets, then contents),
# one line each, or nothing.
leaks() {
	local b=$1 x=$tmp/x.$RANDOM s
	mkdir "$x"
	zstd -dc "$b" | tar -tvf - >"$x.names" 2>&1
	zstd -dc "$b" | tar -xf - -C "$x" 2>/dev/null
	for s in "${SECRETS[@]}"; do
		grep -F -- "$s" "$x.names" | head -2 | sed "s|^|name: $s: |"
		grep -rlF -- "$s" "$x" | head -3 | sed "s|^$x/|content: $s: |"
	done
	rm -rf "$x" "$x.names"
}

# The findings, in one order, for comparing two replays.
findings() {
	jq -c '[.findings[] | {id, severity, tasks: (.tasks | sort), chain: ((.chain // []) | sort), cpus}]
	       | sort_by(.id, (.tasks | tostring))' "$1"
}

# ---- bundle --redact ----
b=$tmp/r.tar.zst
out=$(cd "$tmp" && as_host bundle --config "$conf" --root "$t" --redact -o "$b" 2>&1)
rc=$?
if [ $rc = 99 ]; then
	echo "SKIP redact: cannot bind-mount a passwd file: $(clip "$out")"
	exit 0
fi
if [ $rc != 0 ] || [ ! -s "$b" ]; then
	echo "FAIL redact-bundle: exit $rc: $(clip "$out")"
	exit 0
fi
echo "PASS redact-bundle"
if ! grep -qxF "$b.map: the redaction map (token, value): keep it on this host" <<<"$out"; then
	echo "FAIL redact-map-named: stdout does not name $b.map: $(clip "$out")"
else
	echo "PASS redact-map-named"
fi

l=$(leaks "$b")
[ -z "$l" ] && echo "PASS redact-no-secret" || echo "FAIL redact-no-secret: $(clip "$l")"

# the map: on the host, 0600, every token of the bundle in it, and back to the values
map=$b.map
if [ ! -f "$map" ]; then
	echo "FAIL redact-map: no $map"
else
	why=""
	[ "$(stat -c %a "$map")" = 600 ] || why="mode $(stat -c %a "$map"), not 600"
	for pair in "host:$HOST" "host:$HOST.$DOMAIN" "domain:$DOMAIN" "user:$U1" "user:$U2"; do
		grep -qP "^REDACTED-${pair%%:*}-[0-9]+\t\Q${pair#*:}\E$" "$map" || why+=" no ${pair%%:*} token for ${pair#*:};"
	done
	mkdir "$tmp/m" && zstd -dc "$b" | tar -xf - -C "$tmp/m"
	used=$(grep -rahoE 'REDACTED-[a-z]+-[0-9]+' "$tmp/m" | sort -u)
	for tok in $used; do
		grep -q "^$tok	" "$map" || why+=" $tok is not in the map;"
	done
	[ -n "$used" ] || why+=" no token in the bundle;"
	[ -z "$why" ] && echo "PASS redact-map" || echo "FAIL redact-map:$why"
fi

# the manifest says so, the hashes are of what is in it
man=$(zstd -dc "$b" | tar -xOf - manifest.json)
[ "$(jq .redacted <<<"$man")" = true ] && echo "PASS redact-manifest" ||
	echo "FAIL redact-manifest: \"redacted\" is $(jq -c .redacted <<<"$man")"
out=$(timeout $T "$CGW" bundle --config "$conf" --verify "$b" 2>&1)
rc=$?
[ $rc = 0 ] && echo "PASS redact-verify" || echo "FAIL redact-verify: exit $rc: $(clip "$out")"

# ---- it replays to the tree's findings ----
timeout $T "$CGW" check --config "$conf" --root "$t" --format json >"$tmp/t.json" 2>"$tmp/t.err"
trc=$?
timeout $T "$CGW" check --config "$conf" --root "$b" --format json >"$tmp/b.json" 2>"$tmp/b.err"
brc=$?
a=$(findings "$tmp/t.json")
r=$(findings "$tmp/b.json")
if [ $trc != $brc ]; then
	echo "FAIL redact-replay: exit $brc from the bundle, $trc from the tree: $(clip "$(cat "$tmp/b.err")")"
elif [ "$a" != "$r" ] || [ "$a" = "[]" ]; then
	echo "FAIL redact-replay: the tree $(clip "$a"), the bundle $(clip "$r")"
else
	echo "PASS redact-replay"
fi
# the causes name the mounts through their tokens; the map turns them back
back() {
	local s=$1 tok val
	while IFS=$'\t' read -r tok val; do
		s=${s//$tok/$val}
	done < <(sort -t- -k3,3nr "$map")
	printf '%s' "$s"
}
tc=$(jq -c '[.findings[].cause] | sort' "$tmp/t.json")
rcs=$(jq -c '[.findings[].cause] | sort' "$tmp/b.json")
if [ "$(back "$rcs")" = "$tc" ] && [ "$rcs" != "$tc" ]; then
	echo "PASS redact-replay-causes"
else
	echo "FAIL redact-replay-causes: the tree $tc, the bundle $rcs, mapped back $(back "$rcs")"
fi

# ---- [bundle] redact = yes: the same without the option; not redacted: "redacted": false ----
printf '[bundle]\nredact = yes\n' >"$tmp/redact.conf"
out=$(as_host bundle --config "$tmp/redact.conf" --root "$t" -o "$tmp/c.tar.zst" 2>&1)
rc=$?
l=$( [ $rc = 0 ] && leaks "$tmp/c.tar.zst")
if [ $rc = 0 ] && [ -z "$l" ] && [ -f "$tmp/c.tar.zst.map" ] &&
   [ "$(zstd -dc "$tmp/c.tar.zst" | tar -xOf - manifest.json | jq .redacted)" = true ]; then
	echo "PASS redact-config"
else
	echo "FAIL redact-config: exit $rc: $(clip "$out") $(clip "$l")"
fi
# (and the search above can fail: unredacted, every secret is found in names and contents)
out=$(as_host bundle --config "$tmp/redact.conf" --no-redact --root "$t" -o "$tmp/p.tar.zst" 2>&1)
rc=$?
l=$(leaks "$tmp/p.tar.zst")
missing=""
for s in "${SECRETS[@]}"; do
	grep -qF "name: $s: " <<<"$l" || [ "$s" = "$DOMAIN" ] || [ "$s" = "$U2" ] ||
		[ "$s" = "$HOME2" ] || missing+=" name:$s"
	grep -qF "content: $s: " <<<"$l" || missing+=" content:$s"
done
if [ -n "$missing" ]; then
	echo "FAIL redact-off: not in the unredacted bundle, so not searched for:$missing"
elif [ $rc = 0 ] && [ ! -e "$tmp/p.tar.zst.map" ] &&
   [ "$(zstd -dc "$tmp/p.tar.zst" | tar -xOf - manifest.json | jq .redacted)" = false ]; then
	echo "PASS redact-off"
else
	echo "FAIL redact-off: exit $rc, map $(ls "$tmp"/p.tar.zst* | tr '\n' ' '): $(clip "$out")"
fi

# ---- every fixture tree: redacted, it replays to the tree's findings ----
for dir in "$repo"/tests/fixtures/*/; do
	name=$(basename "$dir")
	[ -d "$dir/proc" ] || continue
	timeout $T "$CGW" bundle --config "$conf" --root "$dir" --redact -o "$tmp/f.tar.zst" >"$tmp/f.out" 2>&1
	rc=$?
	timeout $T "$CGW" check --config "$conf" --root "$dir" --format json >"$tmp/ft.json" 2>/dev/null
	trc=$?
	timeout $T "$CGW" check --config "$conf" --root "$tmp/f.tar.zst" --format json >"$tmp/fb.json" 2>"$tmp/fb.err"
	brc=$?
	if [ $rc != 0 ]; then
		echo "FAIL redact-roundtrip-$name: bundle exit $rc: $(clip "$(cat "$tmp/f.out")")"
	elif [ $trc != $brc ]; then
		echo "FAIL redact-roundtrip-$name: exit $brc from the bundle, $trc from the tree: $(clip "$(cat "$tmp/fb.err")")"
	elif [ $trc != 3 ] && [ "$(findings "$tmp/ft.json")" != "$(findings "$tmp/fb.json")" ]; then
		echo "FAIL redact-roundtrip-$name: the tree $(clip "$(findings "$tmp/ft.json")"), the bundle $(clip "$(findings "$tmp/fb.json")")"
	else
		echo "PASS redact-roundtrip-$name"
	fi
	rm -f "$tmp"/f.tar.zst*
done

# ---- under valgrind: the redacted bundle made, with no memory error or leak ----
if bundle_valgrind redact-valgrind; then
	out=$(timeout 300 unshare -m sh -c \
		'mount --bind "$1" /etc/passwd || exit 99; shift; exec "$@"' sh "$pw" \
		valgrind -q --vgdb=no --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$VG_CGW" bundle --config "$conf" --root "$repo/tests/fixtures/seed004-kmsg" --redact \
		-o "$tmp/vg.tar.zst" 2>&1)
	rc=$?
	[ $rc = 0 ] && echo "PASS redact-valgrind" ||
		echo "FAIL redact-valgrind: exit $rc: $(clip "$(grep '==' <<<"$out" | head -8)")"
fi

# ---- the default name holds the host's token, not its name ----
mkdir "$tmp/named"
out=$(cd "$tmp/named" && as_host bundle --config "$conf" --root "$t" --redact 2>&1)
rc=$?
f=$(ls -A "$tmp/named" | grep -v '\.map$')
if [ $rc = 0 ] && [[ "$f" =~ ^cgwatch-bundle-REDACTED-host-[0-9]+-[0-9]{8}T[0-9]{6}Z\.tar\.(zst|gz)$ ]] &&
   [ -f "$tmp/named/$f.map" ]; then
	echo "PASS redact-default-name"
else
	echo "FAIL redact-default-name: exit $rc, files $(ls -A "$tmp/named" | tr '\n' ' '): $(clip "$out")"
fi
exit 0
