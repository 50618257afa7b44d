/* recdrive: drive the flight recorder (source-recorder.c) from a test.
 *
 *   recdrive [-t TRACEFS] [-n NAME] [-b KB] [-c] [-s CPULIST] run SCRIPT WINDOW_S
 *   recdrive [-t TRACEFS] [-n NAME] [-b KB] [-c] hold
 *
 * run: start the recorder, run `sh SCRIPT`, read the last WINDOW_S seconds, stop, and print
 *   start rc=N buffer_kb=N
 *   enabled LIST / missing LIST
 *   t0 SECONDS / t1 SECONDS          CLOCK_MONOTONIC before and after the script
 *   ev<TAB>T<TAB>CPU<TAB>PID<TAB>COMM<TAB>NAME<TAB>FIELDS   one per event, in the ring's order
 *   read rc=N events=N lost=N bad=N older=N ms=READ_MS
 *   stop rc=N
 * hold: start, print "start rc=N", then wait to be killed (the instance is left behind).
 * -c records opens of cpuset.mems for writing; -s CPULIST sched_switch on those CPUs. Exit 0 when every step returned 0, 1 if not,
 * 2 on usage errors. Built by tests/live/recorder.sh and bench/recorder.sh against cgwatch's
 * objects. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgwatch.h"

int main(int argc, char **argv)
{
	struct recorder_opts o = { .buffer_kb = 256, .timeout_ms = 5000 };
	int c;
	while ((c = getopt(argc, argv, "t:n:b:cs:")) != -1) {
		switch (c) {
		case 't': o.tracefs = optarg; break;
		case 'n': o.name = optarg; break;
		case 'b': o.buffer_kb = (unsigned)atoi(optarg); break;
		case 'c': o.cpuset_opens = true; break;
		case 's': o.sched_switch = optarg; break;
		default: return 2;
		}
	}
	if (optind >= argc)
		return 2;
	const char *mode = argv[optind];
	struct cgw_recorder r;
	int rc = recorder_start(&o, &r);
	printf("start rc=%d buffer_kb=%u\nenabled %s\nmissing %s\n", rc, r.buffer_kb, r.enabled,
	       r.missing);
	fflush(stdout);
	if (rc < 0)
		return 1;
	if (!strcmp(mode, "hold")) {
		for (;;)
			pause();
	}
	if (strcmp(mode, "run") != 0 || optind + 2 >= argc)
		return 2;
	printf("t0 %.6f\n", now_usec() / 1e6);
	pid_t p = fork();
	if (p == 0) {
		execlp("sh", "sh", argv[optind + 1], (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(p, &st, 0);
	printf("t1 %.6f\nscript rc=%d\n", now_usec() / 1e6, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	struct cgw_trace_events ev = { 0 };
	uint64_t r0 = now_usec();
	int rr = recorder_read(&r, atof(argv[optind + 2]), &ev);
	uint64_t r1 = now_usec();
	for (size_t i = 0; i < ev.n; i++)
		printf("ev\t%.6f\t%d\t%d\t%s\t%s\t%s\n", ev.v[i].t, ev.v[i].cpu, ev.v[i].pid,
		       ev.v[i].comm, ev.v[i].name, ev.v[i].fields);
	printf("read rc=%d events=%zu lost=%llu bad=%zu older=%zu ms=%.3f\n", rr, ev.n,
	       (unsigned long long)ev.lost, ev.bad, ev.older, (double)(r1 - r0) / 1000.0);
	trace_events_free(&ev);
	int sr = recorder_stop(&r);
	printf("stop rc=%d\n", sr);
	return rr == 0 && sr == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
