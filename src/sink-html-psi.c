/* sink-html-psi.c: the latency half on the HTML pages (the check's and the daemon's incident
 * pages, sink-html-check.c): the pressure (PSI) section, the system-wide some/full averages per
 * resource with its threshold and whether and why it crossed, and the own pressure of the
 * cgroups of the page's findings' tasks; the run-queue latency section, the waits of the CPUs
 * the page's findings name ("cpu N") and of the CPUs that waited most, with what held each CPU
 * and the longest waiters. Every host string (cgroup paths, task names, error texts) escaped
 * by sink-html.c. */
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define RUNQ_ROWS 4                       /* CPUs in the run-queue table, the cause's among them */

/* Is finding k on the page? */
static bool on_page(bool all, ssize_t only, size_t k)
{
	return all || only == (ssize_t)k;
}

static void pct(struct strbuf *b, const struct cgw_psi_avg *a, bool ten)
{
	if (a->have)
		sb_printf(b, "<td>%.2f %%</td>", ten ? a->avg10 : a->avg60);
	else
		sb_printf(b, "<td>-</td>");
}

/* Is cgroup path one of the page's findings' (a task's cgroup, or a "cgroup PATH" cause)? */
static bool cgroup_on_page(const struct cgw_report *r, bool all, ssize_t only, const char *path)
{
	for (size_t k = 0; k < r->nf; k++) {
		const struct cgw_finding *f = &r->f[k];
		if (!on_page(all, only, k))
			continue;
		if (!strncmp(f->cause, "cgroup ", 7) && !strcmp(f->cause + 7, path))
			return true;
		for (size_t i = 0; r->scan && i < f->ntasks; i++)
			if (!strcmp(r->scan->t[f->tasks[i]].cgroup, path))
				return true;
	}
	return false;
}

static void pressure_html(struct strbuf *b, const struct cgw_report *r, bool all, ssize_t only)
{
	const struct cgw_pressure *p = r->pressure;
	sb_printf(b, "<section id=\"pressure\"><h2>Pressure (PSI)</h2>\n<p class=\"meta\">The share "
	          "of the last 10 and 60 s in which some task (some), or every non-idle task at "
	          "once (full), was stalled on the resource, as the kernel averages it.%s</p>\n",
	          p->triggers ? " The kernel's triggers are registered: a scan runs when one fires." :
	          "");
	sb_printf(b, "<table id=\"pressure-system\"><tr><th>Resource</th><th>some avg10</th>"
	          "<th>some avg60</th><th>full avg10</th><th>full avg60</th><th>Threshold</th>"
	          "<th>Past it</th></tr>\n");
	for (int k = 0; k < PSI_NRES; k++) {
		const struct cgw_psi *x = &p->sys[k];
		char t[64];
		sb_printf(b, "<tr id=\"pressure-%s\"%s><td>%s</td>", psi_res_name(k),
		          p->crossed[k] ? " class=\"crossed\"" : "", psi_res_name(k));
		if (p->error[k][0] || (!x->some.have && !x->full.have)) {
			sb_printf(b, "<td colspan=\"4\">not read");
			if (p->error[k][0]) {
				sb_printf(b, ": ");
				html_s(b, p->error[k]);
			}
			sb_printf(b, "</td>");
		} else {
			pct(b, &x->some, true);
			pct(b, &x->some, false);
			pct(b, &x->full, true);
			pct(b, &x->full, false);
		}
		sb_printf(b, "<td>");
		html_s(b, psi_trigger_format(&p->trig[k], t, sizeof(t)));
		sb_printf(b, "</td><td>");
		if (p->crossed[k]) {
			sb_printf(b, "yes: ");
			html_s(b, p->why[k]);
		} else {
			sb_printf(b, "%s", p->trig[k].on ? "no" : "off");
		}
		sb_printf(b, "</td></tr>\n");
	}
	sb_printf(b, "</table>\n");
	size_t n = 0;
	for (size_t c = 0; c < p->ncg; c++)
		n += cgroup_on_page(r, all, only, p->cg[c].path);
	if (!n) {
		sb_printf(b, "<p class=\"meta\">No cgroup of %s tasks has pressure read (cgroup v2 "
		          "only).</p>\n</section>\n", all ? "the findings'" : "this finding's");
		return;
	}
	sb_printf(b, "<h3>The cgroups of %s tasks</h3>\n<p class=\"meta\">Each cgroup's own "
	          "cpu.pressure, memory.pressure and io.pressure, avg10.</p>\n"
	          "<table id=\"pressure-cgroups\"><tr><th>Cgroup</th><th>cpu</th><th>memory</th>"
	          "<th>io</th></tr>\n", all ? "the findings'" : "this finding's");
	for (size_t c = 0; c < p->ncg; c++) {
		const struct cgw_psi_cgroup *g = &p->cg[c];
		if (!cgroup_on_page(r, all, only, g->path))
			continue;
		sb_printf(b, "<tr><td><code>");
		html_s(b, g->path);
		sb_printf(b, "</code></td>");
		for (int k = 0; k < PSI_NRES; k++) {
			const struct cgw_psi *x = &g->res[k];
			if (!x->have || !x->some.have) {
				sb_printf(b, "<td>-</td>");
				continue;
			}
			sb_printf(b, "<td>some %.2f %%", x->some.avg10);
			if (x->full.have)
				sb_printf(b, ", full %.2f %%", x->full.avg10);
			sb_printf(b, "</td>");
		}
		sb_printf(b, "</tr>\n");
	}
	sb_printf(b, "</table>\n</section>\n");
}

