/* source-timerlat.c: the kernel's timerlat tracer over one interval, in a tracefs instance of
 * our own (instances/cgwtl-PID), on the CPUs asked for. Its configuration is global
 * (osnoise/cpus, osnoise/print_stack): one cgwatch at a time runs it, the owner of
 * /run/cgwatch/timerlat.lock (owner.c), and what it changes is written first to
 * /run/cgwatch/timerlat.restore, so that what was there is put back when the run stops, or,
 * after a SIGKILL, by the next owner's start. It is not started beside someone else's osnoise
 * or timerlat. Every tracefs access runs with the deadline (a tracer start takes the CPU
 * hotplug lock, which a stuck hotplug holds). */
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

#define TL_PREFIX "cgwtl-"
#define TL_READ_MAX (16u << 20)          /* the trace text read at most */
#define TL_STOP_MIN_MS 5000             /* the read's and the stop's deadline at least */
#define TL_BUFFER_KB "2048"              /* ring per CPU measured; 1 kHz of samples is about
                                            250 KB/s with thread_noise */
#define TL_OWNER "timerlat"              /* RUN_DIR/timerlat.lock, and .restore beside it */

static char tl_tracefs[128] = "/sys/kernel/tracing";
static char tl_run_dir[128] = CGW_RUN_DIR;

void timerlat_paths(const char *tracefs, const char *run_dir)
{
	snprintf(tl_tracefs, sizeof(tl_tracefs), "%s", tracefs ? tracefs : "/sys/kernel/tracing");
	snprintf(tl_run_dir, sizeof(tl_run_dir), "%s", run_dir ? run_dir : CGW_RUN_DIR);
}

struct cgw_tlrun {
	char tfs[128];                   /* tracefs */
	char dir[256];                   /* TFS/instances/cgwtl-PID */
	char cpus[200];                  /* the CPU list it runs on */
	struct tl_saved saved;           /* the settings before, "" where not changed */
	struct tl_saved stale;           /* a dead owner's to put back first, "" none */
	unsigned print_stack_us;
	struct cgw_owner own;            /* timerlat.lock, held from the start to the stop's end */
	int rc;
	char why[400];
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

/* TFS/rel into out */
static const char *tpath(const struct cgw_tlrun *r, const char *rel, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", r->tfs, rel);
	return out;
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
 * out): rmdir stops its tracer. Called holding the owner file, so no other cgwatch on this
 * host runs one; a cgwtl- instance whose PID lives (another PID namespace's cgwatch, an older
 * one without the owner file) is still not ours. Someone else's osnoise or timerlat: -EBUSY
 * with its name. */
static int clear_instances(const struct cgw_tlrun *r, char *why, size_t cap)
{
	char ip[300];
	DIR *d = opendir(tpath(r, "instances", ip, sizeof(ip)));
	if (!d)
		return 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) && !rc) {
		char p[600], cur[64];
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%.200s/current_tracer", ip, de->d_name);
		if (get(p, cur, sizeof(cur)) < 0 || (strcmp(cur, "timerlat") && strcmp(cur, "osnoise")))
			continue;
		char *end;
		long pid = strncmp(de->d_name, TL_PREFIX, strlen(TL_PREFIX)) ? -1 :
		           strtol(de->d_name + strlen(TL_PREFIX), &end, 10);
		bool ours = pid > 0 && !*end && (pid == getpid() || (kill((pid_t)pid, 0) < 0 &&
		                                                      errno == ESRCH));
		snprintf(p, sizeof(p), "%s/%.200s", ip, de->d_name);
		if (!ours || rmdir(p) < 0) {
			snprintf(why, cap, "%s runs in tracefs instance %.64s (not ours to stop)", cur,
			         de->d_name);
			rc = -EBUSY;
		}
	}
	closedir(d);
	return rc;
}

/* Is the setting at path (read now) still v, what a run set? CPU lists compared as sets
 * (the kernel prints them its own way), numbers as numbers; unreadable: no. */
