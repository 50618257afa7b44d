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
