/* sink-html-check.c: the incident page of one check (`cgwatch check --format html`): the
 * verdict and each finding's sentence; its wait chain drawn (waiter -> worker -> starved CPUs
 * -> spinner); the CPU map with the starved CPUs and their spinners; the time axis of when
 * each task blocked, with the place the flight recorder's events go; the stacks, alike tasks as
 * one entry with their count and the signature's frames marked, user stacks beside; evidence,
 * remedies, references. The daemon's page of an incident is this page with the incident's
 * header, its finding only and more marks on the time axis (report_html_page, called by
 * sink-html-incident.c). Built on sink-html.c: every host string escaped there. */
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static const char *sev_word(enum cgw_sev s)
{
	return s == SEV_CRITICAL ? "CRITICAL" : s == SEV_WARNING ? "WARNING" :
	       s == SEV_INFO ? "INFO" : "-";
}

/* The runner a starved CPU belongs to: the real-time one first, never a starved task. */
static const struct cgw_runner *spinner_on(const struct cgw_scan *s, int cpu)
{
	const struct cgw_runner *best = NULL;
	for (size_t i = 0; i < s->nrunners; i++) {
		const struct cgw_runner *u = &s->runners[i];
		if (u->cpu != cpu)
			continue;
		bool starved = false;
		for (size_t k = 0; k < s->n && !starved; k++)
			starved = s->t[k].tid == u->tid && s->t[k].suspect == SUSPECT_STARVED;
		if (starved)
			continue;
		bool rt = u->policy == 1 || u->policy == 2;
		bool brt = best && (best->policy == 1 || best->policy == 2);
		if (!best || (rt && !brt) || (rt && brt && u->rt_priority > best->rt_priority))
			best = u;
	}
	return best;
}

/* Does f hold tasks starved of their CPU? Only then are its CPUs where work is starved
 * (a finding of blocked tasks alone names the CPUs they are on). */
static bool finding_starves(const struct cgw_scan *s, const struct cgw_finding *f)
{
	if (cpus_empty(&f->cpus))
		return false;
	for (size_t i = 0; i < f->ntasks; i++)
		if (s->t[f->tasks[i]].suspect == SUSPECT_STARVED)
			return true;
	return false;
}

/* ---- the wait chain as a graph ---- */

struct node { struct strbuf l[3]; const char *cls; const char *edge; };

static void node_free(struct node *n)
{
	for (int i = 0; i < 3; i++)
		sb_free(&n->l[i]);
}

static size_t node_width(const struct node *n)
{
	size_t w = 0;
	for (int i = 0; i < 3; i++) {
		/* entities count one column each: measure the text, not the markup */
		size_t c = 0;
		for (size_t k = 0; k < n->l[i].len; k++) {
			char ch = n->l[i].s[k];
			if (ch == '&')
				while (k < n->l[i].len && n->l[i].s[k] != ';')
					k++;
			c += ((unsigned char)ch & 0xc0) != 0x80;
		}
		w = c > w ? c : w;
	}
	return w * 15 / 2 + 24 < 150 ? 150 : w * 15 / 2 + 24;
}

static void task_node(struct node *n, const struct cgw_task *t)
{
	char d[48];
	sb_printf(&n->l[0], "%s %d", t->tid == t->tgid ? "PID" : "TID", t->tid);
	html_esc(&n->l[1], t->comm, t->comm_len);
	sb_printf(&n->l[2], "%s %s", t->state == 'D' ? "blocked" : "not run for",
	          dur_text(task_dur(t), d, sizeof(d)));
	n->cls = "node";
}

