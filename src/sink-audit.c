/* sink-audit.c: the audit's reports — text for a person, the cgwatch.audit/1 JSON document. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static void upper(const char *s, char *out, size_t cap)
{
	size_t i = 0;
	for (; s[i] && i + 1 < cap; i++)
		out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
	out[i] = '\0';
}

void audit_text(const struct cgw_audit *a, FILE *out)
{
	const struct cgw_facts *f = a->facts;
	struct strbuf b = { 0 };
	for (size_t i = 0; i < a->nhits; i++) {
		const struct cgw_hazard *h = a->hits[i].h;
		char sev[16];
		upper(sev_name(h->severity), sev, sizeof(sev));
		sb_printf(&b, "%s %s: %s\n  %s\n", sev, h->id, h->title, h->summary);
		if (h->explanation)
			sb_printf(&b, "  %s\n", h->explanation);
		sb_printf(&b, "  Evidence:\n");
		/* alike lines as one ("x149 CPUs 18-95,108-178: ..."), as check's report does; the
		 * JSON has every line */
		char *grouped = lines_group(a->hits[i].evidence ? a->hits[i].evidence : "");
		const char *e = grouped ? grouped : a->hits[i].evidence;
		while (e && *e) {
			size_t l = strcspn(e, "\n");
			sb_printf(&b, "    - %.*s\n", (int)l, e);
			e += l + (e[l] == '\n');
		}
		free(grouped);
		if (h->signature)
			sb_printf(&b, "  Leads to: %s (the signature of the hang it sets up)\n",
			          h->signature);
		sb_printf(&b, "  What to change (safest first):\n");
		for (size_t r = 0; r < h->nremedies; r++)
			sb_printf(&b, "    %zu. %s\n", r + 1, h->remedies[r]);
		sb_printf(&b, "  Seen in: %s\n", h->seed);
		for (size_t r = 0; r < h->nreferences; r++)
			sb_printf(&b, "    %s\n", h->references[r]);
		sb_printf(&b, "\n");
	}
	for (size_t i = 0; i < a->nopen; i++)
		sb_printf(&b, "not decided: %s (%s unknown: %s)\n", a->open[i].h->id,
		          hazard_fact_name(a->open[i].fact), f->why[a->open[i].fact]);
	size_t crit = 0, warn = 0;
	for (size_t i = 0; i < a->nhits; i++) {
		crit += a->hits[i].h->severity == SEV_CRITICAL;
		warn += a->hits[i].h->severity == SEV_WARNING;
	}
	sb_printf(&b, "audit of %s (%s): %zu hazard%s (%zu critical, %zu warning), %zu threads, "
	          "%s, %.0f ms\n", f->host[0] ? f->host : "?", f->kernel[0] ? f->kernel : "?",
	          a->nhits, a->nhits == 1 ? "" : "s", crit, warn, f->threads,
	          f->live ? "live" : "replayed tree", (double)f->usec / 1000.0);
	term_write(out, b.s ? b.s : "", b.len, true);
	sb_free(&b);
}

static struct json_object *lines(const char *s)
{
	struct json_object *a = json_object_new_array();
	while (s && *s) {
		size_t l = strcspn(s, "\n");
		json_object_array_add(a, jstr_untrusted(s, l));
		s += l + (s[l] == '\n');
	}
	return a;
}

static struct json_object *strv(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, jstr(v[i]));
	return a;
}

int audit_json(const struct cgw_audit *a, FILE *out)
{
	const struct cgw_facts *f = a->facts;
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string("cgwatch.audit/1"));
	json_object_object_add(o, "host", jstr(f->host));
	json_object_object_add(o, "kernel", jstr(f->kernel));
	json_object_object_add(o, "live", json_object_new_boolean(f->live));
	json_object_object_add(o, "window_s", jround(f->window_s, 3));
	json_object_object_add(o, "threads", json_object_new_int64((int64_t)f->threads));
	json_object_object_add(o, "audit_ms", jround((double)f->usec / 1000.0, 1));
	struct json_object *hz = json_object_new_array();
	for (size_t i = 0; i < a->nhits; i++) {
		const struct cgw_hazard *h = a->hits[i].h;
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "id", jstr(h->id));
		json_object_object_add(x, "severity", json_object_new_string(sev_name(h->severity)));
		json_object_object_add(x, "title", jstr(h->title));
		json_object_object_add(x, "summary", jstr(h->summary));
		json_object_object_add(x, "signature", h->signature ? jstr(h->signature) : NULL);
		json_object_object_add(x, "evidence", lines(a->hits[i].evidence));
		struct json_object *w = json_object_new_array();
		for (size_t j = 0; j < h->nwhen; j++) {
			char c[160];
			snprintf(c, sizeof(c), "%s %s %g", hazard_fact_name(h->when[j].fact),
			         hazard_op_name(h->when[j].op), h->when[j].value);
			json_object_array_add(w, json_object_new_string(c));
		}
		json_object_object_add(x, "when", w);
		json_object_object_add(x, "remedies", strv(h->remedies, h->nremedies));
		json_object_object_add(x, "seed", jstr(h->seed));
		json_object_object_add(x, "references", strv(h->references, h->nreferences));
		json_object_object_add(x, "source", jstr(hazard_source(h)));
		json_object_array_add(hz, x);
	}
	json_object_object_add(o, "hazards", hz);
	struct json_object *op = json_object_new_array();
	for (size_t i = 0; i < a->nopen; i++) {
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "id", jstr(a->open[i].h->id));
		json_object_object_add(x, "unknown_fact", jstr(hazard_fact_name(a->open[i].fact)));
		json_object_object_add(x, "why", jstr(f->why[a->open[i].fact]));
		json_object_array_add(op, x);
	}
	json_object_object_add(o, "undecided", op);
	struct json_object *fa = json_object_new_object();
	for (int k = 0; k < HF_NFACT; k++) {
		struct json_object *x = json_object_new_object();
		double v = f->v[k];
		json_object_object_add(x, "value", !f->known[k] ? NULL :
		                       v == (double)(int64_t)v ? json_object_new_int64((int64_t)v) :
		                       jround(v, 2));
		if (!f->known[k])
			json_object_object_add(x, "why_unknown", jstr(f->why[k]));
		json_object_object_add(x, "evidence", lines(f->ev[k].s));
		json_object_object_add(fa, hazard_fact_name((enum haz_fact)k), x);
	}
	json_object_object_add(o, "facts", fa);
	int r = json_write(o, out);
	json_object_put(o);
	return r;
}
