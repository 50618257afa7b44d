/* daemon.c: cgwatch run — the scan timer on sd-event, signals, systemd notify and watchdog,
 * and the daemon's own footprint: housekeeping CPUs, low priority, locked memory. */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13

struct cgw_daemon {
	sd_event *event;
	sd_event_source *scan_timer;
	const char *config_path;          /* NULL: the default, which may be absent */
	struct cgw_conf conf;
	struct cgw_sigset sigs;
	struct cgw_incidents inc;
	struct cgw_fdcache *fdcache;      /* stat fds kept open between scans */
	struct cgw_bpfscan *bpf;          /* the task iterator, loaded once; NULL: /proc */
	bool bpf_tried;                   /* loading it was tried (said once in the log) */
	char bpf_why[320];                /* why it is used or not */
	char source_said[400];            /* the scan source the log last named */
	struct cgw_kernel kern;           /* the kernel features used, and those refused */
	struct cgw_kernel bpf_kern;       /* the scan programs' states, as bpfscan_open left them */
	char kern_said[KF_N][320];        /* what the log last said of each */
	struct cgw_history *history;      /* D and R tasks of the last scan: their durations */
	struct cgw_runner *runners;       /* the last scan's runnable threads: CPU shares */
	size_t nrunners;
	struct cgw_cpus pinned;           /* the CPUs we run on now */
	char boot_id[64];
	char state_path[4200];
	uint64_t scans;
	struct cgw_kmsg kmsg;             /* /dev/kmsg from start-up on */
	struct cgw_rates_src *rates;      /* cgroup activity counters, kept across scans */
	struct cgw_rates rates_prev;      /* the counts of the last scan without a latency finding
	                                     (have_rates_prev) */
	bool have_rates_prev;
	struct cgw_latency latency;       /* the CPUs' latency streaks (diagnose-latency.c) */
	struct cgw_runq_src *runq;        /* run-queue latency ([latency] runq), or NULL: off */
	int runq_mode;                    /* the mode runq was opened in; -1 none yet */
	struct warn_once kmsg_warn;       /* per-scan warnings: said once, counted */
	struct warn_once scan_warn;
	struct warn_once pin_warn;
	struct warn_set *scan_warns;      /* what a scan says of the host's files, once */
	bool locked;                      /* mlockall(MCL_FUTURE) in force */
	bool ready;
	struct warn_once state_full_warn; /* incidents left out of the state file */
	struct cgw_writer *writer;        /* reports, state and metrics, off the main loop */
	/* automatic bundles (sink-autobundle.c): the incident whose capture the next scan
	 * records, its file, the recorder while it runs, and when the host's last was decided */
	char bundle_inc[176];
	char bundle_file[4096];
	struct cgw_capture *capture;
	double bundle_last;
	struct warn_once bundle_warn;     /* a capture too big or lost: said once, counted */
	/* the audits ([audit] interval): one at a time, on their own thread (audit_start) */
	struct audit_job *audit;          /* the one running or done and not yet taken, or NULL */
	double audit_next;                /* CLOCK_MONOTONIC seconds the next one is due */
	bool audit_layout;                /* the CPU layout changed: audit at the next chance */
	bool have_layout;
	struct cgw_topology layout;       /* the scans' CPU layout at the last audit's start */
	struct cgw_hazstate haz;          /* the hazards decided by the audits so far */
	char *audit_said;                 /* what loading the rules said last (said when it changes) */
	struct warn_once audit_warn;
	/* the flight recorder ([recorder]): its instance while it runs, whether this process
	 * made it (and removes it at exit) or uses one `cgwatch recorder start` made; why it is
	 * off otherwise */
	struct cgw_recorder rec;
	bool rec_on, rec_own;
	double rec_skip_until;            /* a readout timed out: none until then (monotonic s) */
	char rec_off[512];
	struct warn_once rec_warn;
	/* pressure (PSI): the system files, kept open; the kernel's triggers, each an IO source
	 * that moves the next scan to now (psi_triggers, on_pressure) */
	struct cgw_psi_src *psi;
	struct psi_watch {
		struct cgw_daemon *d;
		int res;
		struct cgw_psi_trigger t;     /* as registered */
		sd_event_source *src;         /* NULL: not registered */
		uint64_t moved_us;            /* when it last moved a scan (CLOCK_MONOTONIC us) */
		uint64_t said_us;             /* when that was last logged */
		unsigned unsaid;              /* moves since, not logged */
		struct psi_hist hist;         /* its stall total, read at registration, at each
		                                 event and at each scan */
		unsigned long long growth_us; /* the largest growth over the window an event since
		                                 the last scan measured */
		double crossed_since;         /* when the scans began to find it crossed (monotonic
		                                 s); 0: not crossed at the last scan */
	} psiw[PSI_NRES];
	bool psi_fired[PSI_NRES];         /* since the last scan */
};

static void daemon_unlock(struct cgw_daemon *d);
static struct cgw_recwin *recorder_window(struct cgw_daemon *d, const struct cgw_report *r,
                                          ssize_t finding);

/* One audit, off the main loop: the rules loaded ([hazards] local may be on any disk), the
 * host's facts gathered (sampled for ~0.25 s, cgroup churn counted ~0.5 s), the rules
 * evaluated; the verdicts copied out (haz_items) so that nothing is shared with the loop.
 * state is AJ_RUNNING until the thread is done; a daemon that stops first abandons the job to
 * its thread, which frees it. */
enum { AJ_RUNNING, AJ_DONE, AJ_ABANDONED };
struct audit_job {
	int state;                        /* __atomic */
	char *local_dir;
	unsigned timeout_ms;
	bool pin;
	const char *why;                  /* what started it (a string literal) */
	double started;                   /* CLOCK_MONOTONIC seconds */
	int err;                          /* audit_gather's, or -ENOMEM */
	char *said;                       /* what loading the rules said */
	struct haz_items items;
	uint64_t usec;
};

static void audit_job_free(struct audit_job *j)
{
	if (!j)
		return;
	free(j->local_dir);
	free(j->said);
	haz_items_free(&j->items);
	free(j);
}

/* The rules of one audit, read under the read deadline: [hazards] local may be on a disk that
 * does not answer. */
struct rules_load {
	char *dir;
	struct cgw_hazset set;
	char *said; size_t saidlen;
};

static void rules_load_free(void *p)
{
	struct rules_load *l = p;
	free(l->dir);
	hazset_free(&l->set);
	free(l->said);
	free(l);
}

/* Built in, then the directory (as hazards_load), what they say to l->said. */
static void rules_load_fn(void *p)
{
	struct rules_load *l = p;
	FILE *err = open_memstream(&l->said, &l->saidlen);
	FILE *to = err ? err : stderr;
	int r = hazard_load_builtin(&l->set, to);
	if (r > 0)
		fprintf(to, "built-in hazard rules: %d error%s, those files skipped\n", r,
		        r == 1 ? "" : "s");
	if (l->dir[0]) {
		r = hazard_load_dir(&l->set, l->dir, to);
		if (r < 0 && r != -ENOENT)
			fprintf(to, "hazard directory %s: %s, skipping\n", cesc(l->dir),
			        cgw_strerror(-r));
		else if (r > 0)
			fprintf(to, "%s: %d error%s, those files skipped\n", cesc(l->dir), r,
			        r == 1 ? "" : "s");
	}
	if (err)
		fclose(err);
}

