/* parse-timerlat.c: the timerlat tracer's `trace` text, pure. Each activation of timerlat's
 * per-CPU thread prints two samples: the timer latency at the IRQ (the line's task is the one
 * the IRQ interrupted) and at the thread (printed by timerlat/CPU once it runs). Between
 * them osnoise's thread_noise events name the tasks that ran meanwhile, and with print_stack
 * the stack saved at the IRQ follows the thread sample. Per CPU: the worst of each, and who. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

struct tl_state {                        /* one CPU's activation in progress */
	unsigned long long seq;          /* the last IRQ sample's activation, 0 none */
	int irq_pid;
	char irq_comm[CGW_COMM_MAX];
	int noise_pid;                   /* the longest thread_noise since that IRQ sample */
	char noise_comm[CGW_COMM_MAX];
	double noise_us;
	bool stack_open;                 /* the worst thread sample was the last line: its
	                                    stack may follow */
};

/* "#SEQ context irq|thread timer_latency N ns": 1 irq, 2 thread, 0 not a sample. */
static int sample(const char *s, size_t len, unsigned long long *seq, double *us)
{
	char buf[160], ctx[16];
	unsigned long long ns;
	int n = 0;
	if (len >= sizeof(buf) || len == 0 || s[0] != '#')
		return 0;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (sscanf(buf, "#%llu context %15s timer_latency %llu ns%n", seq, ctx, &ns, &n) != 3 ||
	    (size_t)n != len || ns > (unsigned long long)CGW_MAX_SECONDS * 1000000000ULL)
		return 0;
	*us = (double)ns / 1000.0;
	return !strcmp(ctx, "irq") ? 1 : !strcmp(ctx, "thread") ? 2 : 0;
}

/* "thread_noise: COMM:PID start T duration N ns" (COMM right-aligned, may hold ':' or
 * blanks): true with its fields. */
static bool thread_noise(const char *s, size_t len, char *comm, size_t cap, int *pid,
                         double *us)
{
	static const char pre[] = "thread_noise:";
	if (len < sizeof(pre) || memcmp(s, pre, sizeof(pre) - 1))
		return false;
	const char *e = s + len, *st = NULL;
	for (const char *p = s; p + 7 <= e; p++)         /* the last " start " */
		if (!memcmp(p, " start ", 7))
			st = p;
	if (!st)
		return false;
	const char *colon = st;
	while (colon > s && *colon != ':')
		colon--;
	if (colon <= s + sizeof(pre) - 1)
		return false;
	char num[32];
	size_t nl = (size_t)(st - colon - 1);
	if (nl == 0 || nl >= sizeof(num))
		return false;
	memcpy(num, colon + 1, nl);
	num[nl] = 0;
	char *end;
	long v = strtol(num, &end, 10);
	if (*end || v < 0 || v > 0x7fffffff)
		return false;
	char tail[96];
	size_t tl = (size_t)(e - st);
	if (tl >= sizeof(tail))
		return false;
	memcpy(tail, st, tl);
	tail[tl] = 0;
	unsigned long long ns;
	int n = 0;
	char t[40];
	if (sscanf(tail, " start %39s duration %llu ns%n", t, &ns, &n) != 2 || (size_t)n != tl ||
	    ns > (unsigned long long)CGW_MAX_SECONDS * 1000000000ULL)
		return false;
	const char *c0 = s + sizeof(pre) - 1;
	while (c0 < colon && *c0 == ' ')
		c0++;
	size_t cl = (size_t)(colon - c0);
	if (cl >= cap)
		cl = cap - 1;
	memcpy(comm, c0, cl);
	comm[cl] = 0;
	*pid = (int)v;
	*us = (double)ns / 1000.0;
	return true;
}

/* A stack frame line, " => FUNC": FUNC appended to the CPU's stack. */
static void frame(struct cgw_timerlat *t, const char *s, size_t len)
{
	size_t k = 0;
	while (k < len && s[k] == ' ')
		k++;
	if (len - k < 4 || memcmp(s + k, "=> ", 3))
		return;
	k += 3;
	size_t have = strlen(t->stack), fl = len - k;
	if (fl == 1 && s[k] == '0')             /* the unused slots of the saved stack */
		return;
	if (fl > 4 && !memcmp(s + k, "asm_", 4)) {   /* the IRQ's entry: what it interrupted
		                                        starts after it, the tracer's own frames
		                                        before it are left out */
		t->stack[0] = 0;
		return;
	}
	const char *sep = have ? " <- " : "";
	if (have + strlen(sep) + fl + 1 > sizeof(t->stack))
		return;                        /* the innermost frames are kept */
	memcpy(t->stack + have, sep, strlen(sep));
	have += strlen(sep);
	for (size_t i = 0; i < fl; i++)   /* a symbol: printable ASCII only */
		t->stack[have + i] = s[k + i] > ' ' && s[k + i] < 0x7f ? s[k + i] : '?';
	t->stack[have + fl] = 0;
}

static bool unknown_task(const char *comm, int pid)
{
	return pid <= 0 || !strcmp(comm, "<idle>") || !strcmp(comm, "<...>") ||
	       !strncmp(comm, "timerlat/", 9);
}

