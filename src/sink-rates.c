/* sink-rates.c: the cgroup activity counts (struct cgw_rates) as the report's JSON "rates"
 * object and as text. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"
#include "rates.h"

static json_object *count_json(const struct rates_count *c, bool window)
{
	json_object *o = json_object_new_object();
	if (c->missing) {
		json_object_object_add(o, "missing", json_object_new_boolean(true));
		json_object_object_add(o, "why", json_object_new_string(c->why));
		return o;
	}
	json_object_object_add(o, "count", json_object_new_int64((int64_t)c->count));
	if (window)
		json_object_object_add(o, "per_s", jround(c->per_s, 1));
	return o;
}

json_object *rates_json(const struct cgw_rates *rt)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string(rates_source_name(rt->source)));
	json_object_object_add(o, "live", json_object_new_boolean(rt->live));
	json_object_object_add(o, "captured", json_object_new_boolean(rt->captured));
	json_object_object_add(o, "window_s", jround(rt->window_s, 3));
	json_object *notes = json_object_new_array();
	for (const char *l = rt->notes; *l;) {
		size_t n = strcspn(l, "\n");
		json_object_array_add(notes, json_object_new_string_len(l, (int)n));
		l += n + (l[n] == '\n');
	}
	json_object_object_add(o, "notes", notes);
	json_object *ev = json_object_new_object();
	for (int e = 0; e < RATE_NEV; e++)
		json_object_object_add(ev, rates_ev_name(e), count_json(&rt->ev[e], rates_has_rate(rt)));
	json_object_object_add(o, "events", ev);
	json_object *fk = count_json(&rt->forks, rates_has_rate(rt));
	if (!rt->forks.missing)
		json_object_object_add(fk, "from", json_object_new_string(rt->forks_from));
	json_object_object_add(o, "forks", fk);
	if (rt->have_processes)
		json_object_object_add(o, "processes_since_boot",
		                       json_object_new_int64((int64_t)rt->processes));
	if (rt->uptime_s > 0)
		json_object_object_add(o, "uptime_s", jround(rt->uptime_s, 2));
	if (rt->cgroups_err[0]) {
		json_object_object_add(o, "cgroups_error", json_object_new_string(rt->cgroups_err));
	} else {
		json_object *cg = json_object_new_object();
		for (size_t i = 0; i < rt->nctrl; i++) {
			const struct rates_ctrl *c = &rt->ctrl[i];
			json_object *x = json_object_new_object();
			json_object_object_add(x, "hierarchy", json_object_new_int(c->hierarchy));
			json_object_object_add(x, "num_cgroups", json_object_new_int64(c->num_cgroups));
			json_object_object_add(x, "change", json_object_new_int64(c->change));
			json_object_object_add(x, "enabled", json_object_new_boolean(c->enabled));
			char key[sizeof(c->name) * 4];     /* a replayed /proc/cgroups may hold any byte */
			json_object_object_add(cg, utf8_escape(c->name, strlen(c->name), key, sizeof(key)), x);
		}
		json_object_object_add(o, "cgroups", cg);
	}
	return o;
}

void rates_text(const struct cgw_rates *rt, FILE *out)
{
	if (rates_windowed(rt))
		fprintf(out, "cgroup activity (%s, %.1f s%s):", rates_source_name(rt->source),
		        rt->window_s, rt->captured ? ", as captured" : "");
	else
		fprintf(out, "cgroup activity (%s, a replay: counts as captured):",
		        rates_source_name(rt->source));
	int shown = 0, missing = 0, zero = 0;
	for (int e = 0; e < RATE_NEV; e++) {
		const struct rates_count *c = &rt->ev[e];
		if (c->missing) {
			missing++;
			continue;
		}
		if (c->count == 0) {          /* a person reads what happened; JSON has them all */
			zero++;
			continue;
		}
		if (rates_has_rate(rt))
			fprintf(out, "%s %s %llu (%.1f/s)", shown++ ? "," : "", rates_ev_name(e),
			        (unsigned long long)c->count, c->per_s);
		else
			fprintf(out, "%s %s %llu", shown++ ? "," : "", rates_ev_name(e),
			        (unsigned long long)c->count);
	}
	if (zero)
		fprintf(out, "%s%s %d other event%s 0", shown ? "," : "", shown ? "" : " none;", zero,
		        zero == 1 ? "" : "s");
	else if (!shown)
		fputs(" no tracepoint counts", out);
	fputc('\n', out);
	if (missing) {
		const char *why = NULL;
		for (int e = 0; e < RATE_NEV && !why; e++)
			if (rt->ev[e].missing)
				why = rt->ev[e].why;
		fprintf(out, "  %d event%s not counted: %s\n", missing, missing == 1 ? "" : "s", why);
	}
	if (!rt->forks.missing && rt->forks_from[0] && rt->source != RATES_SRC_PERF)
		fprintf(out, "  forks: %llu (%.1f/s, %s)\n", (unsigned long long)rt->forks.count,
		        rt->forks.per_s, rt->forks_from);
	else if (!rates_windowed(rt) && rt->have_processes && rt->uptime_s > 0)
		fprintf(out, "  forks since boot: %llu in %.0f s (%.1f/s on average)\n", rt->processes,
		        rt->uptime_s, (double)rt->processes / rt->uptime_s);
	if (rt->cgroups_err[0]) {
		fprintf(out, "  %s\n", rt->cgroups_err);
	} else if (rt->nctrl) {
		fputs("  cgroups per controller (/proc/cgroups):", out);
		int k = 0;
		for (size_t i = 0; i < rt->nctrl; i++) {
			const struct rates_ctrl *c = &rt->ctrl[i];
			if (!c->enabled)
				continue;
			fprintf(out, "%s %s %ld", k++ ? "," : "", c->name, c->num_cgroups);
			if (c->change)
				fprintf(out, " (%+ld)", c->change);
		}
		fputc('\n', out);
	}
	for (const char *l = rt->notes; *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(out, "  %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
}