/* "PID 4242 (comm) SCHED_FIFO/50, 49.1 ms", or "-" for no task. */
static void runq_task(struct strbuf *b, const struct cgw_runq_task *t, const char *fmt)
{
	if (!t->tid) {
		sb_printf(b, "-");
		return;
	}
	if (t->tid == t->tgid || t->tgid <= 0)
		sb_printf(b, "PID %d (", t->tid);
	else
		sb_printf(b, "TID %d of PID %d (", t->tid, t->tgid);
	html_esc(b, t->comm, strnlen(t->comm, sizeof(t->comm)));
	sb_printf(b, ") %s", policy_name(t->policy));
	if (t->rt_priority)
		sb_printf(b, "/%u", t->rt_priority);
	sb_printf(b, fmt, t->ms);
}

/* timerlat's interval on the CPU, under its holder: "timerlat: thread 20.50 ms late, held by
 * PID 128 (spin); IRQ 0.57 ms late", the saved stack's first frames as a title. */
static void timerlat_cell(struct strbuf *b, const struct cgw_timerlat *t)
{
	if (!t->measured)
		return;
	sb_printf(b, "<br><span class=\"timerlat\"");
	if (t->stack[0]) {
		sb_printf(b, " title=\"kernel stack at the IRQ: ");
		html_esc(b, t->stack, strnlen(t->stack, sizeof(t->stack)));
		sb_printf(b, "\"");
	}
	sb_printf(b, ">timerlat: thread %.2f ms late", t->thread_max_us / 1000);
	if (t->thr_pid > 0) {
		sb_printf(b, ", held by PID %d (", t->thr_pid);
		html_esc(b, t->thr_comm, strnlen(t->thr_comm, sizeof(t->thr_comm)));
		sb_printf(b, ")");
	}
	sb_printf(b, "; IRQ %.2f ms late</span>", t->irq_max_us / 1000);
}

static int p99_desc(const void *a, const void *b)
{
	const struct cgw_runq_cpu *x = *(const struct cgw_runq_cpu *const *)a;
	const struct cgw_runq_cpu *y = *(const struct cgw_runq_cpu *const *)b;
	if (x->p99_ms != y->p99_ms)
		return x->p99_ms > y->p99_ms ? -1 : 1;
	return x->cpu - y->cpu;
}

