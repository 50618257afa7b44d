/* source-timerlat.c: the kernel's timerlat tracer over one interval, in a tracefs instance of
 * our own (instances/cgwtl-PID), on the CPUs asked for. Its configuration is global
 * (osnoise/cpus, osnoise/print_stack): what was there is put back when the run stops. It is
 * not started beside someone else's osnoise or timerlat. Every tracefs access runs with the
 * deadline (a tracer start takes the CPU hotplug lock, which a stuck hotplug holds). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"

#define TRACEFS "/sys/kernel/tracing"
#define TL_PREFIX "cgwtl-"
#define TL_READ_MAX (16u << 20)          /* the trace text read at most */
#define TL_STOP_MIN_MS 5000             /* the read's and the stop's deadline at least */
#define TL_BUFFER_KB "2048"              /* ring per CPU measured; 1 kHz of samples is about
                                            250 KB/s with thread_noise */

struct cgw_tlrun {
	char dir[128];                   /* instances/cgwtl-PID */
	char cpus[200];                  /* the CPU list it runs on */
	char saved_cpus[256];            /* osnoise/cpus before */
	char saved_stack[32];            /* osnoise/print_stack before, "" not changed */
	unsigned print_stack_us;
	int rc;
	char why[200];
};

/* path's first line into buf, without its newline; -errno */
static int get(const char *path, char *buf, size_t cap)
{
	ssize_t n = read_small_file(path, buf, cap);
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static bool has_word(const char *list, const char *w)
{
	size_t wl = strlen(w);
	for (const char *p = list; *p; ) {
		p += strspn(p, " \n");
		size_t l = strcspn(p, " \n");
		if (l == wl && !strncmp(p, w, l))
			return true;
		p += l;
	}
	return false;
}

/* Remove an instance of ours left by a cgwatch that is gone (or by this one, whose stop timed
 * out): rmdir stops its tracer. Someone else's osnoise or timerlat: -EBUSY with its name. */
static int clear_instances(char *why, size_t cap)
{
	DIR *d = opendir(TRACEFS "/instances");
	if (!d)
		return 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) && !rc) {
		char p[400], cur[64];
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), TRACEFS "/instances/%.200s/current_tracer", de->d_name);
		if (get(p, cur, sizeof(cur)) < 0 || (strcmp(cur, "timerlat") && strcmp(cur, "osnoise")))
			continue;
		char *end;
		long pid = strncmp(de->d_name, TL_PREFIX, strlen(TL_PREFIX)) ? -1 :
		           strtol(de->d_name + strlen(TL_PREFIX), &end, 10);
		bool ours = pid > 0 && !*end && (pid == getpid() || (kill((pid_t)pid, 0) < 0 &&
		                                                      errno == ESRCH));
		snprintf(p, sizeof(p), TRACEFS "/instances/%.200s", de->d_name);
		if (!ours || rmdir(p) < 0) {
			snprintf(why, cap, "%s runs in tracefs instance %.64s (not ours to stop)", cur,
			         de->d_name);
			rc = -EBUSY;
		}
	}
	closedir(d);
	return rc;
}

