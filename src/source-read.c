/* source-read.c: how the scan reads what can fail: reads that can block on the hang (stack,
 * wchan, cgroup, freezer state, the memory of a task: source-waitfile.c), within a
 * budget of timeouts per scan; files that cannot be read or parsed, named once and counted;
 * why a sched file gave no time. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

ssize_t scan_read(struct cgw_scan *s, const char *path, char *buf, size_t cap,
                  unsigned timeout_ms)
{
	return scan_pread(s, path, -1, buf, cap, timeout_ms);
}

ssize_t scan_pread(struct cgw_scan *s, const char *path, off_t off, char *buf, size_t cap,
                   unsigned timeout_ms)
{
	if (s->timeouts >= SCAN_MAX_TIMEOUTS)
		return -ETIME;
	ssize_t r;
	if (!dl_batch_take(s->prefetch, path, off, buf, cap, &r))  /* read ahead, or now */
		r = dl_pread_file(path, off, buf, cap, timeout_ms);
	if (r == -ETIMEDOUT)
		s->timeouts++;
	return r;
}

#define WHOLE_MIN (64u << 10)
#define WHOLE_MAX (16u << 20)            /* a container host has thousands of mounts */

char *scan_read_whole(struct cgw_scan *s, const char *path, unsigned timeout_ms, int *err)
{
	for (size_t cap = WHOLE_MIN; cap <= WHOLE_MAX; cap *= 4) {
		char *buf = try_malloc(cap);
		if (!buf) {
			s->nomem = true;
			*err = -ENOMEM;
			return NULL;
		}
		ssize_t n = scan_read(s, path, buf, cap, timeout_ms);
		if (n >= 0 && (size_t)n < cap - 1) {
			char *fit = try_reallocarray(buf, (size_t)n + 1, 1);
			return fit ? fit : buf;
		}
		free(buf);
		if (n < 0) {
			*err = (int)n;
			return NULL;
		}
	}
	*err = -EFBIG;
	return NULL;
}

void scan_unreadable(struct cgw_scan *s, const char *path, const char *fmt, ...)
{
	char why[sizeof(s->unreadable[0].why)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	warn_set_say(s->warns, "%s: %s", path, why);
	s->errors++;
	if (s->nunreadable >= SCAN_MAX_NAMED)
		return;
	if (!s->unreadable && !(s->unreadable = calloc(SCAN_MAX_NAMED, sizeof(*s->unreadable))))
		return;                       /* counted, not named */
	struct cgw_unreadable *u = &s->unreadable[s->nunreadable++];
	snprintf(u->path, sizeof(u->path), "%s", path);
	snprintf(u->why, sizeof(u->why), "%s", why);
}

/* Why a sched file (buf, r bytes read or -errno) gave no time: the bad value, C-escaped. */
const char *sched_why(const char *buf, ssize_t r, const struct cgw_sched *sc, char *out,
                      size_t cap)
{
	if (r < 0) {
		snprintf(out, cap, "%s", strerror((int)-r));
		return out;
	}
	if (!sc->bad) {
		snprintf(out, cap, "no se.exec_start");
		return out;
	}
	/* the value of the last line of that key, as parse_sched_buf read it */
	const char *val = "";
	size_t vlen = 0, klen = strlen(sc->bad);
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':'), *nl = strchr(l, '\n');
		if (!colon || (nl && colon > nl))
			continue;
		size_t k = (size_t)(colon - l);
		while (k && l[k - 1] == ' ')
			k--;
		if (k == klen && strncmp(l, sc->bad, k) == 0) {
			val = colon + 1 + strspn(colon + 1, " \t");
			vlen = nl ? (size_t)(nl - val) : strlen(val);
		}
	}
	char v[48];
	cescape(val, vlen > 24 ? 24 : vlen, v, sizeof(v));
	snprintf(out, cap, "%s is not a %s (%s%s)", sc->bad,
	         strcmp(sc->bad, "nr_switches") ? "time within a century" : "count within 2^53", v,
	         vlen > 24 ? "..." : "");
	return out;
}
