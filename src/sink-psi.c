/* sink-psi.c: pressure stall information (PSI) in the reports and the metrics: the report's
 * "pressure" object, the text report's pressure line, the metrics' pressure gauges and
 * stall counters. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"

static struct json_object *avg_json(const struct cgw_psi_avg *a)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "avg10", jround(a->avg10, 2));
	json_object_object_add(o, "avg60", jround(a->avg60, 2));
	json_object_object_add(o, "avg300", jround(a->avg300, 2));
	json_object_object_add(o, "total_us", json_object_new_int64((int64_t)a->total_us));
	return o;
}

/* some and full of one file into o (full only where the file has it) */
static void psi_into(struct json_object *o, const struct cgw_psi *x)
{
	if (x->some.have)
		json_object_object_add(o, "some", avg_json(&x->some));
	if (x->full.have)
		json_object_object_add(o, "full", avg_json(&x->full));
}

struct json_object *pressure_json(const struct cgw_pressure *p)
{
	struct json_object *o = json_object_new_object(), *sys = json_object_new_object();
	char t[64];
	for (int r = 0; r < PSI_NRES; r++) {
		struct json_object *x = json_object_new_object();
		psi_into(x, &p->sys[r]);
		if (p->error[r][0])
			json_object_object_add(x, "error", jstr(p->error[r]));
		json_object_object_add(x, "threshold", jstr(psi_trigger_format(&p->trig[r], t,
		                                                                 sizeof(t))));
		json_object_object_add(x, "crossed", json_object_new_boolean(p->crossed[r]));
		if (p->why[r][0])
			json_object_object_add(x, "why", jstr(p->why[r]));
		json_object_object_add(x, "trigger_fired", json_object_new_boolean(p->fired[r]));
		json_object_object_add(sys, psi_res_name(r), x);
	}
	json_object_object_add(o, "system", sys);
	json_object_object_add(o, "triggers", json_object_new_boolean(p->triggers));
	struct json_object *cgs = json_object_new_array();
	for (size_t k = 0; k < p->ncg; k++) {
		struct json_object *c = json_object_new_object();
		json_object_object_add(c, "path", jstr(p->cg[k].path));
		for (int r = 0; r < PSI_NRES; r++) {
			if (!p->cg[k].res[r].have)
				continue;
			struct json_object *x = json_object_new_object();
			psi_into(x, &p->cg[k].res[r]);
			json_object_object_add(c, psi_res_name(r), x);
		}
		json_object_array_add(cgs, c);
	}
	json_object_object_add(o, "cgroups", cgs);
	return o;
}

void report_text_pressure(const struct cgw_report *r, FILE *out)
{
	const struct cgw_pressure *p = r->pressure;
	if (!p)
		return;
	bool any = false;
	for (int k = 0; k < PSI_NRES; k++)
		any |= p->sys[k].some.have && p->sys[k].some.avg10 >= PSI_FLOOR_PCT;
	if (any) {
		fputs("Pressure (PSI, avg10):", out);
		const char *sep = " ";
		for (int k = 0; k < PSI_NRES; k++) {
			const struct cgw_psi *x = &p->sys[k];
			if (!x->some.have)
				continue;
			fprintf(out, "%s%s some %.0f %%", sep, psi_res_name(k), x->some.avg10);
			if (x->full.have && x->full.avg10 >= PSI_FLOOR_PCT)
				fprintf(out, " full %.0f %%", x->full.avg10);
			sep = ", ";
		}
		fputc('\n', out);
	}
	for (int k = 0; k < PSI_NRES; k++)
		if (p->crossed[k])
			fprintf(out, "Pressure over its threshold: %s\n", p->why[k]);
}

void metrics_pressure(struct strbuf *b, const struct cgw_pressure *p)
{
	static const char *const avgs[] = { "avg10", "avg60", "avg300" };
	static const char *const spans[] = { "10 s", "60 s", "300 s" };
	for (int i = 0; i < 3; i++) {
		sb_printf(b, "# HELP cgwatch_pressure_%s_ratio Share of the last %s some (or all) "
		          "non-idle tasks stalled on the resource (PSI).\n"
		          "# TYPE cgwatch_pressure_%s_ratio gauge\n", avgs[i], spans[i], avgs[i]);
		for (int r = 0; r < PSI_NRES; r++) {
			const struct cgw_psi *x = &p->sys[r];
			const struct cgw_psi_avg *k2[] = { &x->some, &x->full };
			for (int k = 0; k < 2; k++) {
				if (!k2[k]->have)
					continue;
				double v = i == 0 ? k2[k]->avg10 : i == 1 ? k2[k]->avg60 : k2[k]->avg300;
				sb_printf(b, "cgwatch_pressure_%s_ratio{resource=\"%s\",kind=\"%s\"} %.4f\n",
				          avgs[i], psi_res_name(r), k ? "full" : "some", v / 100.0);
			}
		}
	}
	sb_printf(b, "# HELP cgwatch_pressure_stall_seconds_total Time some (or all) non-idle "
	          "tasks were stalled on the resource since boot (PSI total).\n"
	          "# TYPE cgwatch_pressure_stall_seconds_total counter\n");
	for (int r = 0; r < PSI_NRES; r++) {
		const struct cgw_psi *x = &p->sys[r];
		const struct cgw_psi_avg *k2[] = { &x->some, &x->full };
		for (int k = 0; k < 2; k++)
			if (k2[k]->have)
				sb_printf(b, "cgwatch_pressure_stall_seconds_total{resource=\"%s\",kind=\"%s\"} "
				          "%.6f\n", psi_res_name(r), k ? "full" : "some",
				          (double)k2[k]->total_us / 1e6);
	}
	sb_printf(b, "# HELP cgwatch_pressure_crossed The resource's pressure is past its "
	          "[pressure] threshold at the last scan (1) or not (0).\n"
	          "# TYPE cgwatch_pressure_crossed gauge\n");
	for (int r = 0; r < PSI_NRES; r++)
		if (p->trig[r].on)
			sb_printf(b, "cgwatch_pressure_crossed{resource=\"%s\"} %d\n", psi_res_name(r),
			          p->crossed[r]);
}
