/* sink-recorder.c: the flight recorder's readout in a report: its timeline sentences in the
 * text, and a "recorder" object in the JSON (the events, bounded and said so when cut, what the
 * ring lost, the events this kernel lacks). The page's marks are sink-html-check.c's. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define REC_JSON_MAX 1000                 /* events listed in the JSON, the newest */
#define REC_LINES_MAX 64                  /* timeline sentences */

int recwin_read(struct cgw_recwin *w, const struct cgw_recorder *rec, double window_s,
                size_t keep, const struct cgw_report *r, ssize_t finding)
{
	w->window_s = window_s;
	snprintf(w->enabled, sizeof(w->enabled), "%s", rec->enabled);
	snprintf(w->missing, sizeof(w->missing), "%s", rec->missing);
	w->read_at = mono_ms() / 1000.0;
	record_mute(true);                /* read for the report, not for a capture's tree */
	int e = recorder_read_keep(rec, window_s, keep, &w->ev, &w->dropped);
	record_mute(false);
	if (e < 0) {
		trace_events_free(&w->ev);
		snprintf(w->why, sizeof(w->why), "reading %s/trace: %s", rec->dir, strerror(-e));
		return e;
	}
	recorder_anchor(w, r, finding);
	return 0;
}

struct rec_line *recorder_report_lines(const struct cgw_recwin *w, size_t *n)
{
	*n = 0;
	struct rec_line *l = try_calloc(REC_LINES_MAX, sizeof(*l));
	if (l)
		*n = recorder_lines(w, l, REC_LINES_MAX);
	return l;
}

void report_text_recorder(const struct cgw_report *r, FILE *out)
{
	const struct cgw_recwin *w = r->recorder;
	if (!w)
		return;
	char e[2048];
	if (w->why[0]) {
		fprintf(out, "Kernel events before the hang: not recorded: %s\n\n",
		        cescape(w->why, strlen(w->why), e, sizeof(e)));
		return;
	}
	fprintf(out, "Kernel events before the hang (flight recorder, the last %.0f s", w->window_s);
	if (w->have_anchor) {
		double d = w->read_at - w->anchor_t;
		fprintf(out, ", read %.1f s %s %s; times from that moment", d < 0 ? -d : d,
		        d < 0 ? "before" : "after", w->anchor);
	}
	fprintf(out, "):\n");
	size_t n;
	struct rec_line *l = recorder_report_lines(w, &n);
	if (!l)
		fprintf(out, "  (not told: out of memory)\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %+8.1f s  %s\n", l[i].at, l[i].text);
	free(l);
	if (!w->ev.n)
		fprintf(out, "  none in the window\n");
	if (w->ev.lost)
		fprintf(out, "  the ring lost %llu events (more than buffer_kb holds came at once)\n",
		        (unsigned long long)w->ev.lost);
	if (w->dropped)
		fprintf(out, "  %llu older events of the window not kept (only the newest %zu are)\n",
		        (unsigned long long)w->dropped, w->ev.n);
	if (w->missing[0])
		fprintf(out, "  not recorded: %s\n", cescape(w->missing, strlen(w->missing), e,
		                                           sizeof(e)));
	fputc('\n', out);
}

/* "a b c" (sep " ") or "a (x); b (y)" (sep "; ") as an array */
static json_object *words(const char *s, const char *sep)
{
	json_object *a = json_object_new_array();
	size_t sl = strlen(sep);
	while (s && *s) {
		const char *e = strstr(s, sep);
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n)
			json_object_array_add(a, jstr_untrusted(s, n));
		s = e ? e + sl : NULL;
	}
	return a;
}

json_object *recorder_json(const struct cgw_recwin *w)
{
	json_object *o = json_object_new_object();
	if (w->why[0]) {
		json_object_object_add(o, "error", jstr(w->why));
		return o;
	}
	json_object_object_add(o, "read_at", jround(w->read_at, 6));
	json_object_object_add(o, "window_s", jround(w->window_s, 1));
	json_object_object_add(o, "anchor", w->have_anchor ? jstr(w->anchor) : NULL);
	json_object_object_add(o, "anchor_at", w->have_anchor ? jround(w->anchor_t, 6) : NULL);
	json_object_object_add(o, "enabled", words(w->enabled, " "));
	json_object_object_add(o, "missing", words(w->missing, "; "));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)w->ev.lost));
	json_object_object_add(o, "dropped", json_object_new_int64((int64_t)w->dropped));
	json_object_object_add(o, "events_total", json_object_new_int64((int64_t)w->ev.n));
	size_t from = w->ev.n > REC_JSON_MAX ? w->ev.n - REC_JSON_MAX : 0;
	json_object_object_add(o, "events_cut", json_object_new_int64((int64_t)from));
	if (from)
		json_object_object_add(o, "events_cut_why", json_object_new_string(
		        "only the newest 1000 are listed here; a bundle's cgwatch/recorder/trace holds "
		        "them all"));
	double a = w->have_anchor ? w->anchor_t : w->read_at;
	json_object *ev = json_object_new_array();
	for (size_t i = from; i < w->ev.n; i++) {
		const struct cgw_trace_event *e = &w->ev.v[i];
		json_object *j = json_object_new_object();
		json_object_object_add(j, "at", jround(e->t, 6));
		json_object_object_add(j, "rel_s", jround(e->t - a, 3));
		json_object_object_add(j, "cpu", json_object_new_int(e->cpu));
		json_object_object_add(j, "pid", json_object_new_int(e->pid));
		json_object_object_add(j, "comm", jstr(e->comm));
		json_object_object_add(j, "event", jstr(e->name));
		json_object_object_add(j, "fields", jstr(e->fields));
		json_object_array_add(ev, j);
	}
	json_object_object_add(o, "events", ev);
	size_t n;
	struct rec_line *l = recorder_report_lines(w, &n);
	json_object *tl = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_new_object();
		json_object_object_add(j, "rel_s", jround(l[i].at, 3));
		json_object_object_add(j, "kind", json_object_new_string(l[i].kind + 13));
		json_object_object_add(j, "text", jstr(l[i].text));
		json_object_array_add(tl, j);
	}
	free(l);
	json_object_object_add(o, "timeline", tl);
	return o;
}
