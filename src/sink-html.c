/* sink-html.c: what every HTML page of cgwatch is made of — one self-contained file: no
 * network, no script, no font, no image; its one inline style sheet allowed by hash in a
 * Content-Security-Policy that forbids everything else; printable. Every string from the host
 * goes through html_esc: markup characters as entities, control bytes C-escaped, bytes that are
 * not UTF-8 as \xNN. The CPU map and the time axis are drawn here for the check's and the
 * audit's pages (sink-html-check.c, sink-html-audit.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"

/* The whole style sheet: its sha256 is in the policy, so not one byte of it may vary. */
static const char style[] =
	"\n:root{--crit:#b00020;--warn:#a15c00;--info:#285a8c;--ok:#1b6e2a;--line:#ccc}\n"
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;"
	"color:#111;background:#fff}\n"
	"h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.2em;border-bottom:1px solid var(--line);"
	"margin-top:1.6em}h3{font-size:1.05em;margin:1em 0 .3em}\n"
	".meta{color:#555}.verdict{font-size:1.15em;font-weight:600;padding:.4em .6em;"
	"border-left:.4em solid var(--ok);background:#f4f8f4}\n"
	".verdict.critical{border-color:var(--crit);background:#fbf0f2}"
	".verdict.warning{border-color:var(--warn);background:#fbf6ee}"
	".verdict.info{border-color:var(--info)}\n"
	".sev{font-weight:700}.sev.critical{color:var(--crit)}.sev.warning{color:var(--warn)}"
	".sev.info{color:var(--info)}\n"
	".finding,.hazard{border:1px solid var(--line);border-radius:4px;padding:.2em 1em 1em;"
	"margin:1em 0;break-inside:avoid-page}\n"
	"code,pre,.stack,.mono{font-family:ui-monospace,monospace;font-size:12.5px}\n"
	".stacks{display:flex;flex-wrap:wrap;gap:1em}.stacks>div{flex:1 1 30em;min-width:0}\n"
	"ol.stack{margin:.2em 0;padding-left:3em;overflow-wrap:anywhere}"
	"ol.stack li.hit{background:#fff2a8;font-weight:600}\n"
	".entry{margin:.8em 0;padding-top:.4em;border-top:1px dashed var(--line)}"
	".count{font-weight:700}\n"
	"svg{max-width:100%;height:auto}svg text{font:12px ui-monospace,monospace;fill:#111}\n"
	"svg .node{fill:#eef3fb;stroke:#285a8c}svg .node.cpus{fill:#fdecea;stroke:var(--crit)}"
	"svg .node.spin{fill:#fff2a8;stroke:var(--warn)}svg .node.cause{fill:#f2f2f2;stroke:#777}\n"
	"svg .edge{stroke:#444;stroke-width:1.5}svg .elabel{fill:#555;font-size:11px}\n"
	"svg .axis{stroke:#444}svg .tick{stroke:#999}svg .dot{fill:#285a8c}"
	"svg .dot.now{fill:var(--crit)}svg .recorder .dot{fill:#6a3d9a}\n"
	".cpumap{display:grid;grid-template-columns:repeat(auto-fill,minmax(4.6em,1fr));gap:3px}\n"
	".cpu{border:1px solid #999;border-radius:3px;padding:2px 4px;font-size:11px;"
	"min-height:2.6em;background:#e9f5e9}\n"
	".cpu b{display:block;font-size:12px}.cpu.iso{background:#e3ecfa}"
	".cpu.nohz{border-style:dashed}.cpu.off{background:#eee;color:#888}\n"
	".cpu.starved{background:#f9d5d5;border:2px solid var(--crit)}.cpu .pid{font-weight:700}\n"
	".legend span{display:inline-block;margin-right:1em}.legend .cpu{display:inline-block;"
	"min-height:0;width:1.2em;height:1em;vertical-align:middle;margin-right:.3em}\n"
	"table{border-collapse:collapse;width:100%}td,th{border:1px solid var(--line);"
	"padding:.2em .4em;text-align:left;vertical-align:top}\n"
	"ul.ev{padding-left:1.2em}ul.ev li{overflow-wrap:anywhere}\n"
	"tr.crossed td,tr.cause td{background:#fbf0f2}\n"
	"@media print{body{margin:0;max-width:none;font-size:11px}a{color:inherit;"
	"text-decoration:none}.finding,.hazard,.cpumap,svg{break-inside:avoid}"
	"h2{break-after:avoid}}\n";

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

