#!/bin/bash
# live-hostname: D tasks with hostile names (set with prctl PR_SET_NAME) cannot break the
# output, and JSON carries their real names:
#  - a vfork parent named "a\nb\"c\\\x1b[31m" (newline, double quote, backslash, ESC[31m)
#    and, when /dev/fuse exists, a FUSE waiter named "f\nb\"c\\\x1b[31m" (a real, warning
#    finding): in JSON, the name as it is (jq matches it);
#  - a vfork parent whose name is not valid UTF-8: "u", é, 0xff, ED A0 80 (a surrogate),
#    "z", an emoji, U+009B (a C1 control): in JSON, é, the emoji and U+009B as they are and
#    each invalid byte as the text \xNN.
# The JSON text holds no raw control character (C0, DEL, C1); the text report has no raw
# control byte, the newline does not split a line, and every name is C-escaped there.
. "$(dirname "$0")/lib.sh"
live_init hostname
live_require_root
live_require_tools jq timeout awk grep
live_require_helpers vforkhold fusehold
live_require_binary
live_mktemp

HAVE_FUSE=0
[ -c /dev/fuse ] && grep -qw fuse /proc/filesystems && HAVE_FUSE=1
MNT=$LIVE_TMP/mnt

live_on_exit 'live_umount "$MNT"'
live_on_exit 'live_kill_task "$FCHILD"'
live_on_exit 'live_kill_wait "$FHELPER"'
live_on_exit 'live_kill_task "$VCHILD"'
live_on_exit 'live_kill_wait "$VHELPER"'
live_on_exit 'live_kill_task "$BCHILD"'
live_on_exit 'live_kill_wait "$BHELPER"'

# start_vfork OUT ARGS...: a vforkhold with ARGS, its output in $LIVE_TMP/OUT.out; sets
# HELPER, PARENT (in D) and CHILD.
start_vfork() {
	local out=$LIVE_TMP/$1
	shift
	"$LIVE_BIN/vforkhold" "$@" 30 >"$out.out" 2>"$out.err" 3>&- &
	HELPER=$!
	both() { grep -q '^parent ' "$out.out" && grep -q '^child ' "$out.out"; }
	live_wait_for 5 both || live_fail "setup: vforkhold output: $(cat "$out.out" "$out.err")"
	PARENT=$(awk '/^parent /{print $2}' "$out.out")
	CHILD=$(awk '/^child /{print $2}' "$out.out")
	vdown() { [ "$(live_task_state "$PARENT")" = D ]; }
	live_wait_for 3 vdown || live_fail "setup: vfork parent $PARENT in state '$(live_task_state "$PARENT")', want D"
}

start_vfork vfork --hostile
VHELPER=$HELPER VCHILD=$CHILD
TIDS=("$PARENT")
RAW=($'a\nb"c\\\e[31m')
# JSON: the real name; text: C-escaped (hex digits in either case)
JSON=("${RAW[0]}")
TEXT=('a\nb\"c\\\x1b[31m')

BAD=$'u\xc3\xa9\xff\xed\xa0\x80z\xf0\x9f\x98\x80\xc2\x9b'
start_vfork badutf8 --name "$BAD"
BHELPER=$HELPER BCHILD=$CHILD
TIDS+=("$PARENT")
RAW+=("$BAD")
JSON+=($'u\xc3\xa9\\xff\\xed\\xa0\\x80z\xf0\x9f\x98\x80\xc2\x9b')
TEXT+=('u\xc3\xa9\xff\xed\xa0\x80z\xf0\x9f\x98\x80\xc2\x9b')

