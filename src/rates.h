/* rates.h: cgroup activity over a window — system-wide tracepoint counts through
 * perf_event_open (counting mode, one event per online CPU, no sampling), or /proc/cgroups
 * and /proc/stat where perf or tracefs is not available — and the correlators that turn them
 * into evidence for the cgroup findings. */
#ifndef CGW_RATES_H
#define CGW_RATES_H

#include "cgwatch.h"

enum rates_ev {
	RATE_MKDIR,               /* cgroup:cgroup_mkdir */
	RATE_RMDIR,               /* cgroup:cgroup_rmdir */
	RATE_ATTACH,              /* cgroup:cgroup_attach_task */
	RATE_RSTAT_CONTENDED,     /* cgroup:cgroup_rstat_lock_contended */
	RATE_CPUHP_ENTER,         /* cpuhp:cpuhp_enter */
	RATE_WQ_ALL,              /* workqueue:workqueue_queue_work, every workqueue */
	RATE_WQ_PIDLIST,          /* ... filtered: workqueue == "cgroup_pidlist_destroy" */
	RATE_WQ_MIGRATE,          /* ... workqueue == "cpuset_migrate_mm" */
	RATE_WQ_PERCPU,           /* ... workqueue == "mm_percpu_wq" */
	RATE_HANG,                /* sched:sched_process_hang: kernel hung-task reports */
	RATE_FORK,                /* sched:sched_process_fork */
	RATE_NEV
};

enum rates_source { RATES_SRC_PERF, RATES_SRC_PROC };

/* One count over the window. */
struct rates_count {
	bool missing;             /* not counted: `why` says why (never reported as 0) */
	uint64_t count;           /* events in the window */
	double per_s;             /* count / window_s; 0 when the window is under 0.25 s */
	char why[256];
};

#define RATES_MAX_CTRL 32      /* controllers in /proc/cgroups (6.18 has 14) */

/* One line of /proc/cgroups, e.g. "cpu\t2\t351\t1". */
struct rates_ctrl {
	char name[32];
	int hierarchy;            /* 0: the cgroup2 hierarchy (or not mounted anywhere) */
	long num_cgroups;
	long change;              /* since the previous sample; 0 at the first or in a replay */
	bool enabled;
};

struct cgw_rates {
	enum rates_source source;
	bool live;                /* false: a replayed tree, counts as captured, no window */
	bool captured;            /* a replay of a live run's sample (its cgwatch/rates): the
	                             counts, window and source it had, not counted here */
	double window_s;          /* time the counts cover; 0 in a replay without cgwatch/rates */
	char notes[1024];         /* facts about the source, one per line ('\n'-separated) */
	struct rates_count ev[RATE_NEV];
	/* forks over the window: sched:sched_process_fork, else the change of /proc/stat
	 * `processes`; forks_from names the source ("" when not counted) */
	struct rates_count forks;
	char forks_from[40];
	/* /proc/cgroups at the end of the window (both sources) */
	struct rates_ctrl ctrl[RATES_MAX_CTRL];
	size_t nctrl;
	char cgroups_err[96];     /* why /proc/cgroups was not read, "" when it was */
	/* /proc/stat `processes` (forks since boot) and /proc/uptime, when read */
	bool have_processes;
	unsigned long long processes;
	double uptime_s;          /* 0 when not read */
};

/* Name of an event as the report shows it: "cgroup:cgroup_mkdir",
 * "workqueue:workqueue_queue_work/cgroup_pidlist_destroy". */
const char *rates_ev_name(enum rates_ev e);
/* Is the sample's window long enough for per-second rates (not the daemon's first)? */
bool rates_has_rate(const struct cgw_rates *rt);
/* Do the counts cover a window: a live sample, or a live run's as captured (rt->captured)? */
bool rates_windowed(const struct cgw_rates *rt);
/* "perf" or "proc-cgroups". */
const char *rates_source_name(enum rates_source s);

/* ---- the counters ---- */

struct cgw_rates_src;