const char *html_csp(char *out, size_t cap)
{
	char hex[65];
	unsigned char d[32];
	sha256_hex(style, sizeof(style) - 1, hex);
	for (int i = 0; i < 32; i++) {
		unsigned hi = (unsigned)(hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10);
		unsigned lo = (unsigned)(hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' :
		                         hex[2 * i + 1] - 'a' + 10);
		d[i] = (unsigned char)(hi << 4 | lo);
	}
	char h[48];
	size_t k = 0;
	for (int i = 0; i < 32; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (i + 1 < 32 ? (unsigned)d[i + 1] << 8 : 0) |
		             (i + 2 < 32 ? d[i + 2] : 0);
		h[k++] = b64[v >> 18 & 63];
		h[k++] = b64[v >> 12 & 63];
		h[k++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
		h[k++] = i + 2 < 32 ? b64[v & 63] : '=';
	}
	h[k] = '\0';
	snprintf(out, cap, "default-src 'none'; style-src 'sha256-%s'; script-src 'none'; "
	         "img-src 'none'; font-src 'none'; connect-src 'none'; object-src 'none'; "
	         "base-uri 'none'; form-action 'none'", h);
	return out;
}

void html_esc(struct strbuf *b, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t ok = text_bad(s + i, n - i), run = 0;
		for (size_t k = 0; k < ok; k++) {
			const char *ent = NULL;
			switch (s[i + k]) {
			case '&': ent = "&amp;"; break;
			case '<': ent = "&lt;"; break;
			case '>': ent = "&gt;"; break;
			case '"': ent = "&quot;"; break;
			case '\'': ent = "&#39;"; break;
			case '\t': ent = "\\t"; break;
			default: run++; continue;
			}
			sb_add(b, s + i + k - run, run);
			run = 0;
			sb_add(b, ent, strlen(ent));
		}
		sb_add(b, s + i + ok - run, run);
		i += ok;
		if (i >= n)
			break;
		unsigned char c = (unsigned char)s[i++];
		if (c == '\n')
			sb_add(b, "\\n", 2);
		else if (c == '\r')
			sb_add(b, "\\r", 2);
		else
			sb_printf(b, "\\x%02x", c);
	}
}

void html_s(struct strbuf *b, const char *s)
{
	html_esc(b, s ? s : "", s ? strlen(s) : 0);
}

void html_open(struct strbuf *b, const char *title)
{
	char csp[256];
	sb_printf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	          "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
	          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	          "<meta name=\"generator\" content=\"cgwatch " CGW_VERSION "\">\n<title>",
	          html_csp(csp, sizeof(csp)));
	html_s(b, title);
	sb_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

void html_close(struct strbuf *b)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[64] = "";
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	sb_printf(b, "<footer class=\"meta\"><p>Written by cgwatch " CGW_VERSION " at %s. One "
	          "file: no script, nothing loaded from anywhere.</p></footer>\n</body>\n</html>\n",
	          when);
}

void html_write(struct strbuf *b, FILE *out)
{
	if (b->lost) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		      "<title>cgwatch</title></head><body><p>The page could not be written: out of "
		      "memory.</p></body></html>\n", out);
		return;
	}
	fwrite(b->s ? b->s : "", 1, b->len, out);
}

const char *html_sev_class(enum cgw_sev s)
{
	return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" :
	       s == SEV_INFO ? "info" : "none";
}

