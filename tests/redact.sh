#!/usr/bin/env bash
# Redacted bundles: a fixture tree whose host name, users and home paths are planted in many
# files (a status Uid, a command line, a mountinfo line under /home/USER, a kernel message, a
# cgroup path under a user slice, cgroups and a directory of the tree named after them), and
# the host's other names (the NIS domain, an FQDN of /etc/hostname, an /etc/hosts line's
# names and address, the addresses of an interface, v4 and v6) and group names (a private
# group, one from gid 1000), bundled with `bundle --redact` as "this host": in a UTS, mount
# and network namespace of its own, named as the tree's host, with passwd, group, hostname
# and hosts files bind-mounted on /etc's and a veth pair holding the addresses. Then: no
# member name, content or link target of the bundle holds any of them (nor the argument, the
# environment and the memory an older capture's cgwatch/mem and cgwatch/ustack files held
# past what a redacted bundle keeps of them); it replays (`check
# --root FILE`) to the findings of the tree (ids, severities, tasks, chains, CPUs, and causes
# once the map turns the tokens back); its FILE.map is there, 0600, and maps each token back;
# --verify passes; the manifest says "redacted": true; [bundle] redact = yes does the same
# without the option; the caps hold on the redacted members. A host named "vm" (a word of the kernel's): replaced where it names the
# host (the hostname file, the manifest, user@vm:, a kernel message's first word, a cgroup
# and unit named after it), never in a sysctl name, a kernel symbol, a stack or the signature
# text, and the bundle replays to the tree's findings. Every fixture tree, redacted, replays
# to its findings; a redacted bundle made under valgrind.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# env: CGWATCH (default: <repo>/build/cgwatch); CGWATCH_PLAIN, a build without ASan for the
#      valgrind run (default: CGWATCH)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CGW=${CGWATCH:-$repo/build/cgwatch}
T=60

. "$here/bundlelib.sh"
bundle_prelude redact "namespaces for the host's names, files and addresses, and the replay" \
	jq zstd tar unshare ip hostname

# ---- the planted tree: fuse-mounts (two FUSE waits, one on a mount under /home) ----
HOST=zeta-web7 DOMAIN=corp-secret.example U1=quillon U2=vexmoor HOME2=/srv/vexmoor-data
NIS=nis-realm9 ETCDOM=hq-secret.example HOSTSDOM=lan-secret.example ALIAS=zeta-mail7
ADDR=198.51.100.23 IF4=192.0.2.77 IF6=2001:db8::77 G1=dev-ops9 G2=vexstaff
PW=hunter2-argv ENVV=s3cr3t-environ MEMX=topsecret-memory
SECRETS=("$HOST" "$DOMAIN" "$U1" "$U2" "$HOME2" "/home/$U1" "$U1/remote" "notes.txt"
         "$NIS" "$ETCDOM" "$HOSTSDOM" "$ALIAS" "$ADDR" "$IF4" "$IF6" "$G1" "$G2"
         "$PW" "$ENVV" "$MEMX")
# found only in contents: not planted in any member name
CONTENT_ONLY=" $DOMAIN $U2 $HOME2 $NIS $ETCDOM $HOSTSDOM $ALIAS $ADDR $IF4 $IF6 $G1 $G2 $PW $ENVV $MEMX "
t=$tmp/tree
cp -a "$repo/tests/fixtures/fuse-mounts" "$t"
rm -f "$t/expect"
echo "$HOST.$DOMAIN" >"$t/proc/sys/kernel/hostname"
echo "$NIS" >"$t/proc/sys/kernel/domainname"
sed -i "s|/home/u/remote|/home/$U1/remote|; s|u@nas:/srv|$U1@$HOST:$HOME2|" "$t/proc/self/mountinfo"
echo "99 1 0:99 / /mnt/nfs rw - nfs4 nas:/export rw,addr=203.0.113.9,clientaddr=$IF4" \
	>>"$t/proc/self/mountinfo"
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
# what a capture of an older cgwatch, or another program's tree, may hold under cgwatch/: a
# task's memory read past its path's NUL (the next argument, the environment), and a user
# stack file with memory in lines that are not its own (a process the tree does not have, so
# that the replays are the same)
mkdir -p "$t/cgwatch/mem" "$t/cgwatch/ustack"
printf '/mnt/nfs/x\0--password=%s\0SECRET=%s\0' "$PW" "$ENVV" >"$t/cgwatch/mem/4100-7ffcdead0"
printf 'cgwatch-ustack 1\nunwound 9999 %s\nstack 7ffc00 %s\nnote 9998 a\0%s\nmodule - /home/%s/bin/x\n' \
	"$MEMX" "$MEMX" "$MEMX" "$U1" >"$t/cgwatch/ustack/9999"
mkdir -p "$t/dev"
printf '6,100,1000,-;fuse: sshfs %s@%s.%s on /home/%s/remote\n6,101,1001,-;%s login: %s\n' \
	"$U1" "$HOST" "$DOMAIN" "$U1" "$HOST" "$U2" >"$t/dev/kmsg"
