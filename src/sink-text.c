/* sink-text.c: the report for a person at 3 a.m. — findings first, most severe first, each
 * with its tasks, how long, and the stack with the signature's frames marked; then one
 * summary line. Task strings are C-escaped: a name cannot start a line or move the cursor.
 * One screen per incident: alike tasks are one entry ("x56 PIDs ...", the stack once) and
 * alike evidence lines one line (sink-textgroup.c); --verbose prints them all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"
#include "kmsg.h"
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

/* How long the tasks m[0..n-1] of one entry (one bound: tasks_alike) have been off the CPU:
 * "122.4 s", "at least 5.0 s", "an unknown time (at most 3.0 s, its age)", or for an entry
 * whose tasks differ the range, "122.5-122.7 s". Every duration the text report gives a task
 * is written here. */
static char *duration_text(const struct cgw_scan *s, const size_t *m, size_t n, char *out,
                           size_t cap)
{
	struct cgw_dur lo = task_dur(&s->t[m[0]]), hi = lo;
	double age = s->t[m[0]].age_s;
	for (size_t i = 1; i < n; i++) {
		struct cgw_dur d = task_dur(&s->t[m[i]]);
		lo.s = d.s < lo.s ? d.s : lo.s;
		hi.s = d.s > hi.s ? d.s : hi.s;
		age = s->t[m[i]].age_s > age ? s->t[m[i]].age_s : age;
	}
	char a[48], b[48];
	dur_text(lo, a, sizeof(a));
	dur_text(hi, b, sizeof(b));
	size_t len = strlen(a);
	if (strcmp(a, b) == 0 || len < 2)
		snprintf(out, cap, "%s", a);
	else                                  /* "at least 5.0 s" .. 7.0: "at least 5.0-7.0 s" */
		snprintf(out, cap, "%.*s-%.1f s", (int)(len - 2), a, hi.s);
	if (lo.bound == BOUND_UNKNOWN && age >= 0) {
		len = strlen(out);
		snprintf(out + len, cap - len, " (at most %.1f s, %s age)", age, n > 1 ? "their" : "its");
	}
	return out;
}

/* The user stack under the kernel's (source-ustack.c), when one was unwound or tried:
 * "#N SYMBOL+0xOFF (MODULE+0xOFFSET)", innermost first, then why it ends, if it says. */
static void ustack_lines(const struct cgw_task *t, FILE *out, const char *indent)
{
	char m[512], sym[1100];
	if (!t->nuframes && !t->ustack_error[0])
		return;
	if (t->nuframes) {
		if (t->ustack_same_as)
			fprintf(out, "%s    user stack (read without stopping it; as TID %d's: same pc "
			        "and stack depth):\n", indent, t->ustack_same_as);
		else
			fprintf(out, "%s    user stack (read without stopping it):\n", indent);
	}
	for (size_t i = 0; i < t->nuframes; i++) {
		const struct cgw_uframe *f = &t->uframes[i];
		if (f->fp_recovered && (i == 0 || !t->uframes[i - 1].fp_recovered))
			fprintf(out, "%s      (frame pointer recovered by stack scan: the frames from here "
			        "on rest on it)\n", indent);
		cescape(f->module[0] ? f->module : "[anonymous]", strlen(f->module[0] ? f->module :
		        "[anonymous]"), m, sizeof(m));
		if (f->symbol[0]) {
			fprintf(out, "%s      #%zu %s+0x%lx (%s+0x%lx%s)\n", indent, i,
			        cescape(f->symbol, strlen(f->symbol), sym, sizeof(sym)), f->sym_off, m,
			        f->offset, ustack_sym_note(f));
			continue;
		}
		/* why it has no name, at the first frame of its file that says it */
		bool said = !f->symbol_why[0];
		for (size_t k = 0; k < i && !said; k++)
			said = !t->uframes[k].symbol[0] && !strcmp(t->uframes[k].module, f->module) &&
			       !strcmp(t->uframes[k].symbol_why, f->symbol_why);
		if (said)
			fprintf(out, "%s      #%zu %s+0x%lx\n", indent, i, m, f->offset);
		else
			fprintf(out, "%s      #%zu %s+0x%lx (no name: %s)\n", indent, i, m, f->offset,
			        cescape(f->symbol_why, strlen(f->symbol_why), sym, sizeof(sym)));
	}
	if (t->ustack_error[0])
		fprintf(out, "%s    %s\n", indent,
		        cescape(t->ustack_error, strlen(t->ustack_error), m, sizeof(m)));
}

