/* parse-capture.c: the files of a capture's own, DIR/cgwatch/clocks, DIR/cgwatch/unreadable
 * and DIR/cgwatch/detail/TGID (pure: text in, structs out, and their text out).
 *
 * clocks: the time references of the live run, so a replay computes the same durations:
 *     cgwatch-clocks 1
 *     reader 99786458.684000        the reader's clock (ms) at the capture's reference moment
 *     uptime 5702.630000            /proc/uptime (s) at that moment
 *     cpu 3 -312.500000 exact       CPU 3's clock minus the reader's (ms): read there
 *     cpu 5 40.000000 lower         only a floor of it (a runnable task's exec_start)
 * unreadable: one line per file that could not be read, "REASON PATH DETAIL": REASON one of
 * permission, timed-out, vanished (a task's file: the task exited), absent (a host file that
 * does not exist here), skipped, failed; PATH the tree path with bytes at or below
 * space, DEL and above, and backslash as \xNN; DETAIL the rest of the line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define CLOCK_MAX_MS (CGW_MAX_SECONDS * 1000.0)

static const char *skip_sp(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The rest of a line is empty (spaces, then '\n' or the end). */
static bool line_end(const char *p)
{
	p = skip_sp(p);
	return *p == '\n' || *p == '\0';
}

int parse_clocks(const char *text, struct cap_clocks *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = text;
	if (strncmp(p, "cgwatch-clocks 1", 16) != 0 || !line_end(p + 16))
		return -EINVAL;
	bool reader = false;
	size_t want = 0;                  /* suspect lines the suspects line announced */
	for (p = strchr(p, '\n'); p && *++p; p = strchr(p, '\n')) {
		const char *l = p;
		if (*l == '\n')
			continue;
		if (strncmp(l, "reader ", 7) == 0) {
			l = skip_sp(l + 7);
			if (reader || parse_decimal(&l, 0, CLOCK_MAX_MS, &out->reader_ms) < 0 ||
			    !line_end(l))
				return -EINVAL;
			reader = true;
		} else if (strncmp(l, "uptime ", 7) == 0) {
			l = skip_sp(l + 7);
			if (out->have_uptime || parse_decimal(&l, 0, CGW_MAX_SECONDS, &out->uptime_s) < 0 ||
			    !line_end(l))
				return -EINVAL;
			out->have_uptime = true;
		} else if (strncmp(l, "cpu ", 4) == 0) {
			uint64_t cpu;
			double off;
			l = skip_sp(l + 4);
			if (parse_count(&l, CGW_MAX_CPUS - 1, &cpu) < 0 || (*l != ' ' && *l != '\t'))
				return -EINVAL;
			l = skip_sp(l);
			if (parse_decimal(&l, -CLOCK_MAX_MS, CLOCK_MAX_MS, &off) < 0 ||
			    (*l != ' ' && *l != '\t'))
				return -EINVAL;
			l = skip_sp(l);
			enum cgw_bound b;
			if (strncmp(l, "exact", 5) == 0)
				b = BOUND_EXACT, l += 5;
			else if (strncmp(l, "lower", 5) == 0)
				b = BOUND_LOWER, l += 5;
			else
				return -EINVAL;
			if (!line_end(l))
				return -EINVAL;
			for (size_t i = 0; i < out->n; i++)
				if (out->cpu[i].cpu == (int)cpu)
					return -EINVAL;
			if (out->n == CAP_MAX_CLOCKS)
				return -ERANGE;
			out->cpu[out->n++] = (struct cap_clock){ (int)cpu, off, b };
		} else if (strncmp(l, "suspects ", 9) == 0) {
			uint64_t n;
			l = skip_sp(l + 9);
			if (out->have_suspects || parse_count(&l, UINT64_MAX, &n) < 0 || !line_end(l))
				return -EINVAL;
			if (n > CAP_MAX_SUSPECTS)
				return -ERANGE;
			out->have_suspects = true;
			want = (size_t)n;
		} else if (strncmp(l, "suspect ", 8) == 0) {
			uint64_t tid, start;
			l = skip_sp(l + 8);
			if (!out->have_suspects || out->nsus == want ||
			    parse_count(&l, 0x7fffffff, &tid) < 0 || tid == 0 ||
			    (*l != ' ' && *l != '\t'))
				return -EINVAL;
			l = skip_sp(l);
			if (parse_count(&l, UINT64_MAX, &start) < 0 || !line_end(l))
				return -EINVAL;
			out->sus[out->nsus++] = (struct cap_suspect){ (int)tid, start };
		} else if (*l != '#') {
			return -EINVAL;
		}
	}
	return reader && out->nsus == want ? 0 : -EINVAL;
}

bool clocks_cpu(const struct cap_clocks *c, int cpu, struct cgw_now *now)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->cpu[i].cpu == cpu) {
			*now = (struct cgw_now){ c->reader_ms + c->cpu[i].offset_ms, c->cpu[i].bound };
			return true;
		}
	return false;
}

void clocks_format(const struct cap_clocks *c, struct strbuf *b)
{
	sb_printf(b, "cgwatch-clocks 1\nreader %.6f\n", c->reader_ms);
	if (c->have_uptime)
		sb_printf(b, "uptime %.6f\n", c->uptime_s);
	for (size_t i = 0; i < c->n; i++)
		sb_printf(b, "cpu %d %.6f %s\n", c->cpu[i].cpu, c->cpu[i].offset_ms,
		          c->cpu[i].bound == BOUND_LOWER ? "lower" : "exact");
	if (c->have_suspects)
		sb_printf(b, "suspects %zu\n", c->nsus);
	for (size_t i = 0; i < c->nsus; i++)
		sb_printf(b, "suspect %d %llu\n", c->sus[i].tid, c->sus[i].start_ticks);
}