static void chain_svg(struct strbuf *b, const struct cgw_report *r, const struct cgw_finding *f)
{
	const struct cgw_scan *s = r->scan;
	size_t max = 8, nn = 0;
	struct node nodes[8];
	memset(nodes, 0, sizeof(nodes));
	size_t nchain = f->nchain ? f->nchain : (f->ntasks ? 1 : 0);
	const size_t *chain = f->nchain ? f->chain : f->tasks;
	size_t shown = 0;
	for (; shown < nchain && nn < max - 3; shown++) {
		task_node(&nodes[nn], &s->t[chain[shown]]);
		nodes[nn++].edge = shown ? "waits for" : NULL;
	}
	if (shown < nchain)
		sb_printf(&nodes[nn - 1].l[2], " (+%zu more)", nchain - shown);
	bool cpus = finding_starves(s, f);
	if (cpus) {
		char l[4096];
		struct node *n = &nodes[nn++];
		sb_printf(&n->l[0], "CPUs ");
		cpulist_format(&f->cpus, l, sizeof(l));
		html_s(&n->l[0], l);
		size_t starved = 0;
		for (size_t i = 0; i < f->ntasks; i++)
			starved += s->t[f->tasks[i]].suspect == SUSPECT_STARVED;
		sb_printf(&n->l[1], "work starved");
		if (starved)
			sb_printf(&n->l[2], "%zu starved task%s", starved, starved == 1 ? "" : "s");
		n->cls = "node cpus";
		n->edge = nn > 1 ? "work queued on" : NULL;
		/* who runs there: one node per kind (name, policy, priority) */
		const struct cgw_runner *kinds[2] = { NULL, NULL };
		size_t count[2] = { 0, 0 }, other = 0;
		long *ids[2] = { NULL, NULL };
		for (unsigned c = 0; c < CGW_MAX_CPUS; c++) {
			if (!cpus_test(&f->cpus, c))
				continue;
			const struct cgw_runner *u = spinner_on(s, (int)c);
			if (!u)
				continue;
			size_t k = 0;
			while (k < 2 && kinds[k] && !(kinds[k]->policy == u->policy &&
			       kinds[k]->rt_priority == u->rt_priority &&
			       kinds[k]->comm_len == u->comm_len &&
			       !memcmp(kinds[k]->comm, u->comm, u->comm_len)))
				k++;
			if (k == 2) {
				other++;
				continue;
			}
			if (!kinds[k]) {
				kinds[k] = u;
				ids[k] = calloc(CGW_MAX_CPUS, sizeof(long));
			}
			if (ids[k])
				ids[k][count[k]] = u->tid;
			count[k]++;
		}
		for (size_t k = 0; k < 2 && kinds[k]; k++) {
			struct node *m = &nodes[nn++];
			char il[256];
			if (ids[k])
				sb_printf(&m->l[0], "%s %s", count[k] == 1 ? "PID" : "PIDs",
				          idlist_format(ids[k], count[k], il, sizeof(il)));
			if (count[k] > 1)
				sb_printf(&m->l[1], "%zux ", count[k]);
			html_esc(&m->l[1], kinds[k]->comm, kinds[k]->comm_len);
			sb_printf(&m->l[2], "%s", policy_name(kinds[k]->policy));
			if (kinds[k]->rt_priority)
				sb_printf(&m->l[2], "/%u", kinds[k]->rt_priority);
			if (other && (k == 1 || !kinds[1]))
				sb_printf(&m->l[2], " (+%zu others)", other);
			m->cls = "node spin";
			m->edge = k ? NULL : "runs instead";
			free(ids[k]);
		}
	} else if (f->cause[0]) {
		struct node *n = &nodes[nn++];
		const char *sp = strchr(f->cause, ' ');
		size_t kl = sp ? (size_t)(sp - f->cause) : strlen(f->cause);
		html_esc(&n->l[0], f->cause, kl);
		if (sp)
			html_s(&n->l[1], sp + 1);
		n->cls = "node cause";
		n->edge = "waits on";
	}
	if (!nn) {
		sb_printf(b, "<p>No task to draw.</p>\n");
		return;
	}
	double x[8], w[8], gap = 110, H = 96, total = 10;
	for (size_t i = 0; i < nn; i++) {
		w[i] = (double)node_width(&nodes[i]);
		x[i] = total + (i ? gap : 0);
		total = x[i] + w[i];
	}
	total += 10;
	sb_printf(b, "<svg class=\"chain\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	          "height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\"><title>wait chain</title>\n"
	          "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
	          "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\"/>"
	          "</marker></defs>\n", total, H, total, H);
	for (size_t i = 0; i < nn; i++) {
		if (i) {
			double x1 = x[i - 1] + w[i - 1], x2 = x[i];
			/* a second spinner kind hangs off the CPUs too: the same edge, drawn again */
			sb_printf(b, "<line class=\"edge\" x1=\"%.0f\" y1=\"48\" x2=\"%.0f\" y2=\"48\" "
			          "marker-end=\"url(#arrow)\"/>", x1, x2 - 2);
			if (nodes[i].edge)
				sb_printf(b, "<text class=\"elabel\" x=\"%.0f\" y=\"40\" text-anchor=\"middle\">"
				          "%s</text>", (x1 + x2) / 2, nodes[i].edge);
			sb_printf(b, "\n");
		}
		sb_printf(b, "<g class=\"chain-node\"><rect class=\"%s\" x=\"%.0f\" y=\"12\" "
		          "width=\"%.0f\" height=\"72\" rx=\"6\"/>", nodes[i].cls, x[i], w[i]);
		for (int l = 0; l < 3; l++)
			if (nodes[i].l[l].len)
				sb_printf(b, "<text x=\"%.0f\" y=\"%d\">%s</text>", x[i] + 12, 32 + 20 * l,
				          nodes[i].l[l].s);
		sb_printf(b, "</g>\n");
	}
	sb_printf(b, "</svg>\n");
	for (size_t i = 0; i < nn; i++)
		node_free(&nodes[i]);
}