static void *audit_thread(void *p)
{
	struct audit_job *j = p;
	uint64_t t0 = now_usec();
	struct rules_load *l = try_calloc(1, sizeof(*l));
	struct cgw_hazset set = { 0 };
	bool partial = false;
	if (l && (l->dir = try_strdup(j->local_dir))) {
		int r = dl_call_path(l->dir, rules_load_fn, l, rules_load_free, j->timeout_ms);
		if (r == 0) {
			set = l->set;
			memset(&l->set, 0, sizeof(l->set));
			j->said = l->said;
			l->said = NULL;
			rules_load_free(l);
		} else {                      /* l is released by dl_call_path */
			char *msg = NULL;
			size_t len;
			FILE *err = open_memstream(&msg, &len);
			if (err) {
				hazard_load_builtin(&set, err);
				fprintf(err, "hazard directory %s does not answer (%s): its rules are "
				        "left out of the audits until it does\n", cesc(j->local_dir),
				        cgw_strerror(-r));
				fclose(err);
			}
			j->said = msg;
			partial = true;
		}
	} else {
		free(l);
	}
	struct audit_opts ao = { .window_ms = 250, .timeout_ms = j->timeout_ms,
	                         .pin_housekeeping = j->pin };
	struct cgw_facts *f = try_calloc(1, sizeof(*f));
	j->err = f ? audit_gather(f, &ao) : -ENOMEM;
	struct cgw_audit a;
	if (j->err == 0) {
		if (hazard_eval(&set, f, &a) < 0) {
			j->err = -ENOMEM;
		} else {
			j->err = audit_items(&set, &a, &j->items);
			j->items.partial = partial;
			audit_free(&a);
		}
	}
	if (f)
		facts_free(f);
	free(f);
	hazset_free(&set);
	dl_reset();                       /* the deadline reads' worker of this thread goes with it */
	j->usec = now_usec() - t0;
	if (__atomic_exchange_n(&j->state, AJ_DONE, __ATOMIC_ACQ_REL) == AJ_ABANDONED)
		audit_job_free(j);
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start an audit on its own thread (detached, 256 KiB of stack as the writer's lanes). */
static void audit_start(struct cgw_daemon *d, const char *why)
{
	struct audit_job *j = try_calloc(1, sizeof(*j));
	if (j)
		j->local_dir = try_strdup(d->conf.local_hazards_dir ? d->conf.local_hazards_dir : "");
	if (!j || !j->local_dir) {
		audit_job_free(j);
		warn_once(&d->audit_warn, "cannot audit the host: out of memory; trying again in %g s",
		          d->conf.audit_interval_s);
		return;
	}
	j->timeout_ms = (unsigned)(d->conf.read_timeout_s * 1000);
	j->pin = d->conf.pin_housekeeping;
	j->why = why;
	j->started = mono_s();
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int e = pthread_create(&t, &attr, audit_thread, j);
	pthread_attr_destroy(&attr);
	if (e) {
		audit_job_free(j);
		warn_once(&d->audit_warn, "cannot audit the host: no thread (%s); trying again in %g s",
		          strerror(e), d->conf.audit_interval_s);
		return;
	}
	d->audit = j;
	log_debug("audit started (%s)", why);
}

/* A finished audit: what loading the rules said (when it changed), then each hazard found or
 * cleared since the last audit, once, to the journal. */
static void audit_finish(struct cgw_daemon *d, struct audit_job *j)
{
	const char *said = j->said ? j->said : "";
	if (!d->audit_said || strcmp(d->audit_said, said) != 0) {
		size_t n;
		for (const char *p = said; *p; p += n + (p[n] == '\n')) {
			n = strcspn(p, "\n");
			log_warnx("%.*s", (int)n, p);
		}
		free(d->audit_said);
		d->audit_said = try_strdup(said);
	}
	if (j->err < 0) {
		warn_once(&d->audit_warn, "audit failed: %s; trying again in %g s", strerror(-j->err),
		          d->conf.audit_interval_s);
		if (j->err == -ENOMEM)
			daemon_unlock(d);
		return;
	}
	struct haz_event *ev;
	ssize_t n = hazstate_update(&d->haz, &j->items, &ev);
	if (n < 0) {
		warn_once(&d->audit_warn, "audit failed: out of memory comparing it with the last; "
		          "trying again in %g s", d->conf.audit_interval_s);
		daemon_unlock(d);
		return;
	}
	warn_clear(&d->audit_warn);
	d->haz.last_epoch = now_epoch();
	d->haz.last_s = (double)j->usec / 1e6;
	for (ssize_t k = 0; k < n; k++)
		sink_journal_hazard(&ev[k]);
	haz_events_free(ev, (size_t)n);
	log_debug("audit (%s) done in %.0f ms: %zd change%s", j->why, (double)j->usec / 1000.0, n,
	          n == 1 ? "" : "s");
}

/* After each whole scan: take a finished audit; start one when due (the first scan, every
 * [audit] interval after the last start, or at once when the CPU layout changed). Never
 * waits: an audit still running is looked at again by the next scan. */
static void audit_tick(struct cgw_daemon *d, const struct cgw_topology *topo)
{
	if (d->have_layout && topology_runtime_changed(&d->layout, topo)) {
		if (!d->audit_layout)
			log_debug("the CPU layout changed: auditing again");
		d->audit_layout = true;
	}
	double now = mono_s();
	if (d->audit) {
		if (__atomic_load_n(&d->audit->state, __ATOMIC_ACQUIRE) != AJ_DONE) {
			double ran = now - d->audit->started;
			if (ran > 60)
				warn_once(&d->audit_warn, "an audit has been running for %.0f s (a file "
				          "that does not answer?); no other starts until it ends", ran);
			return;
		}
		audit_finish(d, d->audit);
		audit_job_free(d->audit);
		d->audit = NULL;
	}
	if (d->conf.audit_interval_s <= 0)
		return;
	const char *why = !d->have_layout ? "start" : d->audit_layout ? "CPU layout changed" :
	                  now >= d->audit_next ? "interval" : NULL;
	if (!why)
		return;
	d->layout = *topo;
	d->have_layout = true;
	d->audit_layout = false;
	d->audit_next = now + d->conf.audit_interval_s;
	audit_start(d, why);
}

/* Pin every thread of ours to the housekeeping CPUs; again when they change (hotplug). */
static void daemon_pin(struct cgw_daemon *d, const struct cgw_topology *t)
{
	if (!d->conf.pin_housekeeping || cpus_empty(&t->housekeeping) ||
	    memcmp(&d->pinned, &t->housekeeping, sizeof(d->pinned)) == 0)
		return;
	cpu_set_t *set = CPU_ALLOC(CGW_MAX_CPUS);
	size_t size = CPU_ALLOC_SIZE(CGW_MAX_CPUS);
	CPU_ZERO_S(size, set);
	for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
		if (cpus_test(&t->housekeeping, c))
			CPU_SET_S(c, size, set);
	int failed = 0;
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.' && sched_setaffinity(atoi(de->d_name), size, set) < 0)
			failed = errno;
	if (dir)
		closedir(dir);
	CPU_FREE(set);
	char list[1024];
	cpulist_format(&t->housekeeping, list, sizeof(list));
	if (failed) {
		warn_once(&d->pin_warn, "cannot pin to the housekeeping CPUs %s: %s, running where "
		          "we are", list, strerror(failed));
	} else {
		warn_clear(&d->pin_warn);
		log_warnx("running on the housekeeping CPUs %s", list);
	}
	d->pinned = t->housekeeping;
}

/* The unit's OOMScoreAdjust= and LimitNOFILE= (units/cgwatch.service.in): a service manager
 * that cannot apply them (a container without CAP_SYS_RESOURCE) starts the daemon anyway. */
#define UNIT_OOM_SCORE_ADJ -900
#define UNIT_LIMIT_NOFILE 65536

/* Threads on the host now (the total of /proc/loadavg's "running/total"), 0 when unknown. */
static uint64_t host_threads(void)
{
	char buf[256];
	unsigned long long running, total;
	if (read_small_file("/proc/loadavg", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%*s %*s %*s %llu/%llu", &running, &total) != 2)
		return 0;
	return total;
}

/* Is CAP_IPC_LOCK in our effective set (/proc/self/status CapEff)? Then no limit applies. */
static bool have_ipc_lock(void)
{
	char buf[4096];
	unsigned long long eff;
	const char *p;
	if (read_small_file("/proc/self/status", buf, sizeof(buf)) < 0 ||
	    !(p = strstr(buf, "\nCapEff:")) || sscanf(p + 8, "%llx", &eff) != 1)
		return false;
	return eff >> 14 & 1;                  /* CAP_IPC_LOCK */
}

/* Low priority and locked memory, before any thread exists (both are per thread, inherited).
 * Memory is locked only when RLIMIT_MEMLOCK allows what the daemon needs: locked past the
 * limit, a later allocation fails. Said once either way. */
static void daemon_footprint(struct cgw_daemon *d)
{
	if (setpriority(PRIO_PROCESS, 0, (int)d->conf.nice) < 0)
		log_warnx("cannot set nice %g: %s, ignoring", d->conf.nice, strerror(errno));
	if (d->conf.io_class > 0 &&
	    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
	            (d->conf.io_class << IOPRIO_CLASS_SHIFT) | (d->conf.io_class == 3 ? 0 : 7)) < 0)
		log_warnx("cannot set the I/O class: %s, ignoring", strerror(errno));
	char msg[512];
	if (getenv("INVOCATION_ID")) {        /* started by systemd: was the unit applied? */
		char buf[64];
		struct rlimit nf;
		long adj;
		if (read_small_file("/proc/self/oom_score_adj", buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "%ld", &adj) == 1 && getrlimit(RLIMIT_NOFILE, &nf) == 0 &&
		    limits_check(adj, UNIT_OOM_SCORE_ADJ, nf.rlim_cur, UNIT_LIMIT_NOFILE, msg,
		                 sizeof(msg)))
			log_warnx("%s", msg);
	}
	if (!d->conf.lock_memory)
		return;
	struct rlimit ml;
	if (getrlimit(RLIMIT_MEMLOCK, &ml) < 0) {
		log_warnx("not locking memory: RLIMIT_MEMLOCK: %s", strerror(errno));
		return;
	}
	d->locked = memlock_decide(ml.rlim_cur, have_ipc_lock(), memlock_need(host_threads()), msg,
	                           sizeof(msg));
	if (d->locked && mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
		log_warnx("cannot lock memory (mlockall): %s; under memory pressure the daemon may "
		          "stall with the host", strerror(errno));
		munlockall();
		d->locked = false;
		return;
	}
	log_warnx("%s", msg);
}

/* A scan ran out of memory: with memory locked, the limit is the likely cause. Unlock rather
 * than fail every scan; said once. */
static void daemon_unlock(struct cgw_daemon *d)
{
	if (!d->locked)
		return;
	munlockall();
	d->locked = false;
	log_warnx("unlocking memory (munlockall): an allocation failed with memory locked; "
	          "under memory pressure the daemon may stall with the host");
}

static void notify_status(struct cgw_daemon *d, size_t threads)
{
	size_t open = 0, lat = 0;          /* hung tasks apart from the host's latency */
	for (size_t k = 0; k < d->inc.n; k++) {
		const struct incident *i = &d->inc.v[k];
		if (i->resolved_at == 0 && latency_sig(i->sig))
			lat++;
		else if (i->resolved_at == 0)
			open++;
	}
	char status[256], more[64] = "";
	if (lat)
		snprintf(more, sizeof(more), "; %zu latency incident%s", lat, lat == 1 ? "" : "s");
	snprintf(status, sizeof(status), "%sSTATUS=watching %zu tasks; %zu open incident%s%s",
	         d->ready ? "" : "READY=1\n", threads, open, open == 1 ? "" : "s", more);
	sd_notify(0, status);
	d->ready = true;
}

/* A critical incident opened or escalated: its bundle is decided now and named in this
 * change's message and report (another of the same scan shares it); the next scan records what it reads, and the bundle is written
 * off the main loop (bundle_capture). Not while a bundle is pending, or the bundles lane
 * does not answer (one that failed is tried again: its warning is said once a streak). */
static void bundle_decide(struct cgw_daemon *d, struct incident *i, enum inc_state st,
                          double now)
{
	/* one decided in this scan holds the whole scan, every finding of it: an incident
	 * that opens or escalates at critical in the same scan is named in that file too */
	if (d->bundle_inc[0] && d->bundle_last == now && autobundle_due(&d->conf, 0, i, st, now)) {
		i->bundled = true;
		snprintf(i->bundle, sizeof(i->bundle), "%s", d->bundle_file);
		return;
	}
	if (d->bundle_inc[0] || !autobundle_due(&d->conf, d->bundle_last, i, st, now) ||
	    !writer_answers(d->writer, WR_BUNDLES))
		return;
	i->bundled = true;
	autobundle_name(&d->conf, i->id, i->bundle, sizeof(i->bundle));
	snprintf(d->bundle_inc, sizeof(d->bundle_inc), "%s", i->id);
	snprintf(d->bundle_file, sizeof(d->bundle_file), "%s", i->bundle);
	d->bundle_last = now;
}

/* Does the next scan record? For a bundle decided but not captured yet; and while an open
 * incident may escalate to critical (below critical, not bundled, opened no longer ago than
 * its tasks take from the warning to the critical threshold, and two scans), so that the
 * scan that escalates it is the one its bundle holds. Recording costs (docs/daemon.md): an
 * incident that stays at warning is not recorded for long. */
static bool bundle_recording(const struct cgw_daemon *d)
{
	if (d->bundle_inc[0])
		return true;
	if (!d->conf.bundle_auto || !writer_answers(d->writer, WR_BUNDLES))
		return false;
	double now = now_epoch(), window = d->conf.blocked_critical_s - d->conf.blocked_warning_s +
	                                   2 * d->conf.scan_interval_s;
	for (size_t k = 0; k < d->inc.n; k++) {
		const struct incident *i = &d->inc.v[k];
		if (i->resolved_at == 0 && !i->bundled && i->severity < SEV_CRITICAL &&
		    now - i->opened_at <= window)
			return true;
	}
	return false;
}

/* After this scan's messages: when it recorded and a bundle is pending, what it read goes, in
 * memory, to the bundles lane (nothing is written here); a recording no bundle wants is
 * dropped. A bundle decided in a scan that did not record is captured by the next one. */
static void bundle_capture(struct cgw_daemon *d, const struct cgw_report *rep)
{
	if (!d->capture)
		return;
	if (!d->bundle_inc[0]) {
		capture_free(d->capture);
		d->capture = NULL;
		return;
	}
	const struct incident *i = NULL;
	for (size_t k = 0; k < d->inc.n && !i; k++)
		if (strcmp(d->inc.v[k].id, d->bundle_inc) == 0 && d->inc.v[k].resolved_at == 0)
			i = &d->inc.v[k];
	struct cap_snap *snap = capture_take(d->capture, rep);
	capture_free(d->capture);
	d->capture = NULL;
	if (!i) {
		log_warnx("bundle %s not written: incident %s resolved before its capture",
		          d->bundle_file, d->bundle_inc);
		capture_snap_free(snap);
	} else if (!snap) {
		warn_once(&d->bundle_warn, "bundle %s not written: out of memory", d->bundle_file);
	} else if (autobundle_too_big(&d->conf, capture_snap_bytes(snap))) {
		warn_once(&d->bundle_warn, "bundle %s not written: its tree (%.1f MiB) is over "
		          "[bundle] max_size (%g MiB)", d->bundle_file,
		          capture_snap_bytes(snap) / (1024.0 * 1024.0), d->conf.bundle_max_mib);
		capture_snap_free(snap);
	} else {
		/* the flight recorder's window in the tree and in the bundle's reports, told
		 * from the first finding as a replay of the tree tells it */
		struct cgw_recwin *w = recorder_window(d, rep, -1);
		struct cgw_report rr = *rep;
		rr.recorder = w;
		if (w && capture_snap_recorder(snap, w) < 0)
			log_warnx("bundle %s: the flight recorder's events are not in it: out of memory",
			          d->bundle_file);
		int e = autobundle_queue(d->writer, &d->conf, &d->sigs, &d->inc, snap, &rr,
		                         d->bundle_file);
		if (w)
			recwin_free(w);
		free(w);
		if (e < 0)
			log_warnx("bundle %s not written: %s", d->bundle_file, e == -EAGAIN ?
			          "another is still being written" : strerror(-e));
		else
			warn_clear(&d->bundle_warn);
	}
	d->bundle_inc[0] = d->bundle_file[0] = '\0';
}

/* The recorder off because its instance's owner file was refused (e: -EBUSY, another live
 * process owns it; else the file could not be kept): said once, the daemon goes on. */
static void recorder_not_ours(struct cgw_daemon *d, int e)
{
	snprintf(d->rec_off, sizeof(d->rec_off), "the flight recorder is off: tracefs instances/%s "
	         "is not ours: %s%s", d->conf.recorder_instance, d->rec.own.why, e == -EBUSY ?
	         "; it is left to that process" : "");
	log_warnx("%s; reports will have no kernel events before their hangs", d->rec_off);
}

/* Start the flight recorder at start-up: make its instance (one left by a process that died
 * is replaced), or, where this process may not (the unit's DynamicUser: `cgwatch recorder
 * start` made it, as root), use the one there; either way as its one owner (its owner file
 * under /run/cgwatch): an instance another live cgwatch owns is left to it. Said once either
 * way, with the events it lacks; off, the daemon goes on without it and its reports say why. */
static void recorder_setup(struct cgw_daemon *d)
{
	const struct cgw_conf *c = &d->conf;
	if (!c->recorder_enabled) {
		snprintf(d->rec_off, sizeof(d->rec_off), "the flight recorder is off ([recorder] "
		         "enabled = no)");
		log_warnx("%s", d->rec_off);
		return;
	}
	struct recorder_opts o = recorder_opts_of(c);
	o.own = true;
	int e = recorder_start(&o, &d->rec);
	if (e == -EBUSY && d->rec.own.why[0]) {
		recorder_not_ours(d, e);
		return;
	}
	/* no owner file can be kept here (a /run this process may not write): then it makes
	 * nothing, and one `cgwatch recorder start` made is only read, not owned */
	char noown[340] = "";
	if (e < 0 && d->rec.own.why[0]) {
		snprintf(noown, sizeof(noown), "%s", d->rec.own.why);
		o.own = false;
	}
	if (e == 0) {
		d->rec_on = d->rec_own = true;
		log_warnx("flight recorder on: %s, %u KiB per CPU; recording %s%s%s%s%s%s%s%s", d->rec.dir,
		          d->rec.buffer_kb, d->rec.enabled, d->rec.sw_dir[0] ? " (sched_switch on CPUs " :
		          "", d->rec.sw_cpus, d->rec.sw_dir[0] ? ", in " : "", d->rec.sw_dir[0] ?
		          d->rec.sw_dir : "", d->rec.sw_dir[0] ? ")" : "",
		          d->rec.missing[0] ? "; not recording " : "", d->rec.missing);
		return;
	}
	int a = -ENOENT;
	if (e == -EACCES || e == -EPERM || e == -EROFS || noown[0]) {
		a = recorder_attach(&o, &d->rec);
		if (a == -EBUSY && d->rec.own.why[0]) {
			recorder_not_ours(d, a);
			return;
		}
		if (a == 0) {
			d->rec_on = true;
			log_warnx("flight recorder on: %s, made by `cgwatch recorder start` (this process "
			          "may not make it: %s%s), %u KiB per CPU; recording %s%s%s", d->rec.dir,
			          noown[0] ? "no owner file: " : strerror(-e), noown, d->rec.buffer_kb,
			          d->rec.enabled, d->rec.missing[0] ? "; not recording " : "",
			          d->rec.missing);
			return;
		}
	}
	if (noown[0])
		snprintf(d->rec_off, sizeof(d->rec_off), "the flight recorder is off: tracefs "
		         "instances/%s is made only by its owner, and no owner file can be kept (%s); "
		         "none is there to read (%s)", c->recorder_instance, noown, strerror(-a));
	else if (e == -ENOENT)
		snprintf(d->rec_off, sizeof(d->rec_off), "the flight recorder is off: no tracefs at "
		         "/sys/kernel/tracing (instances: %s)", strerror(-e));
	else if (e != -EACCES && e != -EPERM && e != -EROFS)
		snprintf(d->rec_off, sizeof(d->rec_off), "the flight recorder is off: cannot make "
		         "tracefs instances/%s: %s", c->recorder_instance, strerror(-e));
	else
		snprintf(d->rec_off, sizeof(d->rec_off), "the flight recorder is off: this process "
		         "may not make tracefs instances/%s (%s) and none is there to use (%s); "
		         "`cgwatch recorder start`, as root, makes it", c->recorder_instance,
		         strerror(-e), strerror(-a));
	log_warnx("%s; reports will have no kernel events before their hangs (cgroup churn, "
	          "cpuset.mems opens, CPU hotplug, hung-task reports, workqueue work)", d->rec_off);
}

/* The last [recorder] window of the ring, told from finding's first task (a readout saying
 * why there is none when the recorder is off or cannot be read). NULL without memory. */
static struct cgw_recwin *recorder_window(struct cgw_daemon *d, const struct cgw_report *r,
                                          ssize_t finding)
{
	struct cgw_recwin *w = try_calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	if (!d->rec_on) {
		snprintf(w->why, sizeof(w->why), "%s", d->rec_off);
		return w;
	}
	if (mono_s() < d->rec_skip_until) {
		snprintf(w->why, sizeof(w->why), "reading %s/trace timed out less than a minute ago "
		         "(read_timeout %g s): not tried again yet", d->rec.dir, d->conf.read_timeout_s);
		return w;
	}
	int e = recwin_read(w, &d->rec, d->conf.recorder_window_s, incidents_rec_keep(&d->inc), r,
	                    finding);
	if (e < 0) {
		if (e == -ETIMEDOUT)          /* the next incidents' alerts do not wait on it too */
			d->rec_skip_until = mono_s() + 60;
		warn_once(&d->rec_warn, "flight recorder: %s", w->why);
		return w;
	}
	warn_clear(&d->rec_warn);
	return w;
}

/* One incident change: the journal message first, from here; its report files are rendered
 * in memory and handed to the writer thread, which alone touches the disk. The message names
 * the report it will write, unless the reports directory is failing or does not answer. */
static void emit(struct cgw_daemon *d, const struct cgw_report *r, const struct inc_change *c)
{
	struct incident *i = &d->inc.v[c->inc];
	struct cgw_report ri = *r;
	ri.recorder = i->rec;
	struct report_files f;
	bool have = report_prepare(&d->conf, &ri, i, c->state, c->finding, &f) == 0;
	if (have && writer_ok(d->writer, WR_REPORTS))
		snprintf(i->report, sizeof(i->report), "%s/%s", f.dir, f.json_name);
	else
		i->report[0] = '\0';
	sink_journal(i, c->state);
	/* what the kernel did before, read after the alert (the read has the deadline, and
	 * pauses the ring while it reads): kept with the incident, in this report and its next */
	if (c->state == INC_OPENED && !i->rec && (i->rec = recorder_window(d, r, c->finding)) &&
	    have) {
		struct report_files g;
		ri.recorder = i->rec;
		if (report_prepare(&d->conf, &ri, i, c->state, c->finding, &g) == 0) {
			report_files_free(&f);
			f = g;
		}
	}
	if (have) {
		i->reports++;                     /* numbers go on: a report never overwrites one */
		writer_report(d->writer, &f, i->id);
	}
}

/* The open incidents to the state file, through the writer. */
static void save_state(struct cgw_daemon *d)
{
	size_t len, left_out;
	char *txt = incidents_serialize(&d->inc, d->boot_id, &len, &left_out);
	if (!txt) {                        /* the file as it was: the next scan tries again */
		warn_once(&d->state_full_warn, "cannot save open incidents to %s: out of memory",
		          d->state_path);
		return;
	}
	if (left_out)
		warn_once(&d->state_full_warn, "%zu open incident%s left out of %s: it would pass %d "
		          "bytes", left_out, left_out == 1 ? "" : "s", d->state_path, STATE_MAX_BYTES);
	else
		warn_clear(&d->state_full_warn);
	writer_file(d->writer, WR_STATE, d->state_path, txt, len, 0600);
}

/* Each kernel feature's state in the log, one line each ("kernel: task-walker used (...)"):
 * at the first scan, and again for one that changed (a reload, a fallback). */
static void kernel_say(struct cgw_daemon *d)
{
	if (d->conf.scan_source == SCAN_SOURCE_PROC)
		kf_set_scan(&d->kern, KFS_OFF, "[scan] source = proc");
	else
		for (int f = KF_TASK_WALKER; f <= KF_TASK_ITERATOR; f++)
			d->kern.f[f] = d->bpf_kern.f[f];
	for (int f = 0; f < KF_N; f++) {
		char line[sizeof(d->kern_said[f])];
		kf_line(&d->kern, f, line, sizeof(line));
		if (strcmp(line, d->kern_said[f])) {
			log_warnx("kernel: %s", line);
			memcpy(d->kern_said[f], line, sizeof(line));
		}
	}
}

/* Run-queue latency since the last scan into out: true when measured. The source is opened
 * at the first scan and again when a reload changes [latency] runq; said in the log then. */
static bool runq_tick(struct cgw_daemon *d, const struct cgw_scan *scan, struct cgw_runq *out)
{
	if (d->runq_mode != d->conf.latency_runq) {
		runq_src_free(d->runq);
		d->runq = NULL;
		d->runq_mode = d->conf.latency_runq;
		char why[400];
		if (d->runq_mode == RUNQ_MODE_OFF) {
			log_warnx("run-queue latency: not measured ([latency] runq = no)");
			kf_set(&d->kern, KF_RUNQ_PROGRAM, KFS_OFF, "[latency] runq = no");
			d->kern.runq_source[0] = '\0';
		} else if ((d->runq = runq_open(d->runq_mode, &d->kern, why, sizeof(why))))
			log_warnx("run-queue latency: %s", why);
		return false;                 /* the first interval starts here */
	}
	return d->runq && runq_sample(d->runq, scan, out) == 0;
}

/* The stall total of w's resource (its trigger's kind) now, into its history. */
static bool psi_sample(struct cgw_daemon *d, struct psi_watch *w)
{
	unsigned long long total;
	if (!d->psi || psi_read_total(d->psi, w->res, w->t.full, &total) < 0)
		return false;
	psi_hist_add(&w->hist, now_usec(), total);
	return true;
}

/* A PSI trigger fired: the kernel says it saw the stall it was given within its window. It
 * counts when the stall total, read now, proves it (grew by the stall over the window: a new
 * trigger fires once or twice with next to none); then the next scan runs now, or one window
 * after the last scan this trigger moved (at most one a window); said at most once a minute
 * per resource, with the count of those not said. */
static int on_pressure(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)fd;
	struct psi_watch *w = userdata;
	struct cgw_daemon *d = w->d;
	if (revents & (EPOLLERR | EPOLLHUP)) {       /* the file went away: no more events */
		log_warnx("%s pressure trigger: error on /proc/pressure/%s; reading the averages "
		          "each scan instead", psi_res_name(w->res), psi_res_name(w->res));
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
		return 0;
	}
	d->psi_fired[w->res] = true;
	unsigned long long grew = 0;
	if (!psi_sample(d, w) || !psi_hist_crosses(&w->hist, &w->t, &grew)) {
		log_debug("%s: %s trigger fired, but its stall total grew %llu us of the %u us in "
		          "%u us it needs: ignored", __func__, psi_res_name(w->res), grew,
		          w->t.stall_us, w->t.window_us);
		return 0;
	}
	if (grew > w->growth_us)
		w->growth_us = grew;
	uint64_t now = 0, next = 0, at;
	sd_event_now(d->event, CLOCK_MONOTONIC, &now);
	at = w->moved_us && w->moved_us + w->t.window_us > now ? w->moved_us + w->t.window_us : now;
	if (sd_event_source_get_time(d->scan_timer, &next) < 0 || at >= next)
		return 0;                 /* the scan already due then or sooner tells it */
	sd_event_source_set_time(d->scan_timer, at);
	sd_event_source_set_enabled(d->scan_timer, SD_EVENT_ONESHOT);
	w->moved_us = at;
	if (w->said_us && now - w->said_us < 60000000ull) {
		w->unsaid++;
		return 0;
	}
	char stall[24], win[24], more[64] = "";
	if (w->unsaid)
		snprintf(more, sizeof(more), " (%u more time%s in the last minute)", w->unsaid,
		         w->unsaid == 1 ? "" : "s");
	log_warnx("%s pressure: %s %s in %s passed: scanning %s%s", psi_res_name(w->res),
	          w->t.full ? "full" : "some", psi_us_text(w->t.stall_us, stall, sizeof(stall)),
	          psi_us_text(w->t.window_us, win, sizeof(win)), at > now ? "within the window" :
	          "now", more);
	w->said_us = now;
	w->unsaid = 0;
	return 0;
}

/* Register the kernel's PSI triggers of [pressure] (again after a reload, the old ones closed
 * first): said once, with why one could not be (no PSI, a sandbox, an unprivileged window);
 * without them each scan still reads the averages. A reload that leaves none says so. */
static void psi_triggers(struct cgw_daemon *d, bool reload)
{
	char on[256] = "", off[768] = "", why[256], t[48];
	for (int r = 0; r < PSI_NRES; r++) {
		struct psi_watch *w = &d->psiw[r];
		w->src = sd_event_source_disable_unref(w->src);
		w->d = d;
		w->res = r;
		w->t = d->conf.pressure[r];
		w->moved_us = w->said_us = 0;
		w->unsaid = 0;
		w->hist.n = 0;                /* a new threshold: its growth measured from now */
		w->growth_us = 0;
		w->crossed_since = 0;
		if (!w->t.on)
			continue;
		int fd = psi_trigger_open(r, &w->t, why, sizeof(why));
		psi_sample(d, w);             /* the total its first events are measured against */
		if (fd >= 0 && sd_event_add_io(d->event, &w->src, fd, EPOLLPRI, on_pressure, w) < 0) {
			close(fd);
			snprintf(why, sizeof(why), "cannot watch /proc/pressure/%s in the event loop",
			         psi_res_name(r));
			fd = -1;
		}
		if (fd < 0) {
			size_t n = strlen(off);
			snprintf(off + n, sizeof(off) - n, "%s%s", n ? "; " : "", why);
			continue;
		}
		sd_event_source_set_io_fd_own(w->src, true);
		sd_event_source_set_description(w->src, "cgw-psi");
		size_t n = strlen(on);
		snprintf(on + n, sizeof(on) - n, "%s%s %s", n ? ", " : "", psi_res_name(r),
		         psi_trigger_format(&w->t, t, sizeof(t)));
	}
	if (on[0])
		log_warnx("pressure triggers: %s (a scan runs when one fires)", on);
	if (off[0])
		log_warnx("pressure triggers not registered: %s; those resources are read from the "
		          "averages each scan", off);
	if (reload && !on[0] && !off[0])
		log_warnx("pressure triggers: none ([pressure] cpu, memory and io are no)");
}

/* This scan's pressure: the system files, the thresholds, the triggers fired since the last
 * scan (then cleared), the growth of each stall total over its window (the largest an event
 * since the last scan measured, or this scan's), how long each has been crossed. NULL when no
 * file could be read. */
static struct cgw_pressure *pressure_scan(struct cgw_daemon *d, struct cgw_pressure *p)
{
	memset(p, 0, sizeof(*p));
	if (!d->psi || psi_read_sys(d->psi, p) == 0)
		return NULL;
	uint64_t now = now_usec();
	for (int r = 0; r < PSI_NRES; r++) {
		struct psi_watch *w = &d->psiw[r];
		const struct cgw_psi_avg *a = w->t.full ? &p->sys[r].full : &p->sys[r].some;
		p->trig[r] = d->conf.pressure[r];
		p->fired[r] = d->psi_fired[r];
		d->psi_fired[r] = false;
		p->triggers |= w->src != NULL;
		if (w->t.on && a->have) {
			unsigned long long g;
			psi_hist_add(&w->hist, now, a->total_us);
			psi_hist_crosses(&w->hist, &w->t, &g);
			p->measured[r] = true;
			p->growth_us[r] = g > w->growth_us ? g : w->growth_us;
		}
		w->growth_us = 0;
	}
	pressure_decide(p);
	for (int r = 0; r < PSI_NRES; r++) {
		struct psi_watch *w = &d->psiw[r];
		if (!p->crossed[r])
			w->crossed_since = 0;
		else if (w->crossed_since == 0)
			w->crossed_since = (double)now / 1e6;
		else
			p->crossed_s[r] = (double)now / 1e6 - w->crossed_since;
	}
	return p;
}

static int on_scan(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct cgw_daemon *d = userdata;
	bool was_ready = d->ready;
	struct cgw_scan scan = { 0 };
	struct cgw_pressure pres = { 0 };
	struct cgw_scan_opts so = {
		.blocked_s = d->conf.blocked_warning_s,
		.starved_s = d->conf.starved_s,
		.read_timeout_ms = (unsigned)(d->conf.read_timeout_s * 1000),
		.self_tgid = getpid(),
		.fdcache = d->fdcache,
		.history = d->history,
		.prev_runners = d->runners,
		.nprev_runners = d->nrunners,
	};
	if (d->conf.scan_source != SCAN_SOURCE_PROC && !d->bpf_tried) {
		d->bpf_tried = true;
		d->bpf = bpfscan_open(getpid(), false, &d->bpf_kern, d->bpf_why, sizeof(d->bpf_why));
	}
	const char *why = d->conf.scan_source == SCAN_SOURCE_PROC ? "[scan] source = proc" :
	                  d->bpf_why;
	so.bpf = d->conf.scan_source != SCAN_SOURCE_PROC ? d->bpf : NULL;
	char said[sizeof(d->source_said)];  /* said once, and again when it changes (a reload) */
	snprintf(said, sizeof(said), "%s (%s)", so.bpf ? "bpf" : "/proc", why);
	if (strcmp(said, d->source_said)) {
		log_warnx("scan source: %s", said);
		snprintf(d->source_said, sizeof(d->source_said), "%s", said);
	}
	writer_poll(d->writer, so.read_timeout_ms);   /* what the disk did since the last scan */
	scan.warns = d->scan_warns;
	if (!d->capture && bundle_recording(d))   /* this scan may make a bundle: recorded */
		d->capture = capture_recording(so.read_timeout_ms);
	if (d->capture && so.bpf) {               /* a capture keeps the /proc files it reads */
		so.bpf = NULL;
		why = "recording a bundle's capture, which keeps the /proc files it reads";
	}
	so.source_why = why;
	int r = scan_run(&scan, &so);
	if (r < 0 && d->capture) {            /* recorded again by the next scan */
		capture_free(d->capture);
		d->capture = NULL;
	} else if (d->capture) {
		capture_mark(d->capture, &scan);
	}
	if (r == 0)                               /* a whole scan: what it no longer says cleared */
		warn_set_end(d->scan_warns);
	if (r == -ECANCELED) {
		scan_free(&scan);
		return 0;                     /* stopping: SIGTERM is handled next */
	}
	if (r < 0) {
		warn_once(&d->scan_warn, "scan failed: %s; trying again every %g s",
		          scan.fatal[0] ? scan.fatal : strerror(-r), d->conf.scan_interval_s);
		if (r == -ENOMEM)
			daemon_unlock(d);
	} else {
		d->scans++;
		daemon_pin(d, &scan.topo);
		audit_tick(d, &scan.topo);
		int ke = kmsg_poll(&d->kmsg);   /* never blocks; -EBADF: not open, sysctls read */
		if (ke < 0 && ke != -EBADF)
			warn_once(&d->kmsg_warn, "cannot read %s: %s, ignoring", d->kmsg.source,
			          strerror(-ke));
		else
			warn_clear(&d->kmsg_warn);
		struct cgw_rates rates;           /* since the previous scan */
		rates_sample(d->rates, &rates);
		struct cgw_runq runq = { 0 };     /* since the previous scan */
		bool have_runq = runq_tick(d, &scan, &runq);
		rates_kernel(d->rates, &d->kern);
		kernel_say(d);
		struct cgw_report rep = { .scan = &scan, .conf = &d->conf,
		                          .threshold_s = d->conf.blocked_warning_s, .kmsg = &d->kmsg,
		                          .rates_prev = d->have_rates_prev ? &d->rates_prev : NULL,
		                          .latency = &d->latency,
		                          .rates = &rates, .runq = have_runq ? &runq : NULL,
		                          .runq_why = have_runq ? NULL : d->runq ?
		                                      "the first interval has not ended" :
		                                      "[latency] runq = no",
		                          .pressure = pressure_scan(d, &pres), .kfeat = &d->kern };
		if (diagnose(&rep, &d->sigs, NULL, NULL) < 0) {   /* out of memory: scan lost */
			warn_once(&d->scan_warn, "scan failed: out of memory classifying %zu tasks; "
			          "trying again every %g s", scan.n, d->conf.scan_interval_s);
			daemon_unlock(d);
			report_free(&rep);
			runq_free(&runq);
			goto next;
		}
		if (!latency_any(&rep)) {         /* the host before a latency: what one compares with */
			d->rates_prev = rates;
			d->have_rates_prev = true;
		}
		if (rep.pressure && psi_read_cgroups(&rep, &pres, so.read_timeout_ms) == 0) {
			pressure_link(&rep, &pres);   /* the findings' cgroups' pressure */
			if (latency_cgroups(&rep, &d->sigs) < 0)   /* a cgroup's own stall */
				log_warnx("cgroup pressure findings incomplete: out of memory");
		}
		/* the findings' user stacks, under the deadline: the alerts name the top frame */
		ustack_report(&rep, (unsigned)d->conf.ustack_max, so.read_timeout_ms);
		struct inc_change *ch;
		double now = now_epoch();
		ssize_t n = incidents_update(&d->inc, &rep, now, d->conf.update_interval_s, &ch);
		if (n < 0) {                  /* the incidents are as they were: this scan is lost */
			warn_once(&d->scan_warn, "scan failed: out of memory updating the incidents; "
			          "trying again every %g s", d->conf.scan_interval_s);
			daemon_unlock(d);
			report_free(&rep);
			runq_free(&runq);
			goto next;
		}
		warn_clear(&d->scan_warn);    /* a whole scan, classified and folded in */
		for (size_t k = 0; k < (size_t)n; k++) {
			bundle_decide(d, &d->inc.v[ch[k].inc], ch[k].state, now);
			emit(d, &rep, &ch[k]);
		}
		bundle_capture(d, &rep);      /* after the messages: the alert goes first */
		bool open = false;
		for (size_t k = 0; k < d->inc.n && !open; k++)
			open = d->inc.v[k].resolved_at == 0;
		if (n || open)            /* blocked times grow every scan: a restart keeps them */
			save_state(d);
		free(ch);
		incidents_prune(&d->inc);
		if (d->conf.metrics_file[0]) {
			size_t len;
			char *txt = metrics_text(&rep, &d->inc, d->scans, &len);
			struct strbuf b = { .s = txt, .len = len, .cap = txt ? len + 1 : 0 };
			if (txt)
				metrics_hazards(&b, &d->haz);
			if (b.lost) {             /* without the hazards rather than nothing */
				b.s[len] = '\0';
				b.len = len;
			}
			writer_file(d->writer, WR_METRICS, d->conf.metrics_file, b.s, b.len, 0644);
		}
		notify_status(d, scan.threads);
		if (have_runq && d->runq) {   /* timerlat over the next interval, where it is due */
			struct cgw_cpus tl;
			latency_timerlat_cpus(&runq, &d->conf, &tl);
			runq_timerlat(d->runq, &tl, so.read_timeout_ms);
		}
		report_free(&rep);
		runq_free(&runq);
	}
next:
	free(pres.cg);
	free(d->runners);                 /* keep this scan's runners for the next one */
	d->runners = scan.runners;
	d->nrunners = scan.nrunners;
	scan.runners = NULL;
	scan.nrunners = 0;
	scan_free(&scan);
	/* fixed rate: the next scan is due one interval after this one was, not after it ended;
	 * a scan that overran its interval (the first one's program loads, under load) is
	 * followed by a whole interval, not by the missed scans back to back. Now as the clock
	 * says, not as the loop woke (sd_event_now). */
	uint64_t iv = (uint64_t)(d->conf.scan_interval_s * 1e6), next = usec + iv;
	uint64_t now = (uint64_t)(mono_s() * 1e6);
	if (!was_ready)                   /* the rate's phase starts at READY=1: the first scan
	                                     loads the BPF programs, a few hundred ms under load */
		next = now + iv;
	sd_event_source_set_time(s, next >= now ? next : now + iv);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static int on_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)s;
	struct cgw_daemon *d = userdata;
	log_warnx("%s: stopping", strsignal((int)si->ssi_signo));
	sd_notify(0, "STOPPING=1");
	return sd_event_exit(d->event, 0);
}

/* SIGHUP: a new config and signature library, or the old ones when anything is wrong. */
/* Do a and b give the recorder's instance the same settings ([recorder] window is only how
 * much a readout takes)? */
static bool recorder_conf_same(const struct cgw_conf *a, const struct cgw_conf *b)
{
	return a->recorder_enabled == b->recorder_enabled &&
	       a->recorder_buffer_kb == b->recorder_buffer_kb &&
	       a->recorder_cpuset_opens == b->recorder_cpuset_opens &&
	       strcmp(a->recorder_instance, b->recorder_instance) == 0 &&
	       strcmp(a->recorder_sched_switch, b->recorder_sched_switch) == 0;
}

/* The recorder as a reloaded [recorder] says: ours removed, then set up as at start-up (the
 * open incidents keep the readouts they have). */
static void recorder_restart(struct cgw_daemon *d)
{
	if (d->rec_own) {
		int e = recorder_stop(&d->rec);
		if (e < 0)
			log_warnx("cannot remove the flight recorder's %s: %s", d->rec.dir, strerror(-e));
	}
	recorder_disown(&d->rec);         /* one `recorder start` made: left, no longer ours */
	d->rec_on = d->rec_own = false;
	d->rec_off[0] = '\0';
	d->rec_skip_until = 0;
	warn_clear(&d->rec_warn);
	recorder_setup(d);
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)s;
	(void)si;
	struct cgw_daemon *d = userdata;
	sd_notify(0, "RELOADING=1");
	struct cgw_conf c;
	struct cgw_sigset sigs = { 0 };
	if (config_load(&c, d->config_path) != 0 || signatures_load(&sigs, &c) != 0) {
		log_warnx("configuration reload failed, keeping the old one");
		sig_free(&sigs);
		conf_free(&c);
	} else {
		bool rec_same = recorder_conf_same(&d->conf, &c);
		conf_free(&d->conf);
		sig_free(&d->sigs);
		d->conf = c;
		d->sigs = sigs;
		log_warnx("configuration reloaded");
		if (!rec_same)
			recorder_restart(d);
		psi_triggers(d, true);
	}
	sd_notify(0, "READY=1");
	return 0;
}

