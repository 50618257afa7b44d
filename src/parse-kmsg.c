/* parse-kmsg.c: pure parsers of /dev/kmsg records and of the kernel's report lines. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "kmsg-int.h"

/* ---- one record ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *out)
{
	const char *p = buf, *e = memchr(buf, '\n', len);
	if (!e)
		e = buf + len;
	memset(out, 0, offsetof(struct kmsg_record, msg));
	out->msg[0] = '\0';
	out->msg_len = 0;
	uint64_t v[3];
	for (int i = 0; i < 3; i++) {
		const char *q = p;
		uint64_t x = 0;
		while (q < e && isdigit((unsigned char)*q)) {
			if (x > (UINT64_MAX - 9) / 10)
				return -EINVAL;
			x = x * 10 + (uint64_t)(*q - '0');
			q++;
		}
		if (q == p || q == e || *q != ',')
			return -EINVAL;
		v[i] = x;
		p = q + 1;
	}
	if (v[0] > 1023)                       /* facility is 7 bits at most in syslog terms */
		return -EINVAL;
	/* a sequence number a double holds exactly, a timestamp within a century of boot */
	if (v[1] > CGW_MAX_COUNT || v[2] > (uint64_t)(CGW_MAX_SECONDS * 1e6))
		return -EINVAL;
	out->facility = (unsigned)(v[0] >> 3);
	out->level = (unsigned)(v[0] & 7);
	out->seq = v[1];
	out->ts_usec = v[2];
	const char *semi = memchr(p, ';', (size_t)(e - p));
	if (!semi)
		return -EINVAL;
	out->flags = p < semi && *p != ',' ? *p : '-';
	/* further fields: ",caller=T28" (CONFIG_PRINTK_CALLER), others ignored */
	for (const char *f = memchr(p, ',', (size_t)(semi - p)); f && f < semi;
	     f = memchr(f + 1, ',', (size_t)(semi - f - 1))) {
		if ((size_t)(semi - f) > 8 && strncmp(f + 1, "caller=", 7) == 0) {
			const char *c = f + 8, *ce = memchr(c, ',', (size_t)(semi - c));
			copy_text(out->caller, sizeof(out->caller), c, (size_t)((ce ? ce : semi) - c));
		}
	}
	/* the message: \xNN undone (the kernel writes \x5c for a backslash, so this is exact) */
	size_t n = 0;
	for (const char *q = semi + 1; q < e && n < sizeof(out->msg) - 1; q++) {
		int h, l;
		if (*q == '\\' && e - q >= 4 && q[1] == 'x' && (h = hexval(q[2])) >= 0 &&
		    (l = hexval(q[3])) >= 0 && (h | l) != 0) {
			out->msg[n++] = (char)(h * 16 + l);
			q += 3;
		} else {
			out->msg[n++] = *q;
		}
	}
	out->msg[n] = '\0';
	out->msg_len = n;
	/* "[    C0] " / "[  T28] ": a caller id a console capture carries in the text */
	if (out->msg[0] == '[') {
		const char *q = skip_ws(out->msg + 1);
		if ((*q == 'C' || *q == 'T') && isdigit((unsigned char)q[1])) {
			const char *id = q++;
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ']') {
				if (!out->caller[0])
					copy_text(out->caller, sizeof(out->caller), id, (size_t)(q - id));
				q++;
				if (*q == ' ')
					q++;
				size_t skip = (size_t)(q - out->msg);
				memmove(out->msg, q, n - skip + 1);
				out->msg_len = n - skip;
			}
		}
	}
	return 0;
}

/* ---- lines ---- */

/* A count at p as an int: -1 when there is none (no digit), -2 when it is past INT_MAX. */
static int int_num(const char *p)
{
	long v = read_num(p, NULL);
	if (v > INT_MAX || (v < 0 && isdigit((unsigned char)*p)))
		return -2;
	return v < 0 ? -1 : (int)v;
}

