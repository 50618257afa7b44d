# vm-tracers, the guest side (bash, in the VM; see tests/vm/lib.sh): the kernel has the
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
