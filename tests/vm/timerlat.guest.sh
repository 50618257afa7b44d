# vm-timerlat, the guest side (bash, in the VM; see tests/vm/timerlat.sh for what it checks).
. "${VM_GUEST_LIB:-/vm/lib.sh}"

bash /vm/files/tracers.guest.sh 1       # the smoke checks, in this boot (one boot is 15 s)
# the kernel matrix's checks for this kernel (tests/vm/kernels.sh), their lines marked "K " for
# a result line of their own; its FUSE-stuck task is released when it ends (fusehold dies with
# its parent)
bash /vm/files/kernels.guest.sh 2>&1 | while IFS= read -r l; do echo "K $l"; done

grep -qw timerlat "$T/available_tracers" || { g_skip timerlat "no timerlat tracer: $(cat "$T/available_tracers")"; exit 0; }
SPIN_MS=${SPIN_MS:-20}
HALF=$((SPIN_MS * 1000 / 2))            # us

# ---- runq: the loop named, the settings put back, nothing left
echo 0 >"$T/osnoise/cpus"
echo 77 >"$T/osnoise/print_stack"
g_spin SP 1 99 8 "$SPIN_MS" 1 || g_fail setup "the spinner did not start: $(cat /tmp/SP.out)"
g_run /tmp/runq.json /tmp/runq.err 40 cgwatch runq --interval 2
c1=$(jq -c '[.cpus[] | select(.cpu == 1)][0].timerlat // empty' /tmp/runq.json 2>/dev/null)
if [ "$G_RC" != 0 ]; then
	g_fail runq "cgwatch runq exit $G_RC: $(head -c 300 /tmp/runq.err)"
elif ! jq -e '.timerlat | startswith("CPUs ")' /tmp/runq.json >/dev/null; then
	g_fail runq "timerlat did not run: $(jq -c .timerlat /tmp/runq.json); $(head -c 300 /tmp/runq.err)"
elif [ -z "$c1" ]; then
	g_fail runq "no timerlat object for CPU 1: $(jq -c '[.cpus[] | {cpu, timerlat}]' /tmp/runq.json | head -c 400)"
elif ! jq -e --argjson h "$HALF" --argjson p "$SP" '.thread_max_us >= $h and .thread_held_by.pid == $p and .thread_held_by.comm == "spin"' <<<"$c1" >/dev/null; then
	g_fail runq "CPU 1's timerlat does not name the loop $SP (spin) holding its thread for $HALF us or more: $c1"
