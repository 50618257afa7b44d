/* parse-rates.c: pure parsers for the counting of cgroup activity (source-rates.c): tracefs ids and
 * format files, /proc/cgroups, /proc/stat, /proc/uptime, cgroup.stat, v1 hierarchies. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"
#include "rates.h"

/* ---------------------------------------------------------------------------------------
 * names */

static const char *const ev_names[RATE_NEV] = {
	[RATE_MKDIR] = "cgroup:cgroup_mkdir",
	[RATE_RMDIR] = "cgroup:cgroup_rmdir",
	[RATE_ATTACH] = "cgroup:cgroup_attach_task",
	[RATE_RSTAT_CONTENDED] = "cgroup:cgroup_rstat_lock_contended",
	[RATE_CPUHP_ENTER] = "cpuhp:cpuhp_enter",
	[RATE_WQ_ALL] = "workqueue:workqueue_queue_work",
	[RATE_WQ_PIDLIST] = "workqueue:workqueue_queue_work/cgroup_pidlist_destroy",
	[RATE_WQ_MIGRATE] = "workqueue:workqueue_queue_work/cpuset_migrate_mm",
	[RATE_WQ_PERCPU] = "workqueue:workqueue_queue_work/mm_percpu_wq",
	[RATE_HANG] = "sched:sched_process_hang",
	[RATE_FORK] = "sched:sched_process_fork",
};

/* Is the window long enough for a per-second rate? The daemon's first sample covers only
 * its start-up (milliseconds): one event there is no "500/s". */
#define RATES_MIN_WINDOW_S 0.25

bool rates_has_rate(const struct cgw_rates *rt)
{
	return rt->window_s >= RATES_MIN_WINDOW_S;
}

bool rates_windowed(const struct cgw_rates *rt)
{
	return rt->live || rt->captured;
}

const char *rates_ev_name(enum rates_ev e)
{
	return (unsigned)e < RATE_NEV ? ev_names[e] : "?";
}

const char *rates_source_name(enum rates_source s)
{
	return s == RATES_SRC_PERF ? "perf" : "proc-cgroups";
}

/* ---------------------------------------------------------------------------------------
 * pure parsers */

/* events/cgroup/cgroup_mkdir/id on 6.18.44: "544\n" */
int parse_tracepoint_id(const char *buf, unsigned long long *id)
{
	const char *p = buf + strspn(buf, " \t");
	if (*p < '0' || *p > '9')
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno || end == p || end[strspn(end, " \t\n")] != '\0' || v == 0)
		return -EINVAL;
	*id = v;
	return 0;
}

/* events/workqueue/workqueue_queue_work/format on 6.18.44:
 *   name: workqueue_queue_work
 *   ID: 337
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...
 *   	field:void * function;	offset:16;	size:8;	signed:0;
 *   	field:__data_loc char[] workqueue;	offset:24;	size:4;	signed:0;
 * Before 5.x the same field was `void * workqueue` (a pointer, no name to filter on). */
