/* parse-proc.c: pure parsers of /proc text. Each takes a buffer, never a path. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* A whole token as a count in [0, max]. */
static int token_count(const char *num, uint64_t max, uint64_t *v)
{
	const char *q = num;
	int r = parse_count(&q, max, v);
	return r < 0 ? r : *q ? -EINVAL : 0;
}

/* 1765 (kworker/u768:1+cpuset_migrate_mm) D 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 77
 * 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 3 0 0 0 0 0 ...
 * Fields after the comm: 3 state, 4 ppid, 9 flags, 22 starttime, 39 processor,
 * 40 rt_priority, 41 policy. Only those are read, and each must be a count in its range:
 * a field the kernel never prints so ("nan", "-5", 2^64) makes the line unparsable. */
int parse_stat_buf(const char *buf, size_t len, struct cgw_stat *out)
{
	memset(out, 0, sizeof(*out));
	const char *open = memchr(buf, '(', len);
	const char *close = memrchr(buf, ')', len);
	if (!open || !close || close < open)
		return -EINVAL;
	/* "%d (": the tid, one space, the comm */
	char num[24];                     /* a token as a C string */
	size_t hl = (size_t)(open - buf);
	if (hl < 2 || hl >= sizeof(num) || buf[hl - 1] != ' ')
		return -EINVAL;
	memcpy(num, buf, hl - 1);
	num[hl - 1] = '\0';
	uint64_t v;
	int e = token_count(num, 0x7fffffff, &v);
	if (e < 0)
		return e;
	if (v == 0)
		return -EINVAL;
	out->tid = (int)v;
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = '\0';
	out->comm_len = clen;

	/* The fields after the comm, split on ' ' and '\n' up to the last one used (41). The
	 * scan parses every thread's line: split by hand, a line costs 0.35 us here instead of
	 * the 0.94 us of strtok_r on a copy of the whole line (10 ms instead of 28 ms at 30,000
	 * threads). A NUL ends the line, and so does len, or 1 KiB past the comm. */
	const char *p = close + 1, *end_all = buf + len;
	if (end_all - p > 1023)
		end_all = p + 1023;
	int field = 3;
	bool have_state = false, have_policy = false;
	while (field <= 41) {
		while (p < end_all && (*p == ' ' || *p == '\n'))
			p++;
		if (p == end_all || *p == '\0')
			break;
		const char *tok = p;
		while (p < end_all && *p != ' ' && *p != '\n' && *p != '\0')
			p++;
		size_t tlen = (size_t)(p - tok);
		uint64_t max = 0;
		switch (field) {
		case 4: max = 0x7fffffff; break;                  /* ppid */
		case 9: case 41: max = 0xffffffffu; break;        /* flags, policy: unsigned int */
		case 22: max = CGW_MAX_COUNT; break;              /* start time, in ticks */
		case 39: max = CGW_MAX_CPUS - 1; break;           /* the CPU it last ran on */
		case 40: max = 99; break;                         /* rt_priority: 0..MAX_RT_PRIO-1 */
		default: break;
		}
		if (field == 3) {
			if (tlen != 1)
				return -EINVAL;
			out->state = tok[0];
			have_state = true;
		} else if (max) {
			if (tlen >= sizeof(num))
				return -ERANGE;
			memcpy(num, tok, tlen);
			num[tlen] = '\0';
			if ((e = token_count(num, max, &v)) < 0)
				return e;
			switch (field) {
			case 4: out->ppid = (int)v; break;
			case 9: out->flags = (unsigned long)v; break;
			case 22: out->start_ticks = v; break;
			case 39: out->cpu = (int)v; break;
			case 40: out->rt_priority = (unsigned)v; break;
			default:
				out->policy = (unsigned)v;
				have_policy = true;
				break;
			}
		}
		field++;
	}
	return have_state && have_policy ? 0 : -EINVAL;
}

/* The value after "key :" up to the end of its line: a time in ms (decimal) or a count. */
static int sched_value(const char *v, bool decimal, double *d, unsigned long long *u)
{
	v += strspn(v, " \t");
	uint64_t c;
	int e = decimal ? parse_decimal(&v, 0, CGW_MAX_SECONDS * 1000.0, d)
	                : parse_count(&v, CGW_MAX_COUNT, &c);
	if (e < 0)
		return e;
	v += strspn(v, " \t\r");
	if (*v && *v != '\n')
		return -EINVAL;
	if (!decimal)
		*u = c;
	return 0;
}