/* Open the counters, once (the daemon keeps them across scans). live: this host, perf first
 * (mounting tracefs at /sys/kernel/tracing when it is not mounted), else /proc; !live: a
 * replayed tree, whose captured /proc files are read as they are (perf would count the live
 * host). Every step runs with the deadline timeout_ms. Never NULL; it says which source. */
struct cgw_rates_src *rates_open(bool live, unsigned timeout_ms);
/* Whether s counts the tracepoints with perf (used), or why not (refused), into k. */
void rates_kernel(const struct cgw_rates_src *s, struct cgw_kernel *k);
/* Counts and per-second rates since the previous sample (since rates_open at the first) into
 * out. Returns 0, or -errno when nothing at all could be read (out says why). */
int rates_sample(struct cgw_rates_src *src, struct cgw_rates *out);
/* Sleep until window_ms have passed since the previous sample (or the open). Returns 0, or
 * -ECANCELED as soon as SIGTERM/SIGINT is pending. A replay has nothing to wait for. */
int rates_wait(struct cgw_rates_src *src, unsigned window_ms);
/* Close the counters, with the deadline (closing the last perf event of a tracepoint waits
 * for RCU grace periods: ~40 ms per tracepoint here, so ~0.3 s in all). NULL is fine.
 * Returns NULL. */
struct cgw_rates_src *rates_close(struct cgw_rates_src *src);

/* Window of a live `check` when it counts (after the scan, and only when rates_needed() or
 * --rates): 1 s. Short enough for an interactive command; long enough that a churn of one
 * cgroup a second, or the per-second vmstat work on mm_percpu_wq, shows as a count rather
 * than a coin toss; the same unit as the per-second rates it reports. The daemon's window is
 * its scan interval instead. */
#define RATES_CHECK_WINDOW_MS 1000

/* ---- correlators ---- */

/* Do the findings of r need the cgroup activity counts? True when a finding's signature names
 * a correlator that takes its evidence from them (`correlator = cgroup1-pidlist`, `rstat`,
 * `sched-domains`, `cgroup-fork`, `cgroup-churn` or `task-groups` in its file): decided from
 * the signatures, so a user's signature with such a correlator gets the counts too. `check`
 * opens its counting window only then (or with --rates). */
bool rates_needed(const struct cgw_report *r);

/* Add evidence lines to the findings of r whose signature names one of those correlators,
 * from rt (NULL: not measured), the scan, and the host files they need
 * (/proc/self/mountinfo, /sys/devices/system/cpu/possible, cgroup.stat), read with the read
 * deadline and only when such a finding exists. Each line is a fact with where it was read. */
void rates_link(struct cgw_report *r, const struct cgw_rates *rt);

/* The host files rates_link reads, given instead (NULL / -1: not read). */
struct rates_host {
	const char *mountinfo;       /* /proc/self/mountinfo */
	const char *mountinfo_err;   /* why it was not read, or NULL */
	int possible_cpus;           /* from /sys/devices/system/cpu/possible, -1 unknown */
	const char *cgroup2_stat;    /* cgroup.stat of the cgroup2 root, or NULL */
	const char *cgroup2_stat_path;
};
/* rates_link with the host files given: pure (the unit tests use it). */
void rates_link_host(struct cgw_report *r, const struct cgw_rates *rt, const struct rates_host *h);

/* ---- sink-rates.c: the counts as output ---- */

struct json_object;
/* The top-level "rates" object: {"source", "live", "window_s", "notes": [...],
 * "events": {NAME: {"count", "per_s"} | {"missing": true, "why"}}, "forks": {...},
 * "cgroups": {CONTROLLER: {"hierarchy", "num_cgroups", "change"}}, ...}. */
struct json_object *rates_json(const struct cgw_rates *rt);
/* The rates as a few lines for the text report. */
void rates_text(const struct cgw_rates *rt, FILE *out);

/* ---- pure parsers (real samples in source-rates.c and tests/unit/test-rates.c) ---- */

/* tracefs events/<sys>/<name>/id: "544\n". Returns 0 or -EINVAL. */
int parse_tracepoint_id(const char *buf, unsigned long long *id);