int parse_trace_format(const char *buf, struct trace_field *out, size_t cap)
{
	if (!strstr(buf, "format:"))
		return -EINVAL;
	size_t n = 0;
	int seen = 0;
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l + strspn(l, " \t");
		if (strncmp(p, "field:", 6) != 0)
			continue;
		p += 6;
		size_t dlen = strcspn(p, ";\n");
		if (p[dlen] != ';' || dlen == 0 || dlen >= 128)
			continue;
		char decl[128];
		memcpy(decl, p, dlen);
		decl[dlen] = '\0';
		/* the name is the last identifier; an array suffix belongs to the type */
		char suffix[32] = "";
		char *br = decl[dlen - 1] == ']' ? strrchr(decl, '[') : NULL;
		if (br && br > decl && br[-1] != ' ' && strlen(br) < sizeof(suffix)) {
			snprintf(suffix, sizeof(suffix), "%s", br);
			*br = '\0';
		}
		char *nm = strrchr(decl, ' ');
		if (!nm || !nm[1])
			continue;
		*nm++ = '\0';
		struct trace_field f;
		memset(&f, 0, sizeof(f));
		size_t k = strlen(nm);
		if (k >= sizeof(f.name))
			continue;
		memcpy(f.name, nm, k + 1);
		size_t tl = strlen(decl);                /* "void * work": the type's trailing space */
		while (tl && decl[tl - 1] == ' ')
			decl[--tl] = '\0';
		size_t sl = strlen(suffix);
		if (tl + sl >= sizeof(f.type))
			continue;
		memcpy(f.type, decl, tl);
		memcpy(f.type + tl, suffix, sl + 1);
		const char *o = strstr(p + dlen, "offset:"), *s = strstr(p + dlen, "size:"),
		           *g = strstr(p + dlen, "signed:");
		const char *eol = strchr(p, '\n');
		if (!o || !s || (eol && (o > eol || s > eol)))
			continue;
		uint64_t off, sz;
		const char *q1 = o + 7, *q2 = s + 5;
		if (parse_count(&q1, 0xffff, &off) < 0 || *q1 != ';' ||
		    parse_count(&q2, 0xffff, &sz) < 0 || *q2 != ';')
			return -EINVAL;           /* a record is at most 64 KiB */
		f.offset = (unsigned)off;
		f.size = (unsigned)sz;
		f.is_signed = g && (!eol || g < eol) && g[7] == '1';
		seen++;
		if (n < cap)
			out[n++] = f;
	}
	return seen ? (int)n : -EINVAL;
}

bool trace_field_is_string(const struct trace_field *f)
{
	/* what the kernel's filter_assign_type() compares as strings: dynamic and fixed char
	 * arrays, and char pointers (`const char * workqueue` in 4.x-5.x kernels between the
	 * `void *` and the __string() forms) */
	const char *t = f->type;
	if (strncmp(t, "const ", 6) == 0)
		t += 6;
	return strncmp(t, "__data_loc char[]", 17) == 0 || strncmp(t, "__rel_loc char[]", 16) == 0 ||
	       strncmp(t, "char[", 5) == 0 || strcmp(t, "char *") == 0;
}

/* /proc/cgroups on this machine (6.18.44, v1 controllers mounted, hybrid):
 *   #subsys_name	hierarchy	num_cgroups	enabled
 *   cpuset	3	1	1
 *   cpu	1	1	1
 *   memory	4	32	1
 *   net_cls	0	1	1
 * hierarchy 0: the controller is on cgroup2 or not mounted. Since 6.x a cgroup2 row counts
 * the cgroups that have the controller (css), not every cgroup of the hierarchy. */
int parse_proc_cgroups(const char *buf, struct rates_ctrl *out, size_t cap)
{
	size_t n = 0;
	int seen = 0;
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (*l == '#' || *l == '\n')
			continue;
		size_t nl = strcspn(l, " \t\n");
		if (nl == 0 || nl >= 32 ||
		    strspn(l, "abcdefghijklmnopqrstuvwxyz0123456789_") != nl)
			continue;             /* controller names are kernel identifiers */
		char name[32];
		memcpy(name, l, nl);
		name[nl] = '\0';
		/* "%s\t%d\t%d\t%d\n" (proc_cgroupstats_show): a line of a controller whose numbers
		 * are not counts makes the file unparsable, not the controller absent */
		static const uint64_t max[3] = { 0x7fffffff, CGW_MAX_COUNT, 1 };
		uint64_t v[3];
		const char *p = l + nl;
		for (int i = 0; i < 3; i++) {
			size_t ws = strspn(p, " \t");
			if (ws == 0)
				return -EINVAL;
			p += ws;
			int e = parse_count(&p, max[i], &v[i]);
			if (e < 0)
				return e;
		}
		p += strspn(p, " \t");
		if (*p && *p != '\n')
			return -EINVAL;
		seen++;
		if (n < cap) {
			memset(&out[n], 0, sizeof(out[n]));
			snprintf(out[n].name, sizeof(out[n].name), "%s", name);
			out[n].hierarchy = (int)v[0];
			out[n].num_cgroups = (long)v[1];
			out[n].enabled = v[2] != 0;
			n++;
		}
	}
	return seen ? (int)n : -EINVAL;
}

