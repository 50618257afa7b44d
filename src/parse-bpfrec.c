/* parse-bpfrec.c: the records of the task iterator (src/bpf/taskiter.bpf.c, src/bpf/taskrec.h),
 * and /proc/kallsyms lines, which name the addresses of the kernel stacks those records carry.
 * Pure: bytes in, structs out. A record is checked as strictly as /proc text is
 * (parse-proc.c): every value in its range, or the record is refused. */
#include <errno.h>
#include <limits.h>
#include <linux/types.h>
#include <string.h>

#include "cgwatch.h"
#include "bpf/taskrec.h"

_Static_assert(sizeof(struct taskrec) == TASKREC_SIZE, "taskrec layout");

#define NS_MAX (CGW_MAX_SECONDS * 1e9)

static bool ns_ok(__u64 v)
{
	return (double)v <= NS_MAX;
}

int bpfrec_next(const void *buf, size_t len, size_t *off, struct cgw_bpfrec *out)
{
	memset(out, 0, sizeof(*out));
	if (*off >= len)
		return 0;
	if (len - *off < TASKREC_SIZE)
		return -EINVAL;                   /* a torn record */
	struct taskrec r;
	memcpy(&r, (const char *)buf + *off, sizeof(r));
	if (r.magic != TASKREC_MAGIC || r.version != TASKREC_VERSION)
		return -EINVAL;
	if (r.kind != TASKREC_TASK && r.kind != TASKREC_LEADER && r.kind != TASKREC_END)
		return -EINVAL;
	size_t need = TASKREC_SIZE + (size_t)r.nframes * 8;
	if (r.nframes > TASKREC_MAX_FRAMES || len - *off < need)
		return -EINVAL;
	out->kind = r.kind;
	out->threads = r.threads;
	if (r.kind == TASKREC_END) {
		if (r.tgid < 0 || r.cpu < 0 || r.cpu >= CGW_MAX_CPUS || !ns_ok(r.last_arrival))
			return -ERANGE;
		out->tgid = r.tgid;
		out->cpu = r.cpu;
		out->last_arrival = r.last_arrival;
		*off += need;
		return 1;
	}
	if (!r.state || !strchr("RSDTtXZPI", r.state))
		return -EINVAL;
	if (r.tid <= 0 || r.tgid <= 0 || r.ppid < 0 || r.cpu < 0 || r.cpu >= CGW_MAX_CPUS ||
	    r.rt_priority > 99 || r.prio < -1000 || r.prio > 1000)
		return -ERANGE;
	if (!ns_ok(r.start_boottime) || !ns_ok(r.exec_start) || !ns_ok(r.sum_exec_runtime) ||
	    !ns_ok(r.last_arrival) || !ns_ok(r.last_queued) ||
	    !ns_ok(r.prev_sum_exec_runtime) || r.prev_sum_exec_runtime > r.sum_exec_runtime ||
	    !ns_ok(r.run_delay) || r.pcount > CGW_MAX_COUNT ||
	    r.nvcsw > CGW_MAX_COUNT ||
	    r.nivcsw > CGW_MAX_COUNT || r.nvcsw + r.nivcsw > CGW_MAX_COUNT)
		return -ERANGE;
	if ((r.nframes || r.stack_err) && !(r.rflags & TASKREC_HAVE_STACK))
		return -EINVAL;
	if (r.lock_kind > TASKREC_LOCK_RWSEM_WRITE || (r.lock_kind == 0) != (r.lock == 0) ||
	    r.lock_flags & ~(__u32)TASKREC_OWNER_READERS || r.owner_tid < 0 || r.owner_tgid < 0 ||
	    (r.owner_tid == 0) != (r.owner_tgid == 0) || (r.owner_tid && !r.lock))
		return -EINVAL;
	out->state = r.state;
	out->rflags = r.rflags;
	out->tid = r.tid;
	out->tgid = r.tgid;
	out->ppid = r.ppid;
	out->cpu = r.cpu;
	out->flags = r.flags;
	out->policy = r.policy;
	out->rt_priority = r.rt_priority;
	out->prio = r.prio;
	out->stack_err = r.stack_err;
	out->start_boottime = r.start_boottime;
	out->exec_start = r.exec_start;
	out->sum_exec_runtime = r.sum_exec_runtime;
	out->prev_sum_exec_runtime = r.prev_sum_exec_runtime;
	out->last_arrival = r.last_arrival;
	out->last_queued = r.last_queued;
	out->run_delay = r.run_delay;
	out->pcount = r.pcount;
	out->cgroups = r.cgroups;
	out->nvcsw = r.nvcsw;
	out->nivcsw = r.nivcsw;
	out->comm_len = strnlen(r.comm, sizeof(r.comm));
	memcpy(out->comm, r.comm, out->comm_len);
	out->comm[out->comm_len] = '\0';
	out->lock = r.lock;
	out->lock_kind = (int)r.lock_kind;
	out->owner_readers = r.lock_flags & TASKREC_OWNER_READERS;
	out->owner_tid = r.owner_tid;
	out->owner_tgid = r.owner_tgid;
	out->owner_comm_len = strnlen(r.owner_comm, sizeof(r.owner_comm));
	memcpy(out->owner_comm, r.owner_comm, out->owner_comm_len);
	out->owner_comm[out->owner_comm_len] = '\0';
	out->frames = (const unsigned char *)buf + *off + TASKREC_SIZE;
	out->nframes = r.nframes;
	*off += need;
	return 1;
}

