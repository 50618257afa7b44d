/* parse-kmsg-assemble.c: what the kernel said, assembled. /dev/kmsg records (or a capture of them)
 * are parsed one by one (parse-kmsg.c); records of facility 0 (kernel) go through a small
 * state machine that assembles the multi-line reports of kernel/hung_task.c,
 * kernel/workqueue.c's lockup watchdog, the soft lockup watchdog and RCU's stall warnings;
 * kmsg_link() then adds what they say about the scanned tasks to the findings.
 *
 * Records of any other facility are counted and dropped before anything looks at their
 * text: user space can write any line to /dev/kmsg, but never with facility 0. */
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

/* ---- the assembler ---- */

void kmsg_init(struct cgw_kmsg *k)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->proc, sizeof(k->proc), "/proc");
	k->fd = -1;
	k->detect_count = -1;
	k->warnings = -2;
}

static void hung_clear(struct kmsg_hung *h)
{
	frames_free(h->frames, h->nframes);
	frames_free(h->owner_frames, h->nowner_frames);
}

static void wq_clear(struct kmsg_wq_dump *d)
{
	free(d->stuck);
	free(d->pwq);
	free(d->pools);
}

void kmsg_free(struct cgw_kmsg *k)
{
	for (size_t i = 0; i < k->nhung; i++)
		hung_clear(&k->hung[i]);
	for (size_t i = 0; i < k->nwq; i++)
		wq_clear(&k->wq[i]);
	for (size_t i = 0; i < k->nrcu; i++)
		free(k->rcu[i].cpus);
	free(k->hung);
	free(k->wq);
	free(k->soft);
	free(k->rcu);
	sb_free(&k->partial);
	if (k->fd >= 0)
		close(k->fd);
	char proc[sizeof(k->proc)];
	memcpy(proc, k->proc, sizeof(proc));
	kmsg_init(k);
	memcpy(k->proc, proc, sizeof(proc));
}

/* A new slot at the end of a ring of cap entries (the oldest is dropped, cleared first);
 * NULL when there is no memory for the ring (the report is then counted, not kept). */
static void *ring_push(void **v, size_t *n, size_t cap, size_t size, void (*clear)(void *))
{
	if (!*v && !(*v = try_calloc(cap, size)))
		return NULL;
	char *base = *v;
	if (*n == cap) {
		if (clear)
			clear(base);
		memmove(base, base + size, (cap - 1) * size);
		(*n)--;
	}
	char *slot = base + *n * size;
	memset(slot, 0, size);
	(*n)++;
	return slot;
}

static void hung_clear_v(void *p) { hung_clear(p); }
static void wq_clear_v(void *p) { wq_clear(p); }
static void rcu_clear_v(void *p) { free(((struct kmsg_rcu *)p)->cpus); }

static struct kmsg_hung *new_hung(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	struct kmsg_hung *h = ring_push((void **)&k->hung, &k->nhung, KMSG_MAX_HUNG, sizeof(*h),
	                                hung_clear_v);
	if (!h)
		return NULL;
	h->seq = r->seq;
	h->ts_s = (double)r->ts_usec / 1e6;
	h->blocked_s = -1;
	h->tgid = -1;
	return h;
}

static struct kmsg_hung *cur_hung(struct cgw_kmsg *k)
{
	return k->nhung ? &k->hung[k->nhung - 1] : NULL;
}

static struct kmsg_wq_dump *cur_wq(struct cgw_kmsg *k)
{
	return k->nwq ? &k->wq[k->nwq - 1] : NULL;
}