/* /proc/stat: "... ctxt 1234567\nbtime 1764485765\nprocesses 298516\nprocs_running 2 ..." */
/* The count on the first line of buf that starts with key (its separator included): 0,
 * -ENOENT when no line does, -EINVAL or -ERANGE when what follows is not one count. */
static int keyed_count(const char *buf, const char *key, uint64_t *out)
{
	size_t k = strlen(key);
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, key, k) == 0) {
			const char *p = l + k;
			int e = parse_count(&p, CGW_MAX_COUNT, out);
			if (e < 0)
				return e;
			return *p && *p != '\n' ? -EINVAL : 0;
		}
	return -ENOENT;
}

int parse_proc_stat_processes(const char *buf, unsigned long long *out)
{
	uint64_t v;
	int e = keyed_count(buf, "processes ", &v);
	if (e == 0)
		*out = v;
	return e;
}

/* cgroup.stat of the cgroup2 root here (hugetlb enabled, one child cgroup):
 *   nr_descendants 1
 *   nr_subsys_perf_event 2
 *   nr_subsys_hugetlb 1
 *   nr_dying_descendants 0
 *   nr_dying_subsys_perf_event 0
 *   nr_dying_subsys_hugetlb 0 */
int parse_cgroup_stat_subsys(const char *buf, const char *controller, long *out)
{
	char key[64];
	int k = snprintf(key, sizeof(key), "nr_subsys_%s ", controller);
	if (k <= 0 || (size_t)k >= sizeof(key))
		return -ENOENT;
	uint64_t v;
	int e = keyed_count(buf, key, &v);
	if (e == 0)
		*out = (long)v;
	return e;
}

/* "\040" -> ' ': the kernel escapes space, tab, newline and backslash in mount points. */

/* Super options of a v1 cgroup mount that are not controllers (cgroup1_show_options()). */
static bool v1_flag_option(const char *o, size_t n)
{
	static const char *const flags[] = { "rw", "ro", "noprefix", "cpuset_v2_mode",
	                                     "favordynmods", "nofavordynmods", "xattr",
	                                     "clone_children" };
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strlen(flags[i]) == n && strncmp(o, flags[i], n) == 0)
			return true;
	return n >= 14 && strncmp(o, "release_agent=", 14) == 0;
}

/* /proc/self/mountinfo lines of v1 hierarchies, from this machine:
 *   32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
 *   40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
 *   41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw   (not v1) */
int parse_mountinfo_v1(const char *buf, struct v1_hier *out, size_t cap)
{
	size_t n = 0;
	struct mountinfo_ent e;
	for (const char *p = buf; mountinfo_next(&p, &e) > 0;) {
		if (strcmp(e.fstype, "cgroup") != 0 || !e.sopts[0])
			continue;
		struct v1_hier h;
		memset(&h, 0, sizeof(h));
		size_t o = 0;
		for (const char *q = e.sopts; *q;) {
			size_t k = strcspn(q, ",");
			if (k && !v1_flag_option(q, k) && o + k + 2 < sizeof(h.opts)) {
				if (o)
					h.opts[o++] = ',';
				memcpy(h.opts + o, q, k);
				o += k;
				h.opts[o] = '\0';
				if (k > 5 && strncmp(q, "name=", 5) == 0)
					h.named = true;
			}
			q += k;
			if (*q)
				q++;
		}
		if (!o)
			snprintf(h.opts, sizeof(h.opts), "none");
		snprintf(h.mnt, sizeof(h.mnt), "%s", e.mnt);
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(out[k].opts, h.opts) == 0;
		if (!dup && n < cap)
			out[n++] = h;
	}
	return (int)n;
}

/* ---------------------------------------------------------------------------------------
 * a capture's rates file: what a live run counted, for its replay (format in rates.h) */

#define RATES_FILE_HEADER "cgwatch-rates 1"