uint64_t bpfrec_frame(const struct cgw_bpfrec *r, size_t i)
{
	uint64_t a = 0;
	if (i < r->nframes)
		memcpy(&a, r->frames + i * 8, 8);
	return a;
}

double bpfrec_off_cpu_s(const struct cgw_bpfrec *r, const struct cgw_bpfrec *end)
{
	if (!(r->rflags & TASKREC_HAVE_SCHED_INFO) || r->last_arrival == 0 ||
	    r->nvcsw + r->nivcsw == 0 || r->state == 'R' || end->last_arrival == 0)
		return -1;
	uint64_t left = r->last_arrival + (r->sum_exec_runtime - r->prev_sum_exec_runtime);
	if (left < r->last_arrival)
		return -1;                        /* overflow: not times */
	return end->last_arrival > left ? (double)(end->last_arrival - left) / 1e9 : 0;
}

double bpfrec_queued_s(const struct cgw_bpfrec *r, const struct cgw_bpfrec *end)
{
	if (!(r->rflags & TASKREC_HAVE_SCHED_INFO) || r->state != 'R' || r->last_queued == 0 ||
	    end->last_arrival == 0)
		return -1;
	return end->last_arrival > r->last_queued ?
	       (double)(end->last_arrival - r->last_queued) / 1e9 : 0;
}

void bpfrec_stat(const struct cgw_bpfrec *r, long clk_tck, struct cgw_stat *st,
                 struct cgw_sched *sc)
{
	memset(st, 0, sizeof(*st));
	memset(sc, 0, sizeof(*sc));
	st->tid = r->tid;
	st->ppid = r->ppid;
	st->state = r->state;
	memcpy(st->comm, r->comm, r->comm_len + 1);
	st->comm_len = r->comm_len;
	st->flags = r->flags;
	/* as fs/proc/array.c: nsec_to_clock_t(start_boottime) */
	st->start_ticks = clk_tck > 0 ? r->start_boottime / (1000000000ull / (unsigned long)clk_tck) : 0;
	st->cpu = r->cpu;
	st->rt_priority = r->rt_priority;
	st->policy = r->policy;
	/* /proc/TID/sched prints nanoseconds as milliseconds with six decimals: the same double */
	sc->exec_start_ms = (double)r->exec_start / 1e6;
	sc->sum_exec_ms = (double)r->sum_exec_runtime / 1e6;
	sc->nr_switches = r->nvcsw + r->nivcsw;
	sc->have_exec_start = sc->have_switches = true;
	if (r->rflags & TASKREC_HAVE_SCHED_INFO) {
		sc->have_delay = true;
		sc->run_delay_ns = r->run_delay;
		sc->pcount = r->pcount;
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int kallsyms_line(const char *line, size_t len, struct cgw_ksym *out)
{
	memset(out, 0, sizeof(*out));
	size_t i = 0;
	uint64_t a = 0;
	for (; i < len && hexval(line[i]) >= 0; i++) {
		if (i >= 16)
			return -EINVAL;
		a = a << 4 | (uint64_t)hexval(line[i]);
	}
	if (i == 0 || i + 3 >= len || line[i] != ' ' || line[i + 2] != ' ')
		return -EINVAL;
	out->addr = a;
	out->type = line[i + 1];
	i += 3;
	size_t n0 = i;
	while (i < len && line[i] != '\t' && line[i] != ' ' && line[i] != '\n')
		i++;
	if (i == n0)
		return -EINVAL;
	out->name = line + n0;
	out->name_len = i - n0;
	if (i < len && line[i] == '\t') {           /* "\t[module]" */
		i++;
		if (i >= len || line[i] != '[')
			return -EINVAL;
		size_t m0 = ++i;
		while (i < len && line[i] != ']' && line[i] != '\n')
			i++;
		if (i >= len || line[i] != ']' || i == m0)
			return -EINVAL;
		out->mod = line + m0;
		out->mod_len = i - m0;
		i++;
	}
	if (i < len && line[i] != '\n')
		return -EINVAL;
	return 0;
}