static bool still_set(const char *path, const char *v, bool list)
{
	char cur[256];
	if (get(path, cur, sizeof(cur)) < 0)
		return false;
	if (list) {
		struct cgw_cpus a, b;
		return cpulist_parse(cur, &a) == 0 && cpulist_parse(v, &b) == 0 &&
		       memcmp(&a, &b, sizeof(a)) == 0;
	}
	char *e1, *e2;
	unsigned long x = strtoul(cur, &e1, 10), y = strtoul(v, &e2, 10);
	return cur[0] && !*e1 && v[0] && !*e2 && x == y;
}

/* One setting of s back: its value before, unless someone set another since the run set it
 * (then theirs stays). 0, or -errno of the write. */
static int put_one(const struct cgw_tlrun *r, const char *rel, const char *old, const char *set,
                   bool list)
{
	char p[300];
	if (!old[0])
		return 0;
	tpath(r, rel, p, sizeof(p));
	if (set[0] && !still_set(p, set, list))
		return 0;
	return write_small_file(p, old);
}

/* Write the settings of s back (those it has); 0, or -errno of the first that failed. */
static int put_back(const struct cgw_tlrun *r, const struct tl_saved *s)
{
	int e = put_one(r, "osnoise/print_stack", s->print_stack, s->print_stack_set, false);
	int t = put_one(r, "osnoise/cpus", s->cpus, s->cpus_set, true);
	return e ? e : t;
}

/* The restore file's text for s. */
static void saved_text(const struct tl_saved *s, char *out, size_t cap)
{
	snprintf(out, cap, "# cgwatch timerlat, PID %d: osnoise settings to put back\n",
	         (int)getpid());
	const char *kv[][2] = {
		{ "cpus", s->cpus }, { "cpus_set", s->cpus_set },
		{ "print_stack", s->print_stack }, { "print_stack_set", s->print_stack_set },
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
		size_t l = strlen(out);
		if (kv[i][1][0] && l < cap)
			snprintf(out + l, cap - l, "%s=%s\n", kv[i][0], kv[i][1]);
	}
}

/* One setting changed to v, what was there first kept in old, v in set, both on disk first
 * (the restore file written before the change). 0, or -errno (old "": not changed). */
static int change(struct cgw_tlrun *r, const char *rel, char *old, size_t cap, char *set,
                  size_t setcap, const char *v)
{
	char p[300], text[800];
	int e;
	if ((e = get(tpath(r, rel, p, sizeof(p)), old, cap)) < 0 || !old[0]) {
		old[0] = 0;
		return e < 0 ? e : -EINVAL;
	}
	snprintf(set, setcap, "%s", v);
	saved_text(&r->saved, text, sizeof(text));
	struct tl_saved chk;
	if (tlsave_parse(text, &chk) < 0) {         /* the next owner could not put it back */
		snprintf(r->why, sizeof(r->why), "%s reads \"%.64s\", not a value to put back: not "
		         "changed", rel, old);
		old[0] = set[0] = 0;
		return -EINVAL;
	}
	if ((e = owner_save(&r->own, "restore", text)) < 0) {
		snprintf(r->why, sizeof(r->why), "cannot keep the osnoise settings to put back in "
		         "%s/" TL_OWNER ".restore: %s", r->own.dir, strerror(-e));
		old[0] = set[0] = 0;
		return e;
	}
	if ((e = write_small_file(p, v)) < 0)
		old[0] = set[0] = 0;             /* not changed: nothing to put back */
	return e;
}

