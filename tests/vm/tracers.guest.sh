# The VM harness's smoke checks, the guest side (bash, in the VM; run first by
# timerlat.guest.sh, with the CPU as its argument, SPIN_MS and SLEEP_MS set): the kernel has the
# timerlat and osnoise tracers, `cgwatch check --format json` gives a report with a scan
# object, and `cgwatch runq` says only irqsoff is missing among the latency tracers.
. "${VM_GUEST_LIB:-/vm/lib.sh}"

tracers=$(cat "$T/available_tracers" 2>&1)
miss=
for t in timerlat osnoise; do
	grep -qw "$t" <<<"$tracers" || miss+=" $t"
done
if [ -z "$miss" ]; then
	g_pass tracers "$(uname -r): $tracers"
else
	g_fail tracers "$(uname -r) lacks$miss: available_tracers is \"$tracers\""
fi

g_run /tmp/check.json /tmp/check.err 60 cgwatch check --format json
if [ "$G_RC" != 0 ] && [ "$G_RC" != 1 ]; then
	g_fail check-json "cgwatch check exit $G_RC: $(head -c 300 /tmp/check.err)"
elif ! jq -e '.scan | type == "object"' /tmp/check.json >/dev/null 2>&1; then
	g_fail check-json "no scan object in the report (exit $G_RC): $(head -c 300 /tmp/check.json)"
else
	g_pass check-json "exit $G_RC, scan source $(jq -r '.scan.source // "?"' /tmp/check.json)"
fi

g_run /tmp/runq.json /tmp/runq.err 30 cgwatch runq --interval 1
if [ "$G_RC" != 0 ] || ! jq -e 'type == "object"' /tmp/runq.json >/dev/null 2>&1; then
	g_fail runq "cgwatch runq exit $G_RC: $(head -c 300 /tmp/runq.json) $(head -c 300 /tmp/runq.err)"
else
	missing=$(jq -r '.missing // ""' /tmp/runq.json)
	if grep -qE 'timerlat|osnoise' <<<"$missing"; then
		g_fail runq-missing "missing names timerlat or osnoise: \"$missing\""
	elif ! grep -q irqsoff <<<"$missing"; then
		g_fail runq-missing "missing does not name irqsoff, which this kernel lacks: \"$missing\""
	else
		g_pass runq-missing "\"$missing\", source $(jq -r .source /tmp/runq.json)"
	fi
fi

# What a timerlat measurement in cgwatch will stand on, and the harness's arguments, variables
# and files: timerlat in a tracefs instance of its own, restricted to CPU $1 (the argument),
# sees the thread's wakeups delayed by a SCHED_FIFO 99 loop there that spins SPIN_MS and
# sleeps SLEEP_MS (vm_env); the configuration vm_file put in /etc/cgwatch is valid.
cpu=${1:-}
if [ -z "$cpu" ] || [ -z "${SPIN_MS:-}" ] || [ -z "${SLEEP_MS:-}" ]; then
	g_fail harness "argument CPU \"$cpu\", SPIN_MS \"${SPIN_MS:-}\", SLEEP_MS \"${SLEEP_MS:-}\": not passed"
elif ! out=$(timeout -s KILL 10 cgwatch config --check --config /etc/cgwatch/tracers.conf 2>&1) ||
	[ "$out" != "configuration OK" ]; then
	g_fail harness "config --check of the file passed in: $out"
elif ! grep -qw timerlat "$T/available_tracers"; then
	g_fail timerlat-instance "no timerlat tracer"     # (and nothing made in tracefs)
elif ! mkdir "$T/instances/vmtest" || ! echo "$cpu" >"$T/osnoise/cpus" ||
	! echo timerlat >"$T/instances/vmtest/current_tracer"; then
	g_fail timerlat-instance "could not start timerlat in instances/vmtest on CPU $cpu"
elif ! g_spin SP "$cpu" 99 1.5 "$SPIN_MS" "$SLEEP_MS"; then
	g_fail timerlat-instance "the spinner did not start: $(cat /tmp/SP.out)"
else
	sleep 1
	echo 0 >"$T/instances/vmtest/tracing_on"
	cp "$T/instances/vmtest/trace" /tmp/timerlat.trace
	echo nop >"$T/instances/vmtest/current_tracer"
	# "timerlat/1-115 [001] ....... 6.030608: #1 context thread timer_latency 1238580 ns": the
	# samples, those delayed by half a spin or more, the longest, the CPUs ([001])
	want=$((SPIN_MS * 1000000 / 2))
	read -r n long max cpus < <(awk -v want="$want" 'NF > 4 && $(NF-3) == "thread" && $(NF-2) == "timer_latency" {
			n++; if ($(NF-1) > max) max = $(NF-1); if ($(NF-1) >= want) long++
			if (match($0, /\[[0-9]+\]/)) c[substr($0, RSTART, RLENGTH)] = 1 }
		END { s = ""; for (k in c) s = s k; printf "%d %d %d %s\n", n, long, max, s }' /tmp/timerlat.trace)
	# a FIFO 99 loop lets the timerlat thread (FIFO 95) run only in its sleeps: about every
	# other sample waited out a spin (a third to a half here); without it (a SCHED_OTHER loop)
	# few (2 % under emulation); the line is drawn at an eighth
	if [ "$n" -lt 5 ] || [ "$cpus" != "[$(printf %03d "$cpu")]" ]; then
		g_fail timerlat-instance "$n thread samples on CPUs \"$cpus\" in 1 s: $(grep -v '^#' /tmp/timerlat.trace | head -3 | tr '\n' '|')"
	elif [ $((long * 8)) -lt "$n" ]; then
		g_fail timerlat-instance "$long of $n thread samples delayed $((want / 1000)) us or more (the longest $((max / 1000)) us): not held by the ${SPIN_MS} ms spinner"
	else
		g_pass timerlat-instance "$long of $n thread samples on CPU $cpu delayed $((want / 1000)) us or more, the longest $((max / 1000)) us, under a FIFO 99 loop spinning ${SPIN_MS} ms"
	fi
fi