static bool same_ustack(const struct cgw_task *a, const struct cgw_task *b)
{
	if (strcmp(a->ustack_error, b->ustack_error) || a->nuframes != b->nuframes)
		return false;
	for (size_t i = 0; i < a->nuframes; i++)
		if (a->uframes[i].offset != b->uframes[i].offset ||
		    strcmp(a->uframes[i].module, b->uframes[i].module) ||
		    strcmp(a->uframes[i].symbol, b->uframes[i].symbol) ||
		    a->uframes[i].fp_recovered != b->uframes[i].fp_recovered ||
		    a->uframes[i].sym_task_mntns != b->uframes[i].sym_task_mntns)
			return false;
	return true;
}

static bool same_stack(const struct cgw_task *a, const struct cgw_task *b)
{
	if (strcmp(a->stack_error, b->stack_error) || a->nframes != b->nframes ||
	    !same_ustack(a, b))
		return false;
	for (size_t i = 0; i < a->nframes; i++)
		if (strcmp(a->frames[i].text, b->frames[i].text) ||
		    (a->marks && a->marks[i]) != (b->marks && b->marks[i]))
			return false;
	return true;
}

/* One entry of the report for both? Everything task_entry() prints must be the same, but the
 * id, the CPU, the duration and the digits of the name. */
static bool tasks_alike(const struct cgw_task *a, const struct cgw_task *b)
{
	bool thread = a->tid != a->tgid;
	if (a->suspect == SUSPECT_LATENCY || b->suspect == SUSPECT_LATENCY)
		return false;                 /* each says its own wait or hold: never merged */
	if (a->state != b->state || a->sig != b->sig || a->bound != b->bound ||
	    a->policy != b->policy ||
	    a->rt_priority != b->rt_priority || a->frozen != b->frozen ||
	    a->vfork_child != b->vfork_child || thread != (b->tid != b->tgid) ||
	    (thread && a->tgid != b->tgid) || strcmp(a->cgroup, b->cgroup) ||
	    strcmp(a->unit, b->unit) || !same_stack(a, b))
		return false;
	char x[CGW_COMM_MAX * 4], y[CGW_COMM_MAX * 4];
	cescape(a->comm, a->comm_len, x, sizeof(x));
	cescape(b->comm, b->comm_len, y, sizeof(y));
	return text_alike(x, strlen(x), y, strlen(y), true);
}

size_t task_groups(const struct cgw_task *t, const size_t *idx, size_t n, size_t *group)
{
	size_t *first = malloc((n ? n : 1) * sizeof(size_t));   /* each entry's first task */
	if (!first) {                         /* no memory to group: each task its own entry */
		for (size_t i = 0; i < n; i++)
			group[i] = i;
		return n;
	}
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		size_t g = 0;
		while (g < ng && !tasks_alike(&t[idx[first[g]]], &t[idx[i]]))
			g++;
		if (g == ng)
			first[ng++] = i;
		group[i] = g;
	}
	free(first);
	return ng;
}

/* The task line and its stack; for n alike tasks (m: scan indexes) one line starting with
 * "xN", ids listed, CPUs as a list, the name's differing digits as N, the stack once. */
