#!/bin/sh
# sigs-builtin.sh FILE...: print the C source of the built-in signature library: the bytes of
# each FILE, named as given (conf/signatures.d/NAME.conf), in argument order. Only od and sed,
# so any POSIX system can build it; the Makefile writes it to $(BUILD)/gen/sigs-builtin.c.
set -e
for f in "$@"; do
	case $f in *[\"\\]*) echo "sigs-builtin.sh: unusable file name: $f" >&2; exit 1 ;; esac
	if [ ! -f "$f" ] || [ ! -r "$f" ]; then
		echo "sigs-builtin.sh: cannot read $f" >&2
		exit 1
	fi
done
echo '/* Generated from conf/signatures.d by src/sigs-builtin.sh: do not edit. */'
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
echo 'const struct cgw_sigfile sig_builtin_files[] = {'
i=0
for f in "$@"; do
	printf '\t{ "%s", (const char *)f%d, sizeof(f%d) - 1 },\n' "$f" $i $i
	i=$((i + 1))
done
echo '	{ NULL, NULL, 0 }'
echo '};'
