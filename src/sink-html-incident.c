/* sink-html-incident.c: the page of one of the daemon's incidents, <id>.html beside its
 * reports: the check's page of the scan that made the report (sink-html-check.c), its
 * incident's finding only, under a header of what the daemon knows and a check does not (the
 * incident's state, times, bundle, every task it held and when each recovered) and with the
 * incident's states on the time axis. Every host string escaped (sink-html.c). */
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* At most this many of the newest states, and of the tasks' recoveries, on the axis. */
#define AXIS_STATES 24
#define AXIS_TASKS 16

static const char *sev_word(enum cgw_sev s)
{
	return s == SEV_CRITICAL ? "CRITICAL" : s == SEV_WARNING ? "WARNING" :
	       s == SEV_INFO ? "INFO" : "-";
}

static void when(struct strbuf *b, const char *what, double epoch)
{
	char ts[32];
	if (epoch > 0)
		sb_printf(b, "%s %s; ", what, iso_time(epoch, ts, sizeof(ts)));
}

static void header(struct strbuf *b, const struct cgw_report *r, const struct incident *i,
                   enum inc_state st, ssize_t finding)
{
	const struct cgw_scan *s = r->scan;
	char msg[1024], ts[32], d[96];
	sb_printf(b, "<h1>cgwatch incident ");
	html_s(b, i->id);
	sb_printf(b, "</h1>\n<p class=\"meta\">Host ");
	html_s(b, s->host[0] ? s->host : "?");
	sb_printf(b, ", kernel ");
	html_s(b, s->kernel[0] ? s->kernel : "?");
	sb_printf(b, "; signature <code>");
	html_s(b, i->sig);
	sb_printf(b, "</code>");
	if (i->cause[0]) {
		sb_printf(b, ", cause <code>");
		html_s(b, i->cause);
		sb_printf(b, "</code>");
	}
	sb_printf(b, ".</p>\n<div class=\"verdict %s\" id=\"verdict\">%s, %s at %s: ",
	          st == INC_RESOLVED ? "none" : html_sev_class(i->severity), sev_word(i->severity),
	          inc_state_name(st), iso_time(i->last_event_at, ts, sizeof(ts)));
	html_s(b, incident_message(i, st, msg, sizeof(msg)));
	sb_printf(b, "</div>\n<p class=\"meta\" id=\"incident-times\">");
	when(b, "Opened", i->opened_at);
	when(b, "escalated", i->escalated_at);
	when(b, "resolved", i->resolved_at);
	sb_printf(b, "%zu task%s in all.", i->ntasks_total, i->ntasks_total == 1 ? "" : "s");
	if (i->bundle[0]) {
		sb_printf(b, " Bundle: <code id=\"bundle\">");
		html_s(b, i->bundle);
		sb_printf(b, "</code>.");
	}
	sb_printf(b, "</p>\n<table id=\"incident-tasks\"><tr><th>Task</th><th>Name</th><th>Unit</th>"
	          "<th>Stuck</th><th>Recovered</th></tr>\n");
	for (size_t k = 0; k < i->ntasks; k++) {
		const struct inc_task *t = &i->tasks[k];
		sb_printf(b, "<tr><td>%s %d</td><td><code class=\"comm\">",
		          t->tid == t->tgid ? "PID" : "TID", t->tid);
		html_esc(b, t->comm, t->comm_len);
		sb_printf(b, "</code></td><td>");
		html_s(b, t->unit);
		sb_printf(b, "</td><td>%s</td><td>", inc_task_time(i, t, d, sizeof(d)));
		if (t->resolved_at)
			sb_printf(b, "%s", iso_time(t->resolved_at, ts, sizeof(ts)));
		else
			sb_printf(b, "-");
		sb_printf(b, "</td></tr>\n");
	}
	if (i->ntasks_total > i->ntasks)
		sb_printf(b, "<tr><td colspan=\"5\">... and %zu more tasks</td></tr>\n",
		          i->ntasks_total - i->ntasks);
	sb_printf(b, "</table>\n");
	if (finding < 0)
		sb_printf(b, "<p class=\"meta\">No finding of this scan is the incident's%s.</p>\n",
		          st == INC_RESOLVED ? ": its tasks left the state" : "");
}

/* The incident's states (the scans that changed it) and its tasks' recoveries, seconds
 * before now. Labels into lab (n of them, freed by the caller). */
static size_t axis_marks(const struct incident *i, double now, struct html_tl_mark *m,
                         struct strbuf *lab)
{
	size_t n = 0;
	size_t first = i->ntimeline > AXIS_STATES ? i->ntimeline - AXIS_STATES : 0;
	for (size_t k = first; k < i->ntimeline; k++) {
		const struct inc_event *e = &i->timeline[k];
		sb_printf(&lab[n], "scan: %s (%s), %zu task%s, longest %.1f s", inc_state_name(e->state),
		          sev_name(e->severity), e->ntasks, e->ntasks == 1 ? "" : "s", e->blocked_s);
		m[n].at_s = e->time - now;
		m[n].kind = "state";
		n++;
	}
	size_t nt = 0;
	for (size_t k = 0; k < i->ntasks && nt < AXIS_TASKS; k++) {
		const struct inc_task *t = &i->tasks[k];
		if (!t->resolved_at)
			continue;
		char c[CGW_COMM_MAX * 4];
		sb_printf(&lab[n], "%s %d (%s) recovered", t->tid == t->tgid ? "PID" : "TID", t->tid,
		          cescape(t->comm, t->comm_len, c, sizeof(c)));
		m[n].at_s = t->resolved_at - now;
		m[n].kind = "recovered";
		n++;
		nt++;
	}
	for (size_t k = 0; k < n; k++) {
		m[k].label = lab[k].s ? lab[k].s : "";
		m[k].label_len = lab[k].len;
	}
	return n;
}

void incident_html(const struct cgw_report *r, const struct incident *i, enum inc_state st,
                   ssize_t finding, FILE *out)
{
	struct strbuf hd = { 0 };
	header(&hd, r, i, st, finding);
	struct html_tl_mark m[AXIS_STATES + AXIS_TASKS];
	struct strbuf lab[AXIS_STATES + AXIS_TASKS];
	memset(m, 0, sizeof(m));
	memset(lab, 0, sizeof(lab));
	size_t n = axis_marks(i, i->last_event_at, m, lab);
	char title[400], now[64];
	snprintf(title, sizeof(title), "cgwatch incident %s (%s) on %s", i->id, inc_state_name(st),
	         r->scan->host[0] ? r->scan->host : "?");
	snprintf(now, sizeof(now), "this report (%s)", inc_state_name(st));
	struct html_page p = {
		.title = title, .header = hd.lost ? "<p>(the header was lost: out of memory)</p>" :
		                                    hd.s,
		.now_label = now,
		.axis_note = "Seconds before this report: the scans that opened, escalated, updated "
		             "and resolved the incident, when each task blocked (or last ran) and "
		             "when each recovered.",
		.finding = finding >= 0 && (size_t)finding < r->nf ? finding : -1,
		.marks = m, .nmarks = n,
	};
	report_html_page(r, &p, out);
	for (size_t k = 0; k < n; k++)
		sb_free(&lab[k]);
	sb_free(&hd);
}