/* A frame line of a Call Trace (" __flush_work+0x7d/0xd0", " ? foo+0x1/0x2", " <TASK>"). */
static void add_frame(struct cgw_frame **f, size_t *n, const char *line)
{
	char buf[KMSG_TEXT];
	copy_text(buf, sizeof(buf), line, strlen(line));
	size_t l = strlen(buf);
	/* arm64 marks frames " (T)", " (P)", " (L)" since 6.14 */
	if (l > 4 && buf[l - 1] == ')' && buf[l - 3] == '(' && buf[l - 4] == ' ')
		buf[l - 4] = '\0';
	if (*n >= KMSG_MAX_FRAMES)
		return;
	struct cgw_frame *one;
	int c = parse_stack_buf(buf, &one);
	if (c <= 0)
		return;
	struct cgw_frame *nf = try_reallocarray(*f, *n + 1, sizeof(**f));
	if (nf) {
		*f = nf;
		(*f)[(*n)++] = one[0];
	} else {                          /* no memory: the frame is not kept */
		free(one[0].text);
		free(one[0].name);
	}
	for (int i = 1; i < c; i++) {
		free(one[i].text);
		free(one[i].name);
	}
	free(one);
}

static bool is_call_trace(const char *m)
{
	return strcmp(m, "Call Trace:") == 0 || strcmp(m, "Call trace:") == 0;
}

/* "Workqueue: events toggle_allocation_gate" (+ " (desc)" when it differs) */
static void parse_workqueue_line(const char *m, struct kmsg_hung *h)
{
	const char *p = m + 11;
	size_t n = strcspn(p, " ");
	copy_text(h->workqueue, sizeof(h->workqueue), p, n);
	p = skip_ws(p + n);
	copy_text(h->work_fn, sizeof(h->work_fn), p, strcspn(p, " "));
}

static void attach_blocker(struct cgw_kmsg *k, struct kmsg_hung *h, const struct kmsg_blocker *b,
                           const struct kmsg_record *r)
{
	(void)k;
	h->have_blocker = true;
	h->blocker = *b;
	h->blocker_seq = r->seq;
	h->blocker_ts_s = (double)r->ts_usec / 1e6;
}

/* What a line that starts a report parsed to (whatever state we are in). */
enum start_kind { START_NONE, START_HUNG, START_BLOCKER, START_SUPPRESSED, START_WQ, START_SOFT,
                  START_RCU };
struct start {
	struct kmsg_task t;
	struct kmsg_blocker b;
	struct kmsg_poolinfo pi;
	enum kmsg_rcu_kind rk;
	char fl[32];
	long l;
	unsigned u;
	int c;
};

/* Which kind of report line m starts (START_NONE: none), its fields in *p. */
static enum start_kind start_of(const char *m, struct start *p)
{
	if (kmsg_parse_hung(m, &p->t, &p->l) == 0)
		return START_HUNG;
	if (kmsg_parse_blocker(m, &p->b) == 0)
		return START_BLOCKER;
	if (starts(m, "Future hung task reports are suppressed"))
		return START_SUPPRESSED;
	if (kmsg_parse_wq_lockup(m, &p->pi, &p->u) == 0 ||
	    starts(m, "Showing busy workqueues and worker pools:"))
		return START_WQ;
	if (kmsg_parse_soft_lockup(m, &p->c, &p->u, &p->t) == 0)
		return START_SOFT;
	if (kmsg_parse_rcu(m, &p->rk, p->fl, sizeof(p->fl), &p->l) == 0)
		return START_RCU;
	return START_NONE;
}

/* Does this line start a report (whatever state we are in)? */
static bool is_start(const char *m)
{
	struct start p;
	return start_of(m, &p) != START_NONE;
}