static void task_entry(const struct cgw_scan *s, const size_t *m, size_t n, FILE *out,
                       const char *indent)
{
	const struct cgw_task *t = &s->t[m[0]];
	char (*comm)[CGW_COMM_MAX * 4] = malloc(n * sizeof(*comm));
	const char **names = calloc(n ? n : 1, sizeof(*names));
	size_t *lens = calloc(n ? n : 1, sizeof(*lens));
	long *ids = malloc(n * sizeof(*ids));
	if (!comm || !names || !lens || !ids) {   /* no memory to merge them: one by one */
		free(comm);
		free(names);
		free(lens);
		free(ids);
		if (n == 1)
			fprintf(out, "%s%s %d: (not printed: out of memory)\n", indent,
			        t->tid == t->tgid ? "PID" : "TID", t->tid);
		else
			for (size_t i = 0; i < n; i++)
				task_entry(s, &m[i], 1, out, indent);
		return;
	}
	struct cgw_cpus cpus;
	memset(&cpus, 0, sizeof(cpus));
	for (size_t i = 0; i < n; i++) {
		const struct cgw_task *u = &s->t[m[i]];
		names[i] = cescape(u->comm, u->comm_len, comm[i], sizeof(comm[i]));
		lens[i] = strlen(names[i]);
		ids[i] = u->tid;
		if (u->cpu >= 0)
			cpus_set(&cpus, (unsigned)u->cpu);
	}
	char *merged = text_merge(names, lens, n, true);
	const char *name = merged ? merged : n == 1 ? names[0] : "names not merged: out of memory";
	char idl[256], cpul[4096], dur[64], cg[1024];
	const char *kind = t->tid == t->tgid ? "PID" : "TID";
	if (n == 1)
		fprintf(out, "%s%s %d (%s)", indent, kind, t->tid, name);
	else
		fprintf(out, "%sx%zu %ss %s (%s)", indent, n, kind,
		        idlist_format(ids, n, idl, sizeof(idl)), name);
	if (t->tid != t->tgid)
		fprintf(out, " of PID %d", t->tgid);
	cpulist_format(&cpus, cpul, sizeof(cpul));
	/* an R task's exec_start says when it last ran, not when it became runnable */
	if (t->suspect == SUSPECT_LATENCY && t->lat_role == LAT_HELD)
		fprintf(out, ": held CPU %d for %.1f ms, ", t->lat_cpu, t->lat_ms);
	else if (t->suspect == SUSPECT_LATENCY && t->lat_role == LAT_WAITED && t->lat_ms > 0)
		fprintf(out, ": waited %.2f ms for CPU %d, ", t->lat_ms, t->lat_cpu);
	else if (t->suspect == SUSPECT_LATENCY)
		fprintf(out, ": runnable on CPU %d, ", t->lat_cpu);
	else
		fprintf(out, ": %s for %s, ", t->state == 'D' ? "blocked (D)" : "runnable (R), not run",
		        duration_text(s, m, n, dur, sizeof(dur)));
	if (t->suspect == SUSPECT_LATENCY)    /* its CPU is in its part, said above */
		fprintf(out, "%s", policy_name(t->policy));
	else if (n == 1)
		fprintf(out, "CPU %d, %s", t->cpu, policy_name(t->policy));
	else
		fprintf(out, "CPU%s %s, %s", strpbrk(cpul, ",-") ? "s" : "", cpul,
		        policy_name(t->policy));
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
	free(merged);
	free(ids);
	free(lens);
	free(names);
	free(comm);
	if (t->stack_error[0])
		fprintf(out, "%s    %s\n", indent, t->stack_error);
	for (size_t i = 0; i < t->nframes && !t->stack_error[0]; i++)
		fprintf(out, "%s  %s %s\n", indent, t->marks && t->marks[i] ? ">>" : "  ",
		        cescape(t->frames[i].text, strlen(t->frames[i].text), cg, sizeof(cg)));
	ustack_lines(t, out, indent);
}

/* The tasks idx[0..n-1] of the scan, alike ones as one entry unless verbose. */
static void task_entries(const struct cgw_scan *s, const size_t *idx, size_t n, bool verbose,
                         FILE *out, const char *indent)
{
	size_t *group = malloc((n ? n : 1) * sizeof(size_t));
	size_t *m = malloc((n ? n : 1) * sizeof(size_t));
	if (!group || !m) {
		free(group);
		free(m);
		fprintf(out, "%s(%zu task%s not printed: out of memory)\n", indent, n,
		        n == 1 ? "" : "s");
		return;
	}
	size_t ng = n;
	if (verbose)
		for (size_t i = 0; i < n; i++)
			group[i] = i;
	else
		ng = task_groups(s->t, idx, n, group);
	for (size_t g = 0; g < ng; g++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g)
				m[k++] = idx[i];
		task_entry(s, m, k, out, indent);
	}
	free(m);
	free(group);
}

static void finding_text(const struct cgw_report *r, const struct cgw_finding *f, FILE *out);

/* The text is built in memory, then written with anything that could control a terminal
 * escaped (term_write): task and host strings are C-escaped where they are printed, and
 * whatever else reaches a line (a kernel message, a mount point, a file name) cannot move the
 * cursor either. */
struct textout { FILE *f; char *s; size_t n; };

static FILE *textout_open(struct textout *t)
{
	t->s = NULL;
	t->n = 0;
	t->f = open_memstream(&t->s, &t->n);
	return t->f;
}

static void textout_close(struct textout *t, FILE *out)
{
	fclose(t->f);
	term_write(out, t->s, t->n, true);
	free(t->s);
}