void html_lines(struct strbuf *b, const char *text, bool group)
{
	char *g = group ? lines_group(text) : NULL;
	sb_printf(b, "<ul class=\"ev\">");
	for (const char *l = g ? g : text; l && *l;) {
		size_t n = strcspn(l, "\n");
		sb_printf(b, "<li>");
		html_esc(b, l, n);
		sb_printf(b, "</li>\n");
		l += n + (l[n] == '\n');
	}
	sb_printf(b, "</ul>\n");
	free(g);
}

void html_numbered(struct strbuf *b, const char *heading, char *const *items, size_t n)
{
	if (!n)
		return;
	sb_printf(b, "<h3>%s</h3><ol>", heading);
	for (size_t i = 0; i < n; i++) {
		sb_printf(b, "<li>");
		html_s(b, items[i]);
		sb_printf(b, "</li>");
	}
	sb_printf(b, "</ol>\n");
}

void html_references(struct strbuf *b, char *const *refs, size_t n)
{
	if (!n)
		return;
	sb_printf(b, "<h3>References</h3><ul>");
	for (size_t i = 0; i < n; i++) {
		sb_printf(b, "<li>");
		if (!strncmp(refs[i], "https://", 8) && !strpbrk(refs[i], " \"'<>")) {
			sb_printf(b, "<a href=\"");
			html_s(b, refs[i]);
			sb_printf(b, "\">");
			html_s(b, refs[i]);
			sb_printf(b, "</a>");
		} else {
			html_s(b, refs[i]);
		}
		sb_printf(b, "</li>");
	}
	sb_printf(b, "</ul>\n");
}

/* The highest CPU of c, or -1. */
static int cpus_last(const struct cgw_cpus *c)
{
	for (int i = CGW_MAX_CPUS - 1; i >= 0; i--)
		if (cpus_test(c, (unsigned)i))
			return i;
	return -1;
}

static void legend_item(struct strbuf *b, const char *cls, const char *what)
{
	sb_printf(b, "<span><span class=\"cpu %s\"></span>%s</span>", cls, what);
}

void html_cpumap(struct strbuf *b, const struct html_cpumap *m)
{
	struct cgw_cpus all = *m->online;
	cpus_or(&all, m->isolated);
	cpus_or(&all, m->nohz_full);
	if (m->starved)
		cpus_or(&all, m->starved);
	int last = cpus_last(&all);
	for (size_t i = 0; i < m->nmarks; i++)
		if (m->marks[i].cpu > last && m->marks[i].cpu < CGW_MAX_CPUS)
			last = m->marks[i].cpu;
	if (last < 0) {
		sb_printf(b, "<p>The CPU layout was not read.</p>\n");
		return;
	}
	char l[4096], li[4096], ln[4096];
	bool online_known = !cpus_empty(m->online);
	sb_printf(b, "<p class=\"meta\">Online %s; isolated %s; nohz_full %s",
	          online_known ? cpulist_format(m->online, l, sizeof(l)) : "not known",
	          cpus_empty(m->isolated) ? "none" : cpulist_format(m->isolated, li, sizeof(li)),
	          cpus_empty(m->nohz_full) ? "none" : cpulist_format(m->nohz_full, ln, sizeof(ln)));
	if (m->starved && !cpus_empty(m->starved))
		sb_printf(b, "; work starved on %s", cpulist_format(m->starved, l, sizeof(l)));
	sb_printf(b, ".</p>\n<p class=\"legend\">");
	legend_item(b, "", "housekeeping");
	legend_item(b, "iso", "isolated");
	legend_item(b, "nohz", "nohz_full (dashed)");
	if (m->starved)
		legend_item(b, "starved", "work starved here");
	legend_item(b, "off", "offline");
	sb_printf(b, "%s</p>\n<div class=\"cpumap\">\n",
	          m->nmarks ? "<span>PID: the real-time spinner there</span>" : "");
	for (int c = 0; c <= last; c++) {
		unsigned u = (unsigned)c;
		bool iso = cpus_test(m->isolated, u), nz = cpus_test(m->nohz_full, u);
		bool st = m->starved && cpus_test(m->starved, u);
		bool off = online_known && !cpus_test(m->online, u);
		sb_printf(b, "<div class=\"cpu%s%s%s%s\" id=\"cpu%d\"", iso ? " iso" : "",
		          nz ? " nohz" : "", st ? " starved" : "", off ? " off" : "", c);
		const struct html_cpu_mark *mk = NULL;
		for (size_t i = 0; i < m->nmarks && !mk; i++)
			if (m->marks[i].cpu == c)
				mk = &m->marks[i];
		sb_printf(b, " title=\"CPU %d: %s%s%s%s", c, off ? "offline" : iso ? "isolated" :
		          "housekeeping", nz ? ", nohz_full" : "", st ? ", work starved" : "",
		          mk ? ", " : "");
		if (mk)
			html_s(b, mk->label);
		sb_printf(b, "\"><b>%d</b>", c);
		if (mk)
			sb_printf(b, "<span class=\"pid\">%d</span>", mk->pid);
		sb_printf(b, "</div>\n");
	}
	sb_printf(b, "</div>\n");
}

