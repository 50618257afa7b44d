/* fuzz-ratesfile.c: a capture's cgwatch/rates (parse_rates_file). When the input parses, the
 * sample is a captured one (captured, not live), every number in its range, every name a
 * kernel identifier listed once, every text within its field, and what rates_format writes of
 * it parses back to the same (times to their 6 decimals); then it is printed as the report does (rates_json, rates_text).
 * When it does not, the line named is one of the input's. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>

#include "fuzz.h"
#include "rates.h"

/* b read back from what was written of a: the same count, and b's rate its count over b's
 * window (a time is written with 6 decimals: the window may differ in the 7th) */
static void same_count(const struct rates_count *a, const struct rates_count *b,
                       const struct cgw_rates *rb)
{
	FUZZ_CHECK(a->missing == b->missing && a->count == b->count &&
	           strcmp(a->why, b->why) == 0);
	FUZZ_CHECK(b->missing || b->per_s == (rates_has_rate(rb) ? (double)b->count /
	                                      rb->window_s : 0));
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 5.1e-7 + 1e-15 * fabs(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_rates *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	size_t line = 0, lines = 1;
	const char *why = NULL;
	int r = parse_rates_file(buf, a, &line, &why);
	for (const char *p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	FUZZ_CHECK(why != NULL);
	if (r < 0) {
		FUZZ_CHECK(why[0] && line >= 1 && line <= lines);
		goto out;
	}
	FUZZ_CHECK(a->captured && !a->live);
	FUZZ_CHECK(a->source == RATES_SRC_PERF || a->source == RATES_SRC_PROC);
	FUZZ_CHECK(isfinite(a->window_s) && a->window_s >= 0 && a->window_s <= CGW_MAX_SECONDS);
	FUZZ_CHECK(isfinite(a->uptime_s) && a->uptime_s >= 0 && a->uptime_s <= CGW_MAX_SECONDS);
	for (int e = 0; e < RATE_NEV; e++) {
		const struct rates_count *c = &a->ev[e];
		FUZZ_CHECK(c->count <= CGW_MAX_COUNT && isfinite(c->per_s) && c->per_s >= 0);
		FUZZ_CHECK(!c->missing || (c->why[0] && text_bad(c->why, strlen(c->why)) ==
		                           strlen(c->why)));
	}
	FUZZ_CHECK(a->forks.count <= CGW_MAX_COUNT && isfinite(a->forks.per_s));
	FUZZ_CHECK(a->nctrl <= RATES_MAX_CTRL);
	for (size_t i = 0; i < a->nctrl; i++) {
		const struct rates_ctrl *c = &a->ctrl[i];
		size_t n = strlen(c->name);
		FUZZ_CHECK(n > 0 && n < sizeof(c->name) && c->num_cgroups >= 0 && c->hierarchy >= 0);
		FUZZ_CHECK(strspn(c->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                           "0123456789_") == n);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(a->ctrl[j].name, c->name) != 0);
	}
	FUZZ_CHECK(strlen(a->notes) < sizeof(a->notes));
	for (const char *l = a->notes; *l;) {          /* lines of text, none empty */
		size_t n = strcspn(l, "\n");
		FUZZ_CHECK(n > 0 && text_bad(l, n) == n);
		l += n + (l[n] == '\n');
	}

	struct strbuf sb = { 0 };
	rates_format(a, &sb);
	FUZZ_CHECK(sb.s && !sb.lost);
	r = parse_rates_file(sb.s, b, &line, &why);
	if (r != 0)
		fprintf(stderr, "line %zu: %s\n%s", line, why, sb.s);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(b->source == a->source && near(a->window_s, b->window_s) &&
	           near(a->uptime_s, b->uptime_s) && b->have_processes == a->have_processes &&
	           b->processes == a->processes && b->nctrl == a->nctrl);
	for (int e = 0; e < RATE_NEV; e++)
		same_count(&a->ev[e], &b->ev[e], b);
	same_count(&a->forks, &b->forks, b);
	FUZZ_CHECK(strcmp(a->forks_from, b->forks_from) == 0);
	for (size_t i = 0; i < a->nctrl; i++)
		FUZZ_CHECK(strcmp(a->ctrl[i].name, b->ctrl[i].name) == 0 &&
		           a->ctrl[i].hierarchy == b->ctrl[i].hierarchy &&
		           a->ctrl[i].num_cgroups == b->ctrl[i].num_cgroups &&
		           a->ctrl[i].change == b->ctrl[i].change &&
		           a->ctrl[i].enabled == b->ctrl[i].enabled);
	FUZZ_CHECK(strcmp(a->notes, b->notes) == 0 && strcmp(a->cgroups_err, b->cgroups_err) == 0);
	sb_free(&sb);

	json_object *o = rates_json(a);
	FUZZ_CHECK(json_object_to_json_string(o));
	json_object_put(o);
	rates_text(a, fuzz_null());
out:
	free(a);
	free(b);
	free(buf);
	return 0;
}
