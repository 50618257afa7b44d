/* report-text.c: the report for a person at 3 a.m. — findings first, most severe first, each
 * with its tasks, how long, and the stack with the signature's frames marked; then one
 * summary line. Task strings are C-escaped: a name cannot start a line or move the cursor. */
#include <string.h>
#include <time.h>

#include "cgwatch.h"
#include "rates.h"

static const char *sev_label(enum cgw_sev s)
{
	switch (s) {
	case SEV_CRITICAL: return "CRITICAL";
	case SEV_WARNING: return "WARNING";
	case SEV_INFO: return "INFO";
	default: return "-";
	}
}

/* Print text word-wrapped at 100 columns, every line starting with indent (the first after
 * `lead`). Signature texts are trusted (they come from the library, not from tasks). */
static void wrap(FILE *out, const char *indent, const char *lead, const char *text)
{
	size_t col = fprintf(out, "%s%s", indent, lead) > 0 ? strlen(indent) + strlen(lead) : 0;
	const char *p = text;
	bool first = true;
	while (*p) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (n == 0)
			break;
		if (!first && col + 1 + n > 100) {
			fprintf(out, "\n%s%*s", indent, (int)strlen(lead), "");
			col = strlen(indent) + strlen(lead);
		} else if (!first) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n;
		first = false;
	}
	fputc('\n', out);
}

static void task_line(const struct cgw_task *t, FILE *out, const char *indent)
{
	char comm[CGW_COMM_MAX * 4], cg[1024];
	cescape(t->comm, t->comm_len, comm, sizeof(comm));
	fprintf(out, "%s%s %d (%s)", indent, t->tid == t->tgid ? "PID" : "TID", t->tid, comm);
	if (t->tid != t->tgid)
		fprintf(out, " of PID %d", t->tgid);
	char d[48];
	/* an R task's exec_start says when it last ran, not when it became runnable */
	fprintf(out, ": %s for %s", t->state == 'D' ? "blocked (D)" : "runnable (R), not run",
	        dur_text(task_dur(t), d, sizeof(d)));
	if (t->bound == BOUND_UNKNOWN && t->age_s >= 0)
		fprintf(out, " (at most %.1f s, its age)", t->age_s);
	fprintf(out, ", CPU %d, %s", t->cpu, policy_name(t->policy));
	if (t->rt_priority)
		fprintf(out, "/%u", t->rt_priority);
	if (t->cgroup[0])
		fprintf(out, ", cgroup %s", cescape(t->cgroup, strlen(t->cgroup), cg, sizeof(cg)));
	if (t->unit[0])
		fprintf(out, ", unit %s", cescape(t->unit, strlen(t->unit), cg, sizeof(cg)));
	if (t->frozen)
		fprintf(out, ", frozen");
	if (t->vfork_child)
		fprintf(out, ", vfork child %d", t->vfork_child);
	fputc('\n', out);
	if (t->stack_error[0]) {
		fprintf(out, "%s    %s\n", indent, t->stack_error);
		return;
	}
	for (size_t i = 0; i < t->nframes; i++)
		fprintf(out, "%s  %s %s\n", indent, t->marks && t->marks[i] ? ">>" : "  ",
		        cescape(t->frames[i].text, strlen(t->frames[i].text), cg, sizeof(cg)));
}

static void finding_text(const struct cgw_report *r, const struct cgw_finding *f, FILE *out);

void report_text_finding(const struct cgw_report *r, size_t k, FILE *out)
{
	finding_text(r, &r->f[k], out);
}

