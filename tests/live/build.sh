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
	if [ "$(basename "$src")" = ustackhold.c ]; then
		# the user-stack tests unwind it as built three ways, and stripped
		for v in "O2:-O2 -g" "O0:-O0 -g" "fp:-O2 -g -fno-omit-frame-pointer"; do
			b=$bin-${v%%:*}
			if [ ! -x "$b" ] || [ "$src" -nt "$b" ]; then
				cc ${v#*:} -pthread -Wall -Wextra -Werror -o "$b.$$.tmp" "$src" &&
					mv -f "$b.$$.tmp" "$b" || { rm -f "$b.$$.tmp"; rc=1; }
			fi
		done
		if [ ! -x "$bin-strip" ] || [ "$bin-O2" -nt "$bin-strip" ]; then
			strip -o "$bin-strip.$$.tmp" "$bin-O2" && mv -f "$bin-strip.$$.tmp" "$bin-strip" ||
				{ rm -f "$bin-strip.$$.tmp"; rc=1; }
		fi
		continue
	fi
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$shared" -nt "$bin" ]; then
		cc -O1 -Wall -Wextra -Werror -o "$bin.$$.tmp" "$src" && mv -f "$bin.$$.tmp" "$bin" || { rm -f "$bin.$$.tmp"; rc=1; }
	fi
done
exit $rc