static void start_fn(void *arg)
{
	struct cgw_tlrun *r = arg;
	char buf[4096], p[300];
	ssize_t n = read_small_file(TRACEFS "/available_tracers", buf, sizeof(buf));
	int e;
	if (n < 0 || !has_word(buf, "timerlat")) {
		r->rc = -ENOENT;
		snprintf(r->why, sizeof(r->why), "%s", n < 0 ? "tracefs available_tracers not readable"
		         : "timerlat is not among this kernel's tracers");
		return;
	}
	if (get(TRACEFS "/current_tracer", buf, sizeof(buf)) == 0 &&
	    (!strcmp(buf, "timerlat") || !strcmp(buf, "osnoise"))) {
		r->rc = -EBUSY;
		snprintf(r->why, sizeof(r->why), "the top-level tracer is %.16s (someone else's)", buf);
		return;
	}
	if ((r->rc = clear_instances(r->why, sizeof(r->why))) < 0)
		return;
	if ((e = get(TRACEFS "/osnoise/cpus", r->saved_cpus, sizeof(r->saved_cpus))) < 0 ||
	    (e = write_small_file(TRACEFS "/osnoise/cpus", r->cpus)) < 0) {
		r->rc = e;
		snprintf(r->why, sizeof(r->why), "osnoise/cpus: %s", strerror(-e));
		r->saved_cpus[0] = 0;
		return;
	}
	if (r->print_stack_us && get(TRACEFS "/osnoise/print_stack", r->saved_stack,
	                             sizeof(r->saved_stack)) == 0) {
		snprintf(buf, sizeof(buf), "%u", r->print_stack_us);
		if (write_small_file(TRACEFS "/osnoise/print_stack", buf) < 0)
			r->saved_stack[0] = 0;       /* no stacks, the rest still */
	}
	if (mkdir(r->dir, 0700) < 0) {
		r->rc = -errno;
		snprintf(r->why, sizeof(r->why), "cannot make tracefs instances/%s: %s",
		         r->dir + strlen(TRACEFS "/instances/"), strerror(errno));
		return;
	}
	/* a small ring on every CPU, a larger one where timerlat runs */
	snprintf(p, sizeof(p), "%s/buffer_size_kb", r->dir);
	write_small_file(p, "8");
	struct cgw_cpus c;
	if (cpulist_parse(r->cpus, &c) == 0)
		for (unsigned k = 0; k < CGW_MAX_CPUS; k++)
			if (cpus_test(&c, k)) {
				snprintf(p, sizeof(p), "%s/per_cpu/cpu%u/buffer_size_kb", r->dir, k);
				write_small_file(p, TL_BUFFER_KB);
			}
	snprintf(p, sizeof(p), "%s/events/osnoise/thread_noise/enable", r->dir);
	write_small_file(p, "1");                         /* who ran meanwhile; without it, the IRQ's task */
	snprintf(p, sizeof(p), "%s/current_tracer", r->dir);
	if ((e = write_small_file(p, "timerlat")) < 0) {
		r->rc = e;
		snprintf(r->why, sizeof(r->why), "timerlat in instances/%s: %s",
		         r->dir + strlen(TRACEFS "/instances/"), strerror(-e));
		rmdir(r->dir);
	}
}

/* Put the global settings back as they were. */
static void restore(struct cgw_tlrun *r)
{
	if (r->saved_stack[0])
		write_small_file(TRACEFS "/osnoise/print_stack", r->saved_stack);
	if (r->saved_cpus[0])
		write_small_file(TRACEFS "/osnoise/cpus", r->saved_cpus);
}

/* The tracer off (its threads stopped), the settings back, the instance gone. */
static void stop_fn(void *arg)
{
	struct cgw_tlrun *r = arg;
	char p[300];
	snprintf(p, sizeof(p), "%s/current_tracer", r->dir);
	write_small_file(p, "nop");
	restore(r);
	/* a read given up on may still hold the trace open (EBUSY): it ends soon, then the
	 * instance goes; a second at most */
	for (int k = 0; k < 100 && rmdir(r->dir) < 0 && errno == EBUSY; k++)
		usleep(10000);
}

static void run_free(void *arg)
{
	struct cgw_tlrun *r = arg;
	if (r) {
		rmdir(r->dir);                   /* a start abandoned past its deadline, or failed */
		restore(r);
		free(r);
	}
}

struct tl_read {                         /* a read of the instance's trace, then its clearing */
	char dir[128];
	char *text; size_t len;
	int rc;
};