/* ---- the tasks and their stacks ---- */

static void ustack_html(struct strbuf *b, const struct cgw_task *t)
{
	if (!t->nuframes && !t->ustack_error[0])
		return;
	sb_printf(b, "<div><h4>User stack</h4>");
	if (t->ustack_same_as)
		sb_printf(b, "<p class=\"meta\">As TID %d's: the same pc and stack depth.</p>",
		          t->ustack_same_as);
	if (t->nuframes)
		sb_printf(b, "<ol class=\"stack\" start=\"0\">");
	for (size_t i = 0; i < t->nuframes; i++) {
		const struct cgw_uframe *f = &t->uframes[i];
		const char *mod = f->module[0] ? f->module : "[anonymous]";
		sb_printf(b, "<li%s>", f->fp_recovered ? " title=\"frame pointer recovered by stack "
		          "scan\"" : "");
		if (f->symbol[0]) {
			html_s(b, f->symbol);
			sb_printf(b, "+0x%lx (", f->sym_off);
			html_s(b, mod);
			sb_printf(b, "+0x%lx%s)", f->offset, ustack_sym_note(f));
		} else {
			html_s(b, mod);
			sb_printf(b, "+0x%lx", f->offset);
			if (f->symbol_why[0]) {
				sb_printf(b, " <span class=\"meta\">(no name: ");
				html_s(b, f->symbol_why);
				sb_printf(b, ")</span>");
			}
		}
		sb_printf(b, "</li>");
	}
	if (t->nuframes)
		sb_printf(b, "</ol>");
	if (t->ustack_error[0]) {
		sb_printf(b, "<p class=\"meta\">");
		html_s(b, t->ustack_error);
		sb_printf(b, "</p>");
	}
	sb_printf(b, "</div>");
}