/* cat (2303, #threads: 1)
 * -------------------------------------------------------------------
 * se.exec_start                                :         99786.458684
 * nr_switches                                  :                    1
 * The first line holds the comm, which may hold '\n' and forge a line: the kernel's own line
 * of each key comes later, so the last one is read. */
int parse_sched_buf(const char *buf, struct cgw_sched *out)
{
	static const char *const keys[] = { "se.exec_start", "se.sum_exec_runtime", "nr_switches" };
	const char *val[3] = { NULL, NULL, NULL };
	memset(out, 0, sizeof(*out));
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':');
		const char *nl = strchr(l, '\n');
		if (!colon || (nl && colon > nl))
			continue;
		size_t klen = (size_t)(colon - l);
		while (klen && l[klen - 1] == ' ')
			klen--;
		for (int k = 0; k < 3; k++)
			if (klen == strlen(keys[k]) && strncmp(l, keys[k], klen) == 0)
				val[k] = colon + 1;
	}
	int err = 0;
	for (int k = 0; k < 3; k++) {
		if (!val[k])
			continue;
		int e = k == 0 ? sched_value(val[k], true, &out->exec_start_ms, NULL) :
		        k == 1 ? sched_value(val[k], true, &out->sum_exec_ms, NULL) :
		                 sched_value(val[k], false, NULL, &out->nr_switches);
		if (e < 0) {
			if (!err) {
				err = e;
				out->bad = keys[k];
			}
			continue;
		}
		if (k == 0)
			out->have_exec_start = true;
		else if (k == 2)
			out->have_switches = true;
	}
	if (!err && !out->have_exec_start)
		err = -EINVAL;
	return err;
}

/* "Tgid:\t2395\n" style lines. */
static const char *status_field(const char *buf, const char *key)
{
	size_t k = strlen(key);
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, key, k) == 0 && l[k] == ':')
			return l + k + 1;
	return NULL;
}

/* A count in [0, max] after "Key:" and its tabs, followed by a tab (more values) or the end of
 * the line. */
static int status_count(const char *v, uint64_t max, uint64_t *out)
{
	v += strspn(v, " \t");
	int e = parse_count(&v, max, out);
	if (e < 0)
		return e;
	return *v == '\n' || *v == '\0' || *v == '\t' ? 0 : -EINVAL;
}

int parse_status_buf(const char *buf, struct cgw_status *out)
{
	memset(out, 0, sizeof(*out));
	const char *v;
	uint64_t n;
	int e;
	if (!(v = status_field(buf, "Tgid")))
		return -EINVAL;
	if ((e = status_count(v, 0x7fffffff, &n)) < 0)
		return e;
	if (n == 0)
		return -EINVAL;
	out->tgid = (int)n;
	if ((v = status_field(buf, "PPid"))) {
		if ((e = status_count(v, 0x7fffffff, &n)) < 0)
			return e;
		out->ppid = (int)n;
	}
	if ((v = status_field(buf, "Uid"))) {
		if ((e = status_count(v, 0xfffffffeu, &n)) < 0)    /* (uid_t)-1 is no uid */
			return e;
		out->uid = (unsigned)n;
	}
	if ((v = status_field(buf, "voluntary_ctxt_switches"))) {
		if ((e = status_count(v, CGW_MAX_COUNT, &n)) < 0)
			return e;
		out->vol_switches = n;
	}
	if ((v = status_field(buf, "nonvoluntary_ctxt_switches"))) {
		if ((e = status_count(v, CGW_MAX_COUNT, &n)) < 0)
			return e;
		out->nonvol_switches = n;
	}
	if ((v = status_field(buf, "Cpus_allowed_list"))) {
		v += strspn(v, " \t");
		size_t len = strcspn(v, "\n");
		char *all = xstrndup(v, len);
		struct cgw_cpus cpus;
		e = cpulist_parse(all, &cpus);
		free(all);
		if (e < 0 || len == 0)
			return -EINVAL;
		if (len >= sizeof(out->cpus_allowed))
			len = sizeof(out->cpus_allowed) - 1;
		memcpy(out->cpus_allowed, v, len);
		out->cpus_allowed[len] = '\0';
	}
	return 0;
}

