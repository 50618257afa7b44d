#!/bin/bash
# Build the daemon-test helpers: tests/daemon/*.c into tests/daemon/bin/
# (git-ignored), and the live-test helpers they share (fusehold) through
# tests/live/build.sh into tests/live/bin/. Quiet on success; on failure the
# compiler output goes to stderr and it exits 1.
here=$(cd "$(dirname "$0")" && pwd)
rc=0
"$here/../live/build.sh" || rc=1
mkdir -p "$here/bin" || exit 1
for src in "$here"/*.c; do
	bin="$here/bin/$(basename "$src" .c)"
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		cc -O1 -Wall -Wextra -Werror -o "$bin.tmp" "$src" && mv -f "$bin.tmp" "$bin" || { rm -f "$bin.tmp"; rc=1; }
	fi
done
exit $rc
