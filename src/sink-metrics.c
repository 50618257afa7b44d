/* sink-metrics.c: a Prometheus text file for node_exporter's textfile collector, so a fleet of
 * hosts is watched from one place. Rewritten atomically after every scan. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* Are a and b open incidents of one metrics series (signature and severity)? */
static bool same_series(const struct incident *a, const struct incident *b)
{
	return a->resolved_at == 0 && b->resolved_at == 0 && a->severity == b->severity &&
	       strcmp(a->sig, b->sig) == 0;
}

/* Each CPU's runq-latency finding at this scan: 1 when it has one (info, a report line, while
 * it points to no known mechanism for less than [latency] page_after; else an incident's). */
static void metrics_runq_crossed(struct strbuf *b, const struct cgw_report *r)
{
	sb_printf(b, "# HELP cgwatch_runq_latency_crossed The CPU's run-queue p99 passed [latency] "
	          "runq_p99_ms (its finding open, paged or not) at the last scan (1) or not (0).\n"
	          "# TYPE cgwatch_runq_latency_crossed gauge\n");
	for (size_t i = 0; i < r->runq->ncpu; i++) {
		char cause[32];
		bool on = false;
		snprintf(cause, sizeof(cause), "cpu %d", r->runq->cpu[i].cpu);
		for (size_t k = 0; k < r->nf && !on; k++)
			on = !strcmp(r->f[k].sig->id, "runq-latency") && !strcmp(r->f[k].cause, cause);
		sb_printf(b, "cgwatch_runq_latency_crossed{cpu=\"%d\"} %d\n", r->runq->cpu[i].cpu, on);
	}
}

char *metrics_text(const struct cgw_report *r, const struct cgw_incidents *in, uint64_t scans,
                   size_t *len)
{
	const struct cgw_scan *s = r->scan;
	size_t blocked = 0, starved = 0;
	double longest = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		if (t->suspect == SUSPECT_STARVED)
			starved++;
		else if (t->blocked_s >= r->threshold_s)
			blocked++;
		if (t->suspect == SUSPECT_BLOCKED && t->blocked_s > longest)
			longest = t->blocked_s;
	}
	struct strbuf b = { 0 };
	sb_printf(&b, "# HELP cgwatch_tasks_scanned Threads read in the last scan.\n"
	          "# TYPE cgwatch_tasks_scanned gauge\ncgwatch_tasks_scanned %zu\n", s->threads);
	sb_printf(&b, "# HELP cgwatch_tasks_blocked Tasks in D at or past the warning threshold.\n"
	          "# TYPE cgwatch_tasks_blocked gauge\ncgwatch_tasks_blocked %zu\n", blocked);
	sb_printf(&b, "# HELP cgwatch_tasks_starved Runnable tasks that have not run for the "
	          "starvation threshold.\n# TYPE cgwatch_tasks_starved gauge\n"
	          "cgwatch_tasks_starved %zu\n", starved);
	sb_printf(&b, "# HELP cgwatch_blocked_seconds_max Longest time a task has been in D.\n"
	          "# TYPE cgwatch_blocked_seconds_max gauge\ncgwatch_blocked_seconds_max %.1f\n",
	          longest);
	sb_printf(&b, "# HELP cgwatch_incidents_open Open incidents by signature and severity.\n"
	          "# TYPE cgwatch_incidents_open gauge\n");
	/* one sample per signature and severity, counting its open incidents (one signature has
	 * one per cause): a series twice in a file is refused by the textfile collector */
	for (size_t k = 0; k < in->n; k++) {
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = same_series(&in->v[j], &in->v[k]);
		if (seen || in->v[k].resolved_at > 0)
			continue;
		size_t count = 0;
		for (size_t j = k; j < in->n; j++)
			count += same_series(&in->v[j], &in->v[k]);
		sb_printf(&b, "cgwatch_incidents_open{signature=\"%s\",severity=\"%s\"} %zu\n",
		          in->v[k].sig, sev_name(in->v[k].severity), count);
	}
	sb_printf(&b, "# HELP cgwatch_scan_duration_seconds How long the last scan took.\n"
	          "# TYPE cgwatch_scan_duration_seconds gauge\ncgwatch_scan_duration_seconds "
	          "%.6f\n", (double)s->scan_usec / 1e6);
	sb_printf(&b, "# HELP cgwatch_scans_total Scans since the daemon started.\n"
	          "# TYPE cgwatch_scans_total counter\ncgwatch_scans_total %llu\n",
	          (unsigned long long)scans);
	if (r->runq) {
		metrics_runq(&b, r->runq);
		metrics_runq_crossed(&b, r);
	}
	if (r->pressure)
		metrics_pressure(&b, r->pressure);
	*len = b.len;
	return b.s;
}

int metrics_write(const char *path, const struct cgw_report *r, const struct cgw_incidents *in,
                  uint64_t scans)
{
	size_t len;
	char *txt = metrics_text(r, in, scans, &len);
	int e = atomic_write(path, txt, len, 0644);   /* node_exporter reads it */
	free(txt);
	return e;
}

void metrics_hazards(struct strbuf *b, const struct cgw_hazstate *st)
{
	if (!st->audits)
		return;
	sb_printf(b, "# HELP cgwatch_hazard A hazard rule holds (1) or not (0) at the last audit.\n"
	          "# TYPE cgwatch_hazard gauge\n");
	for (size_t i = 0; i < st->n; i++)   /* ids are letters, digits, - and _ (parse-hazard.c) */
		sb_printf(b, "cgwatch_hazard{id=\"%s\"} %d\n", st->v[i].id, st->v[i].holds);
	sb_printf(b, "# HELP cgwatch_audit_timestamp_seconds When the last audit ended.\n"
	          "# TYPE cgwatch_audit_timestamp_seconds gauge\n"
	          "cgwatch_audit_timestamp_seconds %.1f\n", st->last_epoch);
	sb_printf(b, "# HELP cgwatch_audit_duration_seconds How long the last audit took.\n"
	          "# TYPE cgwatch_audit_duration_seconds gauge\n"
	          "cgwatch_audit_duration_seconds %.3f\n", st->last_s);
}