static void finding_text(const struct cgw_report *r, const struct cgw_finding *f, FILE *out)
{
	const struct cgw_sig *s = f->sig;
	fprintf(out, "%-8s %s: %s\n", sev_label(f->severity), s->id, s->title);
	wrap(out, "  ", "", f->summary.len ? f->summary.s : s->summary);
	if (f->nchain > 1) {
		fprintf(out, "  Wait chain, outermost first:");
		for (size_t i = 0; i < f->nchain; i++) {
			const struct cgw_task *t = &r->scan->t[f->chain[i]];
			char comm[CGW_COMM_MAX * 4];
			fprintf(out, "%s%d (%s)", i ? " -> " : " ", t->tid,
			        cescape(t->comm, t->comm_len, comm, sizeof(comm)));
		}
		if (!cpus_empty(&f->cpus) && f->ntasks > f->nchain) {
			char list[4096];
			fprintf(out, " -> CPUs %s", cpulist_format(&f->cpus, list, sizeof(list)));
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < f->ntasks; i++)
		task_line(&r->scan->t[f->tasks[i]], out, "  ");
	if (s->explanation)
		wrap(out, "  ", "Why: ", s->explanation);
	if (f->evidence.len) {
		fprintf(out, "  Evidence:\n");
		for (const char *l = f->evidence.s; *l;) {
			size_t n = strcspn(l, "\n");
			fprintf(out, "    - %.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
	}
	if (s->nremedies) {
		fprintf(out, "  What to do (safest first):\n");
		for (size_t i = 0; i < s->nremedies; i++) {
			char num[24];
			snprintf(num, sizeof(num), "%zu. ", i + 1);
			wrap(out, "    ", num, s->remedies[i]);
		}
	}
	for (size_t i = 0; i < s->nreferences; i++)
		fprintf(out, "  See: %s\n", s->references[i]);
	fputc('\n', out);
}

void report_text(const struct cgw_report *r, FILE *out)
{
	const struct cgw_scan *s = r->scan;
	char host[512], kernel[512], ts[32], a[4096], b[4096], c[4096], d[4096];
	time_t now = time(NULL);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(out, "cgwatch check on %s (kernel %s) at %s\n",
	        cescape(s->host, strlen(s->host), host, sizeof(host)),
	        cescape(s->kernel, strlen(s->kernel), kernel, sizeof(kernel)), ts);
	fprintf(out, "CPUs online %s; isolated %s; nohz_full %s; housekeeping %s\n\n",
	        cpulist_format(&s->topo.online, a, sizeof(a)),
	        cpus_empty(&s->topo.isolated) ? "none" : cpulist_format(&s->topo.isolated, b, sizeof(b)),
	        cpus_empty(&s->topo.nohz_full) ? "none" : cpulist_format(&s->topo.nohz_full, c, sizeof(c)),
	        cpulist_format(&s->topo.housekeeping, d, sizeof(d)));

	size_t count[4] = { 0 }, ntasks = 0;
	for (size_t k = 0; k < r->nf; k++) {
		finding_text(r, &r->f[k], out);
		count[r->f[k].severity]++;
		ntasks += r->f[k].ntasks;
	}
	if (r->all) {
		bool header = false;
		for (size_t i = 0; i < s->n; i++) {
			bool listed = false;
			for (size_t k = 0; k < r->nf && !listed; k++)
				for (size_t j = 0; j < r->f[k].ntasks && !listed; j++)
					listed = r->f[k].tasks[j] == i;
			if (listed)
				continue;
			if (!header)
				fprintf(out, "Below the %.0f s threshold:\n", r->threshold_s);
			header = true;
			task_line(&s->t[i], out, "  ");
		}
		if (header)
			fputc('\n', out);
	}
	if (r->nf == 0)
		fprintf(out, "No task blocked or starved at or above the threshold (%.0f s).\n",
		        r->threshold_s);
	if (r->rates)
		rates_text(r->rates, out);
	fprintf(out, "summary: %zu finding%s (%zu critical, %zu warning, %zu info) in %zu task%s; "
	        "%zu threads scanned in %.1f ms\n", r->nf, r->nf == 1 ? "" : "s",
	        count[SEV_CRITICAL], count[SEV_WARNING], count[SEV_INFO], ntasks,
	        ntasks == 1 ? "" : "s", s->threads, (double)s->scan_usec / 1000.0);
	if (s->untimed)
		fprintf(out, "note: %zu task%s in D for a time the kernel does not show (se.exec_start "
		        "was reset when the kernel moved %s between CPUs) %s not listed; --all lists "
		        "%s, and the daemon times them from its first sight\n", s->untimed,
		        s->untimed == 1 ? "" : "s", s->untimed == 1 ? "it" : "them",
		        s->untimed == 1 ? "is" : "are", s->untimed == 1 ? "it" : "them");
	if (s->errors)
		fprintf(out, "note: %d /proc file%s could not be read or parsed (see the messages "
		        "above); those tasks are missing from this report\n", s->errors,
		        s->errors == 1 ? "" : "s");
}