/* Append the rest of a line: text with control bytes (and '\n') as '?'. */
static void text_add(struct strbuf *b, const char *s)
{
	for (; *s; s++)
		sb_add(b, (unsigned char)*s < ' ' && *s != '\t' ? "?" : *s == 0x7f ? "?" : s, 1);
	sb_add(b, "\n", 1);
}

static void count_format(struct strbuf *b, const struct rates_count *c)
{
	if (c->missing) {
		sb_add(b, "missing ", 8);
		text_add(b, c->why);
	} else {
		sb_printf(b, "%llu", (unsigned long long)c->count);
	}
}

void rates_format(const struct cgw_rates *rt, struct strbuf *b)
{
	sb_printf(b, RATES_FILE_HEADER "\nsource %s\nwindow %.6f\n", rates_source_name(rt->source),
	          rt->window_s);
	for (int e = 0; e < RATE_NEV; e++) {
		sb_printf(b, "event %s ", rates_ev_name(e));
		count_format(b, &rt->ev[e]);
		if (!rt->ev[e].missing)
			sb_add(b, "\n", 1);
	}
	if (rt->forks.missing || rt->forks_from[0]) {
		sb_add(b, "forks ", 6);
		count_format(b, &rt->forks);
		if (!rt->forks.missing) {
			sb_add(b, " ", 1);
			text_add(b, rt->forks_from);
		}
	}
	if (rt->have_processes)
		sb_printf(b, "processes %llu\n", rt->processes);
	if (rt->uptime_s > 0)
		sb_printf(b, "uptime %.6f\n", rt->uptime_s);
	for (size_t i = 0; i < rt->nctrl; i++) {
		const struct rates_ctrl *c = &rt->ctrl[i];
		sb_printf(b, "cgroup %s %d %ld %ld %d\n", c->name, c->hierarchy, c->num_cgroups,
		          c->change, c->enabled ? 1 : 0);
	}
	if (rt->cgroups_err[0]) {
		sb_add(b, "cgroups-error ", 14);
		text_add(b, rt->cgroups_err);
	}
	for (const char *l = rt->notes; *l;) {
		size_t n = strcspn(l, "\n");
		char note[sizeof(rt->notes)];
		snprintf(note, sizeof(note), "%.*s", (int)n, l);
		sb_add(b, "note ", 5);
		text_add(b, note);
		l += n + (l[n] == '\n');
	}
}

/* The line at *p (up to '\n' or the end) as a NUL-terminated copy in buf; *p past it. False
 * when it is longer than cap - 1 or holds a NUL (the text ends there: never the case). */
static bool next_line(const char **p, char *buf, size_t cap)
{
	size_t n = strcspn(*p, "\n");
	bool ok = n < cap;
	if (ok) {
		memcpy(buf, *p, n);
		buf[n] = '\0';
	}
	*p += n + ((*p)[n] == '\n');
	return ok;
}

/* A text field: UTF-8 without control bytes (a tab is fine), into out (cap bytes). */
static int text_take(const char *s, char *out, size_t cap, const char **why)
{
	size_t n = strlen(s);
	if (n == 0) {
		*why = "an empty text";
		return -EINVAL;
	}
	if (text_bad(s, n) != n) {
		*why = "a control byte or a byte that is not UTF-8 in the text";
		return -EINVAL;
	}
	if (n >= cap) {
		*why = "a text longer than cgwatch keeps";
		return -ERANGE;
	}
	memcpy(out, s, n + 1);
	return 0;
}

/* A count, then the end of the value ("" or a space): *p past it. */
static int count_take(const char **p, uint64_t max, uint64_t *out, const char **why)
{
	int r = parse_count(p, max, out);
	if (r < 0 || (**p && **p != ' ')) {
		*why = r == -ERANGE ? "a count out of range" : "not a count";
		return r == -ERANGE ? -ERANGE : -EINVAL;
	}
	return 0;
}

