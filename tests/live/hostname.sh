#!/bin/bash
# live-hostname: D tasks whose comm (set with prctl PR_SET_NAME) holds a
# newline, a double quote, a backslash and an ESC[31m sequence cannot break
# the output: JSON stays valid and carries the C-escaped name; the text
# report has no raw control byte and the newline does not split a line.
# The tasks: a vfork parent named "a\nb\"c\\\x1b[31m" and, when /dev/fuse
# exists, a FUSE waiter named "f\nb\"c\\\x1b[31m" (a real, warning finding).
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

"$LIVE_BIN/vforkhold" --hostile 30 >"$LIVE_TMP/vfork.out" 2>"$LIVE_TMP/vfork.err" 3>&- &
VHELPER=$!
both() { grep -q '^parent ' "$LIVE_TMP/vfork.out" && grep -q '^child ' "$LIVE_TMP/vfork.out"; }
live_wait_for 5 both || live_fail "setup: vforkhold output: $(cat "$LIVE_TMP/vfork.out" "$LIVE_TMP/vfork.err")"
VPARENT=$(awk '/^parent /{print $2}' "$LIVE_TMP/vfork.out")
VCHILD=$(awk '/^child /{print $2}' "$LIVE_TMP/vfork.out")
vdown() { [ "$(live_task_state "$VPARENT")" = D ]; }
live_wait_for 3 vdown || live_fail "setup: vfork parent $VPARENT in state '$(live_task_state "$VPARENT")', want D"
TIDS=("$VPARENT")
RAW=($'a\nb"c\\\e[31m')

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
LC_ALL=C grep -q $'\e' "$OUT" && live_fail "json: output contains a raw ESC byte"

# C-escaped form: a\nb\"c\\\x1b[31m (hex digits in either case).
for i in "${!TIDS[@]}"; do
	t=${TIDS[i]} first=${RAW[i]:0:1}
	want="$first"'\nb\"c\\\x1b[31m'
	task=$(live_task_json "$OUT" "$t")
	[ -n "$task" ] || live_fail "json: task $t not in tasks[]: $(live_summary "$OUT")"
	comm=$(jq -r '.comm' <<<"$task")
	[ "$comm" = "$want" ] || [ "$comm" = "${want/x1b/x1B}" ] ||
		live_fail "json: task $t comm is $(jq -c '.comm' <<<"$task"), want the C-escaped $(jq -Rc . <<<"$want")"
done

TOUT=$LIVE_TMP/report.txt TERR=$LIVE_TMP/report.txt.err
live_cgwatch "$TOUT" "$TERR" check --format text --threshold 1 --all
case $CG_RC in 0 | 1) ;; *) live_fail "text: exit code $CG_RC, want 0 or 1; stderr: $(head -c 200 "$TERR" | cat -v)" ;; esac
for f in "$TOUT" "$TERR"; do
	if LC_ALL=C grep -q $'\e' "$f"; then
		live_fail "text: $(basename "$f") contains a raw ESC byte: $(LC_ALL=C grep -n $'\e' "$f" | head -3 | cat -v)"
	fi
	# Any control byte other than tab and newline.
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$f"; then
		live_fail "text: $(basename "$f") contains a raw control byte: $(LC_ALL=C grep -nP '[\x00-\x08\x0b-\x1f\x7f]' "$f" | head -3 | cat -v)"
	fi
	# The newline in the name must not have started a new line with its tail.
	if LC_ALL=C grep -q '^b"c' "$f"; then
		live_fail "text: a line of $(basename "$f") begins with the tail of the name: $(LC_ALL=C grep -n '^b"c' "$f" | head -3 | cat -v)"
	fi
done
for i in "${!TIDS[@]}"; do
	want="${RAW[i]:0:1}"'\nb\"c\\\x1b[31m'
	LC_ALL=C grep -qiF -- "$want" "$TOUT" ||
		live_fail "text: C-escaped name $want of task ${TIDS[i]} not found in the text report: $(head -c 600 "$TOUT" | cat -v)"
done

live_pass
