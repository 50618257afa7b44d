#!/bin/bash
# tests/systemd/rootfs.sh: print the path of a cached minimal Debian 12 (bookworm) root
# filesystem with systemd, for booting with systemd-nspawn; build it with mmdebstrap first when
# the cache has none for this package list. Built from the Debian mirror this machine's apt
# uses (first deb.debian.org-style URI in /etc/apt/sources.list{,.d}), variant minbase.
#
#   tests/systemd/rootfs.sh            -> /var/cache/cgwatch-tests/rootfs-<hash>
#
# The cache directory is never booted or written once built: tests mount an overlay on it.
# The hash covers the package list, the suite, the mirror and this script's build recipe:
# changing any of them builds a new tree (old ones are removed). Exit 0 with the path on
# stdout; exit 2 with the reason on stderr when it cannot be built (no mmdebstrap, no mirror);
# exit 1 when the build itself failed. A build in progress elsewhere holds a lock.
set -u
CACHE=${CGWATCH_TEST_CACHE:-/var/cache/cgwatch-tests}
SUITE=bookworm
# What the tests need inside, and what the cgwatch binary (built on this Debian 12 host)
# links: libsystemd0 libproc2-0 libinih1 libjson-c5 libarchive13 libnettle8 libunwind8 libbpf1
# (and libc6, libcap2, ... from minbase).
PACKAGES=(systemd systemd-sysv dbus fuse3 jq procps libproc2-0 libinih1 libjson-c5
	libsystemd0 libarchive13 libnettle8 libunwind8 libbpf1 util-linux)
RECIPE=1        # bump when the mmdebstrap options below change

mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do
		[ -r "$f" ] || continue
		uri=$(grep -hoE 'https?://[^ ]*/debian/?( |$)' "$f" | grep -v security | head -1 | tr -d ' ')
		[ -n "$uri" ] && { echo "$uri"; return 0; }
	done
	return 1
}

MIRROR=${CGWATCH_TEST_MIRROR:-$(mirror)} || { echo "no Debian mirror in /etc/apt/sources.list{,.d}" >&2; exit 2; }
HASH=$(printf '%s\n' "$RECIPE" "$SUITE" "$MIRROR" "${PACKAGES[@]}" | sha256sum | cut -c1-16)
DIR=$CACHE/rootfs-$HASH

if [ -x "$DIR/lib/systemd/systemd" ] && [ -f "$DIR/.cgwatch-complete" ]; then
	echo "$DIR"
	exit 0
fi
command -v mmdebstrap >/dev/null || { echo "no cached rootfs and no mmdebstrap (make deps)" >&2; exit 2; }
mkdir -p "$CACHE" || exit 1
exec 9>"$CACHE/.lock"
flock -w 900 9 || { echo "another build holds $CACHE/.lock" >&2; exit 1; }
if [ -f "$DIR/.cgwatch-complete" ]; then echo "$DIR"; exit 0; fi

tmp=$CACHE/.build-$HASH.$$
rm -rf "$CACHE"/.build-* 2>/dev/null
log=$CACHE/build-$HASH.log
echo "building $DIR with mmdebstrap from $MIRROR (log: $log)" >&2
inc=$(IFS=,; echo "${PACKAGES[*]}")
if ! timeout -k 10 1200 mmdebstrap --mode=root --variant=minbase --include="$inc" \
	--aptopt='Acquire::Retries "3"' \
	--customize-hook='echo cgwatch-test > "$1/etc/hostname"' \
	--customize-hook='rm -f "$1/etc/machine-id"; touch "$1/etc/machine-id"' \
	"$SUITE" "$tmp" "$MIRROR" >"$log" 2>&1; then
	rm -rf "$tmp"
	if grep -qiE 'Could not resolve|Temporary failure|Failed to fetch|unable to connect' "$log"; then
		echo "mmdebstrap could not reach $MIRROR: $(grep -m1 -iE 'resolve|fetch|connect' "$log")" >&2
		exit 2
	fi
	echo "mmdebstrap failed: $(tail -3 "$log" | tr '\n' ' ')" >&2
	exit 1
fi
touch "$tmp/.cgwatch-complete"
for old in "$CACHE"/rootfs-*; do [ "$old" = "$DIR" ] || rm -rf "$old"; done
mv "$tmp" "$DIR" || exit 1
echo "$DIR"
