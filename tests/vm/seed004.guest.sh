# vm-seed004, the guest side (bash, in the VM; see tests/vm/seed004.sh for what it checks).
. "${VM_GUEST_LIB:-/vm/lib.sh}"
REL=$(uname -r)
echo "KERNEL-RELEASE $REL"
CG=/sys/fs/cgroup

[ -d /sys/devices/system/node/node1 ] || { g_skip setup "one NUMA node (numa=fake=2 not taken: CONFIG_NUMA_EMU?)"; exit 0; }
[ "$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)" = 1 ] ||
	{ g_skip setup "CPU 1 is not nohz_full: $(cat /sys/devices/system/cpu/nohz_full 2>&1)"; exit 0; }
echo +cpuset >"$CG/cgroup.subtree_control" && mkdir "$CG/seed" &&
	echo 0 >"$CG/seed/cpuset.cpus" && echo 0 >"$CG/seed/cpuset.mems" ||
	{ g_fail setup "no cpuset controller: $(cat "$CG/cgroup.controllers")"; exit 0; }
# 64 MB on node 0, in the cpuset
bash -c "echo \$\$ >$CG/seed/cgroup.procs && exec memhold 64 150" >/tmp/MH.out 2>&1 &
for i in $(seq 1 100); do grep -q '^holding ' /tmp/MH.out && break; sleep 0.1; done
MH=$(awk '$1 == "holding" { print $2 }' /tmp/MH.out)
[ -n "$MH" ] || { g_fail setup "memhold did not start: $(cat /tmp/MH.out)"; exit 0; }
echo -1 >/proc/sys/kernel/sched_rt_runtime_us || { g_fail setup "sched_rt_runtime_us not set"; exit 0; }
g_spin SP 1 50 120 || { g_fail setup "the spinner did not start: $(cat /tmp/SP.out)"; exit 0; }
# ---- audit: the spinner found on its nohz_full CPU (whose tick stops: its CPU time moves
# about once a second) before the trigger
g_run /tmp/a.json /tmp/a.err 60 cgwatch audit --format json
sp_ev=$(jq -r --argjson p "$SP" '[.hazards[]? | select(.id == "rt-spinner-unthrottled") | .evidence[] | select(startswith("CPU 1 (isolated, nohz_full): \($p) (spin) SCHED_FIFO/50"))][0] // empty' /tmp/a.json 2>/dev/null)
if [ -z "$sp_ev" ]; then
	g_fail audit "no rt-spinner-unthrottled naming $SP on CPU 1 (exit $G_RC): hazards $(jq -c '[.hazards[]?.id]' /tmp/a.json 2>&1 | head -c 200); $(jq -c '.facts["rt.spinners"]' /tmp/a.json 2>&1); $(head -c 200 /tmp/a.err)"
else
	g_pass audit "$sp_ev"
fi

# the trigger: the cpuset's memory to node 1
bash -c "echo 1 >$CG/seed/cpuset.mems; echo \$? >/tmp/W.rc" &
W=$!
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
for i in $(seq 1 50); do [ "$(state $W)" = D ] && break; sleep 0.1; done
if [ "$(state $W)" != D ]; then
	g_fail setup "the cpuset.mems write did not block (state $(state $W), rc $(cat /tmp/W.rc 2>&1))"
	exit 0
fi
sleep 5      # CPU 1's clock is known only from its last tick there: up to a second behind

# ---- check: the whole chain at the first check past the threshold
g_run /tmp/c.json /tmp/c.err 90 cgwatch check --threshold 3 --format json
f='.findings[] | select(.id == "lru-drain-isolated")'
echo "--- check (exit $G_RC):"; jq -c '{ids: [.findings[].id], f: [.findings[] | select(.id == "lru-drain-isolated") | {chain, cpus, tasks, evidence}]}' /tmp/c.json 2>&1 | head -c 3000; echo
if [ "$G_RC" != 1 ]; then
	g_fail check "cgwatch check exit $G_RC: $(head -c 300 /tmp/c.err)"
elif ! jq -e "[$f] | length == 1" /tmp/c.json >/dev/null; then
	g_fail check "no lru-drain-isolated finding: ids $(jq -c '[.findings[].id]' /tmp/c.json)"
elif ! jq -e --argjson w "$W" "$f"' | .severity == "critical" and .chain[0] == $w' /tmp/c.json >/dev/null ||
	! jq -e "($f | .chain[1]) as \$k | [.tasks[] | select(.tid == \$k and (.comm | test(\"^kworker/u.*\\\\+cpuset_migrate_mm\")))] | length == 1" /tmp/c.json >/dev/null; then
	g_fail check "the chain is not writer $W -> the cpuset_migrate_mm worker: $(jq -c "$f | {chain, severity}" /tmp/c.json)"
elif ! jq -e "$f"' | .cpus == "1"' /tmp/c.json >/dev/null; then
	g_fail check "the finding does not name CPU 1: cpus $(jq -c "$f | .cpus" /tmp/c.json); $(jq -c "$f | .evidence" /tmp/c.json | head -c 600)"
elif ! jq -e --argjson p "$SP" "$f"' | [.evidence[] | select(startswith("CPU 1: \($p) (spin) SCHED_FIFO/50"))] | length == 1' /tmp/c.json >/dev/null; then
	g_fail check "the spinner $SP is not named on CPU 1: $(jq -c "$f | .evidence" /tmp/c.json | head -c 600)"
