#!/bin/bash
# live-ksymsstack: the kernel stacks the BPF task iterator reads as addresses are named as the
# kernel names them, both ways cgwatch has. Six threads of one process stat one new name under
# a FUSE mount that never answers (one waits in fuse_get_req, the others behind its lookup in
# d_alloc_parallel: two distinct stacks), beside the mount helper's child. A check (source
# bpf) names them from the tasks' own /proc/TID/stack (its --verbose line counts addresses
# named so, none of ours from /proc/kallsyms); with CGWATCH_TEST_KSYMS=kallsyms from
# /proc/kallsyms alone. Either way every one of our threads' frames, name and offsets, must
# equal its /proc/TID/stack read after the check.
. "$(dirname "$0")/lib.sh"
live_init_fuse ksymsstack jq timeout awk
live_require_helpers ustackhold-O2
[ -r /sys/kernel/btf/vmlinux ] || live_skip "no kernel BTF: the task iterator cannot load here"

# the threads behind the first lookup wait uninterruptibly: they die once the mount's server
# is gone, so they are waited for after it (cleanups run last registered first)
SN=
live_on_exit '[ -z "$SN" ] || live_kill_wait "$SN"'
live_fuse_child
live_statn "$MNT/y" 6
sleep 1.2
OURS=("$CHILD" "${SNT[@]}")
IDS=$(printf '%s\n' "${OURS[@]}" | jq -sc .)
printf '[scan]\nustack_max = 0\n' >"$LIVE_TMP/c.conf"

# frames TID: its /proc/TID/stack as the report writes frames (no "[<0>] ", no " [module]")
frames() { sed -e 's/^\[<[0-9a-f]*>\] //' -e 's/ \[[^]]*\]$//' "/proc/$SN/task/$1/stack" 2>/dev/null ||
	sed -e 's/^\[<[0-9a-f]*>\] //' -e 's/ \[[^]]*\]$//' "/proc/$1/stack"; }

# run NAME [KSYMS]: a check, with CGWATCH_TEST_KSYMS=KSYMS; its stacks of ours against the
# kernel's own text
run() {
	local name=$1 out=$LIVE_TMP/$1.json t got want distinct
	CGWATCH_TEST_KSYMS=${2:-} live_cgwatch "$out" "$out.err" check --config "$LIVE_TMP/c.conf" \
		--threshold 1 --verbose --format json
	live_json_check "$out" "check ($name)"
	[ "$(jq -r .scan.source "$out")" = bpf ] ||
		live_skip "the BPF task iterator did not load: $(jq -r .scan.source_why "$out")"
	for t in "${OURS[@]}"; do
		got=$(jq -r --argjson t "$t" '.tasks[]? | select(.tid == $t) | .stack[]?' "$out")
		want=$(frames "$t")
		[ -n "$got" ] || live_fail "$name: no kernel stack for $t in the report: $(live_summary "$out")"
		[ "$got" = "$want" ] || live_fail "$name: thread $t: the report's frames '$(echo $got)' differ from /proc/$t/stack '$(echo $want)'"
	done
	distinct=$(for t in "${SNT[@]}"; do frames "$t" | head -1; done | sort -u | wc -l)
	[ "$distinct" -ge 2 ] || live_skip "the statn threads share one stack here ($distinct): only one is named from a file"
	LINE=$(grep -o 'kernel stacks: .*' "$out.err" | head -1)
	[ -n "$LINE" ] || live_fail "$name: no 'kernel stacks:' line in --verbose: $(head -c 300 "$out.err")"
}

run files
read -r SF READ KS < <(sed -E 's/.*: ([0-9]+) addresses named from .*\(([0-9]+) read\), ([0-9]+) from.*/\1 \2 \3/' <<<"$LINE")
[ "${SF:-0}" -gt 0 ] && [ "${READ:-0}" -ge 2 ] ||
	live_fail "files: the addresses were not named from stack files: '$LINE'"

run kallsyms kallsyms
read -r SF2 READ2 KS2 < <(sed -E 's/.*: ([0-9]+) addresses named from .*\(([0-9]+) read\), ([0-9]+) from.*/\1 \2 \3/' <<<"$LINE")
[ "$SF2" = 0 ] && [ "$READ2" = 0 ] && [ "${KS2:-0}" -gt 0 ] ||
	live_fail "kallsyms: want every address from /proc/kallsyms: '$LINE'"
live_pass "$SF addresses from $READ stack files, $KS2 from /proc/kallsyms; frames equal /proc/TID/stack both ways"
