/* sink-html-audit.c: the audit's page (`cgwatch audit --format html`): the verdict, each hazard
 * with its evidence, the hang it leads to and what to change, the rules not decided, the CPU
 * map with the real-time spinners on their CPUs, and every fact the rules test. Built on
 * sink-html.c: every host string escaped there. */
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static const char *sev_word(enum cgw_sev s)
{
	return s == SEV_CRITICAL ? "CRITICAL" : s == SEV_WARNING ? "WARNING" :
	       s == SEV_INFO ? "INFO" : "-";
}

static void hazard_html(struct strbuf *b, const struct cgw_audit *a, size_t i)
{
	const struct cgw_hazard *h = a->hits[i].h;
	sb_printf(b, "<section class=\"hazard\" id=\"hazard-%zu\">\n<h2><span class=\"sev %s\">%s"
	          "</span> ", i, html_sev_class(h->severity), sev_word(h->severity));
	html_s(b, h->id);
	sb_printf(b, ": ");
	html_s(b, h->title);
	sb_printf(b, "</h2>\n<p class=\"summary\">");
	html_s(b, h->summary);
	sb_printf(b, "</p>\n");
	if (h->explanation) {
		sb_printf(b, "<p>");
		html_s(b, h->explanation);
		sb_printf(b, "</p>\n");
	}
	sb_printf(b, "<h3>Evidence</h3>\n");
	html_lines(b, a->hits[i].evidence ? a->hits[i].evidence : "", true);
	if (h->signature) {
		sb_printf(b, "<p>Leads to: <code>");
		html_s(b, h->signature);
		sb_printf(b, "</code> (the signature of the hang it sets up)</p>\n");
	}
	html_numbered(b, "What to change (safest first)", h->remedies, h->nremedies);
	sb_printf(b, "<p>Seen in: ");
	html_s(b, h->seed);
	sb_printf(b, "</p>\n");
	html_references(b, h->references, h->nreferences);
	sb_printf(b, "</section>\n");
}

static void facts_table(struct strbuf *b, const struct cgw_facts *f)
{
	sb_printf(b, "<table class=\"facts\"><thead><tr><th>Fact</th><th>Value</th><th>Meaning"
	          "</th><th>Evidence</th></tr></thead><tbody>\n");
	for (int k = 0; k < HF_NFACT; k++) {
		sb_printf(b, "<tr id=\"fact-%s\"><td><code>", hazard_fact_name((enum haz_fact)k));
		html_s(b, hazard_fact_name((enum haz_fact)k));
		sb_printf(b, "</code></td><td>");
		double v = f->v[k];
		if (!f->known[k]) {
			sb_printf(b, "unknown: ");
			html_s(b, f->why[k]);
		} else if (v == (double)(long long)v) {
			sb_printf(b, "%lld", (long long)v);
		} else {
			sb_printf(b, "%.2f", v);
		}
		sb_printf(b, "</td><td>");
		html_s(b, hazard_fact_meaning((enum haz_fact)k));
		sb_printf(b, "</td><td>");
		if (f->ev[k].len)
			html_lines(b, f->ev[k].s, true);
		sb_printf(b, "</td></tr>\n");
	}
	sb_printf(b, "</tbody></table>\n");
}

void audit_html(const struct cgw_audit *a, FILE *out)
{
	const struct cgw_facts *f = a->facts;
	struct strbuf b = { 0 };
	char title[300];
	snprintf(title, sizeof(title), "cgwatch audit of %s", f->host[0] ? f->host : "?");
	html_open(&b, title);
	sb_printf(&b, "<header>\n<h1>cgwatch audit of ");
	html_s(&b, f->host[0] ? f->host : "?");
	sb_printf(&b, "</h1>\n<p class=\"meta\">Kernel ");
	html_s(&b, f->kernel[0] ? f->kernel : "?");
	sb_printf(&b, "; %zu threads read, %s; %.0f ms.</p>\n", f->threads,
	          f->live ? "live" : "a replayed tree", (double)f->usec / 1000.0);
	enum cgw_sev max = audit_max_severity(a);
	size_t crit = 0, warn = 0;
	for (size_t i = 0; i < a->nhits; i++) {
		crit += a->hits[i].h->severity == SEV_CRITICAL;
		warn += a->hits[i].h->severity == SEV_WARNING;
	}
	sb_printf(&b, "<div class=\"verdict %s\" id=\"verdict\">", html_sev_class(max));
	if (!a->nhits)
		sb_printf(&b, "No hazard: this host is not set up for a hang the rules know.");
	else
		sb_printf(&b, "%zu hazard%s (%zu critical, %zu warning)", a->nhits,
		          a->nhits == 1 ? "" : "s", crit, warn);
	sb_printf(&b, "</div>\n");
	if (a->nhits) {
		sb_printf(&b, "<ul class=\"summaries\">\n");
		for (size_t i = 0; i < a->nhits; i++) {
			const struct cgw_hazard *h = a->hits[i].h;
			sb_printf(&b, "<li><a href=\"#hazard-%zu\"><span class=\"sev %s\">%s</span> ", i,
			          html_sev_class(h->severity), sev_word(h->severity));
			html_s(&b, h->id);
			sb_printf(&b, "</a>: ");
			html_s(&b, h->summary);
			sb_printf(&b, "</li>\n");
		}
		sb_printf(&b, "</ul>\n");
	}
	sb_printf(&b, "</header>\n");
	for (size_t i = 0; i < a->nhits; i++)
		hazard_html(&b, a, i);
	if (a->nopen) {
		sb_printf(&b, "<section id=\"undecided\"><h2>Not decided</h2><ul>");
		for (size_t i = 0; i < a->nopen; i++) {
			sb_printf(&b, "<li><code>");
			html_s(&b, a->open[i].h->id);
			sb_printf(&b, "</code>: ");
			html_s(&b, hazard_fact_name(a->open[i].fact));
			sb_printf(&b, " unknown: ");
			html_s(&b, f->why[a->open[i].fact]);
			sb_printf(&b, "</li>");
		}
		sb_printf(&b, "</ul></section>\n");
	}
	struct html_cpu_mark *mk = calloc(f->nspin ? f->nspin : 1, sizeof(*mk));
	size_t nmk = 0;
	for (size_t i = 0; mk && i < f->nspin; i++) {
		const struct audit_spinner *s = &f->spin[i];
		if (s->cpu < 0)
			continue;
		mk[nmk].cpu = s->cpu;
		mk[nmk].pid = s->tid;
		char comm[CGW_COMM_MAX * 4];
		snprintf(mk[nmk].label, sizeof(mk[nmk].label), "%d (%s) %s/%u: spinner", s->tid,
		         cescape(s->comm, strnlen(s->comm, sizeof(s->comm)), comm, sizeof(comm)),
		         policy_name(s->policy), s->prio);
		nmk++;
	}
	sb_printf(&b, "<section id=\"cpumap\"><h2>CPU map</h2>\n");
	struct html_cpumap map = { &f->online, &f->isolated, &f->nohz_full, NULL, mk, nmk };
	html_cpumap(&b, &map);
	free(mk);
	sb_printf(&b, "</section>\n<section id=\"facts\"><h2>Facts</h2>\n<p class=\"meta\">What the "
	          "rules test, as read here.</p>\n");
	facts_table(&b, f);
	sb_printf(&b, "</section>\n");
	html_close(&b);
	html_write(&b, out);
	sb_free(&b);
}
