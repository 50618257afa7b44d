# What the benchmarks share; sourced from bench/NAME.sh after `cd` to the repository.
# bench_init: the thread-load helper built, $tmp made and removed at exit with the load.
# bench_load_start N / bench_load_stop: N extra sleeping threads (tests/live/manythreads.c) up while
# the measurements run; $total the host's thread count then.
# bench_run CMD...: one timed run, "wall_s cpu_s" (bash's time, ms; CPU is user + sys).
# bench_median: the median of the numbers on stdin, one per line.
# bench_healthy_conf FILE: a config whose thresholds (a day) nothing reaches, so tasks stuck
# on a shared machine do not turn a check into a diagnosis.
# bench_fuse_up: a new uninitialised FUSE mount, $tmp/mnt$n (n counts them), its server's PID
# in $fpid; programs blocked under it go in the array pids. bench_fuse_stop: the server
# killed first (its death releases every waiter: threads queued on the directory's lock
# behind a lookup are not killable), then pids, then the mount.

bench_init() {
	mkdir -p build
	cc -O2 -pthread -o build/bench-threads tests/live/manythreads.c || exit 1
	tmp=$(mktemp -d)
	LOAD_PID=
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

bench_cleanup() {
	bench_load_stop
	rm -rf "$tmp"
}

bench_load_start() {
	coproc LOAD { exec build/bench-threads "$1"; }
	read -r _ <&"${LOAD[0]}"
	total=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
}

bench_load_stop() {
	if [ -n "${LOAD_PID:-}" ]; then
		kill "$LOAD_PID" 2>/dev/null
		wait "$LOAD_PID" 2>/dev/null
	fi
	LOAD_PID=
}

bench_run() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null 2>&1; } 2>&1 )
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

bench_median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

bench_healthy_conf() {
	cat >"$1" <<'EOC'
[thresholds]
blocked_warning = 86400
blocked_critical = 86400
starved = 86400
EOC
}

bench_fuse_up() {
	n=$((${n:-0} + 1))
	mkdir "$tmp/mnt$n"
	tests/live/bin/fusehold "$tmp/mnt$n" >"$tmp/f$n.out" &
	fpid=$!
	for _ in $(seq 50); do grep -q mounted "$tmp/f$n.out" && break; sleep 0.1; done
}

bench_fuse_stop() {
	[ -n "${fpid:-}" ] && kill -9 "$fpid" 2>/dev/null && wait "$fpid" 2>/dev/null
	fpid=
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=()
	grep -q " $tmp/mnt$n " /proc/self/mountinfo && umount -l "$tmp/mnt$n"
}