static int mark_cmp(const void *a, const void *b)
{
	const struct html_tl_mark *x = a, *y = b;
	return x->at_s < y->at_s ? -1 : x->at_s > y->at_s;
}

void html_timeline(struct strbuf *b, struct html_tl_mark *m, size_t n)
{
	if (!n) {
		sb_printf(b, "<p>Nothing to place on the time axis.</p>\n");
		return;
	}
	qsort(m, n, sizeof(*m), mark_cmp);
	double lo = m[0].at_s, hi = m[n - 1].at_s;
	if (hi < 0)
		hi = 0;
	if (lo > hi - 1)
		lo = hi - 1;
	double span = hi - lo;
	lo -= span * 0.05;
	span = hi - lo;
	const double W = 960, L = 20, R = 20;
	double h = 40 + 20.0 * (double)n + 30;
	sb_printf(b, "<svg class=\"timeline\" role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
	          "height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", W, h, W, h);
	double axis_y = h - 30;
	sb_printf(b, "<line class=\"axis\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>\n",
	          L, axis_y, W - R, axis_y);
	/* ticks at a round step, about 8 of them */
	double raw = span / 8, step = pow(10, floor(log10(raw)));
	step = raw / step >= 5 ? step * 5 : raw / step >= 2 ? step * 2 : step;
	for (double t = ceil(lo / step) * step; t <= hi + 1e-9; t += step) {
		double x = L + (t - lo) / span * (W - L - R);
		sb_printf(b, "<line class=\"tick\" x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%.1f\"/>"
		          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s%g s</text>\n", x, x,
		          axis_y + 4, x, axis_y + 18, t > 0 ? "+" : "", fabs(t) < 1e-9 ? 0 : t);
	}
	for (size_t i = 0; i < n; i++) {
		double x = L + (m[i].at_s - lo) / span * (W - L - R), y = 34 + 20.0 * (double)i;
		bool right = x < W / 2;
		sb_printf(b, "<g class=\"mark %s\"><line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" "
		          "x2=\"%.1f\" y2=\"%.1f\"/><circle class=\"dot%s\" cx=\"%.1f\" cy=\"%.1f\" "
		          "r=\"4\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
		          m[i].kind ? m[i].kind : "", x, y, x, axis_y,
		          m[i].kind && !strcmp(m[i].kind, "now") ? " now" : "", x, y,
		          right ? x + 8 : x - 8, y + 4, right ? "start" : "end");
		html_esc(b, m[i].label, m[i].label_len);
		sb_printf(b, " (%+.1f s)</text></g>\n", m[i].at_s);
	}
	sb_printf(b, "</svg>\n");
}
