/* sink-runq.c: run-queue latency out: the report's JSON `runq` object, and the metrics'
 * Prometheus histograms per CPU group (cumulative since the daemon started) with each CPU's
 * p99 over the last interval. */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"

#define RUNQ_RESOLUTION "log2 buckets of waits in us; p50 and p99 interpolated within their " \
	"bucket (within a factor of 2 of the wait), capped by the longest wait measured"

static json_object *task_json(const struct cgw_runq_task *t)
{
	if (!t->tid)
		return NULL;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "tid", json_object_new_int(t->tid));
	json_object_object_add(o, "tgid", json_object_new_int(t->tgid));
	json_object_object_add(o, "comm", jstr(t->comm));
	json_object_object_add(o, "policy", json_object_new_string(policy_name(t->policy)));
	json_object_object_add(o, "rt_priority", json_object_new_int((int)t->rt_priority));
	json_object_object_add(o, "nice", json_object_new_int(t->nice));
	json_object_object_add(o, "ms", jround(t->ms, 3));
	return o;
}

/* a pid and comm as {"pid", "comm"}, NULL when unknown */
static json_object *who_json(int pid, const char *comm)
{
	if (pid <= 0)
		return NULL;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "comm", jstr(comm));
	return o;
}

static json_object *timerlat_json(const struct cgw_timerlat *t)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)t->samples));
	json_object_object_add(o, "irq_max_us", jround(t->irq_max_us, 3));
	json_object_object_add(o, "irq_interrupted", who_json(t->irq_pid, t->irq_comm));
	json_object_object_add(o, "thread_max_us", jround(t->thread_max_us, 3));
	json_object_object_add(o, "thread_held_by", who_json(t->thr_pid, t->thr_comm));
	if (t->thr_noise_us > 0)
		json_object_object_add(o, "thread_noise_us", jround(t->thr_noise_us, 3));
	json_object_object_add(o, "stack", t->stack[0] ? jstr(t->stack) : NULL);
	return o;
}

json_object *runq_json(const struct cgw_runq *r, const char *why)
{
	json_object *o = json_object_new_object();
	if (!r) {
		json_object_object_add(o, "source", NULL);
		json_object_object_add(o, "why", jstr(why ? why : "not measured"));
		return o;
	}
	json_object_object_add(o, "source", jstr(r->source));
	if (why)
		json_object_object_add(o, "why", jstr(why));
	json_object_object_add(o, "exact", json_object_new_boolean(r->exact));
	json_object_object_add(o, "resolution", json_object_new_string(RUNQ_RESOLUTION));
	json_object_object_add(o, "interval_s", jround(r->interval_s, 3));
	json_object_object_add(o, "missing", jstr(r->missing));
	if (r->timerlat[0])
		json_object_object_add(o, "timerlat", jstr(r->timerlat));
	json_object *cpus = json_object_new_array();
	for (size_t i = 0; i < r->ncpu; i++) {
		const struct cgw_runq_cpu *c = &r->cpu[i];
		json_object *j = json_object_new_object();
		json_object_object_add(j, "cpu", json_object_new_int(c->cpu));
		json_object_object_add(j, "isolated", json_object_new_boolean(c->isolated));
		json_object_object_add(j, "count", json_object_new_int64((int64_t)c->count));
		json_object_object_add(j, "sum_ms", jround(c->sum_ms, 3));
		json_object_object_add(j, "p50_ms", jround(c->p50_ms, 3));
		json_object_object_add(j, "p99_ms", jround(c->p99_ms, 3));
		json_object_object_add(j, "max_ms", jround(c->max_ms, 3));
		json_object_object_add(j, "low_count", json_object_new_int64((int64_t)c->low_count));
		json_object_object_add(j, "full_p99_ms", jround(c->low_count ? c->full_p99_ms :
		                                                c->p99_ms, 3));
		json_object_object_add(j, "full_max_ms", jround(c->low_count ? c->full_max_ms :
		                                                c->max_ms, 3));
		json_object *w = json_object_new_array();
		for (size_t k = 0; k < c->nwaited; k++)
			json_object_array_add(w, task_json(&c->waited[k]));
		json_object_object_add(j, "waited", w);
		json_object_object_add(j, "held", task_json(&c->held));
		if (c->tl.measured)
			json_object_object_add(j, "timerlat", timerlat_json(&c->tl));
		json_object_array_add(cpus, j);
	}
	json_object_object_add(o, "cpus", cpus);
	return o;
}

void metrics_runq(struct strbuf *b, const struct cgw_runq *r)
{
	static const char *const group[RUNQ_NGROUPS] = { "housekeeping", "isolated" };
	sb_printf(b, "# HELP cgwatch_runq_latency_seconds How long runnable tasks waited on a "
	          "run queue before they ran (%s), since the daemon started.\n"
	          "# TYPE cgwatch_runq_latency_seconds histogram\n",
	          r->exact ? "each wait" : "mean wait per slice");
	for (int g = 0; g < RUNQ_NGROUPS; g++) {
		const struct cgw_runq_total *t = &r->total[g];
		bool any = false;                 /* a group with no CPU is left out */
		for (size_t i = 0; i < r->ncpu && !any; i++)
			any = (r->cpu[i].isolated ? RUNQ_ISOLATED : RUNQ_HOUSEKEEPING) == g;
		if (!any && !t->count)
			continue;
		unsigned long long cum = 0;
		for (unsigned k = 0; k < RUNQ_BUCKETS; k++) {
			cum += t->buckets[k];     /* bucket k: waits below 2^(k+1) us */
			sb_printf(b, "cgwatch_runq_latency_seconds_bucket{cpus=\"%s\",le=\"%.6g\"} "
			          "%llu\n", group[g], ldexp(1.0, (int)k + 1) / 1e6, cum);
		}
		sb_printf(b, "cgwatch_runq_latency_seconds_bucket{cpus=\"%s\",le=\"+Inf\"} %llu\n",
		          group[g], t->count);
		sb_printf(b, "cgwatch_runq_latency_seconds_sum{cpus=\"%s\"} %.6f\n", group[g],
		          t->sum_ms / 1000.0);
		sb_printf(b, "cgwatch_runq_latency_seconds_count{cpus=\"%s\"} %llu\n", group[g],
		          t->count);
	}
	sb_printf(b, "# HELP cgwatch_runq_latency_p99_seconds The 99th percentile of the run-queue "
	          "waits on a CPU over the last interval.\n"
	          "# TYPE cgwatch_runq_latency_p99_seconds gauge\n");
	for (size_t i = 0; i < r->ncpu; i++)
		sb_printf(b, "cgwatch_runq_latency_p99_seconds{cpu=\"%d\"} %.6f\n", r->cpu[i].cpu,
		          r->cpu[i].p99_ms / 1000.0);
}