/* "COUNT[ FROM]" or "missing WHY" into c (from: forks_from, NULL for an event). */
static int count_parse(const char *v, struct rates_count *c, char *from, size_t fcap,
                       const char **why)
{
	if (strncmp(v, "missing ", 8) == 0) {
		c->missing = true;
		return text_take(v + 8, c->why, sizeof(c->why), why);
	}
	int r = count_take(&v, CGW_MAX_COUNT, &c->count, why);
	if (r < 0)
		return r;
	if (!from) {
		if (*v) {
			*why = "more after the count";
			return -EINVAL;
		}
		return 0;
	}
	if (*v != ' ') {
		*why = "no source after the count";
		return -EINVAL;
	}
	return text_take(v + 1, from, fcap, why);
}

static bool kernel_ident(const char *s, size_t cap)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return n > 0 && n < cap && s[n] == '\0';
}

/* "NAME HIERARCHY NUM CHANGE ENABLED" of a cgroup line. */
static int ctrl_parse(char *v, struct rates_ctrl *c, const char **why)
{
	char *sp = strchr(v, ' ');
	if (!sp) {
		*why = "a cgroup line is: name hierarchy num_cgroups change enabled";
		return -EINVAL;
	}
	*sp = '\0';
	if (!kernel_ident(v, sizeof(c->name))) {
		*why = "a controller's name that is not a kernel identifier";
		return -EINVAL;
	}
	snprintf(c->name, sizeof(c->name), "%s", v);
	const char *p = sp + 1;
	uint64_t h, num, change, en;
	bool neg;
	int r;
	if ((r = count_take(&p, 0x7fffffff, &h, why)) < 0 || *p++ != ' ' ||
	    (r = count_take(&p, CGW_MAX_COUNT, &num, why)) < 0 || *p++ != ' ')
		goto bad;
	neg = *p == '-';
	p += neg;
	if ((neg && *p == '-') || (r = count_take(&p, CGW_MAX_COUNT, &change, why)) < 0 || *p++ != ' ' ||
	    (r = count_take(&p, 1, &en, why)) < 0 || *p)
		goto bad;
	c->hierarchy = (int)h;
	c->num_cgroups = (long)num;
	c->change = neg ? -(long)change : (long)change;
	c->enabled = en == 1;
	return 0;
bad:
	if (r == 0)
		*why = "a cgroup line is: name hierarchy num_cgroups change enabled";
	return r < 0 ? r : -EINVAL;
}