/* A line that continues the report being assembled? Returns true when it was taken. */
static bool continue_hung(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	struct kmsg_hung *h = cur_hung(k);
	const char *m = r->msg;
	if (!h)
		return false;
	if (k->state == KS_HUNG_TRACE || k->state == KS_OWNER_TRACE) {
		bool own = k->state == KS_OWNER_TRACE;
		if (m[0] == ' ' || m[0] == '\t') {
			if (strcmp(skip_ws(m), "</TASK>") == 0)
				k->state = own ? KS_OWNER : KS_HUNG;
			else if (own)
				add_frame(&h->owner_frames, &h->nowner_frames, m);
			else
				add_frame(&h->frames, &h->nframes, m);
			return true;
		}
		k->state = own ? KS_OWNER : KS_HUNG;   /* a trace without </TASK> (before 5.16) */
	}
	if (k->state == KS_OWNER) {
		if (starts(m, "Workqueue: "))
			return true;
		if (is_call_trace(m) && !h->nowner_frames) {
			k->state = KS_OWNER_TRACE;
			return true;
		}
		return false;
	}
	/* KS_HUNG */
	const char *t = skip_ws(m);
	if (t != m && (starts(t, "Tainted: ") || starts(t, "Not tainted") ||
	               starts(t, "Blocked by coredump.")))
		return true;
	if (starts(m, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\""))
		return true;
	struct kmsg_header hd;
	if (kmsg_parse_task_header(m, !h->state && !h->nframes, &hd) == 0) {
		if (!h->state && !h->have_blocker && hd.pid == h->task.pid) {
			h->state = hd.state;
			h->tgid = hd.tgid;
			return true;
		}
		if (h->have_blocker && h->blocker.owner_found && !h->owner_state &&
		    hd.pid == h->blocker.owner.pid) {
			h->owner_state = hd.state;
			k->state = KS_OWNER;
			return true;
		}
		return false;
	}
	if (starts(m, "Workqueue: ") && !h->nframes && !h->have_blocker) {
		parse_workqueue_line(m, h);
		h->wq_seq = r->seq;
		return true;
	}
	if (is_call_trace(m) && !h->nframes && !h->have_blocker) {
		k->state = KS_HUNG_TRACE;
		return true;
	}
	struct kmsg_blocker b;
	if (!h->have_blocker && kmsg_parse_blocker(m, &b) == 0 && b.task.pid == h->task.pid &&
	    strcmp(b.task.comm, h->task.comm) == 0) {
		k->blockers_total++;
		attach_blocker(k, h, &b, r);
		return true;
	}
	return false;
}

static bool continue_wq(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	struct kmsg_wq_dump *d = cur_wq(k);
	const char *m = r->msg;
	if (!d)
		return false;
	bool fresh = d->npwq == 0 && d->npools == 0;
	if (k->state == KS_WQ_HOGS) {
		struct kmsg_header hd;
		const char *end;
		if ((starts(m, "pool ") && read_num(m + 5, &end) >= 0 && strcmp(end, ":") == 0) ||
		    kmsg_parse_task_header(m, false, &hd) == 0 || starts(m, "Workqueue: ") ||
		    is_call_trace(m) || m[0] == ' ' || m[0] == '\t')
			return true;
		return false;
	}
	struct kmsg_poolinfo pi;
	unsigned stuck;
	if (kmsg_parse_wq_lockup(m, &pi, &stuck) == 0) {
		if (!fresh)
			return false;
		if (!d->stuck)                /* none: counted, not kept */
			d->stuck = try_calloc(KMSG_MAX_STUCK, sizeof(*d->stuck));
		if (d->stuck && d->nstuck < KMSG_MAX_STUCK) {
			struct kmsg_wq_stuck *s = &d->stuck[d->nstuck++];
			s->info = pi;
			s->stuck_s = stuck;
			s->seq = r->seq;
			s->ts_s = (double)r->ts_usec / 1e6;
			copy_text(s->text, sizeof(s->text), m, r->msg_len);
		}
		d->lockups++;
		k->wq_lockups_total++;
		return true;
	}
	if (starts(m, "Showing busy workqueues and worker pools:"))
		return fresh;
	if (starts(m, "workqueue ")) {
		const char *p = m + 10;
		const char *c = strstr(p, ": flags=0x");
		if (!c)
			return false;
		copy_text(k->cur_wq, sizeof(k->cur_wq), p, (size_t)(c - p));
		return true;
	}
	struct kmsg_pwq pw;
	memset(&pw, 0, sizeof(pw));
	if (kmsg_parse_pwq(m, &pw) == 0) {
		if (!d->pwq)                  /* 80 KiB a dump: none, not kept */
			d->pwq = try_calloc(KMSG_MAX_PWQ, sizeof(*d->pwq));
		if (d->pwq && d->npwq < KMSG_MAX_PWQ) {
			memcpy(pw.wq, k->cur_wq, sizeof(pw.wq));
			pw.seq = r->seq;
			d->pwq[d->npwq++] = pw;
		}
		return true;
	}
	if (d->npwq && kmsg_parse_works(m, &d->pwq[d->npwq - 1]) == 0)
		return true;
	struct kmsg_pool pl;
	memset(&pl, 0, sizeof(pl));
	if (kmsg_parse_pool(m, &pl) == 0) {
		if (!d->pools)                /* none: not kept */
			d->pools = try_calloc(KMSG_MAX_POOLS, sizeof(*d->pools));
		if (d->pools && d->npools < KMSG_MAX_POOLS) {
			pl.seq = r->seq;
			d->pools[d->npools++] = pl;
		}
		return true;
	}
	if (starts(m, "Showing backtraces of running workers in stalled CPU-bound worker pools:")) {
		k->state = KS_WQ_HOGS;
		return true;
	}
	return false;
}