static void read_boot_id(char *out, size_t cap)
{
	if (read_small_file("/proc/sys/kernel/random/boot_id", out, cap) < 0)
		snprintf(out, cap, "unknown");
	out[strcspn(out, "\n")] = '\0';
}

struct state_mkdir { char *path; int err; };

static void state_mkdir_fn(void *p)
{
	struct state_mkdir *m = p;
	m->err = mkdir(m->path, 0700) < 0 ? errno : 0;
}

static void state_mkdir_free(void *p)
{
	struct state_mkdir *m = p;
	free(m->path);
	free(m);
}

/* Make the state directory and load the open incidents, each with the read deadline: a state
 * directory that does not answer costs a warning and the carried-over incidents, not the
 * start. */
static void state_load(struct cgw_daemon *d, unsigned timeout_ms)
{
	struct state_mkdir *m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(d->conf.state_dir);
	int r = dl_call(state_mkdir_fn, m, state_mkdir_free, timeout_ms);
	if (r == -ETIMEDOUT) {                 /* m now belongs to the stuck thread */
		writer_mark_stuck(d->writer, WR_STATE, d->conf.state_dir);
		return;
	}
	if (r < 0)
		return;                            /* stopping */
	if (m->err && m->err != EEXIST)
		log_warnx("cannot create %s: %s; open incidents will not survive a restart",
		          d->conf.state_dir, strerror(m->err));
	state_mkdir_free(m);
	char *buf = malloc(STATE_MAX_BYTES + 1);
	ssize_t n = buf ? dl_read_file(d->state_path, buf, STATE_MAX_BYTES + 1, timeout_ms)
	                : -ENOMEM;
	size_t dropped = 0;
	if (n == -ETIMEDOUT)
		writer_mark_stuck(d->writer, WR_STATE, d->conf.state_dir);
	else if (n < 0 && n != -ENOENT && n != -ECANCELED)
		log_warnx("cannot read %s: %s; no open incidents carried over", d->state_path,
		          strerror((int)-n));
	else if (n >= 0 && incidents_parse(&d->inc, buf, (size_t)n, d->state_path, d->boot_id,
	                                   &dropped, stderr) == 0)
		log_warnx("%zu open incident%s carried over from %s", d->inc.n,
		          d->inc.n == 1 ? "" : "s", d->state_path);
	free(buf);
	if (dropped)
		log_warnx("%zu open incident%s of a previous boot dropped", dropped,
		          dropped == 1 ? "" : "s");
}