static void start_fn(void *arg)
{
	struct cgw_tlrun *r = arg;
	char buf[4096], p[300];
	ssize_t n = read_small_file(tpath(r, "available_tracers", p, sizeof(p)), buf, sizeof(buf));
	int e;
	if (n < 0 || !has_word(buf, "timerlat")) {
		r->rc = -ENOENT;
		snprintf(r->why, sizeof(r->why), "%s", n < 0 ? "tracefs available_tracers not readable"
		         : "timerlat is not among this kernel's tracers");
		return;
	}
	if (get(tpath(r, "current_tracer", p, sizeof(p)), buf, sizeof(buf)) == 0 &&
	    (!strcmp(buf, "timerlat") || !strcmp(buf, "osnoise"))) {
		r->rc = -EBUSY;
		snprintf(r->why, sizeof(r->why), "the top-level tracer is %.16s (someone else's)", buf);
		return;
	}
	if ((r->rc = clear_instances(r, r->why, sizeof(r->why))) < 0)
		return;
	/* a run that did not stop (SIGKILL, a crash): its settings back first, those nobody
	 * changed since */
	if ((r->stale.cpus[0] || r->stale.print_stack[0]) && (e = put_back(r, &r->stale)) < 0) {
		r->rc = e;
		snprintf(r->why, sizeof(r->why), "cannot put back the osnoise settings a killed run "
		         "left (%s/" TL_OWNER ".restore): %s", r->own.dir, strerror(-e));
		return;
	}
	memset(&r->stale, 0, sizeof(r->stale));
	owner_forget(&r->own, "restore");
	if ((e = change(r, "osnoise/cpus", r->saved.cpus, sizeof(r->saved.cpus), r->saved.cpus_set,
	                sizeof(r->saved.cpus_set), r->cpus)) < 0) {
		r->rc = e;
		if (!r->why[0])
			snprintf(r->why, sizeof(r->why), "osnoise/cpus: %s", strerror(-e));
		return;
	}
	if (r->print_stack_us) {             /* no stacks, the rest still */
		snprintf(buf, sizeof(buf), "%u", r->print_stack_us);
		change(r, "osnoise/print_stack", r->saved.print_stack, sizeof(r->saved.print_stack),
		       r->saved.print_stack_set, sizeof(r->saved.print_stack_set), buf);
		r->why[0] = 0;
	}
	if (mkdir(r->dir, 0700) < 0) {
		r->rc = -errno;
		snprintf(r->why, sizeof(r->why), "cannot make tracefs instances/%s: %s",
		         strrchr(r->dir, '/') + 1, strerror(errno));
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
		         strrchr(r->dir, '/') + 1, strerror(-e));
		rmdir(r->dir);
	}
}

/* Put the global settings back as they were; the restore file removed once they are (kept
 * for the next owner when a write failed). */
static void restore(struct cgw_tlrun *r)
{
	if (!r->own.held)
		return;
	if (put_back(r, &r->saved) == 0)
		owner_forget(&r->own, "restore");
	memset(&r->saved, 0, sizeof(r->saved));
}

/* The tracer off (its threads stopped), the settings back, the instance gone, the owner file
 * given up. */
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
	owner_release(&r->own);
}

static void run_free(void *arg)
{
	struct cgw_tlrun *r = arg;
	if (r) {
		rmdir(r->dir);                   /* a start abandoned past its deadline, or failed */
		restore(r);
		owner_release(&r->own);
		free(r);
	}
}

struct tl_read {                         /* a read of the instance's trace, then its clearing */
	char dir[256];
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
	snprintf(r->tfs, sizeof(r->tfs), "%s", tl_tracefs);
	snprintf(r->dir, sizeof(r->dir), "%s/instances/" TL_PREFIX "%d", r->tfs, (int)getpid());
	cpulist_format(cpus, r->cpus, sizeof(r->cpus));
	r->print_stack_us = print_stack_us;
	if (!r->cpus[0]) {
		snprintf(why, cap, "no CPU to measure");
		free(r);
		return NULL;
	}
	int e = owner_take(tl_run_dir, TL_OWNER, &r->own);
	if (e < 0) {
		snprintf(why, cap, "timerlat not started: %s%s", e == -EBUSY ?
		         "another cgwatch runs it: " : "no owner file: ", r->own.why);
		free(r);
		return NULL;
	}
	/* what a run that did not stop left to put back; a file not understood is not used */
	char text[512];
	if (owner_load(&r->own, "restore", text, sizeof(text)) >= 0 &&
	    tlsave_parse(text, &r->stale) < 0) {
		log_debug("%s: %s/" TL_OWNER ".restore not understood, not used", __func__,
		          r->own.dir);
		owner_forget(&r->own, "restore");
	}
	/* the job owns r once abandoned: its release puts the settings back */
	e = dl_call(start_fn, r, run_free, timeout_ms);
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
