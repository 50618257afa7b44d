/* fuzz-trace.c: a tracefs `trace` text (trace_parse), as the flight recorder reads it: every
 * event has a name of identifier characters, a comm that fits, a CPU, PID and time that are
 * not negative, fields within one line; a window keeps the events at or after its start and
 * counts the others; trace_field's value lies inside the fields. A bundle's readout file
 * (trace_window_parse) writes back (trace_window_format) and reads back the same; its
 * timeline sentences are in time order. Keeping the newest 2 of each CPU
 * (trace_events_keep_last_per_cpu) keeps the order and at most 2 a CPU. */
#include "fuzz.h"

static void check_field(const char *f, const char *key)
{
	size_t len;
	const char *v = trace_field(f, key, &len);
	if (v)
		FUZZ_CHECK(v >= f && v + len <= f + strlen(f) && v[-1] == '=');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_bytes(data, size);
	struct cgw_trace_events all = { 0 }, win = { 0 };
	FUZZ_CHECK(trace_parse(text, size, -1, &all) == 0);
	FUZZ_CHECK(all.older == 0);
	for (size_t i = 0; i < all.n; i++) {
		const struct cgw_trace_event *e = &all.v[i];
		FUZZ_CHECK(e->name[0] && strlen(e->name) < sizeof(e->name));
		for (const char *p = e->name; *p; p++)
			FUZZ_CHECK((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			           (*p >= '0' && *p <= '9') || *p == '_');
		FUZZ_CHECK(strlen(e->comm) < sizeof(e->comm));
		FUZZ_CHECK(e->cpu >= 0 && e->cpu < CGW_MAX_CPUS && e->pid >= 0 && e->t >= 0);
		FUZZ_CHECK(e->fields && !strchr(e->fields, '\n'));
		check_field(e->fields, "path");
		check_field(e->fields, "workqueue");
	}
	{
		struct cgw_trace_events k = { 0 };
		FUZZ_CHECK(trace_parse(text, size, -1, &k) == 0);
		size_t n0 = k.n, d = trace_events_keep_last_per_cpu(&k, 2);
		FUZZ_CHECK(k.n + d == n0);
		for (size_t i = 0; i < k.n; i++) {
			size_t same = 0;
			for (size_t j = i; j < k.n; j++)
				same += k.v[j].cpu == k.v[i].cpu;
			FUZZ_CHECK(same <= 2);
		}
		if (k.n && n0)            /* the newest event of the text is kept */
			FUZZ_CHECK(k.v[k.n - 1].t == all.v[all.n - 1].t);
		trace_events_free(&k);
	}
	double since = all.n ? all.v[all.n / 2].t : 1.0;
	FUZZ_CHECK(trace_parse(text, size, since, &win) == 0);
	FUZZ_CHECK(win.n + win.older == all.n && win.bad == all.bad && win.lost == all.lost);
	for (size_t i = 0; i < win.n; i++)
		FUZZ_CHECK(win.v[i].t >= since);
	trace_events_free(&all);
	trace_events_free(&win);
	FUZZ_CHECK(all.n == 0 && all.v == NULL);
	/* a bundle's cgwatch/recorder/trace: what parses writes back and reads back the same */
	struct cgw_recwin w, back;
	if (trace_window_parse(text, size, &w) == 0) {
		struct strbuf b = { 0 };
		trace_window_format(&w, &b);
		if (!b.lost && w.ev.bad == 0) {
			FUZZ_CHECK(trace_window_parse(b.s, b.len, &back) == 0);
			FUZZ_CHECK(back.ev.n == w.ev.n && back.ev.lost == w.ev.lost);
			for (size_t i = 0; i < w.ev.n; i++)
				FUZZ_CHECK(back.ev.v[i].pid == w.ev.v[i].pid &&
				           back.ev.v[i].call == w.ev.v[i].call &&
				           !strcmp(back.ev.v[i].name, w.ev.v[i].name));
			recwin_free(&back);
		}
		sb_free(&b);
		struct rec_line l[16];
		w.have_anchor = w.ev.n > 0;
		w.anchor_t = w.ev.n ? w.ev.v[0].t : 0;
		snprintf(w.anchor, sizeof(w.anchor), "PID 1 blocked");
		size_t n = recorder_lines(&w, l, 16);
		FUZZ_CHECK(n <= 16);
		for (size_t i = 1; i < n; i++)
			FUZZ_CHECK(l[i - 1].t <= l[i].t);
	}
	recwin_free(&w);
	free(text);
	return 0;
}