static void entry_html(struct strbuf *b, const struct cgw_scan *s, const size_t *m, size_t n)
{
	const struct cgw_task *t = &s->t[m[0]];
	long *ids = malloc((n ? n : 1) * sizeof(long));
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	size_t *lens = malloc((n ? n : 1) * sizeof(*lens));
	struct cgw_cpus cpus;
	memset(&cpus, 0, sizeof(cpus));
	for (size_t i = 0; i < n; i++) {
		if (names && lens) {
			names[i] = s->t[m[i]].comm;
			lens[i] = s->t[m[i]].comm_len;
		}
		if (ids)
			ids[i] = s->t[m[i]].tid;
		if (s->t[m[i]].cpu >= 0)
			cpus_set(&cpus, (unsigned)s->t[m[i]].cpu);
	}
	char il[256], cl[4096], d[48];
	const char *kind = t->tid == t->tgid ? "PID" : "TID";
	sb_printf(b, "<div class=\"entry\"><p>");
	if (n > 1)
		sb_printf(b, "<span class=\"count\">x%zu</span> %ss %s ", n, kind,
		          ids ? idlist_format(ids, n, il, sizeof(il)) : "(not listed)");
	else
		sb_printf(b, "%s %d ", kind, t->tid);
	free(ids);
	/* alike names as one, the digits that differ as N ("kworker/N:1-mm_percpu_wq") */
	char *merged = n > 1 && names && lens ? text_merge(names, lens, n, true) : NULL;
	sb_printf(b, "(<code class=\"comm\">");
	if (merged && merged[0])
		html_s(b, merged);
	else
		html_esc(b, t->comm, t->comm_len);
	sb_printf(b, "</code>)");
	free(merged);
	free(names);
	free(lens);
	if (t->tid != t->tgid)
		sb_printf(b, " of PID %d", t->tgid);
	sb_printf(b, ": %s for %s%s, CPU%s %s, %s", t->state == 'D' ? "blocked (D)" :
	          "runnable (R), not run", dur_text(task_dur(t), d, sizeof(d)),
	          n > 1 ? " (the first)" : "", n > 1 ? "s" : "", cpulist_format(&cpus, cl, sizeof(cl)),
	          policy_name(t->policy));
	if (t->rt_priority)
		sb_printf(b, "/%u", t->rt_priority);
	if (t->cgroup[0]) {
		sb_printf(b, ", cgroup <code>");
		html_s(b, t->cgroup);
		sb_printf(b, "</code>");
	}
	if (t->unit[0]) {
		sb_printf(b, ", unit <code>");
		html_s(b, t->unit);
		sb_printf(b, "</code>");
	}
	if (t->frozen)
		sb_printf(b, ", frozen");
	sb_printf(b, "</p>\n<div class=\"stacks\"><div><h4>Kernel stack</h4>");
	if (t->stack_error[0]) {
		sb_printf(b, "<p class=\"meta\">");
		html_s(b, t->stack_error);
		sb_printf(b, "</p>");
	} else {
		sb_printf(b, "<ol class=\"stack\" start=\"0\">");
		for (size_t i = 0; i < t->nframes; i++) {
			bool hit = t->marks && t->marks[i];
			sb_printf(b, "<li%s>", hit ? " class=\"hit\" title=\"matched by the signature\"" :
			          "");
			html_s(b, t->frames[i].text);
			sb_printf(b, "</li>");
		}
		sb_printf(b, "</ol>");
	}
	sb_printf(b, "</div>");
	ustack_html(b, t);
	sb_printf(b, "</div></div>\n");
}

static void entries_html(struct strbuf *b, const struct cgw_report *r, const size_t *idx, size_t n)
{
	size_t *group = malloc((n ? n : 1) * sizeof(size_t));
	size_t *m = malloc((n ? n : 1) * sizeof(size_t));
	if (!group || !m) {
		free(group);
		free(m);
		sb_printf(b, "<p>(%zu tasks not shown: out of memory)</p>\n", n);
		return;
	}
	size_t ng = n;
	if (r->verbose)
		for (size_t i = 0; i < n; i++)
			group[i] = i;
	else
		ng = task_groups(r->scan->t, idx, n, group);
	for (size_t g = 0; g < ng; g++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g)
				m[k++] = idx[i];
		entry_html(b, r->scan, m, k);
	}
	free(m);
	free(group);
}

