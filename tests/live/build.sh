#!/bin/bash
# Build test helpers: DIR/*.c into DIR/bin/ (git-ignored); DIR defaults to tests/live.
# Quiet on success; on failure prints the compiler output to stderr, exits 1. A helper is
# rebuilt when its source or the shared helper.h is newer than it.
here=${1:-$(cd "$(dirname "$0")" && pwd)}
shared=$(cd "$(dirname "$0")" && pwd)/helper.h
mkdir -p "$here/bin" || exit 1
rc=0
for src in "$here"/*.c; do
	bin="$here/bin/$(basename "$src" .c)"
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$shared" -nt "$bin" ]; then
		cc -O1 -Wall -Wextra -Werror -o "$bin.tmp" "$src" && mv -f "$bin.tmp" "$bin" || { rm -f "$bin.tmp"; rc=1; }
	fi
done
exit $rc
