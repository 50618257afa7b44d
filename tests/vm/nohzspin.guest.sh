# vm-nohzspin, the guest side (see tests/vm/nohzspin.sh).
. "${VM_GUEST_LIB:-/vm/lib.sh}"

echo "KERNEL-RELEASE $(uname -r) nohz_full=$(cat /sys/devices/system/cpu/nohz_full 2>&1)"
echo -1 >/proc/sys/kernel/sched_rt_runtime_us || g_fail setup "cannot turn RT throttling off"
g_spin SP 1 50 100 || { g_fail setup "no spinner: $(cat /tmp/SP.out)"; exit 0; }
sleep 2                           # the tick stops once the loop is alone there

# frozen: schedstat's CPU time every 0.1 s; how many reads showed no change
prev= same=0 vals=
for i in $(seq 1 11); do
	v=$(cut -d' ' -f1 "/proc/$SP/schedstat")
	[ "$v" = "$prev" ] && same=$((same + 1))
	prev=$v vals="$vals $((v / 1000000))"
	sleep 0.1
done
if [ "$same" -ge 6 ]; then
	g_pass frozen "schedstat (ms) every 0.1 s:$vals"
else
	g_skip frozen "the tick accounts the loop here ($same of 10 reads unchanged:$vals)"
fi

for n in 1 2 3; do
	g_run /tmp/a$n.json /tmp/a$n.err 60 cgwatch audit --format json
	ev=$(jq -r '.hazards[]? | select(.id == "rt-spinner-unthrottled") | .evidence[]' /tmp/a$n.json 2>/dev/null)
	line=$(grep -E "^CPU 1 \([a-z_, ]+\): $SP \(spin\) SCHED_FIFO/50 used 100 % of the CPU over 0\.[0-9]+ s \(its CPU ran it throughout" <<<"$ev")
	if [ "$G_RC" != 1 ] || [ -z "$line" ]; then
		g_fail audit-$n "exit $G_RC, rt.spinners $(jq -c '.facts["rt.spinners"]' /tmp/a$n.json 2>&1 | head -c 300), hazards $(jq -c '[.hazards[]?.id]' /tmp/a$n.json 2>&1 | head -c 200): no line naming the loop $SP at 100 % ran throughout; $(head -c 200 /tmp/a$n.err)"
	else
		g_pass audit-$n "$line"
	fi
done
# check: a SCHED_OTHER loop on CPU 1, then the spinner again there, which keeps it off CPU 1
# from then on (no fair server on 6.1, RT throttling off; started first, the loop has a last
# run to time: one moved there while queued would have none, se.exec_start 0); past the
# starvation threshold (2 s here) check's starved finding names the spinner on CPU 1 at
# 100 %, running throughout
kill "$SP" 2>/dev/null
wait "$SP" 2>/dev/null
printf '[thresholds]\nstarved = 2\n' >/tmp/starved.conf
g_spin LO 1 0 60 || g_fail setup "no SCHED_OTHER loop: $(cat /tmp/LO.out)"
g_spin SP 1 50 60 || g_fail setup "no second spinner: $(cat /tmp/SP.out)"
sleep 4
g_run /tmp/c.json /tmp/c.err 60 cgwatch check --format json --config /tmp/starved.conf
line=$(jq -r '.findings[]?.evidence[]?' /tmp/c.json 2>/dev/null | grep -E "^CPU 1: $SP \(spin\) SCHED_FIFO/50 is runnable there \(.*, 100 % of the CPU over the last [0-9.]+ s, running throughout\)" | head -1)
if [ -z "$line" ]; then
	g_fail check "exit $G_RC, starved loop $LO (state $(cut -d' ' -f3 /proc/$LO/stat 2>&1), $(grep -E '^se.exec_start' /proc/$LO/sched 2>&1 | tr -s ' ')): no evidence naming the spinner $SP at 100 % running throughout; findings $(jq -c '[.findings[]? | {id, evidence}]' /tmp/c.json 2>&1 | head -c 600); $(head -c 200 /tmp/c.err)"
else
	g_pass check "$line"
fi
kill "$LO" "$SP" 2>/dev/null
exit 0