/* "comm:pid" in [a, e): the pid after the LAST ':'. */
static int parse_comm_pid(const char *a, const char *e, struct kmsg_task *t)
{
	const char *c = e;
	while (c > a && c[-1] != ':')
		c--;
	if (c == a || c == e)
		return -EINVAL;
	const char *end;
	long pid = read_num(c, &end);
	if (pid < 0 || pid > INT_MAX || end != e)
		return -EINVAL;
	size_t n = (size_t)(c - 1 - a);
	if (n >= sizeof(t->comm))
		return -EINVAL;
	memcpy(t->comm, a, n);
	t->comm[n] = '\0';
	t->pid = (int)pid;
	return 0;
}

static const char hung_prefix[] = "INFO: task ";
static const char hung_mid[] = " blocked for more than ";

int kmsg_parse_hung(const char *msg, struct kmsg_task *t, long *blocked_s)
{
	if (!starts(msg, hung_prefix))
		return -EINVAL;
	const char *a = msg + strlen(hung_prefix), *m = NULL;
	for (const char *q = a; (q = strstr(q, hung_mid)) != NULL; q++)
		m = q;
	if (!m)
		return -EINVAL;
	const char *end;
	long s = read_num(m + strlen(hung_mid), &end);
	if (s < 0 || s > (long)CGW_MAX_SECONDS ||
	    (strcmp(end, " seconds.") != 0 && strcmp(end, " seconds") != 0))
		return -EINVAL;
	if (parse_comm_pid(a, m, t) < 0)
		return -EINVAL;
	*blocked_s = s;
	return 0;
}

/* " <reader>" / " <writer>" ending [a, *e): moved to as, *e moved before it. */
static bool strip_rw_as(const char *a, const char **e, char *as, size_t cap)
{
	static const char *const kinds[] = { " <reader>", " <writer>" };
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(kinds[i]);
		if ((size_t)(*e - a) > n && memcmp(*e - n, kinds[i], n) == 0) {
			copy_text(as, cap, kinds[i] + 2, n - 3);
			*e -= n;
			return true;
		}
	}
	return false;
}

static const struct blocker_form {
	const char *mid;
	enum kmsg_lock lock;
	bool found;                        /* an owner follows the mid; else mid ends the line */
} blocker_forms[] = {
	{ " is blocked on a mutex likely owned by task ", KMSG_LOCK_MUTEX, true },
	{ " blocked on a semaphore likely last held by task ", KMSG_LOCK_SEM, true },
	{ " blocked on an rw-semaphore likely owned by task ", KMSG_LOCK_RWSEM, true },
	{ " is blocked on a mutex, but the owner is not found.", KMSG_LOCK_MUTEX, false },
	{ " is blocked on a semaphore, but the last holder is not found.", KMSG_LOCK_SEM, false },
	{ " is blocked on an rw-semaphore, but the owner is not found.", KMSG_LOCK_RWSEM, false },
};

static int parse_blocker_form(const char *a, const struct blocker_form *f, const char *m,
                              struct kmsg_blocker *b)
{
	memset(b, 0, sizeof(*b));
	b->lock = f->lock;
	b->owner_found = f->found;
	const char *te = m;
	if (f->lock == KMSG_LOCK_RWSEM && f->found &&
	    !strip_rw_as(a, &te, b->task_as, sizeof(b->task_as)))
		return -EINVAL;
	if (parse_comm_pid(a, te, &b->task) < 0)
		return -EINVAL;
	const char *o = m + strlen(f->mid);
	if (!f->found)
		return *o == '\0' ? 0 : -EINVAL;
	const char *oe = o + strlen(o);
	if (f->lock == KMSG_LOCK_RWSEM) {
		if (!strip_rw_as(o, &oe, b->owner_as, sizeof(b->owner_as)))
			return -EINVAL;
	} else if (oe > o && oe[-1] == '.') {
		oe--;
	}
	return parse_comm_pid(o, oe, &b->owner);
}

int kmsg_parse_blocker(const char *msg, struct kmsg_blocker *b)
{
	if (!starts(msg, hung_prefix))
		return -EINVAL;
	const char *a = msg + strlen(hung_prefix);
	for (size_t i = 0; i < sizeof(blocker_forms) / sizeof(blocker_forms[0]); i++)
		for (const char *m = a; (m = strstr(m, blocker_forms[i].mid)) != NULL; m++)
			if (parse_blocker_form(a, &blocker_forms[i], m, b) == 0)
				return 0;
	memset(b, 0, sizeof(*b));
	return -EINVAL;
}