static void finding_html(struct strbuf *b, const struct cgw_report *r, size_t k)
{
	const struct cgw_finding *f = &r->f[k];
	const struct cgw_sig *s = f->sig;
	sb_printf(b, "<section class=\"finding\" id=\"finding-%zu\">\n<h2><span class=\"sev %s\">%s"
	          "</span> ", k, html_sev_class(f->severity), sev_word(f->severity));
	html_s(b, s->id);
	sb_printf(b, ": ");
	html_s(b, s->title);
	sb_printf(b, "</h2>\n");
	if (f->cause[0]) {
		sb_printf(b, "<p>Cause: <code>");
		html_s(b, f->cause);
		sb_printf(b, "</code></p>\n");
	}
	sb_printf(b, "<p class=\"summary\">");
	html_s(b, f->summary.len ? f->summary.s : s->summary);
	sb_printf(b, "</p>\n<h3>Wait chain</h3>\n");
	chain_svg(b, r, f);
	sb_printf(b, "<h3>Tasks and stacks</h3>\n<p class=\"meta\">Alike tasks are one entry with "
	          "their count; the frames the signature matched are marked.</p>\n");
	entries_html(b, r, f->tasks, f->ntasks);
	if (s->explanation) {
		sb_printf(b, "<h3>Why</h3><p>");
		html_s(b, s->explanation);
		sb_printf(b, "</p>\n");
	}
	if (f->evidence.len) {
		sb_printf(b, "<h3>Evidence</h3>\n");
		html_lines(b, f->evidence.s, !r->verbose);
	}
	const struct cgw_sig *rs = f->family ? f->family : s;   /* a latency finding's family */
	if (f->family) {
		sb_printf(b, "<p>Points to: ");
		html_s(b, f->family->id);
		sb_printf(b, " (");
		html_s(b, f->family->title);
		sb_printf(b, ")</p>\n");
	}
	html_numbered(b, "What to do (safest first)", rs->remedies, rs->nremedies);
	html_references(b, s->references, s->nreferences);
	sb_printf(b, "</section>\n");
}

/* Is finding k on the page (an incident's page shows its own finding only)? */
static bool shown(const struct html_page *p, size_t k)
{
	return !p || p->finding == (ssize_t)k;
}

/* The time axis: when each entry's tasks blocked (or last ran), the check at 0; an incident's
 * page adds its marks (its states, its tasks' recoveries). */
static void timeline_html(struct strbuf *b, const struct cgw_report *r,
                          const struct html_page *p)
{
	const struct cgw_scan *s = r->scan;
	size_t cap = 1 + (p ? p->nmarks : 0), n = 0;
	for (size_t k = 0; k < r->nf; k++)
		cap += r->f[k].ntasks;
	size_t nrec = 0;
	struct rec_line *rl = r->recorder && !r->recorder->why[0] ?
	                      recorder_report_lines(r->recorder, &nrec) : NULL;
	cap += nrec;
	struct html_tl_mark *m = calloc(cap, sizeof(*m));
	struct strbuf *lab = calloc(cap, sizeof(*lab));
	size_t *group = calloc(cap, sizeof(size_t));
	if (!m || !lab || !group) {
		sb_printf(b, "<p>(not drawn: out of memory)</p>\n");
		goto out;
	}
	for (size_t k = 0; k < r->nf; k++) {
		const struct cgw_finding *f = &r->f[k];
		if (!shown(p, k))
			continue;
		size_t ng = task_groups(s->t, f->tasks, f->ntasks, group);
		for (size_t g = 0; g < ng && n + 1 < cap; g++) {
			size_t cnt = 0, first = 0;
			double lo = 0;
			for (size_t i = 0; i < f->ntasks; i++)
				if (group[i] == g) {
					double d = s->t[f->tasks[i]].blocked_s;
					if (!cnt || d > lo) {
						lo = d;
						first = f->tasks[i];
					}
					cnt++;
				}
			const struct cgw_task *t = &s->t[first];
			char c[CGW_COMM_MAX * 4];
			if (cnt > 1)
				sb_printf(&lab[n], "x%zu ", cnt);
			sb_printf(&lab[n], "%s %d (%s) %s", t->tid == t->tgid ? "PID" : "TID", t->tid,
			          cescape(t->comm, t->comm_len, c, sizeof(c)),
			          t->state == 'D' ? "blocked" : "last ran");
			if (task_dur(t).bound != BOUND_EXACT)
				sb_printf(&lab[n], " (%s)", task_dur(t).bound == BOUND_LOWER ? "at the latest" :
				          "time unknown");
			m[n].at_s = -lo;
			m[n].kind = t->state == 'D' ? "blocked" : "starved";
			n++;
		}
	}
	/* the flight recorder's sentences, each a mark of its kind, on the same axis: from the
	 * moment its anchor task blocked as this scan times it (an incident's later pages), else
	 * from its readout, which followed its scan by milliseconds */
	double roff = 0;
	bool ranch = false;
	for (size_t i = 0; rl && i < s->n && !ranch; i++)
		if (r->recorder->have_anchor && s->t[i].tid == r->recorder->anchor_tid &&
		    s->t[i].blocked_s > 0) {
			roff = -s->t[i].blocked_s;
			ranch = true;
		}
	for (size_t i = 0; i < nrec && n + 1 < cap; i++) {
		sb_printf(&lab[n], "%s", rl[i].text);
		m[n].at_s = ranch ? rl[i].at + roff : rl[i].t - r->recorder->read_at;
		m[n].kind = rl[i].kind;
		n++;
	}
	sb_printf(&lab[n], "%s", p && p->now_label ? p->now_label : "this check");
	m[n].at_s = 0;
	m[n].kind = "now";
	n++;
	for (size_t i = 0; i < n; i++) {
		m[i].label = lab[i].s ? lab[i].s : "";
		m[i].label_len = lab[i].len;
	}
	for (size_t i = 0; p && i < p->nmarks && n < cap; i++)
		m[n++] = p->marks[i];
	html_timeline(b, m, n);
out:
	for (size_t i = 0; lab && i < cap; i++)
		sb_free(&lab[i]);
	free(lab);
	free(m);
	free(group);
	free(rl);
}