/* A field of a tracefs `format` file:
 *   "\tfield:__data_loc char[] workqueue;\toffset:24;\tsize:4;\tsigned:0;" */
struct trace_field {
	char type[64];            /* "__data_loc char[]", "void *", "char[16]" */
	char name[64];            /* "workqueue" */
	unsigned offset, size;
	bool is_signed;
};
/* The fields (common ones included) of a format file. Returns the number stored (at most
 * cap), or -EINVAL when buf is not a format file or an offset or size is no count below 64 Ki. */
int parse_trace_format(const char *buf, struct trace_field *out, size_t cap);
/* Can a tracepoint filter compare this field with a string ("wq == \"x\"")? */
bool trace_field_is_string(const struct trace_field *f);

/* /proc/cgroups. Returns the number of controllers stored, or -EINVAL/-ERANGE when there is
 * none or a controller's line holds no counts in range (hierarchy, num_cgroups within
 * CGW_MAX_COUNT, enabled 0 or 1). Lines whose name is no kernel identifier are skipped. */
int parse_proc_cgroups(const char *buf, struct rates_ctrl *out, size_t cap);
/* /proc/stat: the `processes` line (forks since boot). Returns 0, -ENOENT when there is no
 * such line, or -EINVAL/-ERANGE when its value is no count within CGW_MAX_COUNT. */
int parse_proc_stat_processes(const char *buf, unsigned long long *out);
/* cgroup.stat of a cgroup2 cgroup: "nr_subsys_<controller> N" (the live cgroups of the subtree,
 * itself included, that have the controller; 6.9 and later). Returns 0, -ENOENT, or
 * -EINVAL/-ERANGE when N is no count within CGW_MAX_COUNT. */
int parse_cgroup_stat_subsys(const char *buf, const char *controller, long *out);
/* parse_uptime (/proc/uptime) is in cgwatch.h, with the other /proc parsers. */

/* A live run's sample as a capture keeps it, DIR/cgwatch/rates, one key a line:
 *     cgwatch-rates 1
 *     source perf                          (or proc-cgroups)
 *     window 1.000213                      seconds the counts cover
 *     event cgroup:cgroup_mkdir 12         one per event counted ...
 *     event cpuhp:cpuhp_enter missing WHY  ... or not counted, and why
 *     forks 604 sched:sched_process_fork   (or "forks missing WHY")
 *     processes 91234567                   /proc/stat, when it was read
 *     uptime 5702.63                       when it was read
 *     cgroup memory 4 32 -1 1              /proc/cgroups: name hierarchy num_cgroups change enabled
 *     cgroups-error WHY                    why /proc/cgroups was not read
 *     note TEXT                            the notes, in order
 * Append rt in that format (text with a control byte has it as '?'). */
void rates_format(const struct cgw_rates *rt, struct strbuf *b);
/* Parse a rates file into out: the sample as captured, with live false, captured true and each
 * per-second rate count / window (when rates_has_rate). Strict: the header, then each key at
 * most once (event and cgroup lines once per name, an event name it does not know skipped),
 * source and window required, numbers as the kernel's (counts within CGW_MAX_COUNT, a change
 * within it either way, a window a time), names kernel identifiers, texts UTF-8 without control
 * bytes and within their fields; events it does not list are missing ("not in the capture").
 * Returns 0, or -EINVAL/-ERANGE with *line the line (1-based) and *why what is wrong. */
int parse_rates_file(const char *text, struct cgw_rates *out, size_t *line, const char **why);

/* A mounted cgroup v1 hierarchy: its controllers and name= ("cpu,cpuacct", "name=systemd",
 * "none" when it has neither) and its first mount point (unescaped). */
struct v1_hier {
	char opts[256];
	char mnt[1024];
	bool named;               /* has name= */
};
/* The cgroup v1 hierarchies of /proc/self/mountinfo, each once (bind mounts and other mount
 * points of the same hierarchy are skipped). Returns the number stored (at most cap). */
int parse_mountinfo_v1(const char *buf, struct v1_hier *out, size_t cap);

#endif