/* "key:" followed by spaces and a decimal, searched from p; -1 when absent. */
static long field_num(const char *p, const char *key)
{
	const char *q = strstr(p, key);
	if (!q)
		return -1;
	return read_num(skip_ws(q + strlen(key)), NULL);
}

int kmsg_parse_task_header(const char *msg, bool legacy, struct kmsg_header *h)
{
	memset(h, 0, sizeof(*h));
	h->tgid = h->ppid = -1;
	const char *st, *rest;
	size_t cn;
	if (starts(msg, "task:")) {
		const char *a = msg + 5;
		/* task:%-15.15s state:%c: the comm is 15 bytes wide, padded */
		if (strlen(a) >= 23 && strncmp(a + 15, " state:", 7) == 0)
			st = a + 15;
		else if ((st = strstr(a, " state:")) == NULL)
			return -EINVAL;
		cn = (size_t)(st - a);
		while (cn && a[cn - 1] == ' ')
			cn--;
		copy_text(h->comm, sizeof(h->comm), a, cn);
		h->state = st[7];
		if (!isalpha((unsigned char)h->state))
			return -EINVAL;
		rest = st + 8;
		h->running = starts(skip_ws(rest), "running task");
		long pid = field_num(rest, " pid:");
		if (pid < 0 || pid > INT_MAX)
			return -EINVAL;
		h->pid = (int)pid;
		long tgid = field_num(rest, " tgid:"), ppid = field_num(rest, " ppid:");
		h->tgid = tgid >= 0 && tgid <= INT_MAX ? (int)tgid : -1;
		h->ppid = ppid >= 0 && ppid <= INT_MAX ? (int)ppid : -1;
		return 0;
	}
	/* before 5.8: "%-15.15s %c" then ["  running task    "] "%5lu %5d %6d 0x%08lx" */
	if (!legacy || strlen(msg) < 20 || msg[15] != ' ' || !isalpha((unsigned char)msg[16]) ||
	    msg[17] != ' ')
		return -EINVAL;
	cn = 15;
	while (cn && msg[cn - 1] == ' ')
		cn--;
	copy_text(h->comm, sizeof(h->comm), msg, cn);
	h->state = msg[16];
	rest = skip_ws(msg + 17);
	if (starts(rest, "running task")) {
		h->running = true;
		rest = skip_ws(rest + 12);
	}
	long n[3];
	for (int i = 0; i < 3; i++) {
		if ((n[i] = read_num(rest, &rest)) < 0)
			return -EINVAL;
		rest = skip_ws(rest);
	}
	if (!starts(rest, "0x") || n[1] > INT_MAX || n[2] > INT_MAX)
		return -EINVAL;
	h->pid = (int)n[1];
	h->ppid = (int)n[2];
	return 0;
}

/* pr_cont_pool_info(): " cpus=%*pbl[ node=%d] flags=0x%x (nice=%d|bh|bh-hi)". Moves *pp. */
static int parse_poolinfo(const char **pp, struct kmsg_poolinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->node = -1;
	const char *p = skip_ws(*pp);
	if (!starts(p, "cpus="))
		return -EINVAL;
	p += 5;
	size_t n = strcspn(p, " ");
	if (strspn(p, "0123456789,-") < n)      /* %*pbl: a CPU list, nothing else */
		return -EINVAL;
	copy_text(pi->cpus, sizeof(pi->cpus), p, n);
	p += n;
	for (;;) {
		const char *q = skip_ws(p), *end;
		long v;
		if (starts(q, "node=") && (v = read_num(q + 5, &end)) >= 0) {
			if (v > 1023)                  /* MAX_NUMNODES is 1024 at most */
				return -EINVAL;
			pi->node = (int)v;
		} else if (starts(q, "node=-1")) {
			end = q + 7;
		} else if (starts(q, "flags=0x")) {
			/* "%x": up to 8 hex digits */
			const char *h = q + 8;
			unsigned long f = 0;
			size_t nd = 0;
			while (isxdigit((unsigned char)h[nd]) && nd < 9)
				f = f * 16 + (unsigned long)hexval(h[nd++]);
			if (nd == 0 || nd > 8)
				return -EINVAL;
			pi->flags = (unsigned)f;
			end = h + nd;
		} else if (starts(q, "nice=")) {
			/* "%d": a nice value, -20..19 */
			bool neg = q[5] == '-';
			v = read_num(q + 5 + neg, &end);
			if (v < 0 || v > (neg ? 20 : 19))
				return -EINVAL;
			pi->nice = neg ? -(int)v : (int)v;
		} else if (starts(q, "bh-hi") || starts(q, "bh ") || strcmp(q, "bh") == 0) {
			pi->bh = true;
			end = q + (q[2] == '-' ? 5 : 2);
		} else {
			break;
		}
		p = end;
	}
	*pp = p;
	return 0;
}