int daemon_run(const char *config_path)
{
	struct cgw_daemon d = { .config_path = config_path };
	int rc = EXIT_USAGE;
	/* One malloc arena for all our threads, before any exists: each further arena reserves
	 * 64 MiB of address space, which mlockall(MCL_FUTURE) counts against RLIMIT_MEMLOCK
	 * (measured: 73 MiB locked with two threads' arenas, 7.5 MiB with one). The threads
	 * allocate little and rarely: no contention to speak of. */
	mallopt(M_ARENA_MAX, 1);
	/* Allocations of 1 MiB and more mapped on their own, and given back when freed: each BPF
	 * program's load (libbpf, CO-RE) reads the kernel's BTF, 5.4 MB here, into two buffers at
	 * once. glibc's default raises its mmap threshold to the size of the first mapped block
	 * freed, so the second and third loads put them on the heap, where what libbpf keeps of
	 * the program lands above them: heap no trim can return, and locked pages no madvise
	 * frees (measured: 22.6 MB locked with the walker in 3 starts of 5, 11.7 to 12.0 MB with
	 * this). Setting either threshold turns glibc's adjustment of both off: the trim
	 * threshold 2 MiB, so that the scan's 512 KiB buffers do not grow and trim the heap at
	 * each scan. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 2 << 20);
	if (config_load(&d.conf, config_path) != 0 || signatures_load(&d.sigs, &d.conf) != 0)
		goto out;
	/* sd-event takes signals through a signalfd: block them before any thread exists */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	daemon_footprint(&d);

	read_boot_id(d.boot_id, sizeof(d.boot_id));
	unsigned timeout_ms = (unsigned)(d.conf.read_timeout_s * 1000);
	d.writer = writer_new(timeout_ms);
	snprintf(d.state_path, sizeof(d.state_path), "%s/incidents.json", d.conf.state_dir);
	state_load(&d, timeout_ms);

	d.scan_warns = warn_set_new();
	d.fdcache = fdcache_new();
	d.history = history_new();
	d.rates = rates_open(true, (unsigned)(d.conf.read_timeout_s * 1000));
	d.runq_mode = -1;
	recorder_setup(&d);
	if (kmsg_open_follow(&d.kmsg, KMSG_PATH) < 0)
		log_warnx("cannot read %s: %s; the kernel's own reports will not be linked",
		          KMSG_PATH, strerror(-d.kmsg.error));
	rc = EXIT_UNREADABLE;
	if (sd_event_default(&d.event) < 0 ||
	    sd_event_add_signal(d.event, NULL, SIGTERM, on_stop, &d) < 0 ||
	    sd_event_add_signal(d.event, NULL, SIGINT, on_stop, &d) < 0 ||
	    sd_event_add_signal(d.event, NULL, SIGHUP, on_reload, &d) < 0 ||
	    sd_event_add_time_relative(d.event, &d.scan_timer, CLOCK_MONOTONIC, 0, 0, on_scan,
	                               &d) < 0) {
		log_warnx("cannot set up the event loop");
		goto out;
	}
	sd_event_source_set_description(d.scan_timer, "cgw-scan");
	sd_event_source_set_time_accuracy(d.scan_timer, 1000);   /* 1 ms, not sd-event's 250 ms */
	d.psi = psi_src_open();
	psi_triggers(&d, false);
	/* the BPF scan loaded before the loop: the walker's verification takes 0.4 s of CPU,
	 * seconds at nice 10 on a busy host, which would stall the loop's watchdog pings */
	if (d.conf.scan_source != SCAN_SOURCE_PROC) {
		d.bpf_tried = true;
		d.bpf = bpfscan_open(getpid(), false, &d.bpf_kern, d.bpf_why, sizeof(d.bpf_why));
	}
	sd_event_set_watchdog(d.event, true);   /* WATCHDOG=1 from this loop only */
	int r = sd_event_loop(d.event);
	rc = r < 0 ? EXIT_UNREADABLE : 0;
out:
	if (d.rec_own) {                  /* ours: removed (one made by `recorder start` is left) */
		int re = recorder_stop(&d.rec);
		if (re < 0)
			log_warnx("cannot remove the flight recorder's %s: %s", d.rec.dir, strerror(-re));
	}
	recorder_disown(&d.rec);
	capture_free(d.capture);
	bool idle = true;
	if (d.writer)                     /* a last save finishes; a stuck disk is not waited for */
		idle = writer_stop(d.writer, 500);
	/* an audit still running is not waited for: its thread frees it */
	if (d.audit && __atomic_exchange_n(&d.audit->state, AJ_ABANDONED, __ATOMIC_ACQ_REL) ==
	               AJ_RUNNING)
		idle = false;
	else
		audit_job_free(d.audit);
	hazstate_free(&d.haz);
	free(d.audit_said);
	for (int k = 0; k < PSI_NRES; k++)
		sd_event_source_disable_unref(d.psiw[k].src);
	psi_src_free(d.psi);
	sd_event_source_unref(d.scan_timer);
	sd_event_unref(d.event);
	incidents_free(&d.inc);
	fdcache_free(d.fdcache);
	bpfscan_free(d.bpf);
	warn_set_free(d.scan_warns);
	history_free(d.history);
	free(d.runners);
	kmsg_free(&d.kmsg);
	d.rates = rates_close(d.rates);
	latency_state_free(&d.latency);
	runq_src_free(d.runq);
	sig_free(&d.sigs);
	conf_free(&d.conf);
	if (!idle) {
		/* a writer still at work (a bundle being archived, a write to a disk that does not
		 * answer): exit() would run the exit-time destructors of the libraries it is in
		 * (libarchive, libxml2, ICU) under it */
		fflush(NULL);
		_exit(rc);
	}
	return rc;
}