printf '6,102,1002,-;NIS: bound to %s as %s.%s, mail %s at %s\n' "$NIS" "$HOST" "$ETCDOM" \
	"$ALIAS.$HOSTSDOM" "$ADDR" >>"$t/dev/kmsg"
printf '6,103,1003,-;IPv6: %s (%s) up, group %s, %s\n' "$IF6" "$IF4" "$G1" "$G2" >>"$t/dev/kmsg"
mkdir -p "$t/home/$U1/remote"
echo "notes of $U1" >"$t/home/$U1/remote/notes.txt"
# the host's users and groups: this host's passwd and group and the planted ones; its names
pw=$tmp/passwd grp=$tmp/group hn=$tmp/hostname hs=$tmp/hosts
{ cat /etc/passwd; echo "$U1:x:4321:4321:Q:/home/$U1:/bin/sh"; echo "$U2:x:4322:4322::$HOME2:/bin/sh"; } >"$pw"
{ cat /etc/group; echo "$U1:x:4321:"; echo "$G2:x:4322:"; echo "$G1:x:5001:$U1"; } >"$grp"
echo "$HOST.$ETCDOM" >"$hn"
printf '127.0.0.1 localhost\n%s %s.%s %s # this host\n203.0.113.5 otherhost\n' "$ADDR" "$HOST" \
	"$HOSTSDOM" "$ALIAS" >"$hs"