int kmsg_parse_wq_lockup(const char *msg, struct kmsg_poolinfo *pi, unsigned *stuck_s)
{
	static const char pfx[] = "BUG: workqueue lockup - pool";
	if (!starts(msg, pfx))
		return -EINVAL;
	const char *p = msg + strlen(pfx), *end;
	if (parse_poolinfo(&p, pi) < 0 || !starts(p, " stuck for "))
		return -EINVAL;
	long s = read_num(p + 11, &end);
	if (s < 0 || s > UINT_MAX || strcmp(end, "s!") != 0)
		return -EINVAL;
	*stuck_s = (unsigned)s;
	return 0;
}

int kmsg_parse_pwq(const char *msg, struct kmsg_pwq *pw)
{
	const char *p = skip_ws(msg), *end;
	if (!starts(p, "pwq "))
		return -EINVAL;
	long id = read_num(p + 4, &end);
	if (id < 0 || id > INT_MAX || *end != ':')
		return -EINVAL;
	char wq[KMSG_COMM];
	memcpy(wq, pw->wq, sizeof(wq));
	uint64_t seq = pw->seq;
	memset(pw, 0, sizeof(*pw));
	memcpy(pw->wq, wq, sizeof(wq));
	pw->seq = seq;
	pw->pool = (int)id;
	pw->active = pw->refcnt = -1;
	p = end + 1;
	if (parse_poolinfo(&p, &pw->info) < 0)
		return -EINVAL;
	const char *a = strstr(p, " active=");
	if (a && (pw->active = int_num(a + 8)) < -1)
		return -EINVAL;
	const char *r = strstr(p, " refcnt=");
	if (r && (pw->refcnt = int_num(r + 8)) < -1)
		return -EINVAL;
	return 0;
}

static void add_pid(int *v, size_t *n, long pid)
{
	if (pid < 0 || pid > INT_MAX || *n >= KMSG_MAX_PIDS)
		return;
	for (size_t i = 0; i < *n; i++)
		if (v[i] == pid)
			return;
	v[(*n)++] = (int)pid;
}

int kmsg_parse_works(const char *msg, struct kmsg_pwq *pw)
{
	static const struct { const char *tag; size_t off; } kinds[] = {
		{ "in-flight:", offsetof(struct kmsg_pwq, in_flight) },
		{ "pending:", offsetof(struct kmsg_pwq, pending) },
		{ "inactive:", offsetof(struct kmsg_pwq, inactive) },
		{ "delayed:", offsetof(struct kmsg_pwq, inactive) },     /* before 5.19 */
	};
	const char *p = skip_ws(msg);
	size_t k;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (starts(p, kinds[k].tag))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return -EINVAL;
	bool inflight = k == 0;
	p = skip_ws(p + strlen(kinds[k].tag));
	char *dst = (char *)pw + kinds[k].off;
	size_t used = strlen(dst);
	if (used && used < KMSG_TEXT - 3) {     /* a second line of the same kind */
		memcpy(dst + used, ", ", 3);
		used += 2;
	}
	copy_text(dst + used, KMSG_TEXT - used, p, strlen(p));
	/* items: "1765:cpuset_migrate_mm_workfn", "123(RESCUER):fn", "BAR(8)", "3*fn", "for 56s" */
	while (*p) {
		p += strspn(p, " ,");
		size_t n = strcspn(p, " ,");
		if (!n)
			break;
		const char *end;
		if (n > 5 && starts(p, "BAR(")) {
			long pid = read_num(p + 4, &end);
			if (pid >= 0 && *end == ')')
				add_pid(pw->bars, &pw->nbars, pid);
		} else if (inflight && isdigit((unsigned char)*p)) {
			long pid = read_num(p, &end);
			if (pid >= 0 && (*end == ':' || *end == '('))
				add_pid(pw->workers, &pw->nworkers, pid);
		}
		p += n;
	}
	return 0;
}