static void read_fn(void *arg)
{
	struct tl_read *j = arg;
	char p[300];
	snprintf(p, sizeof(p), "%s/trace", j->dir);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		j->rc = -errno;
		return;
	}
	size_t cap = 1 << 16;
	j->text = malloc(cap);
	while (j->text) {
		if (j->len + 1 >= cap) {
			char *t = cap < TL_READ_MAX ? realloc(j->text, cap * 2) : NULL;
			if (!t)
				break;                   /* the oldest part kept */
			j->text = t;
			cap *= 2;
		}
		ssize_t n = read(fd, j->text + j->len, cap - 1 - j->len);
		if (n <= 0)
			break;
		j->len += (size_t)n;
	}
	close(fd);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);     /* the next interval starts empty */
	if (fd >= 0)
		close(fd);
}

static void read_release(void *arg)
{
	struct tl_read *j = arg;
	if (j) {
		free(j->text);
		free(j);
	}
}

struct cgw_tlrun *timerlat_start(const struct cgw_cpus *cpus, unsigned print_stack_us,
                                 unsigned timeout_ms, char *why, size_t cap)
{
	struct cgw_tlrun *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, cap, "out of memory");
		return NULL;
	}
	snprintf(r->dir, sizeof(r->dir), TRACEFS "/instances/" TL_PREFIX "%d", (int)getpid());
	cpulist_format(cpus, r->cpus, sizeof(r->cpus));
	r->print_stack_us = print_stack_us;
	if (!r->cpus[0]) {
		snprintf(why, cap, "no CPU to measure");
		free(r);
		return NULL;
	}
	/* the job owns r once abandoned: its release puts the settings back */
	int e = dl_call(start_fn, r, run_free, timeout_ms);
	if (e < 0) {
		snprintf(why, cap, "timerlat did not start within %u ms (%s)", timeout_ms,
		         strerror(-e));
		return NULL;
	}
	if (r->rc < 0) {
		snprintf(why, cap, "%s", r->why);
		run_free(r);
		return NULL;
	}
	snprintf(why, cap, "CPUs %s", r->cpus);
	return r;
}

int timerlat_read(struct cgw_tlrun *r, struct cgw_timerlat *tl, size_t ncpu,
                  unsigned timeout_ms, char *why, size_t cap)
{
	struct tl_read *j = calloc(1, sizeof(*j));
	if (!j) {
		snprintf(why, cap, "timerlat's trace: out of memory");
		return -ENOMEM;
	}
	memcpy(j->dir, r->dir, sizeof(j->dir));
	if (timeout_ms < TL_STOP_MIN_MS)           /* megabytes of text on a slow host */
		timeout_ms = TL_STOP_MIN_MS;
	int e = dl_call(read_fn, j, read_release, timeout_ms);
	if (e < 0) {                         /* the job owns j now */
		snprintf(why, cap, "timerlat's trace not read within %u ms (%s)", timeout_ms,
		         strerror(-e));
		return e;
	}
	size_t bad = 0;
	if (j->text)
		timerlat_parse(j->text, j->len, tl, ncpu, &bad);
	e = j->text ? 0 : j->rc ? j->rc : -ENOMEM;
	if (e < 0)
		snprintf(why, cap, "timerlat's trace: %s", strerror(-e));
	else
		snprintf(why, cap, "CPUs %s%s", r->cpus, bad ? " (lines not understood)" : "");
	read_release(j);
	return e;
}

static void *stop_thread(void *arg)
{
	stop_fn(arg);
	free(arg);
	return NULL;
}

void timerlat_stop(struct cgw_tlrun *r, unsigned timeout_ms)
{
	if (!r)
		return;
	/* a thread of its own, not dl_call: dl_call starts nothing once SIGTERM is pending, and
	 * a stopping daemon is when the global settings must go back. Stopping the tracer's
	 * threads can take seconds on a slow (emulated) host; given up on, the thread still
	 * finishes (and frees r) unless the process exits first. */
	if (timeout_ms < TL_STOP_MIN_MS)
		timeout_ms = TL_STOP_MIN_MS;
	pthread_t t;
	if (pthread_create(&t, NULL, stop_thread, r) != 0) {
		stop_thread(r);                   /* no thread: inline rather than not at all */
		return;
	}
	struct timespec until = mono_after(timeout_ms);
	if (pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &until) != 0)
		pthread_detach(t);
}