int timerlat_parse(const char *text, size_t len, struct cgw_timerlat *tl, size_t ncpu,
                   size_t *bad)
{
	struct tl_state *st = calloc(ncpu ? ncpu : 1, sizeof(*st));
	struct tl_state one;                 /* no memory: the CPUs share one state */
	memset(&one, 0, sizeof(one));
	*bad = 0;
	int stack_cpu = -1;                  /* the CPU whose stack the " => " lines extend */
	for (size_t i = 0; i < len; ) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		const char *l = text + i;
		size_t n = e - i;
		i = e + 1;
		if (n && l[n - 1] == '\r')
			n--;
		struct cgw_trace_event ev;
		size_t rest = trace_parse_head(l, n, &ev);
		if (!rest) {
			size_t k = 0;
			while (k < n && l[k] == ' ')
				k++;
			if (k + 3 <= n && !memcmp(l + k, "=> ", 3)) {
				if (stack_cpu >= 0)
					frame(&tl[stack_cpu], l, n);
			} else if (k < n && l[k] != '#' && (n - k < 4 || memcmp(l + k, "CPU:", 4)))
				(*bad)++;
			continue;
		}
		stack_cpu = -1;
		if (ev.cpu < 0 || (size_t)ev.cpu >= ncpu)
			continue;
		struct cgw_timerlat *t = &tl[ev.cpu];
		struct tl_state *s = st ? &st[ev.cpu] : &one;
		const char *r = l + rest;
		size_t rl = n - rest;
		unsigned long long seq;
		double us;
		char comm[CGW_COMM_MAX];
		int pid;
		int kind = sample(r, rl, &seq, &us);
		if (kind == 1) {                 /* the IRQ: what it interrupted */
			t->measured = true;
			s->seq = seq;
			s->irq_pid = unknown_task(ev.comm, ev.pid) ? 0 : ev.pid;
			snprintf(s->irq_comm, sizeof(s->irq_comm), "%s", s->irq_pid ? ev.comm : "");
			s->noise_us = 0;
			s->noise_pid = 0;
			s->stack_open = false;
			if (us > t->irq_max_us) {
				t->irq_max_us = us;
				t->irq_pid = s->irq_pid;
				snprintf(t->irq_comm, sizeof(t->irq_comm), "%s", s->irq_comm);
			}
		} else if (kind == 2) {          /* the thread: the whole delay, and who held it */
			t->measured = true;
			t->samples++;
			s->stack_open = false;
			if (us > t->thread_max_us) {
				bool same = s->seq == seq;
				t->thread_max_us = us;
				t->thr_pid = same && s->noise_pid ? s->noise_pid : same ? s->irq_pid : 0;
				/* the line's task name is the newer one (thread_noise keeps the name
				 * the task had when it began: "sh" for a shell that exec'd "spin") */
				snprintf(t->thr_comm, sizeof(t->thr_comm), "%s", !same ? "" :
				         s->noise_pid && s->noise_pid != s->irq_pid ? s->noise_comm :
				         s->irq_comm);
				t->thr_noise_us = same && s->noise_pid ? s->noise_us : 0;
				t->stack[0] = 0;
				s->stack_open = true;
			}
		} else if (thread_noise(r, rl, comm, sizeof(comm), &pid, &us)) {
			if (us > s->noise_us && !unknown_task(comm, pid)) {
				s->noise_us = us;
				s->noise_pid = pid;
				snprintf(s->noise_comm, sizeof(s->noise_comm), "%s", comm);
			}
		} else if (rl >= 13 && !memcmp(r, "<stack trace>", 13)) {
			if (s->stack_open)
				stack_cpu = ev.cpu;
			s->stack_open = false;
		}
	}
	free(st);
	return 0;
}

/* A value of the restore file: digits, and for a CPU list ',' and '-' too; not empty. */
static bool tlsave_value(const char *v, size_t n, bool list)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (list && (v[i] == ',' || v[i] == '-'))))
			return false;
	return true;
}

int tlsave_parse(const char *text, struct tl_saved *out)
{
	memset(out, 0, sizeof(*out));
	struct { const char *key; char *dst; size_t cap; bool list; } keys[] = {
		{ "cpus", out->cpus, sizeof(out->cpus), true },
		{ "cpus_set", out->cpus_set, sizeof(out->cpus_set), true },
		{ "print_stack", out->print_stack, sizeof(out->print_stack), false },
		{ "print_stack_set", out->print_stack_set, sizeof(out->print_stack_set), false },
	};
	for (const char *p = text; *p; ) {
		size_t l = strcspn(p, "\n");
		const char *eq = memchr(p, '=', l);
		if (l && p[0] != '#') {
			size_t kl = eq ? (size_t)(eq - p) : l, vl = eq ? l - kl - 1 : 0;
			size_t k = 0;
			while (k < sizeof(keys) / sizeof(keys[0]) &&
			       (strlen(keys[k].key) != kl || memcmp(p, keys[k].key, kl)))
				k++;
			if (k == sizeof(keys) / sizeof(keys[0]) || keys[k].dst[0] ||
			    vl >= keys[k].cap || !tlsave_value(eq + 1, vl, keys[k].list))
				return -EINVAL;
			memcpy(keys[k].dst, eq + 1, vl);
			keys[k].dst[vl] = 0;
		}
		p += l + (p[l] == '\n');
	}
	return 0;
}