/* The flight recorder's section: its sentences in time order, what it lost or lacks. */
static void recorder_html(struct strbuf *b, const struct cgw_report *r)
{
	const struct cgw_recwin *w = r->recorder;
	sb_printf(b, "<section id=\"recorder-events\"><h3>Kernel events before the hang</h3>\n");
	if (!w) {
		sb_printf(b, "<p class=\"meta\">None here: a one-off check keeps no flight recorder."
		          "</p>\n</section>\n");
		return;
	}
	if (w->why[0]) {
		sb_printf(b, "<p class=\"meta\">Not recorded: ");
		html_s(b, w->why);
		sb_printf(b, "</p>\n</section>\n");
		return;
	}
	sb_printf(b, "<p class=\"meta\">The flight recorder's last %.0f s", w->window_s);
	if (w->have_anchor) {
		sb_printf(b, "; seconds from the moment ");
		html_s(b, w->anchor);
	}
	sb_printf(b, ".</p>\n");
	size_t n;
	struct rec_line *l = recorder_report_lines(w, &n);
	if (n) {
		sb_printf(b, "<ol class=\"recorder\">\n");
		for (size_t i = 0; i < n; i++) {
			sb_printf(b, "<li class=\"%s\"><b>%+.1f s</b> ", l[i].kind, l[i].at);
			html_s(b, l[i].text);
			sb_printf(b, "</li>\n");
		}
		sb_printf(b, "</ol>\n");
	} else {
		sb_printf(b, "<p>None in the window.</p>\n");
	}
	free(l);
	if (w->ev.lost)
		sb_printf(b, "<p>The ring lost %llu events.</p>\n", (unsigned long long)w->ev.lost);
	if (w->missing[0]) {
		sb_printf(b, "<p>Not recorded: ");
		html_s(b, w->missing);
		sb_printf(b, "</p>\n");
	}
	sb_printf(b, "</section>\n");
}

void report_html(const struct cgw_report *r, FILE *out)
{
	report_html_page(r, NULL, out);
}