/* /proc/uptime: "5702.63 11160.30\n" */
int parse_uptime(const char *buf, double *out)
{
	const char *p = buf;
	double v;
	int e = parse_decimal(&p, 0, CGW_MAX_SECONDS, &v);
	if (e < 0)
		return e;
	if (*p != ' ' && *p != '\n' && *p != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

char *frame_name(const char *text, char *out, size_t cap)
{
	size_t n = strcspn(text, "+ .\t\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(out, text, n);
	out[n] = '\0';
	return out;
}

void frames_free(struct cgw_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].text);
		free(f[i].name);
	}
	free(f);
}

/* Console splats bracket stacks with context markers since 5.16: <TASK>, </TASK>, <IRQ>... */
static bool is_context_marker(const char *p, size_t n)
{
	static const char *const m[] = { "<TASK>", "</TASK>", "<IRQ>", "</IRQ>", "<NMI>",
	                                 "</NMI>", "<SOFTIRQ>", "</SOFTIRQ>" };
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (strlen(m[i]) == n && memcmp(p, m[i], n) == 0)
			return true;
	return false;
}

static size_t span_hex(const char *p, const char *e)
{
	const char *q = p;
	while (q < e && isxdigit((unsigned char)*q))
		q++;
	return (size_t)(q - p);
}

/* sym[.clone][+0xOFF/0xLEN][ [module]] and nothing else: "cat:", "Call Trace:" and
 * "kernel: ..." are not frames. */
static bool is_frame(const char *p, size_t n)
{
	const char *e = p + n, *q = p;
	if (q == e || !(isalpha((unsigned char)*q) || *q == '_'))
		return false;
	while (q < e && (isalnum((unsigned char)*q) || *q == '_' || *q == '.'))
		q++;
	if (q < e && *q == '+') {
		size_t h;
		if (e - q < 3 || q[1] != '0' || q[2] != 'x' || !(h = span_hex(q + 3, e)))
			return false;
		q += 3 + h;
		if (e - q < 3 || q[0] != '/' || q[1] != '0' || q[2] != 'x' || !(h = span_hex(q + 3, e)))
			return false;
		q += 3 + h;
	}
	while (q < e && *q == ' ')
		q++;
	if (q < e && *q == '[') {
		while (q < e && *q != ']')
			q++;
		if (q == e)
			return false;
		q++;
	}
	while (q < e && *q == ' ')
		q++;
	return q == e;
}

/* [<0>] __flush_work+0x7d/0xd0
 * [<0>] fuse_get_req+0x1b2/0x2f0 [fuse]
 * Console splats ("  __flush_work+0x7d/0xd0", "? foo+0x1/0x2") are accepted too, without
 * the "? " frames, which are stale words the unwinder found on the stack. */
int parse_stack_buf(const char *buf, struct cgw_frame **out)
{
	struct cgw_frame *f = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l;
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		const char *e = l + len;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && *p == '[') {          /* "[<0>] " or "[<ffffffff81234567>] " */
			const char *rb = memchr(p, ']', (size_t)(e - p));
			if (!rb)
				goto bad;
			p = rb + 1;
			while (p < e && *p == ' ')
				p++;
		}
		if (p == e)
			continue;
		if (*p == '?')
			continue;
		size_t tl = (size_t)(e - p);
		while (tl && (p[tl - 1] == ' ' || p[tl - 1] == '\r'))
			tl--;
		if (is_context_marker(p, tl))
			continue;
		if (!is_frame(p, tl))
			goto bad;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			f = xrealloc(f, cap * sizeof(*f));
		}
		f[n].text = xstrndup(p, tl);
		char name[128];
		f[n].name = xstrdup(frame_name(f[n].text, name, sizeof(name)));
		n++;
	}
	*out = f;
	return (int)n;
bad:
	frames_free(f, n);
	return -EINVAL;
}

const char *cmdline_get(const char *cmdline, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);
	const char *found = NULL;
	size_t flen = 0;
	const char *p = cmdline;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		const char *w = p;
		bool quoted = false;
		while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n'))) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		size_t wl = (size_t)(p - w);
		if (wl == 2 && w[0] == '-' && w[1] == '-')
			break;                    /* the rest belongs to init */
		if (wl >= klen && strncmp(w, key, klen) == 0) {
			if (wl == klen) {
				found = w + wl;
				flen = 0;
			} else if (w[klen] == '=') {
				found = w + klen + 1;
				flen = wl - klen - 1;
			}
		}
	}
	if (!found)
		return NULL;
	if (flen >= 2 && found[0] == '"' && found[flen - 1] == '"') {
		found++;
		flen -= 2;
	}
	if (flen >= cap)
		flen = cap - 1;
	memcpy(out, found, flen);
	out[flen] = '\0';
	return out;
}