int parse_rates_file(const char *text, struct cgw_rates *out, size_t *line, const char **why)
{
	memset(out, 0, sizeof(*out));
	*line = 1;
	*why = "";
	const char *p = text;
	char l[1024];
	if (!next_line(&p, l, sizeof(l)) || strcmp(l, RATES_FILE_HEADER) != 0) {
		*why = "not a rates file (no \"" RATES_FILE_HEADER "\" line)";
		return -EINVAL;
	}
	bool source = false, window = false, uptime = false, forks = false;
	bool seen[RATE_NEV] = { false };
	size_t notes = 0;
	int r = 0;
	while (*p) {
		++*line;
		if (!next_line(&p, l, sizeof(l))) {
			*why = "a line longer than 1023 bytes";
			return -ERANGE;
		}
		if (l[0] == '\0' || l[0] == '#')
			continue;
		char *v = strchr(l, ' ');
		if (!v) {
			*why = "a key without a value";
			return -EINVAL;
		}
		*v++ = '\0';
		if (strcmp(l, "source") == 0) {
			if (source) {
				*why = "a second source line";
				return -EINVAL;
			}
			source = true;
			if (strcmp(v, rates_source_name(RATES_SRC_PERF)) == 0)
				out->source = RATES_SRC_PERF;
			else if (strcmp(v, rates_source_name(RATES_SRC_PROC)) == 0)
				out->source = RATES_SRC_PROC;
			else {
				*why = "a source that is neither perf nor proc-cgroups";
				return -EINVAL;
			}
		} else if (strcmp(l, "window") == 0 || strcmp(l, "uptime") == 0) {
			bool w = l[0] == 'w';
			double *d = w ? &out->window_s : &out->uptime_s;
			const char *q = v;
			if (w ? window : uptime) {
				*why = w ? "a second window line" : "a second uptime line";
				return -EINVAL;
			}
			if ((r = parse_decimal(&q, 0, CGW_MAX_SECONDS, d)) < 0 || *q) {
				*why = r == -ERANGE ? "a time out of range" : "not a time";
				return r == -ERANGE ? -ERANGE : -EINVAL;
			}
			window |= w;
			uptime |= !w;
		} else if (strcmp(l, "event") == 0) {
			char *name = v;
			if (!(v = strchr(v, ' '))) {
				*why = "an event without its count";
				return -EINVAL;
			}
			*v++ = '\0';
			int e = 0;
			while (e < RATE_NEV && strcmp(rates_ev_name(e), name) != 0)
				e++;
			struct rates_count skip = { 0 };
			struct rates_count *c = e < RATE_NEV ? &out->ev[e] : &skip;
			if (e < RATE_NEV && seen[e]) {
				*why = "an event listed twice";
				return -EINVAL;
			}
			if ((r = count_parse(v, c, NULL, 0, why)) < 0)
				return r;
			if (e < RATE_NEV)
				seen[e] = true;
		} else if (strcmp(l, "forks") == 0) {
			if (forks) {
				*why = "a second forks line";
				return -EINVAL;
			}
			forks = true;
			if ((r = count_parse(v, &out->forks, out->forks_from, sizeof(out->forks_from),
			                     why)) < 0)
				return r;
		} else if (strcmp(l, "processes") == 0) {
			uint64_t n;
			const char *q = v;
			if (out->have_processes) {
				*why = "a second processes line";
				return -EINVAL;
			}
			if ((r = count_take(&q, CGW_MAX_COUNT, &n, why)) < 0)
				return r;
			if (*q) {
				*why = "more after the count";
				return -EINVAL;
			}
			out->have_processes = true;
			out->processes = n;
		} else if (strcmp(l, "cgroup") == 0) {
			if (out->nctrl == RATES_MAX_CTRL) {
				*why = "more controllers than cgwatch keeps";
				return -ERANGE;
			}
			struct rates_ctrl *c = &out->ctrl[out->nctrl];
			if ((r = ctrl_parse(v, c, why)) < 0)
				return r;
			for (size_t i = 0; i < out->nctrl; i++)
				if (strcmp(out->ctrl[i].name, c->name) == 0) {
					*why = "a controller listed twice";
					return -EINVAL;
				}
			out->nctrl++;
		} else if (strcmp(l, "cgroups-error") == 0) {
			if (out->cgroups_err[0]) {
				*why = "a second cgroups-error line";
				return -EINVAL;
			}
			if ((r = text_take(v, out->cgroups_err, sizeof(out->cgroups_err), why)) < 0)
				return r;
		} else if (strcmp(l, "note") == 0) {
			size_t n = strlen(v);
			if (notes + n + 2 > sizeof(out->notes)) {
				*why = "more notes than cgwatch keeps";
				return -ERANGE;
			}
			if (notes)
				out->notes[notes++] = '\n';
			if ((r = text_take(v, out->notes + notes, sizeof(out->notes) - notes, why)) < 0)
				return r;
			notes += n;
		} else {
			*why = "an unknown key";
			return -EINVAL;
		}
	}
	if (!source || !window) {
		*why = !source ? "no source line" : "no window line";
		return -EINVAL;
	}
	out->captured = true;
	for (int e = 0; e < RATE_NEV; e++) {
		struct rates_count *c = &out->ev[e];
		if (!seen[e]) {
			c->missing = true;
			snprintf(c->why, sizeof(c->why), "not in the capture (cgwatch/rates)");
		} else if (!c->missing) {
			c->per_s = rates_has_rate(out) ? (double)c->count / out->window_s : 0;
		}
	}
	if (!forks) {
		out->forks.missing = true;
		snprintf(out->forks.why, sizeof(out->forks.why), "not in the capture (cgwatch/rates)");
	} else if (!out->forks.missing) {
		out->forks.per_s = rates_has_rate(out) ? (double)out->forks.count / out->window_s : 0;
	}
	return 0;
}