/* "rcu: \t3-....: (5249 ticks this GP) ..." -> 3 */
static int rcu_cpu_line(const char *m)
{
	const char *p = m, *end;
	if (starts(p, "rcu:"))
		p += 4;
	const char *q = skip_ws(p);
	if (q == p)
		return -1;
	long c = read_num(q, &end);
	return c >= 0 && c < CGW_MAX_CPUS && *end == '-' ? (int)c : -1;
}

static bool continue_rcu(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	struct kmsg_rcu *c = k->nrcu ? &k->rcu[k->nrcu - 1] : NULL;
	const char *m = r->msg;
	enum kmsg_rcu_kind kind;
	char fl[32];
	long j;
	if (!c)
		return false;
	if (kmsg_parse_rcu(m, &kind, fl, sizeof(fl), &j) == 0) {
		if (kind != KMSG_RCU_STARVED || c->starved_jiffies >= 0 || strcmp(fl, c->flavor))
			return false;
		c->starved_jiffies = j;
		return true;
	}
	if (is_start(m))
		return false;
	int cpu = rcu_cpu_line(m);
	if (cpu >= 0) {
		if (!c->cpus)
			c->cpus = try_calloc(1, sizeof(*c->cpus));
		if (c->cpus)                  /* else the CPUs are not listed */
			cpus_set(c->cpus, (unsigned)cpu);
		return true;
	}
	const char *p = m;
	if (starts(p, "rcu:"))
		p = skip_ws(p + 4);
	if (starts(p, "(detected by ")) {
		long by = read_num(p + 13, NULL);
		c->detected_by = by >= 0 && by <= INT_MAX ? (int)by : -1;
		return true;
	}
	return ++k->idle_lines < KMSG_STRAY_LINES;
}

static bool continue_soft(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	struct kmsg_soft *s = k->nsoft ? &k->soft[k->nsoft - 1] : NULL;
	const char *m = r->msg;
	if (!s || is_start(m))
		return false;
	if (starts(m, "RIP: ") && !s->rip[0]) {
		const char *p = m + 5, *c = strchr(p, ':');   /* "RIP: 0010:native_safe_halt+0xb/0x10" */
		p = c && c - p <= 4 ? c + 1 : p;
		copy_text(s->rip, sizeof(s->rip), p, strcspn(p, " "));
		return true;
	}
	return ++k->idle_lines < KMSG_STRAY_LINES;
}

