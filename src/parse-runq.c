/* parse-runq.c: run-queue waits, pure: log2 histograms of waits in microseconds (the
 * tracepoint's per-CPU counts), their quantiles, the longest waits kept, and
 * /proc/TID/schedstat (the scheduler's own per-task accounting, the fallback). */
#include <errno.h>
#include <string.h>

#include "cgwatch.h"

int parse_schedstat(const char *buf, struct cgw_schedstat *out)
{
	const char *p = buf;
	uint64_t v[3];
	for (int i = 0; i < 3; i++) {
		if (i > 0) {
			if (*p != ' ')
				return -EINVAL;
			p++;
		}
		if (*p == '-')                /* parse_count takes "-0": a count has no sign here */
			return -EINVAL;
		int e = parse_count(&p, CGW_MAX_COUNT, &v[i]);
		if (e < 0)
			return e;
	}
	if (*p == '\n')
		p++;
	if (*p != '\0')
		return -EINVAL;
	out->run_ns = v[0];
	out->wait_ns = v[1];
	out->slices = v[2];
	return 0;
}

unsigned runq_bucket(uint64_t us)
{
	unsigned k = 0;
	while (us >= 2 && k < RUNQ_BUCKETS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

double runq_quantile(const unsigned long long *b, double q, double max_ms)
{
	unsigned long long n = 0;
	for (unsigned k = 0; k < RUNQ_BUCKETS; k++)
		n += b[k];
	if (n == 0)
		return 0;
	double rank = q * (double)n, cum = 0, v = 0;
	for (unsigned k = 0; k < RUNQ_BUCKETS; k++) {
		if (!b[k])
			continue;
		if (cum + (double)b[k] >= rank || k == RUNQ_BUCKETS - 1) {
			double lo = k ? (double)(1ull << k) : 0, hi = (double)(1ull << (k + 1));
			double f = (rank - cum) / (double)b[k];
			f = f < 0 ? 0 : f > 1 ? 1 : f;
			v = (lo + f * (hi - lo)) / 1000.0;
			break;
		}
		cum += (double)b[k];
	}
	return max_ms > 0 && v > max_ms ? max_ms : v;
}

void runq_summarize(struct cgw_runq_cpu *c)
{
	c->count = 0;
	for (unsigned k = 0; k < RUNQ_BUCKETS; k++)
		c->count += c->buckets[k];
	c->p50_ms = runq_quantile(c->buckets, 0.50, c->max_ms);
	c->p99_ms = runq_quantile(c->buckets, 0.99, c->max_ms);
	unsigned long long full[RUNQ_BUCKETS];
	c->low_count = 0;
	for (unsigned k = 0; k < RUNQ_BUCKETS; k++) {
		unsigned long long low = c->low_buckets[k] < c->buckets[k] ? c->low_buckets[k] :
		                         c->buckets[k];
		c->low_count += low;
		full[k] = c->buckets[k] - low;
	}
	if (c->low_count == 0) {
		c->full_p99_ms = c->p99_ms;
		c->full_max_ms = c->max_ms;
	} else {
		c->full_p99_ms = runq_quantile(full, 0.99, c->full_max_ms);
	}
}

void runq_waited_add(struct cgw_runq_cpu *c, const struct cgw_runq_task *t)
{
	const size_t cap = sizeof(c->waited) / sizeof(c->waited[0]);
	size_t i = c->nwaited;
	while (i > 0 && c->waited[i - 1].ms < t->ms)
		i--;
	if (i >= cap)
		return;
	size_t last = c->nwaited < cap ? c->nwaited : cap - 1;
	memmove(&c->waited[i + 1], &c->waited[i], (last - i) * sizeof(c->waited[0]));
	c->waited[i] = *t;
	if (c->nwaited < cap)
		c->nwaited++;
}

void runq_total_add(struct cgw_runq_total *tot, const struct cgw_runq_cpu *c)
{
	for (unsigned k = 0; k < RUNQ_BUCKETS; k++) {
		tot->buckets[k] += c->buckets[k];
		tot->count += c->buckets[k];
	}
	tot->sum_ms += c->sum_ms;
}