bool clocks_suspect(const struct cap_clocks *c, int tid, unsigned long long start_ticks)
{
	if (!c->have_suspects)
		return true;
	for (size_t i = 0; i < c->nsus; i++)
		if (c->sus[i].tid == tid && c->sus[i].start_ticks == start_ticks)
			return true;
	return false;
}

static const char *const reasons[] = { "permission", "timed-out", "vanished", "absent",
                                       "skipped", "failed" };

const char *unreadable_reason(int err, const char *path)
{
	bool task = (strncmp(path, "proc/", 5) == 0 && path[5] >= '0' && path[5] <= '9') ||
	            strncmp(path, "cgwatch/mem/", 12) == 0;
	switch (err) {
	case EACCES: case EPERM: return reasons[0];
	case ETIMEDOUT: return reasons[1];
	case ENOENT: case ESRCH: return task || err == ESRCH ? reasons[2] : reasons[3];
	case ETIME: case EBUSY: case ECANCELED: return reasons[4];
	default: return reasons[5];
	}
}

void unreadable_format(const char *path, int err, const char *detail, struct strbuf *b)
{
	static const char hex[] = "0123456789abcdef";
	sb_printf(b, "%s ", unreadable_reason(err, path));
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || *p == '\\') {
			char e[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };
			sb_add(b, e, 4);
		} else {
			sb_add(b, (const char *)p, 1);
		}
	}
	sb_add(b, " ", 1);
	for (const char *d = detail; *d; d++)            /* one line, whatever it holds */
		sb_add(b, *d == '\n' || (unsigned char)*d < ' ' ? "?" : d, 1);
	sb_add(b, "\n", 1);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int parse_unreadable_line(const char *line, char *reason, size_t rcap, char *path, size_t pcap,
                          const char **detail)
{
	const char *sp = strchr(line, ' ');
	if (!sp || rcap == 0 || pcap == 0)
		return -EINVAL;
	size_t rl = (size_t)(sp - line);
	bool known = false;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]) && !known; i++)
		known = strlen(reasons[i]) == rl && strncmp(reasons[i], line, rl) == 0;
	if (!known || rl >= rcap)
		return -EINVAL;
	memcpy(reason, line, rl);
	reason[rl] = '\0';
	const char *p = sp + 1;
	size_t o = 0;
	for (; *p && *p != ' ' && *p != '\n'; p++) {
		char c = *p;
		if ((unsigned char)c < ' ' || (unsigned char)c >= 0x7f)
			return -EINVAL;
		if (c == '\\') {
			int h, l;
			if (p[1] != 'x' || (h = hexval(p[2])) < 0 || (l = hexval(p[3])) < 0)
				return -EINVAL;
			c = (char)(h * 16 + l);
			if (c == '\0')
				return -EINVAL;
			p += 3;
		}
		if (o + 1 >= pcap)
			return -ENAMETOOLONG;
		path[o++] = c;
	}
	if (o == 0)
		return -EINVAL;
	path[o] = '\0';
	if (*p == ' ')
		p++;
	if (detail)
		*detail = p;
	return 0;
}

/* detail: what libproc2 said about one process (DIR/cgwatch/detail/TGID), as the live run
 * used it, so a replay shows the same user, unit and start on any machine (the replaying
 * machine's user names and clock would differ):
 *     cgwatch-detail 1
 *     user alice
 *     unit db.service
 *     started_at 1764620000.250000 */
static bool detail_value_ok(const char *v)
{
	return v[0] && text_bad(v, strlen(v)) == strlen(v);
}

void detail_format(const struct cap_detail *d, struct strbuf *b)
{
	sb_printf(b, "cgwatch-detail 1\n");
	if (detail_value_ok(d->user))         /* no control character: one line each */
		sb_printf(b, "user %s\n", d->user);
	if (detail_value_ok(d->unit))
		sb_printf(b, "unit %s\n", d->unit);
	if (d->have_started)
		sb_printf(b, "started_at %.6f\n", d->started_at);
}

/* Copy the rest of the line at p (after one space) into out (cap bytes); false when it is
 * empty, too long or not text. */
static bool detail_value(const char *p, char *out, size_t cap)
{
	size_t n = strcspn(p, "\n");
	if (n == 0 || n >= cap || text_bad(p, n) != n)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

int parse_detail(const char *text, struct cap_detail *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = text;
	if (strncmp(p, "cgwatch-detail 1", 16) != 0 || !line_end(p + 16))
		return -EINVAL;
	bool user = false, unit = false;
	for (p = strchr(p, '\n'); p && *++p;) {
		if (*p == '\n' || *p == '#') {
			p = strchr(p, '\n');
			continue;
		}
		if (strncmp(p, "user ", 5) == 0 && !user) {
			if (!(user = detail_value(p + 5, out->user, sizeof(out->user))))
				return -EINVAL;
		} else if (strncmp(p, "unit ", 5) == 0 && !unit) {
			if (!(unit = detail_value(p + 5, out->unit, sizeof(out->unit))))
				return -EINVAL;
		} else if (strncmp(p, "started_at ", 11) == 0 && !out->have_started) {
			const char *l = p + 11;
			if (parse_decimal(&l, 0, CGW_MAX_SECONDS, &out->started_at) < 0 ||
			    !line_end(l))
				return -EINVAL;
			out->have_started = true;
		} else {
			return -EINVAL;               /* unknown or repeated key */
		}
		p = strchr(p, '\n');
	}
	return 0;
}