/* A line that starts a report (KS_IDLE). */
static void start_line(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	const char *m = r->msg;
	double ts = (double)r->ts_usec / 1e6;
	struct start p;
	enum start_kind kind = start_of(m, &p);
	k->state = KS_IDLE;
	k->idle_lines = 0;
	if (kind == START_HUNG) {
		struct kmsg_hung *h = new_hung(k, r);
		k->hung_total++;
		if (!h)
			return;
		h->task = p.t;
		h->blocked_s = p.l;
		copy_text(h->text, sizeof(h->text), m, r->msg_len);
		k->state = KS_HUNG;
	} else if (kind == START_BLOCKER) {
		/* the blocker line of a report whose head we did not see (or not right before) */
		k->blockers_total++;
		struct kmsg_hung *h = NULL;
		for (size_t i = k->nhung; i-- > 0 && !h;)
			if (k->hung[i].task.pid == p.b.task.pid && !k->hung[i].have_blocker &&
			    strcmp(k->hung[i].task.comm, p.b.task.comm) == 0)
				h = &k->hung[i];
		if (!h) {
			if (!(h = new_hung(k, r)))
				return;           /* counted, not kept: no memory */
			h->task = p.b.task;
		}
		attach_blocker(k, h, &p.b, r);
		if (h == cur_hung(k))
			k->state = KS_HUNG;
	} else if (kind == START_SUPPRESSED) {
		k->suppressed_seen = true;
		k->suppressed_seq = r->seq;
		k->suppressed_ts_s = ts;
	} else if (kind == START_WQ) {
		struct kmsg_wq_dump *d = ring_push((void **)&k->wq, &k->nwq, KMSG_MAX_WQ, sizeof(*d),
		                                   wq_clear_v);
		if (!d) {
			k->wq_total++;            /* counted, not kept: no memory */
			return;
		}
		d->seq = r->seq;
		d->ts_s = ts;
		k->wq_total++;
		k->cur_wq[0] = '\0';
		k->state = KS_WQ;
		continue_wq(k, r);
	} else if (kind == START_SOFT) {
		struct kmsg_soft *s = ring_push((void **)&k->soft, &k->nsoft, KMSG_MAX_SOFT,
		                                sizeof(*s), NULL);
		if (!s) {
			k->soft_total++;
			return;
		}
		s->seq = r->seq;
		s->ts_s = ts;
		s->cpu = p.c;
		s->stuck_s = p.u;
		s->task = p.t;
		copy_text(s->text, sizeof(s->text), m, r->msg_len);
		k->soft_total++;
		k->state = KS_SOFT;
	} else if (kind == START_RCU) {
		struct kmsg_rcu *s = ring_push((void **)&k->rcu, &k->nrcu, KMSG_MAX_RCU, sizeof(*s),
		                               rcu_clear_v);
		if (!s) {
			k->rcu_total++;
			return;
		}
		s->seq = r->seq;
		s->ts_s = ts;
		s->kind = p.rk;
		snprintf(s->flavor, sizeof(s->flavor), "%s", p.fl);
		copy_text(s->text, sizeof(s->text), m, r->msg_len);
		s->detected_by = -1;
		s->starved_jiffies = p.rk == KMSG_RCU_STARVED ? p.l : -1;
		if (p.rk == KMSG_RCU_EXPEDITED) {       /* "{ 3-... 5-.... } 21002 jiffies" */
			const char *o = strchr(m, '{'), *e = o ? strchr(o, '}') : NULL;
			for (const char *q = o; q && q < e; q++) {
				const char *end;
				long cpu;
				if (isdigit((unsigned char)*q) && (q[-1] == ' ' || q[-1] == '{') &&
				    (cpu = read_num(q, &end)) >= 0 && *end == '-' && cpu < CGW_MAX_CPUS) {
					if (!s->cpus)
						s->cpus = try_calloc(1, sizeof(*s->cpus));
					if (s->cpus)      /* else the CPUs are not listed */
						cpus_set(s->cpus, (unsigned)cpu);
				}
			}
		}
		k->rcu_total++;
		k->state = KS_RCU;
	}
}

