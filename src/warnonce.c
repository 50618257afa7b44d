/* warnonce.c: a warning that can repeat every scan (a file that cannot be written, a device
 * that cannot be read) is said once, then counted, and said again with its count when it
 * changes or clears. The journal's own rate limit is no design: it drops the news with the
 * noise. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* FNV-1a: the whole message compares, not only the part kept to be said again */
static uint64_t msg_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

bool warn_step(struct warn_once *w, const char *msg, char *out, size_t cap)
{
	out[0] = '\0';
	if (!msg) {
		if (!w->active)
			return false;
		if (w->repeats)
			snprintf(out, cap, "%s: again %lu time%s; now cleared", w->last, w->repeats,
			         w->repeats == 1 ? "" : "s");
		else
			snprintf(out, cap, "%s: now cleared", w->last);
		w->active = false;
		w->repeats = 0;
		return true;
	}
	uint64_t h = msg_hash(msg);
	if (w->active && h == w->hash) {
		w->repeats++;
		return false;
	}
	if (w->active && w->repeats)
		snprintf(out, cap, "%s: again %lu time%s; now: %s", w->last, w->repeats,
		         w->repeats == 1 ? "" : "s", msg);
	else
		snprintf(out, cap, "%s", msg);
	snprintf(w->last, sizeof(w->last), "%s", msg);
	w->hash = h;
	w->repeats = 0;
	w->active = true;
	return true;
}

/* warn_step, and what it says to the log */
static void step_log(struct warn_once *w, const char *msg)
{
	char out[3200];
	if (warn_step(w, msg, out, sizeof(out)))
		log_warnx("%s", out);
}

static void set_say(struct warn_set *ws, const char *msg);

/* Formats one warning and says it through w, else through ws (both NULL: said each time). */
static void vsay(struct warn_once *w, struct warn_set *ws, const char *fmt, va_list ap)
{
	char msg[1536];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (w)
		step_log(w, msg);
	else
		set_say(ws, msg);
}

void warn_once(struct warn_once *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(w, NULL, fmt, ap);
	va_end(ap);
}

void warn_clear(struct warn_once *w)
{
	step_log(w, NULL);
}

/* ---- many warnings of one pass, each its own ---- */

#define WARN_SET_MAX 64                   /* distinct warnings followed; more are said each time */

struct warn_set {
	struct warn_ent { struct warn_once w; bool seen; } v[WARN_SET_MAX];
	size_t n;
};

struct warn_set *warn_set_new(void)
{
	return calloc(1, sizeof(struct warn_set));   /* NULL: every warning said, as without */
}

void warn_set_free(struct warn_set *ws)
{
	free(ws);
}

static void set_say(struct warn_set *ws, const char *msg)
{
	if (!ws) {
		log_warnx("%s", msg);
		return;
	}
	uint64_t h = msg_hash(msg);
	size_t k = 0;
	while (k < ws->n && ws->v[k].w.hash != h)
		k++;
	if (k == ws->n) {
		if (ws->n == WARN_SET_MAX) {          /* full: said, not followed */
			log_warnx("%s", msg);
			return;
		}
		memset(&ws->v[ws->n++], 0, sizeof(ws->v[0]));
	}
	ws->v[k].seen = true;
	step_log(&ws->v[k].w, msg);
}

void warn_set_say(struct warn_set *ws, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(NULL, ws, fmt, ap);
	va_end(ap);
}

void warn_set_end(struct warn_set *ws)
{
	if (!ws)
		return;
	size_t kept = 0;
	for (size_t k = 0; k < ws->n; k++) {
		if (!ws->v[k].seen) {                 /* not said this pass: it cleared */
			step_log(&ws->v[k].w, NULL);
			continue;
		}
		ws->v[k].seen = false;
		if (kept != k)
			ws->v[kept] = ws->v[k];
		kept++;
	}
	ws->n = kept;
}