void report_html_page(const struct cgw_report *r, const struct html_page *p, FILE *out)
{
	const struct cgw_scan *s = r->scan;
	struct strbuf b = { 0 };
	enum cgw_sev max = report_max_severity(r);
	char title[400];
	snprintf(title, sizeof(title), "cgwatch: %s on %s", r->nf ? (r->f[0].sig->id) :
	         "nothing found", s->host[0] ? s->host : "?");
	html_open(&b, p ? p->title : title);
	if (p) {
		sb_printf(&b, "<header>\n%s</header>\n", p->header ? p->header : "");
		goto findings;
	}
	sb_printf(&b, "<header>\n<h1>cgwatch check of ");
	html_s(&b, s->host[0] ? s->host : "?");
	sb_printf(&b, "</h1>\n<p class=\"meta\">Kernel ");
	html_s(&b, s->kernel[0] ? s->kernel : "?");
	sb_printf(&b, "; %zu threads read, %s; threshold %.0f s.</p>\n", s->threads,
	          s->live ? "live" : "a replayed tree", r->threshold_s);
	sb_printf(&b, "<div class=\"verdict %s\" id=\"verdict\">", html_sev_class(max));
	if (!r->nf)
		sb_printf(&b, "Nothing found: no task blocked or starved past the threshold.");
	else
		sb_printf(&b, "%s: %zu finding%s", sev_word(max), r->nf, r->nf == 1 ? "" : "s");
	sb_printf(&b, "</div>\n");
	if (r->nf) {
		sb_printf(&b, "<ul class=\"summaries\">\n");
		for (size_t k = 0; k < r->nf; k++) {
			const struct cgw_finding *f = &r->f[k];
			sb_printf(&b, "<li><a href=\"#finding-%zu\"><span class=\"sev %s\">%s</span> ", k,
			          html_sev_class(f->severity), sev_word(f->severity));
			html_s(&b, f->sig->id);
			sb_printf(&b, "</a>: ");
			html_s(&b, f->summary.len ? f->summary.s : f->sig->summary);
			sb_printf(&b, "</li>\n");
		}
		sb_printf(&b, "</ul>\n");
	}
	sb_printf(&b, "</header>\n");
findings:
	for (size_t k = 0; k < r->nf; k++)
		if (shown(p, k))
			finding_html(&b, r, k);
	html_latency(&b, r, !p, p ? p->finding : -1);   /* pressure, run-queue latency */

	/* the CPU map: the starved CPUs of every finding, the spinner on each */
	struct cgw_cpus starved;
	memset(&starved, 0, sizeof(starved));
	for (size_t k = 0; k < r->nf; k++)
		if (shown(p, k) && finding_starves(s, &r->f[k]))
			cpus_or(&starved, &r->f[k].cpus);
	struct html_cpu_mark *mk = calloc(CGW_MAX_CPUS, sizeof(*mk));
	size_t nmk = 0;
	for (unsigned c = 0; mk && c < CGW_MAX_CPUS; c++) {
		if (!cpus_test(&starved, c))
			continue;
		const struct cgw_runner *u = spinner_on(s, (int)c);
		if (!u)
			continue;
		char comm[CGW_COMM_MAX * 4];
		mk[nmk].cpu = (int)c;
		mk[nmk].pid = u->tid;
		snprintf(mk[nmk].label, sizeof(mk[nmk].label), "%d (%s) %s/%u", u->tid,
		         cescape(u->comm, u->comm_len, comm, sizeof(comm)), policy_name(u->policy),
		         u->rt_priority);
		nmk++;
	}
	sb_printf(&b, "<section id=\"cpumap\"><h2>CPU map</h2>\n");
	struct html_cpumap map = { &s->topo.online, &s->topo.isolated, &s->topo.nohz_full,
	                           &starved, mk, nmk };
	html_cpumap(&b, &map);
	free(mk);
	sb_printf(&b, "</section>\n<section id=\"timeline\"><h2>Timeline</h2>\n<p class=\"meta\">"
	          "%s%s</p>\n", p && p->axis_note ? p->axis_note :
	          "Seconds before this check: when each task blocked (or last ran).",
	          r->recorder && !r->recorder->why[0] ? " The kernel's events the flight recorder "
	          "kept are marks of their own (listed below)." : "");
	timeline_html(&b, r, p);
	recorder_html(&b, r);
	sb_printf(&b, "</section>\n");
	html_close(&b);
	html_write(&b, out);
	sb_free(&b);
}