# ARGS... run as "this host": in UTS, mount and network namespaces, named $HOSTNAME_AS (the
# tree's host unless set), $pw, $grp, $hn and $hs on /etc's passwd, group, hostname and
# hosts, a veth pair holding $IF4 and $IF6. Exit 99 when a namespace cannot be made so.
HOSTNAME_AS=$HOST
as_ns() {
	timeout $T unshare -m -u -n sh -c '
		hostname "$1" && mount --bind "$2" /etc/passwd && mount --bind "$3" /etc/group &&
		mount --bind "$4" /etc/hostname && mount --bind "$5" /etc/hosts &&
		ip link add cgw0 type veth peer name cgw1 && ip addr add "$6/24" dev cgw0 &&
		ip -6 addr add "$7/64" dev cgw0 nodad || exit 99
		shift 7; exec "$@"' sh "$HOSTNAME_AS" "$pw" "$grp" "$hn" "$hs" "$IF4" "$IF6" "$@"
}
# `cgwatch ARGS...` as this host
as_host() {
	as_ns "$CGW" "$@"
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
	echo "SKIP redact: cannot make the host's namespaces (bind mounts, a veth pair): $(clip "$out")"
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
	for pair in "host:$HOST" "host:$HOST.$DOMAIN" "domain:$DOMAIN" "user:$U1" "user:$U2" \
		"domain:$NIS" "host:$HOST.$ETCDOM" "host:$ALIAS" "addr:$ADDR" "addr:$IF4" "addr:$IF6" \
		"group:$G1" "group:$G2"; do
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
	grep -qF "name: $s: " <<<"$l" || [[ "$CONTENT_ONLY" == *" $s "* ]] || missing+=" name:$s"
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

# ---- a host named "vm": where it names the host it is replaced, the kernel's words stay ----
t2=$tmp/tree-vm
cp -a "$repo/tests/fixtures/fuse-mounts" "$t2"
rm -f "$t2/expect"
echo vm >"$t2/proc/sys/kernel/hostname"
sed -i "s|u@nas:/srv|$U1@vm:/srv|" "$t2/proc/self/mountinfo"
for f in "$t2/proc/4100/cgroup" "$t2/proc/4100/task/4100/cgroup"; do
	echo "0::/vm-batch.slice/vm-sync.service" >"$f"
done
mkdir -p "$t2/sys/fs/cgroup/vm-batch.slice/vm-sync.service" "$t2/dev"
printf 'populated 1\nfrozen 0\n' >"$t2/sys/fs/cgroup/vm-batch.slice/vm-sync.service/cgroup.events"
KMSG_KEPT=("sysctl: vm.dirty_ratio = 20 (/proc/sys/vm/dirty_ratio)" " vm.isra.0+0x1f/0x40"
           " __access_remote_vm+0x10/0x20 [vm]" "the vm balloon")
printf '6,100,1000,-;vm login: %s\n' "$U1" >"$t2/dev/kmsg"
for k in "${KMSG_KEPT[@]}"; do
	printf '6,101,1001,-;%s\n' "$k" >>"$t2/dev/kmsg"
done
out=$(cd "$tmp" && HOSTNAME_AS=vm as_host bundle --config "$conf" --root "$t2" --redact \
	-o "$tmp/vm.tar.zst" 2>&1)
rc=$?
x=$tmp/vm
mkdir "$x"
zstd -dc "$tmp/vm.tar.zst" 2>/dev/null | tar -xf - -C "$x" 2>/dev/null
why=""
[ $rc = 0 ] || why+=" exit $rc: $(clip "$out");"
names=$(zstd -dc "$tmp/vm.tar.zst" 2>/dev/null | tar -tf - 2>/dev/null)
grep -q 'vm-batch\|vm-sync' <<<"$names" && why+=" a member is named after vm: $(grep -m1 'vm-batch\|vm-sync' <<<"$names");"
for s in "vm login" "@vm:" "vm-batch" "vm-sync"; do
	l=$(grep -rlF -- "$s" "$x" | head -2 | sed "s|^$x/||" | tr '\n' ' ')
	[ -z "$l" ] || why+=" \"$s\" in $l;"
done
[ "$(cat "$x/tree/proc/sys/kernel/hostname" 2>/dev/null)" != vm ] || why+=" the hostname file says vm;"
[ "$(jq -r .host "$x/manifest.json" 2>/dev/null)" != vm ] || why+=" the manifest's host is vm;"
grep -q '"host": *"vm"' "$x/report.json" 2>/dev/null && why+=" report.json's host is vm;"
grep -q '^cgwatch check on vm ' "$x/report.txt" 2>/dev/null && why+=" report.txt's host is vm;"
[ -z "$why" ] && echo "PASS redact-short-host" || echo "FAIL redact-short-host:$why"
why=""
for k in "${KMSG_KEPT[@]}"; do
	grep -qF -- "$k" "$x/tree/dev/kmsg" 2>/dev/null || why+=" the kernel message \"$k\" changed;"
done
for k in "vm.dirty_background_bytes" "/proc/sys/vm/compact_memory"; do
	grep -rqF -- "$k" "$x/signatures" 2>/dev/null || why+=" no \"$k\" in the signatures;"
done
for f in $(cd "$t2" && find proc -name stack); do
	cmp -s "$t2/$f" "$x/tree/$f" || why+=" $f changed;"
done
[ -z "$why" ] && echo "PASS redact-short-host-kept" || echo "FAIL redact-short-host-kept:$why"
timeout $T "$CGW" check --config "$conf" --root "$t2" --format json >"$tmp/t2.json" 2>/dev/null
trc=$?
timeout $T "$CGW" check --config "$conf" --root "$tmp/vm.tar.zst" --format json >"$tmp/b2.json" 2>"$tmp/b2.err"
brc=$?
if [ $trc != $brc ] || [ "$(findings "$tmp/t2.json")" != "$(findings "$tmp/b2.json")" ] ||
   [ "$(findings "$tmp/t2.json")" = "[]" ]; then
	echo "FAIL redact-short-host-replay: exit $brc/$trc, the tree $(clip "$(findings "$tmp/t2.json")"), the bundle $(clip "$(findings "$tmp/b2.json")") $(clip "$(cat "$tmp/b2.err")")"
else
	echo "PASS redact-short-host-replay"
fi
rm -rf "$x" "$t2" "$tmp"/vm.tar.zst*

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
	out=$(T=300 as_ns valgrind -q --vgdb=no --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$VG_CGW" bundle --config "$conf" --root "$repo/tests/fixtures/seed004-kmsg" --redact \
		-o "$tmp/vg.tar.zst" 2>&1)
	rc=$?
	[ $rc = 0 ] && echo "PASS redact-valgrind" ||
		echo "FAIL redact-valgrind: exit $rc: $(clip "$(grep '==' <<<"$out" | head -8)")"
fi

# ---- the caps hold once redacted: tokens are longer than what they replace ----
# a mountinfo of 17,000 mounts under /home/U1 (0.75 MiB) grows past max_size = 1 MiB once
# /home/U1 becomes /home/REDACTED-user-1: left out, and the members stay within the cap
t3=$tmp/tree-grow
cp -a "$t" "$t3"
awk -v u="$U1" 'BEGIN { for (i = 0; i < 17000; i++) printf "%d 1 0:9 / /home/%s/%d rw - tmpfs t rw\n", 200 + i, u, i }' \
	>>"$t3/proc/self/mountinfo"
printf '[bundle]\nmax_size = 1\n' >"$tmp/cap1.conf"
out=$(cd "$tmp" && as_host bundle --config "$tmp/cap1.conf" --root "$t3" --redact -o "$tmp/grow.tar.zst" 2>&1)
rc=$?
man=$(zstd -dc "$tmp/grow.tar.zst" 2>/dev/null | tar -xOf - manifest.json 2>/dev/null)
sum=$(jq '[.members[].size] | add' <<<"$man" 2>/dev/null)
if [ $rc != 0 ] || [ -z "$sum" ]; then
	echo "FAIL redact-caps: exit $rc: $(clip "$out")"
elif [ "$sum" -gt 1048576 ]; then
	echo "FAIL redact-caps: the members hold $sum bytes once redacted, over max_size = 1 MiB; left out: $(jq -c '[.left_out[]? | .path]' <<<"$man" | head -c 300)"
elif ! jq -e '[.left_out[]? | select(.path == "tree/proc/self/mountinfo")] | length == 1' <<<"$man" >/dev/null; then
	echo "FAIL redact-caps: proc/self/mountinfo not listed as left out: $(jq -c '.left_out' <<<"$man" | head -c 300)"
else
	echo "PASS redact-caps ($sum bytes of members, mountinfo left out once redacted)"
fi
rm -rf "$t3" "$tmp"/grow.tar.zst*

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
