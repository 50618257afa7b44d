#!/bin/bash
# live-capturehog: a capture under a CPU hog. Two tasks blocked on FUSE mounts, one on each
# CPU, then a SCHED_FIFO/50 spinner takes CPU 1 from a SCHED_FIFO/10 one (starved). check
# --capture may run on either CPU and hops onto the other to read its clock (on CPU 1 in the
# hog's RT-throttling gaps); the replay takes each CPU's clock from DIR/cgwatch/clocks: the
# same findings (fuse-wait per mount, starved with its CPU) and every time within 0.1 s,
# though the CPUs' clocks differ by seconds here after a soft lockup (tests/live/cpuclocks.sh).
# Then the CPU farthest from the reader's gets offset 0 in a copy of the tree: its task's
# replayed time moves by the offset, so the replay takes that clock from the file (a replay
# that ignored it fails here; the PASS line says by how much the clocks differ).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capturelib.sh"
live_init capturehog
live_require_root
live_require_fuse
live_require_tools jq timeout awk taskset find stat
live_require_helpers fusehold spin
live_require_binary
live_mktemp
grep -q '^1$' /sys/devices/system/cpu/cpu1/online 2>/dev/null || [ "$(nproc --all)" -ge 2 ] ||
	live_skip "needs a second CPU"
taskset -pc 0 $$ >/dev/null || live_fail "setup: cannot pin the test to CPU 0"

declare -A CH HE
for c in 0 1; do
	mkdir "$LIVE_TMP/mnt$c" || live_fail "mkdir"
	live_on_exit "live_umount '$LIVE_TMP/mnt$c'"
	live_on_exit "live_kill_task \"\${CH[$c]}\""
	live_on_exit "live_kill_wait \"\${HE[$c]}\""
	taskset -c "$c" "$LIVE_BIN/fusehold" "$LIVE_TMP/mnt$c" --child >"$LIVE_TMP/h$c.out" 2>"$LIVE_TMP/h$c.err" 3>&- &
	HE[$c]=$!
done
for c in 0 1; do
	line() { grep -q '^child ' "$LIVE_TMP/h$c.out"; }
	live_wait_for 5 line || live_fail "setup: no child on CPU $c: $(cat "$LIVE_TMP/h$c.err")"
	read -r _ "CH[$c]" _ < <(grep '^child ' "$LIVE_TMP/h$c.out")
	in_wait() { [ "$(live_task_state "${CH[$c]}")" = D ] && grep -q fuse_get_req "/proc/${CH[$c]}/stack"; }
	live_wait_for 5 in_wait || live_fail "setup: child ${CH[$c]} not in D in fuse_get_req"
done
live_on_exit 'live_kill_wait "$HIGH"'
live_on_exit 'live_kill_wait "$LOW"'
live_spin LOW 1 10 10
sleep 0.2
live_spin HIGH 1 50 6
sleep 2
printf '[thresholds]\nstarved = 1\n' >"$LIVE_TMP/cgwatch.conf"

CAP=$LIVE_TMP/cap
# check free to run on both CPUs (the script stays on CPU 0), so that it hops onto CPU 1
REAL=$CGWATCH
CGWATCH=$LIVE_TMP/cgwatch-free
printf '#!/bin/sh\nexec taskset -c 0,1 %q "$@"\n' "$REAL" >"$CGWATCH" && chmod +x "$CGWATCH" ||
	live_fail "setup: wrapper"
capture_run "$CAP" --config "$LIVE_TMP/cgwatch.conf" --threshold 1
for c in 0 1; do
	jq -e --argjson t "${CH[$c]}" '[.findings[]? | select(.id == "fuse-wait" and (.tasks | index($t)))] | length == 1' \
		"$LIVE_TMP/live.json" >/dev/null || live_fail "live: no fuse-wait finding for ${CH[$c]} (CPU $c): $(live_summary "$LIVE_TMP/live.json")"
done
jq -e --argjson t "$LOW" '[.findings[]? | select(.id == "starved" and (.tasks | index($t)))] | length == 1' \
	"$LIVE_TMP/live.json" >/dev/null || live_fail "live: $LOW not starved: $(live_summary "$LIVE_TMP/live.json")"
capture_compare
capture_modes "$CAP"
# the CPU whose clock is farthest from the reader's (check starts on either)
read -r oc off < <(awk '$1 == "cpu" && $4 == "exact" && ($2 == 0 || $2 == 1) {
	a = $3 < 0 ? -$3 : $3; if (!n++ || a > m) { m = a; c = $2; o = $3 } }
	END { if (n == 2) printf "%d %.3f\n", c, o / 1000 }' "$CAP/cgwatch/clocks")
[ -n "$off" ] || live_fail "cgwatch/clocks lacks an exact clock of CPU 0 or 1: $(cat "$CAP/cgwatch/clocks")"
b1=$(jq -r --argjson t "${CH[$oc]}" '.tasks[] | select(.tid == $t) | "\(.blocked_s) \(.blocked_bound)"' "$LIVE_TMP/live.json")
[ "${b1#* }" = exact ] || live_fail "live: CPU $oc's blocked task ${CH[$oc]}: $b1, want an exact time"
# the same tree with that CPU's offset set to 0: the replay takes the clocks file's word, so
# the task's time moves by that offset, or past its age (the replay uses it, not a floor nor
# the reader's)
cp -a "$CAP" "$LIVE_TMP/zero" || live_fail "setup: copy"
awk -v c="$oc" '$1 == "cpu" && $2 == c { $3 = "0.000000" } { print }' "$CAP/cgwatch/clocks" >"$LIVE_TMP/zero/cgwatch/clocks"
live_cgwatch "$LIVE_TMP/zero.json" "$LIVE_TMP/zero.err" check --format json \
	--config "$LIVE_TMP/cgwatch.conf" --threshold 0.1 --root "$LIVE_TMP/zero"
zb=$(jq -r --argjson t "${CH[$oc]}" '[.tasks[] | select(.tid == $t) | .blocked_s][0] // "absent"' "$LIVE_TMP/zero.json")
note="CPU $oc's clock $off s from the reader's; with it zeroed its task replays as $zb s, live ${b1% *} s"
if awk -v o="$off" 'BEGIN { exit !(o > 0.3 || o < -0.3) }'; then
	# a CPU behind the reader's (o < 0) zeroed puts the task past its age: its time is then
	# not the task's own (README 2) and it is left out, untimed; one ahead by more than the
	# task had waited (b - o below the 0.1 s threshold) leaves it under the threshold: absent
	awk -v a="$zb" -v b="${b1% *}" -v o="$off" 'BEGIN { d = (b - a) - o
		exit !(a == "absent" ? o < 0 || b - o < 0.1 + 0.15 : d < 0.15 && d > -0.15) }' ||
		live_fail "$note: the replay did not take the clock from the clocks file"
else
	note="$note (the clocks are too close to show it)"
fi
live_pass "$NCMP findings replayed alike; $note"