static void runq_html(struct strbuf *b, const struct cgw_report *r, bool all, ssize_t only)
{
	const struct cgw_runq *q = r->runq;
	sb_printf(b, "<section id=\"runq\"><h2>Run-queue latency</h2>\n");
	if (!q) {
		sb_printf(b, "<p>Not measured: ");
		html_s(b, r->runq_why);
		sb_printf(b, "</p>\n</section>\n");
		return;
	}
	sb_printf(b, "<p class=\"meta\">How long runnable tasks waited for a CPU over the last "
	          "%.1f s, from ", q->interval_s);
	html_s(b, q->source);
	if (q->exact)
		sb_printf(b, " (each wait; p50 and p99 within a factor of 2: log2 buckets, capped by "
		          "the longest wait). Held by: the task that ran longest there without a "
		          "switch.</p>\n");
	else
		sb_printf(b, " (a mean wait per slice of each task read, not each wait: coarser). "
		          "Held by: the task with the most CPU time there in the interval.</p>\n");
	const struct cgw_runq_cpu **row = calloc(q->ncpu ? q->ncpu : 1, sizeof(*row));
	bool *cause = calloc(q->ncpu ? q->ncpu : 1, sizeof(*cause));
	if (!row || !cause) {
		sb_printf(b, "<p>(not shown: out of memory)</p>\n</section>\n");
		free(row);
		free(cause);
		return;
	}
	/* the CPUs the page's findings name first, then the highest p99s */
	size_t n = 0;
	for (size_t k = 0; k < r->nf; k++) {
		int c;
		if (!on_page(all, only, k) || sscanf(r->f[k].cause, "cpu %d", &c) != 1)
			continue;
		for (size_t i = 0; i < q->ncpu; i++)
			if (q->cpu[i].cpu == c && !cause[i]) {
				cause[i] = true;
				row[n++] = &q->cpu[i];
			}
	}
	size_t ncause = n;
	const struct cgw_runq_cpu **rest = row + n;
	size_t nrest = 0;
	for (size_t i = 0; i < q->ncpu; i++)
		if (!cause[i] && q->cpu[i].count)
			rest[nrest++] = &q->cpu[i];
	qsort(rest, nrest, sizeof(*rest), p99_desc);
	n += nrest;
	if (n > RUNQ_ROWS && ncause < RUNQ_ROWS)
		n = RUNQ_ROWS;
	else if (n > ncause && ncause >= RUNQ_ROWS)
		n = ncause;
	if (!n) {
		sb_printf(b, "<p>No wait measured in the interval.</p>\n");
	} else {
		sb_printf(b, "<table id=\"runq-cpus\"><tr><th>CPU</th><th>Waits</th><th>p50</th>"
		          "<th>p99</th><th>Max</th><th>Held by</th><th>Longest waits</th></tr>\n");
		for (size_t i = 0; i < n; i++) {
			const struct cgw_runq_cpu *c = row[i];
			sb_printf(b, "<tr id=\"runq-cpu%d\"%s><td>%d</td><td>%llu</td><td>%.2f ms</td>"
			          "<td>%.2f ms</td><td>%.2f ms</td><td>", c->cpu,
			          i < ncause ? " class=\"cause\"" : "", c->cpu, c->count, c->p50_ms,
			          c->p99_ms, c->max_ms);
			runq_task(b, &c->held, ", %.1f ms");
			timerlat_cell(b, &c->tl);
			sb_printf(b, "</td><td>");
			if (!c->nwaited)
				sb_printf(b, "-");
			for (size_t k = 0; k < c->nwaited && k < 4; k++) {
				if (k)
					sb_printf(b, "<br>");
				runq_task(b, &c->waited[k], q->exact ? ", %.2f ms" : ", %.2f ms a slice");
			}
			sb_printf(b, "</td></tr>\n");
		}
		sb_printf(b, "</table>\n");
	}
	if (q->missing[0]) {
		sb_printf(b, "<p class=\"meta\">Not measured on this kernel: ");
		html_s(b, q->missing);
		sb_printf(b, "</p>\n");
	}
	sb_printf(b, "</section>\n");
	free(row);
	free(cause);
}

void html_latency(struct strbuf *b, const struct cgw_report *r, bool all, ssize_t only)
{
	if (r->pressure)
		pressure_html(b, r, all, only);
	if (r->runq || r->runq_why)
		runq_html(b, r, all, only);
}