elif jq -e --argjson p "$SP" "$f"' | [.evidence[] | select(startswith("CPU 1: \($p) (spin)") and test(", [0-4]?[0-9] % of the CPU"))] | length > 0' /tmp/c.json >/dev/null; then
	g_fail check "the spinner $SP is said to have used under half of CPU 1: $(jq -r --argjson p "$SP" "$f"' | .evidence[] | select(startswith("CPU 1: \($p) (spin)"))' /tmp/c.json)"
else
	kw=$(jq -r "$f"' | [.evidence[] | select(test("^PID [0-9]+ \\(kworker/1:"))][0] // "none"' /tmp/c.json)
	kw="$kw; $(jq -r --argjson p "$SP" "$f"' | .evidence[] | select(startswith("CPU 1: \($p) (spin)"))' /tmp/c.json)"
	g_pass check "writer $W -> $(jq -r "($f | .chain[1]) as \$k | .tasks[] | select(.tid == \$k) | .comm" /tmp/c.json) -> CPU 1, spinner $SP named; $kw; findings $(jq -c '[.findings[].id]' /tmp/c.json)"
fi

# ---- released: the spinner stopped, the write returns, the memory is on node 1
kill "$SP"
for i in $(seq 1 100); do [ -e /tmp/W.rc ] && break; sleep 0.1; done
n1=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^N1=/) s += substr($i, 4) } END { print s + 0 }' "/proc/$MH/numa_maps" 2>/dev/null)
if [ ! -e /tmp/W.rc ]; then
	g_fail released "the cpuset.mems write still blocked 10 s after the spinner stopped (state $(state $W))"
elif [ "$(cat /tmp/W.rc)" != 0 ]; then
	g_fail released "the cpuset.mems write failed: rc $(cat /tmp/W.rc)"
elif [ "${n1:-0}" -lt 16000 ]; then
	g_fail released "memhold's memory is not on node 1: N1 pages $n1; $(head -c 300 "/proc/$MH/numa_maps")"
else
	g_pass released "the write returned once the spinner stopped; $n1 pages on node 1"
fi

# ---- migrate: migrate_pages(2) of memhold's memory from node 1 back to node 0 (its cpuset
# allows both again first, the spinner gone: that write returns at once), the spinner on CPU 1
# again: the caller itself waits in the drain, the chain is it -> CPU 1
echo 0-1 >"$CG/seed/cpuset.mems" || g_fail migrate "cpuset.mems 0-1 not written"
g_spin SP2 1 50 120 || { g_fail migrate "the spinner did not start: $(cat /tmp/SP2.out)"; exit 0; }
migpages "$MH" 1 0 >/tmp/MP.out 2>&1 &
M=$!
for i in $(seq 1 50); do [ "$(state $M)" = D ] && break; sleep 0.1; done
if [ "$(state $M)" != D ]; then
	g_fail migrate "migrate_pages did not block (state $(state $M)): $(cat /tmp/MP.out)"
	exit 0
fi
sleep 5
# (khugepaged drains every few seconds: when it holds the drain, migpages waits on its mutex,
# in the finding but not the chain). A drain waits for every CPU's work: on a loaded host the
# guest's CPU 0 may not have run its share yet at the first look (the finding then names CPU
# 0); it does within seconds, CPU 1's never does: up to three checks, 2 s apart
on_cpu1() {
	jq -e --argjson m "$M" --argjson p "$SP2" "$f"' | ([.tasks[] | select(. == $m)] | length == 1) and .cpus == "1" and ([.evidence[] | select(startswith("CPU 1: \($p) (spin) SCHED_FIFO/50"))] | length == 1)' /tmp/m.json >/dev/null
}
for try in 1 2 3; do
	g_run /tmp/m.json /tmp/m.err 90 cgwatch check --threshold 3 --format json
	echo "--- check $try of migrate_pages (exit $G_RC):"; jq -c '{ids: [.findings[].id], f: [.findings[] | select(.id == "lru-drain-isolated") | {chain, cpus, tasks, evidence}]}' /tmp/m.json 2>&1 | head -c 3000; echo
	on_cpu1 && break
	sleep 2
done
if ! on_cpu1; then
	g_fail migrate "no finding holding migpages $M on CPU 1 with the spinner $SP2 named (exit $G_RC): $(jq -c "[$f | {chain, cpus, tasks}]" /tmp/m.json 2>&1 | head -c 300); ids $(jq -c '[.findings[].id]' /tmp/m.json 2>&1); $(head -c 200 /tmp/m.err)"
elif jq -e --argjson p "$SP2" "$f"' | [.evidence[] | select(startswith("CPU 1: \($p) (spin)") and test(", [0-4]?[0-9] % of the CPU"))] | length > 0' /tmp/m.json >/dev/null; then
	g_fail migrate "the spinner $SP2 is said to have used under half of CPU 1: $(jq -r --argjson p "$SP2" "$f"' | .evidence[] | select(startswith("CPU 1: \($p) (spin)"))' /tmp/m.json)"
else
	g_pass migrate "migpages $M in the finding, chain $(jq -c "$f | .chain" /tmp/m.json) -> CPU 1, spinner $SP2 named; findings $(jq -c '[.findings[].id]' /tmp/m.json)"
fi
kill "$SP2"
for i in $(seq 1 100); do grep -q '^left ' /tmp/MP.out && break; sleep 0.1; done
grep -q '^left ' /tmp/MP.out || g_fail migrate-released "migrate_pages still blocked 10 s after the spinner stopped: $(cat /tmp/MP.out)"
