#!/bin/sh
# sigs-builtin.sh [-n ARRAY] FILE...: print the C source of the built-in signature library (or,
# with -n hazard_builtin_files, of the hazard rules): the bytes of each FILE, named as given
# (conf/signatures.d/NAME.conf), in argument order, in the array ARRAY (sig_builtin_files).
# Only od and sed, so any POSIX system can build it; the Makefile writes it to
# $(BUILD)/gen/sigs-builtin.c (and hazards-builtin.c).
set -e
array=sig_builtin_files
if [ "${1:-}" = -n ]; then
	array=$2
	shift 2
fi
for f in "$@"; do
	case $f in *[\"\\]*) echo "sigs-builtin.sh: unusable file name: $f" >&2; exit 1 ;; esac
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		echo "sigs-builtin.sh: cannot read $f" >&2
		exit 1
	fi
done
echo "/* Generated from $(dirname "${1:-conf/x.d/}") by src/sigs-builtin.sh: do not edit. */"
echo '#include "cgwatch.h"'
i=0
for f in "$@"; do
	echo
	echo "static const unsigned char f${i}[] = {"
	od -An -v -tx1 "$f" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/	/'
	echo '	0 };'
	i=$((i + 1))
done
echo
echo "const struct cgw_sigfile ${array}[] = {"
i=0
for f in "$@"; do
	printf '\t{ "%s", (const char *)f%d, sizeof(f%d) - 1 },\n' "$f" $i $i
	i=$((i + 1))
done
echo '	{ NULL, NULL, 0 }'
echo '};'