static void assemble(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	bool taken = false;
	switch (k->state) {
	case KS_HUNG: case KS_HUNG_TRACE: case KS_OWNER: case KS_OWNER_TRACE:
		taken = continue_hung(k, r);
		break;
	case KS_WQ: case KS_WQ_HOGS:
		taken = continue_wq(k, r);
		break;
	case KS_SOFT:
		taken = continue_soft(k, r);
		break;
	case KS_RCU:
		taken = continue_rcu(k, r);
		break;
	default:
		break;
	}
	if (!taken)
		start_line(k, r);
}

void kmsg_feed_record(struct cgw_kmsg *k, const struct kmsg_record *r)
{
	k->records++;
	if (k->have_seq && r->seq > k->last_seq + 1)
		k->lost += r->seq - k->last_seq - 1;
	if (!k->have_seq)
		k->first_seq = r->seq;
	k->have_seq = true;
	k->last_seq = r->seq;
	if (r->facility != 0) {
		/* user space wrote it: never a kernel report, and no part of one */
		k->other_records++;
		return;
	}
	k->kernel_records++;
	assemble(k, r);
}

void kmsg_feed_buf(struct cgw_kmsg *k, const char *buf, size_t len)
{
	struct kmsg_record *r = xmalloc(sizeof(*r));   /* 2 KiB, one per call: a small fixed size */
	for (size_t off = 0; off < len;) {
		const char *l = buf + off, *nl = memchr(l, '\n', len - off);
		size_t n = nl ? (size_t)(nl - l) : len - off;
		off += n + (nl != NULL);
		if (n == 0 || *l == ' ')            /* dictionary: " SUBSYSTEM=pci" */
			continue;
		if (kmsg_parse_record(l, n, r) < 0) {
			k->unparsed++;
			continue;
		}
		kmsg_feed_record(k, r);
	}
	free(r);
}

bool kmsg_suppressed(const struct cgw_kmsg *k)
{
	if (k->warnings >= -1)
		return k->warnings == 0;
	if (!k->suppressed_seen)
		return false;
	for (size_t i = 0; i < k->nhung; i++)
		if (k->hung[i].blocked_s >= 0 && k->hung[i].seq > k->suppressed_seq)
			return false;               /* reporting again: hung_task_warnings was raised */
	return true;
}

bool kmsg_comm_match(const char *kcomm, const char *comm, size_t len)
{
	size_t kn = strlen(kcomm);
	if (kn == len && memcmp(kcomm, comm, len) == 0)
		return true;
	if (len <= kn || memcmp(kcomm, comm, kn) != 0)
		return false;
	/* /proc shows a workqueue worker as "kworker/u768:1+cpuset_migrate_mm", the kernel's
	 * reports its task->comm "kworker/u768:1"; and a kthread's full name is cut at 15 */
	return ((comm[kn] == '+' || comm[kn] == '-') && starts(kcomm, "kworker/")) || kn == 15;
}

/* Does a report at ts_s saying "blocked for more than blocked_s" (or, -1, saying nothing of
 * how long) belong to the wait t is in now? Unknown uptime: assume it does. */
bool kmsg_same_episode(const struct cgw_kmsg *k, const struct cgw_task *t, double ts_s,
                       long blocked_s)
{
	if (k->uptime_s <= 0)
		return true;
	double since = k->uptime_s - t->blocked_s;   /* when this wait began, in uptime */
	double tol = 10 + 0.02 * t->blocked_s;        /* clocks: local_clock vs boottime vs rq */
	if (blocked_s < 0)
		return ts_s >= since - tol && ts_s <= k->uptime_s + tol;
	double began = ts_s - (double)blocked_s;
	return began >= since - tol && began <= since + tol + 1;
}

const struct kmsg_hung *kmsg_hung_for(const struct cgw_kmsg *k, const struct cgw_task *t)
{
	if (t->state != 'D')
		return NULL;
	for (size_t i = k->nhung; i-- > 0;) {
		const struct kmsg_hung *h = &k->hung[i];
		if (h->task.pid == t->tid && kmsg_comm_match(h->task.comm, t->comm, t->comm_len) &&
		    kmsg_same_episode(k, t, h->ts_s, h->blocked_s))
			return h;
	}
	return NULL;
}