else
	g_pass runq "$(jq -r '"\(.samples) activations, thread latency max \(.thread_max_us) us held by \(.thread_held_by.comm) \(.thread_held_by.pid); IRQ max \(.irq_max_us) us; stack \(.stack // "none" | .[0:60])"' <<<"$c1")"
fi
cpus=$(cat "$T/osnoise/cpus") ps=$(cat "$T/osnoise/print_stack") left=$(ls "$T/instances" | grep '^cgwtl-')
if [ "$cpus" != 0 ] || [ "$ps" != 77 ] || [ -n "$left" ]; then
	g_fail restore "after runq: osnoise/cpus '$cpus' (was 0), print_stack '$ps' (was 77), instances left: '$left'"
else
	g_pass restore "osnoise/cpus and print_stack as they were, no instance left"
fi

# ---- busy: someone else's timerlat
mkdir "$T/instances/other" && echo timerlat >"$T/instances/other/current_tracer" ||
	g_fail setup "could not start timerlat in instances/other"
g_run /tmp/busy.json /tmp/busy.err 30 cgwatch runq --interval 1
if ! jq -e '.timerlat | test("runs in tracefs instance other")' /tmp/busy.json >/dev/null 2>&1; then
	g_fail busy "runq beside instances/other's timerlat: timerlat $(jq -c .timerlat /tmp/busy.json 2>&1 | head -c 300)"
elif [ "$(cat "$T/instances/other/current_tracer")" != timerlat ]; then
	g_fail busy "instances/other's tracer is now $(cat "$T/instances/other/current_tracer")"
else
	g_pass busy "$(jq -r .timerlat /tmp/busy.json)"
fi
echo nop >"$T/instances/other/current_tracer"
rmdir "$T/instances/other"

# ---- stale: an instance of a cgwatch that is gone
mkdir "$T/instances/cgwtl-999999" && echo timerlat >"$T/instances/cgwtl-999999/current_tracer" ||
	g_fail setup "could not start timerlat in instances/cgwtl-999999"
g_run /tmp/stale.json /tmp/stale.err 30 cgwatch runq --interval 1
if [ -d "$T/instances/cgwtl-999999" ]; then
	g_fail stale "instances/cgwtl-999999 is still there; timerlat $(jq -c .timerlat /tmp/stale.json 2>&1 | head -c 300)"
elif ! jq -e '.timerlat | startswith("CPUs ")' /tmp/stale.json >/dev/null 2>&1; then
	g_fail stale "timerlat did not run after the stale instance went: $(jq -c .timerlat /tmp/stale.json 2>&1 | head -c 300)"
else
	g_pass stale "removed; timerlat ran on $(jq -r .timerlat /tmp/stale.json)"
fi

# ---- killed: one owner at a time, and a SIGKILLed run's settings put back by the next
echo 0 >"$T/osnoise/cpus"
echo 77 >"$T/osnoise/print_stack"
cgwatch runq --interval 20 >/tmp/k1.json 2>/tmp/k1.err </dev/null &
K1=$!
mid() { [ "$(cat "$T/instances/cgwtl-$K1/current_tracer" 2>/dev/null)" = timerlat ]; }
for i in $(seq 1 100); do mid && break; sleep 0.1; done
if ! mid; then
	g_fail killed "the first runq's timerlat did not start in 10 s: $(head -c 300 /tmp/k1.err)"
else
	during=$(cat "$T/osnoise/cpus")/$(cat "$T/osnoise/print_stack")
	g_run /tmp/k2.json /tmp/k2.err 30 cgwatch runq --interval 1
	busy=$(jq -r .timerlat /tmp/k2.json 2>&1 | head -c 300)
	kill -KILL "$K1"
	wait "$K1" 2>/dev/null
	after_kill=$(cat "$T/osnoise/cpus")/$(cat "$T/osnoise/print_stack")
	g_run /tmp/k3.json /tmp/k3.err 30 cgwatch runq --interval 1
	cpus=$(cat "$T/osnoise/cpus") ps=$(cat "$T/osnoise/print_stack") left=$(ls "$T/instances" | grep '^cgwtl-')
	if ! grep -q "another cgwatch runs it: held by cgwatch PID $K1 " <<<"$busy"; then
		g_fail killed-owner "a runq beside runq $K1's timerlat: timerlat $busy"
	else
		g_pass killed-owner "$busy"
	fi
	if [ "$cpus" != 0 ] || [ "$ps" != 77 ] || [ -n "$left" ] || [ -e /run/cgwatch/timerlat.restore ]; then
		g_fail killed "runq SIGKILLed mid-run (settings then $during, after the kill $after_kill), then a runq: osnoise/cpus '$cpus' (was 0), print_stack '$ps' (was 77), instances left: '$left', restore file: $(cat /run/cgwatch/timerlat.restore 2>&1 | tr '\n' '|'); timerlat $(jq -c .timerlat /tmp/k3.json 2>&1 | head -c 200)"
	else
		g_pass killed "runq SIGKILLed mid-run left $after_kill; the next runq put back 0/77, nothing left"
	fi
fi

# ---- daemon: the latency incident's evidence; after it stops, nothing left
cpus0=$(cat "$T/osnoise/cpus")
g_spin SP2 1 99 20 "$SPIN_MS" 1 || g_fail setup "the spinner did not start: $(cat /tmp/SP2.out)"
g_spin SL 1 0 20 0 1 || g_fail setup "the sleeper did not start: $(cat /tmp/SL.out)"
mkdir -p /tmp/reports /tmp/state
timeout -s KILL 40 cgwatch run --config /etc/cgwatch/timerlat.conf >/tmp/run.out 2>/tmp/run.err &
D=$!
found=
for i in $(seq 1 60); do
	sleep 0.5
	for f in /tmp/reports/*runq-latency*.json; do
		[ -f "$f" ] || continue
		if jq -e '[.findings[] | select(.id == "runq-latency" and .cause == "cpu 1") | .evidence[] | select(startswith("timerlat: CPU 1 over"))] | length > 0' "$f" >/dev/null 2>&1; then
			found=$f
			break 2
		fi
	done
done
t0=$(date +%s.%N)
kill -TERM "$D" 2>/dev/null
wait "$D" 2>/dev/null
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
if [ -z "$found" ]; then
	g_fail daemon "no runq-latency report on cpu 1 with a timerlat line in 30 s: reports $(ls /tmp/reports | head -5 | tr '\n' ' '); evidence $(jq -c '[.findings[]?.evidence[]? | select(startswith("timerlat") or startswith("not measured"))]' /tmp/reports/*runq-latency*.json 2>/dev/null | head -c 300); stderr $(tail -c 400 /tmp/run.err | tr '\n' '|')"
else
	line=$(jq -r '[.findings[] | select(.id == "runq-latency" and .cause == "cpu 1") | .evidence[] | select(startswith("timerlat: CPU 1 over"))][0]' "$found")
	if grep -qE "PID $SP2 \(spin\) held the CPU" <<<"$line"; then
		g_pass daemon "$line"
	else
		g_fail daemon "the timerlat line does not name the loop $SP2 (spin) as what held the CPU: $line"
	fi
fi
cpus=$(cat "$T/osnoise/cpus") left=$(ls "$T/instances" | grep '^cgwtl-')
if [ "$cpus" != "$cpus0" ] || [ -n "$left" ]; then
	g_fail daemon-restore "after the daemon stopped (in $took s): osnoise/cpus '$cpus' (was '$cpus0'), instances left: '$left'; stderr $(tail -c 300 /tmp/run.err | tr '\n' '|')"
else
	g_pass daemon-restore "osnoise/cpus as it was, no instance left; the daemon stopped in $took s"
fi