/* isolcpus=[flag-list,]<cpu-list>, flags: nohz, domain, managed_irq. Since the CPU list
 * itself has commas, a token that starts with a digit begins the list. */
int parse_isolcpus(const char *val, unsigned *flags, struct cgw_cpus *cpus)
{
	*flags = 0;
	const char *p = val;
	while (*p && !isdigit((unsigned char)*p)) {
		size_t n = strcspn(p, ",");
		if (n == 4 && strncmp(p, "nohz", 4) == 0)
			*flags |= ISOL_NOHZ;
		else if (n == 6 && strncmp(p, "domain", 6) == 0)
			*flags |= ISOL_DOMAIN;
		else if (n == 11 && strncmp(p, "managed_irq", 11) == 0)
			*flags |= ISOL_MANAGED_IRQ;
		else
			return -EINVAL;
		p += n;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	if (!(*flags & (ISOL_NOHZ | ISOL_MANAGED_IRQ)))
		*flags |= ISOL_DOMAIN;
	return cpulist_parse(p, cpus);
}

/* 9:name=systemd:/
 * 6:freezer:/cgwatch-test
 * 0::/init.scope */
int parse_cgroup_buf(const char *buf, const char *controller, char *v1, size_t v1cap,
                     char *v2, size_t v2cap)
{
	bool found = false;
	int seen_v1 = 0, seen_v2 = 0;
	if (v1 && v1cap)
		v1[0] = '\0';
	if (v2 && v2cap)
		v2[0] = '\0';
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *c1 = strchr(l, ':');
		const char *nl = strchr(l, '\n');
		const char *e = nl ? nl : l + strlen(l);
		if (!c1 || c1 > e)
			continue;
		const char *c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
		if (!c2)
			continue;
		const char *path = c2 + 1;
		size_t plen = (size_t)(e - path);
		size_t clen = (size_t)(c2 - c1 - 1);
		char *dst = NULL;
		size_t cap = 0;
		if (clen == 0 && strncmp(l, "0:", 2) == 0) {
			dst = v2;
			cap = v2cap;
		} else if (controller && clen > 0) {
			/* "cpu,cpuacct" lists several controllers */
			size_t k = strlen(controller);
			for (const char *q = c1 + 1; q < c2;) {
				size_t n = strcspn(q, ",:");
				if (n == k && strncmp(q, controller, k) == 0) {
					dst = v1;
					cap = v1cap;
					break;
				}
				q += n + 1;
			}
		}
		if (dst && cap) {
			/* a hierarchy appears once: a second line would be a cgroup name holding a
			 * newline ("a\n0::/frozen") forging a path. This kernel refuses such names
			 * (mkdir: EINVAL, checked here); a replayed tree or an old kernel may not. */
			if (dst == v1 ? seen_v1++ : seen_v2++) {
				if (v1 && v1cap)
					v1[0] = '\0';
				if (v2 && v2cap)
					v2[0] = '\0';
				return -EINVAL;
			}
			if (plen >= cap)
				plen = cap - 1;
			memcpy(dst, path, plen);
			dst[plen] = '\0';
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

/* 36 25 0:31 / /sys/fs/cgroup/freezer rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,freezer
 * 40 25 0:35 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw
 * Mount points escape space, tab, newline and backslash as \ooo. */
int mountinfo_next(const char **pos, struct mountinfo_ent *out)
{
	while (*pos && **pos) {
		const char *l = *pos, *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		*pos = nl ? nl + 1 : l + len;
		char line[2048];
		if (len >= sizeof(line))
			continue;                 /* not a line the kernel writes for a cgroup mount */
		memcpy(line, l, len);
		line[len] = '\0';
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		char *save, *f[5] = { 0 };
		int i = 0;
		for (char *t = strtok_r(line, " ", &save); t && i < 5; t = strtok_r(NULL, " ", &save))
			f[i++] = t;
		char *fstype = strtok_r(sep + 3, " ", &save);
		strtok_r(NULL, " ", &save);              /* source */
		char *sopts = strtok_r(NULL, " ", &save);
		if (i < 5 || !fstype)
			continue;
		size_t o = 0;
		for (const char *p = f[4]; *p && o + 1 < sizeof(out->mnt); p++) {
			if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
			    p[3] >= '0' && p[3] <= '7') {
				out->mnt[o++] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
				p += 3;
			} else {
				out->mnt[o++] = *p;
			}
		}
		out->mnt[o] = '\0';
		snprintf(out->dev, sizeof(out->dev), "%s", f[2]);
		snprintf(out->fstype, sizeof(out->fstype), "%s", fstype);
		snprintf(out->sopts, sizeof(out->sopts), "%s", sopts ? sopts : "");
		return 1;
	}
	return 0;
}

/* Is opt (e.g. "freezer" or "name=x") one of the comma-separated options? */
static bool has_option(const char *opts, const char *opt)
{
	size_t k = strlen(opt);
	for (const char *q = opts; *q;) {
		size_t n = strcspn(q, ",");
		if (n == k && strncmp(q, opt, k) == 0)
			return true;
		q += n + (q[n] == ',');
	}
	return false;
}

int parse_mountinfo_cgroup(const char *buf, const char *controller, char *out, size_t cap)
{
	struct mountinfo_ent e;
	for (const char *p = buf; mountinfo_next(&p, &e) > 0;) {
		bool match = controller ? strcmp(e.fstype, "cgroup") == 0 && has_option(e.sopts, controller)
		                        : strcmp(e.fstype, "cgroup2") == 0;
		if (match) {
			snprintf(out, cap, "%s", e.mnt);
			return 0;
		}
	}
	return -ENOENT;
}

/* "/system.slice/sshd.service" -> "sshd.service"; "/user.slice/user-0.slice/session-3.scope"
 * -> "session-3.scope"; "/system.slice" -> "system.slice"; "/" -> "". Follows systemd: the
 * first component that is a unit other than a slice, else the innermost slice. */
char *cgroup_unit(const char *path, char *out, size_t cap)
{
	static const char *const kinds[] = { ".service", ".scope", ".socket", ".mount",
	                                     ".swap", ".device", ".target", ".timer" };
	const char *slice = NULL, *p = path;
	size_t slice_len = 0;
	out[0] = '\0';
	while (*p) {
		p += strspn(p, "/");
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			size_t kl = strlen(kinds[k]);
			if (n > kl && memcmp(p + n - kl, kinds[k], kl) == 0) {
				snprintf(out, cap, "%.*s", (int)n, p);
				return out;
			}
		}
		if (n > 6 && memcmp(p + n - 6, ".slice", 6) == 0) {
			slice = p;
			slice_len = n;
		}
		p += n;
	}
	if (slice)
		snprintf(out, cap, "%.*s", (int)slice_len, slice);
	return out;
}

/* Kworker names (/proc/TID/comm; kernel/workqueue.c wq_worker_comm):
 *   kworker/18:1-mm_percpu_wq      per-CPU pool on CPU 18, idle after mm_percpu_wq work
 *   kworker/0:0H-events_highpri    per-CPU high-priority pool
 *   kworker/u768:1+cpuset_migrate_mm  unbound pool 768, running cpuset_migrate_mm work now
 *   kworker/R-mm_percpu_wq         the rescuer of mm_percpu_wq */
int parse_kworker(const char *comm, size_t len, struct cgw_kworker *out)
{
	memset(out, 0, sizeof(*out));
	out->cpu = out->pool = -1;
	if (len < 9 || strncmp(comm, "kworker/", 8) != 0)
		return -EINVAL;
	const char *p = comm + 8, *e = comm + len;
	if (e - p >= 2 && p[0] == 'R' && p[1] == '-') {
		out->rescuer = true;
		p += 1;
	} else {
		if (*p == 'u') {
			out->unbound = true;
			p++;
		}
		long v = 0;
		const char *d = p;
		while (p < e && isdigit((unsigned char)*p) && v < 1000000)
			v = v * 10 + (*p++ - '0');
		if (p == d || p >= e || *p != ':')
			return -EINVAL;
		out->pool = (int)v;
		if (!out->unbound)
			out->cpu = (int)v;
		p++;
		d = p;
		while (p < e && isdigit((unsigned char)*p))
			p++;
		if (p == d)
			return -EINVAL;
		if (p < e && *p == 'H') {
			out->highpri = true;
			p++;
		}
	}
	if (p < e) {
		if (*p != '+' && *p != '-')
			return -EINVAL;
		out->running = *p == '+';
		size_t n = (size_t)(e - p - 1);
		if (n == 0 || n >= sizeof(out->wq))
			return -EINVAL;
		memcpy(out->wq, p + 1, n);
		out->wq[n] = '\0';
	} else if (out->rescuer) {
		return -EINVAL;
	}
	return 0;
}