if [ "$HAVE_FUSE" = 1 ]; then
	mkdir "$MNT" || live_fail "mkdir $MNT"
	"$LIVE_BIN/fusehold" "$MNT" --child --hostile >"$LIVE_TMP/fuse.out" 2>"$LIVE_TMP/fuse.err" 3>&- &
	FHELPER=$!
	child_line() { grep -q '^child ' "$LIVE_TMP/fuse.out"; }
	live_wait_for 5 child_line || live_fail "setup: fusehold output: $(cat "$LIVE_TMP/fuse.out" "$LIVE_TMP/fuse.err")"
	FCHILD=$(awk '/^child /{print $2}' "$LIVE_TMP/fuse.out")
	fdown() { [ "$(live_task_state "$FCHILD")" = D ]; }
	live_wait_for 5 fdown || live_fail "setup: fuse child $FCHILD in state '$(live_task_state "$FCHILD")', want D"
	TIDS+=("$FCHILD")
	RAW+=($'f\nb"c\\\e[31m')
	JSON+=("${RAW[-1]}")
	TEXT+=('f\nb\"c\\\x1b[31m')
fi

# Check the setup: the kernel kept every byte of the names.
for i in "${!TIDS[@]}"; do
	got=$(cat "/proc/${TIDS[i]}/comm"; echo .)
	got=${got%$'\n.'}
	[ "$got" = "${RAW[i]}" ] || live_fail "setup: /proc/${TIDS[i]}/comm is $(printf %q "$got"), want $(printf %q "${RAW[i]}")"
done

sleep 2
OUT=$LIVE_TMP/report.json ERR=$LIVE_TMP/report.err
live_cgwatch "$OUT" "$ERR" check --format json --threshold 1 --all
case $CG_RC in 0 | 1) ;; *) live_fail "json: exit code $CG_RC, want 0 or 1; stderr: $(head -c 200 "$ERR" | cat -v)" ;; esac
jq . "$OUT" >/dev/null 2>&1 || live_fail "json: jq . fails on the output: $(head -c 400 "$OUT" | cat -v)"
live_json_check "$OUT" "json"
# No raw control character in the JSON text: C0 but newline, DEL, C1 (UTF-8 C2 80..C2 9F).
if LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$OUT"; then
	live_fail "json: output contains a raw control character: $(LC_ALL=C grep -nP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$OUT" | head -3 | cat -v)"
fi

# The real name: jq selects the task by it.
for i in "${!TIDS[@]}"; do
	t=${TIDS[i]}
	task=$(live_task_json "$OUT" "$t")
	[ -n "$task" ] || live_fail "json: task $t not in tasks[]: $(live_summary "$OUT")"
	found=$(jq -r --arg c "${JSON[i]}" '[.tasks[] | select(.comm == $c) | .tid] | join(",")' "$OUT")
	[ "$found" = "$t" ] ||
		live_fail "json: tasks with comm $(jq -nc --arg c "${JSON[i]}" '$c') are [$found], want [$t]; task $t has comm $(jq -c '.comm' <<<"$task")"
done

TOUT=$LIVE_TMP/report.txt TERR=$LIVE_TMP/report.txt.err
live_cgwatch "$TOUT" "$TERR" check --format text --threshold 1 --all
case $CG_RC in 0 | 1) ;; *) live_fail "text: exit code $CG_RC, want 0 or 1; stderr: $(head -c 200 "$TERR" | cat -v)" ;; esac
for f in "$TOUT" "$TERR"; do
	if LC_ALL=C grep -q $'\e' "$f"; then
		live_fail "text: $(basename "$f") contains a raw ESC byte: $(LC_ALL=C grep -n $'\e' "$f" | head -3 | cat -v)"
	fi
	# Any control byte other than tab and newline, or a C1 control in UTF-8.
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$f"; then
		live_fail "text: $(basename "$f") contains a raw control byte: $(LC_ALL=C grep -nP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$f" | head -3 | cat -v)"
	fi
	# The newline in the name must not have started a new line with its tail.
	if LC_ALL=C grep -q '^b"c' "$f"; then
		live_fail "text: a line of $(basename "$f") begins with the tail of the name: $(LC_ALL=C grep -n '^b"c' "$f" | head -3 | cat -v)"
	fi
done
for i in "${!TIDS[@]}"; do
	LC_ALL=C grep -qiF -- "${TEXT[i]}" "$TOUT" ||
		live_fail "text: C-escaped name ${TEXT[i]} of task ${TIDS[i]} not found in the text report: $(head -c 600 "$TOUT" | cat -v)"
done

live_pass