int kmsg_parse_pool(const char *msg, struct kmsg_pool *pl)
{
	const char *p = msg, *end;
	if (!starts(p, "pool "))
		return -EINVAL;
	long id = read_num(p + 5, &end);
	if (id < 0 || id > INT_MAX || *end != ':')
		return -EINVAL;
	uint64_t seq = pl->seq;
	memset(pl, 0, sizeof(*pl));
	pl->seq = seq;
	pl->id = (int)id;
	pl->workers = -1;
	p = end + 1;
	if (parse_poolinfo(&p, &pl->info) < 0)
		return -EINVAL;
	p = skip_ws(p);
	if (!starts(p, "hung="))
		return -EINVAL;
	long h = read_num(p + 5, &end);
	if (h < 0 || h > (long)CGW_MAX_SECONDS || *end != 's')
		return -EINVAL;
	pl->hung_s = (unsigned long)h;
	const char *w = strstr(end, " workers=");
	if (w && (pl->workers = int_num(w + 9)) < -1)
		return -EINVAL;
	return 0;
}

int kmsg_parse_soft_lockup(const char *msg, int *cpu, unsigned *stuck_s, struct kmsg_task *t)
{
	static const char pfx[] = "BUG: soft lockup - CPU#";
	const char *p = msg, *end;
	if (starts(p, "watchdog: "))
		p += 10;
	else if (starts(p, "NMI watchdog: "))
		p += 14;
	if (!starts(p, pfx))
		return -EINVAL;
	long c = read_num(p + strlen(pfx), &end);
	if (c < 0 || c > INT_MAX || !starts(end, " stuck for "))
		return -EINVAL;
	long s = read_num(end + 11, &end);
	if (s < 0 || s > UINT_MAX || !starts(end, "s!"))
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->pid = -1;
	end += 2;
	if (starts(end, " [")) {
		/* "[comm:pid]", the comm anchored on the last ":<pid>]" (text may follow) */
		const char *a = end + 2, *b;
		bool ok = false;
		for (b = a + strlen(a); !ok && b > a; b--)
			ok = b[-1] == ']' && parse_comm_pid(a, b - 1, t) == 0;
		if (!ok)
			return -EINVAL;
	} else if (*end) {
		return -EINVAL;
	}
	*cpu = (int)c;
	*stuck_s = (unsigned)s;
	return 0;
}

int kmsg_parse_rcu(const char *msg, enum kmsg_rcu_kind *kind, char *flavor, size_t cap,
                   long *jiffies)
{
	const char *p = msg;
	if (starts(p, "rcu: "))
		p += 5;
	*jiffies = -1;
	bool info = starts(p, "INFO: ");
	if (info)
		p += 6;
	size_t fn = strcspn(p, " ");
	if (fn == 0 || fn >= 32 || !p[fn] || strncmp(p, "rcu", 3) != 0 ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_") != fn)   /* rcu_preempt, rcu_sched */
		return -EINVAL;
	const char *r = p + fn + 1, *end;
	if (info && (starts(r, "detected stalls on CPUs/tasks:") ||
	             starts(r, "detected stalls on tasks:")))
		*kind = KMSG_RCU_STALL;
	else if (info && starts(r, "self-detected stall on CPU"))
		*kind = KMSG_RCU_SELF;
	else if (info && starts(r, "detected expedited stalls on CPUs/tasks:"))
		*kind = KMSG_RCU_EXPEDITED;
	else if (!info && starts(r, "kthread starved for ") &&
	         (*jiffies = read_num(r + 20, &end)) >= 0 && starts(end, " jiffies!"))
		*kind = KMSG_RCU_STARVED;
	else
		return -EINVAL;
	copy_text(flavor, cap, p, fn);
	return 0;
}