void report_text_finding(const struct cgw_report *r, size_t k, FILE *out)
{
	struct textout t;
	if (!textout_open(&t)) {              /* no memory: unescaped text is not an option */
		fputs("(the finding could not be printed: out of memory)\n", out);
		return;
	}
	finding_text(r, &r->f[k], t.f);
	textout_close(&t, out);
}

static void finding_text(const struct cgw_report *r, const struct cgw_finding *f, FILE *out)
{
	const struct cgw_sig *s = f->sig;
	fprintf(out, "%-8s %s: %s\n", sev_label(f->severity), s->id, s->title);
	if (f->cause[0]) {
		char cause[CGW_CAUSE_MAX * 4];
		fprintf(out, "  Cause: %s\n", cescape(f->cause, strlen(f->cause), cause, sizeof(cause)));
	}
	if (f->family)                        /* a latency finding's (diagnose-latency.c) */
		fprintf(out, "  Points to: %s (%s)\n", f->family->id, f->family->title);
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
	task_entries(r->scan, f->tasks, f->ntasks, r->verbose, out, "  ");
	if (s->explanation)
		wrap(out, "  ", "Why: ", s->explanation);
	if (f->evidence.len) {
		char *ev = r->verbose ? NULL : lines_group(f->evidence.s);
		fprintf(out, "  Evidence:\n");
		for (const char *l = ev ? ev : f->evidence.s; *l;) {
			size_t n = strcspn(l, "\n");
			fprintf(out, "    - %.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
		free(ev);
	}
	const struct cgw_sig *rs = f->family ? f->family : s;   /* the family's remedies */
	if (rs->nremedies) {
		fprintf(out, "  What to do (safest first):\n");
		for (size_t i = 0; i < rs->nremedies; i++) {
			char num[24];
			snprintf(num, sizeof(num), "%zu. ", i + 1);
			wrap(out, "    ", num, rs->remedies[i]);
		}
	}
	for (size_t i = 0; i < s->nreferences; i++)
		fprintf(out, "  See: %s\n", s->references[i]);
	fputc('\n', out);
}

static void report_text_raw(const struct cgw_report *r, FILE *out);

void report_text(const struct cgw_report *r, FILE *out)
{
	struct textout t;
	if (!textout_open(&t)) {
		fputs("(the report could not be printed: out of memory)\n", out);
		return;
	}
	report_text_raw(r, t.f);
	textout_close(&t, out);
}

/* One "not read:" line: what, why (both C-escaped), and what it costs. */
static void not_read(FILE *out, const char *what, const char *why, const char *cost)
{
	char w[1024], y[1024];
	fprintf(out, "not read: %s: %s: %s\n", cescape(what, strlen(what), w, sizeof(w)),
	        cescape(why, strlen(why), y, sizeof(y)), cost);
}

void report_text_sources(const struct cgw_report *r, FILE *out)
{
	const struct cgw_kmsg *k = r->kmsg;
	/* a replay without a capture of the ring has nothing to read: not a failure */
	if (k && k->error && (r->scan->live || k->error != -ENOENT)) {
		char what[600];
		snprintf(what, sizeof(what), "kernel messages: %s", k->source);
		not_read(out, what, strerror(-k->error), "the kernel's own hung-task, lockup and "
		         "stall reports are not linked");
	}
	const struct cgw_rates *rt = r->rates;
	if (rt && rates_windowed(rt) && rt->source != RATES_SRC_PERF) {
		const char *why = NULL;
		for (int e = 0; e < RATE_NEV && !why; e++)
			if (rt->ev[e].missing && rt->ev[e].why[0])
				why = rt->ev[e].why;
		if (why)
			not_read(out, "cgroup event counts (perf)", why, "counted from /proc/cgroups and "
			         "/proc/stat instead: no per-event counts for the correlators");
	}
	if (rt && rt->cgroups_err[0] &&
	    (rates_windowed(rt) || !strstr(rt->cgroups_err, strerror(ENOENT))))
		not_read(out, "cgroup counts", rt->cgroups_err, "no count of cgroups per controller");
	const struct cgw_scan *s = r->scan;
	size_t nstack = 0;
	const char *first = NULL;
	bool others = false;
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		if (t->suspect == SUSPECT_NONE || !t->stack_error[0] || t->gone)
			continue;
		const char *why = t->stack_error;
		if (strncmp(why, "stack unreadable: ", 18) == 0)
			why += 18;
		nstack++;
		if (!first)
			first = why;
		else if (strcmp(first, why) != 0)
			others = true;
	}
	if (nstack) {
		char what[64], why[256];
		snprintf(what, sizeof(what), "kernel stacks of %zu task%s", nstack,
		         nstack == 1 ? "" : "s");
		snprintf(why, sizeof(why), "%s%s", first, others ? " (and other reasons)" : "");
		not_read(out, what, why, nstack == 1 ? "its wait is not matched to a signature" :
		         "their waits are not matched to a signature");
	}
}

static void report_text_raw(const struct cgw_report *r, FILE *out)
{
	const struct cgw_scan *s = r->scan;
	char host[512], kernel[512], ts[32], a[4096], b[4096], c[4096], d[4096];
	time_t now = time(NULL);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fprintf(out, "cgwatch check on %s (kernel %s) at %s\n",
	        cescape(s->host, strlen(s->host), host, sizeof(host)),
	        cescape(s->kernel, strlen(s->kernel), kernel, sizeof(kernel)), ts);
	fprintf(out, "CPUs online %s; isolated %s; nohz_full %s; housekeeping %s\n",
	        cpulist_format(&s->topo.online, a, sizeof(a)),
	        cpus_empty(&s->topo.isolated) ? "none" : cpulist_format(&s->topo.isolated, b, sizeof(b)),
	        cpus_empty(&s->topo.nohz_full) ? "none" : cpulist_format(&s->topo.nohz_full, c, sizeof(c)),
	        cpulist_format(&s->topo.housekeeping, d, sizeof(d)));
	report_text_pressure(r, out);
	report_text_sources(r, out);
	fputc('\n', out);

	size_t count[4] = { 0 }, ntasks = 0;
	for (size_t k = 0; k < r->nf; k++) {
		finding_text(r, &r->f[k], out);
		count[r->f[k].severity]++;
		ntasks += r->f[k].ntasks;
	}
	if (r->all) {
		size_t *below = try_reallocarray(NULL, s->n ? s->n : 1, sizeof(size_t)), nbelow = 0;
		for (size_t i = 0; i < s->n && below; i++)
			if (report_finding_of(r, i) < 0)
				below[nbelow++] = i;
		if (!below)
			fprintf(out, "Below the %.0f s threshold: not listed (out of memory)\n\n",
			        r->threshold_s);
		else if (nbelow) {
			fprintf(out, "Below the %.0f s threshold:\n", r->threshold_s);
			task_entries(s, below, nbelow, r->verbose, out, "  ");
			fputc('\n', out);
		}
		free(below);
	}
	if (r->nf == 0)
		fprintf(out, "No task blocked or starved at or above the threshold (%.0f s).\n",
		        r->threshold_s);
	report_text_recorder(r, out);
	if (r->rates)
		rates_text(r->rates, out);
	else if (r->rates_skipped)
		fputs("cgroup activity: not counted (no finding needs it; --rates counts it over "
		      "1 s)\n", out);
	fprintf(out, "summary: %zu finding%s (%zu critical, %zu warning, %zu info) in %zu task%s; "
	        "%zu threads scanned in %.1f ms\n", r->nf, r->nf == 1 ? "" : "s",
	        count[SEV_CRITICAL], count[SEV_WARNING], count[SEV_INFO], ntasks,
	        ntasks == 1 ? "" : "s", s->threads, (double)s->scan_usec / 1000.0);
	if (s->untimed)
		fprintf(out, "note: %zu task%s in D for a time this look cannot establish (se.exec_start "
		        "reset when the kernel moved %s between CPUs, on a CPU whose clock cgwatch "
		        "cannot read, or in a sched file it cannot parse) %s not listed; --all lists %s, "
		        "and the daemon times them from its first sight\n", s->untimed,
		        s->untimed == 1 ? "" : "s", s->untimed == 1 ? "it" : "them",
		        s->untimed == 1 ? "is" : "are", s->untimed == 1 ? "it" : "them");
	if (s->errors) {
		fprintf(out, "note: %d file%s could not be read or parsed:\n", s->errors,
		        s->errors == 1 ? "" : "s");
		for (size_t i = 0; i < s->nunreadable; i++) {
			const struct cgw_unreadable *u = &s->unreadable[i];
			char p[sizeof(u->path) * 4], w[sizeof(u->why) * 4];
			fprintf(out, "  %s: %s\n", cescape(u->path, strlen(u->path), p, sizeof(p)),
			        cescape(u->why, strlen(u->why), w, sizeof(w)));
		}
		if ((size_t)s->errors > s->nunreadable)
			fprintf(out, "  and %zu more (see the messages above)\n",
			        (size_t)s->errors - s->nunreadable);
	}
}
