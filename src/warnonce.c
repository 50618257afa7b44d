/* warnonce.c: a warning that can repeat every scan (a file that cannot be written, a device
 * that cannot be read) is said once, then counted, and said again with its count when it
 * changes or clears. The journal's own rate limit is no design: it drops the news with the
 * noise. */
#include <stdarg.h>
#include <stdio.h>
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

void warn_once(struct warn_once *w, const char *fmt, ...)
{
	char msg[1536], out[3200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (warn_step(w, msg, out, sizeof(out)))
		log_warnx("%s", out);
}

void warn_clear(struct warn_once *w)
{
	char out[3200];
	if (warn_step(w, NULL, out, sizeof(out)))
		log_warnx("%s", out);
}
