#!/usr/bin/env bash
# Naming user-space frames: elfsym_name (source-elf.c) against addr2line, in the same run, on
# the same addresses (N spread over each file's executable segment). elfsym: the first lookup
# in a file (parsed, its debug file looked for) and each further one (cached), median of 5
# rounds. addr2line -f -e FILE: one process per address (as a reporter calling it per frame
# would), and one process for all N. Files: a program built here -O2 -g (.symtab), libc
# (its debug file when libc6-dbg is installed, else .dynsym), libsystemd (.dynsym), and
# cgwatch itself.
# usage: bench/elfsym.sh [FILE...]   needs: cc, addr2line (binutils); build/obj from `make`
set -u
cd "$(dirname "$0")/.."
N=${N:-200}
make -s all >/dev/null || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs=()
for o in build/obj/*.o; do
	b=$(basename "$o" .o)
	[ "$b" != main ] && { [ -f "src/$b.c" ] || [[ "$b" == *-builtin ]]; } && objs+=("$o")
done
read -r -a cflags <<<"$(make -s print-cflags)"
read -r -a libs <<<"$(make -s print-libs)"
cc -O2 -std=gnu11 -D_GNU_SOURCE -include build/config.h "${cflags[@]}" -Isrc -o "$tmp/elfsym" \
	bench/elfsym.c "${objs[@]}" "${libs[@]}" || exit 1
cc -O2 -g -fPIC -shared -o "$tmp/libx.so" tests/unit/elf/libx.c &&
	cc -O2 -g -o "$tmp/prog" tests/unit/elf/prog.c -L"$tmp" -lx || exit 1
[ $# -gt 0 ] || set -- "$tmp/prog" "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" \
	"$(readlink -f /lib/x86_64-linux-gnu/libsystemd.so.0)" build/cgwatch
now() { date +%s%N; }
for f in "$@"; do
	[ -f "$f" ] || continue
	echo "== $f ($(($(stat -c %s "$f") / 1024)) KiB)"
	printf '  elfsym:              '
	"$tmp/elfsym" "$f" "$N" "$tmp/addrs" || { echo "failed"; continue; }
	if command -v addr2line >/dev/null; then
		mapfile -t a <"$tmp/addrs"
		t0=$(now)
		for ((i = 0; i < 20; i++)); do addr2line -f -e "$f" "${a[i]}" >/dev/null; done
		t1=$(now)
		addr2line -f -e "$f" "${a[@]}" >"$tmp/a2l"
		t2=$(now)
		echo "  addr2line -f -e:     $(((t1 - t0) / 20000)) us per address, one process each;" \
		     "$(((t2 - t1) / 1000)) us for all $N in one process"
		# the same function named? (addr2line names an inlined callee where DWARF says so)
		awk 'NR % 2 == 1' "$tmp/a2l" | paste -d' ' "$tmp/addrs.names" - |
			awk '{ n++; if ($1 == $2) same++; else if ($1 == "??") none++; else other++ }
			     END { printf "  same name as addr2line: %d of %d; elfsym none where addr2line names: %d; names differ: %d\n", same, n, none, other }'
	fi
	if command -v eu-addr2line >/dev/null; then
		t0=$(now)
		eu-addr2line -f -e "$f" "${a[@]}" >/dev/null
		t1=$(now)
		echo "  eu-addr2line -f -e:  $(((t1 - t0) / 1000)) us for all $N in one process"
	fi
done
