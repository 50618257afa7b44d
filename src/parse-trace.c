/* parse-trace.c: the text `trace` file of a tracefs instance, as the flight recorder reads it
 * (pure). The kernel prints each event (trace_output.c, the default options: irq-info on,
 * record-tgid off) as
 *
 *            mkdir-4242    [001] .....  5123.456789: cgroup_mkdir: root=14 id=2 level=1 path=/c0
 *           <idle>-0       [000] d.h2.  5123.456801: workqueue_queue_work: work struct=...
 *
 * "%16s-%-7d [%03d] FLAGS %5llu.%06lu: NAME: FIELDS". A comm is any 16 bytes (spaces, '-',
 * '[' too), so the CPU field is found as the first " [digits] " after which the rest of the
 * line parses, and the PID as the digits after the last '-' before it. With record-tgid a
 * " (TGID)" follows the PID; without irq-info there are no flags: both are accepted.
 * Syscall events print "NAME(FIELDS)" instead: "sys_openat(dfd: 0xffffff9c, ..., mode: 0x1b6)".
 * Lines of their own: "CPU:1 [LOST 17 EVENTS]", and headers starting with '#'. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* digits in s[i..e): their value in *v (at most max); false if none, or too large */
static bool digits(const char *s, size_t i, size_t e, uint64_t max, uint64_t *v)
{
	if (i >= e)
		return false;
	uint64_t x = 0;
	for (size_t k = i; k < e; k++) {
		if (!is_digit(s[k]))
			return false;
		x = x * 10 + (uint64_t)(s[k] - '0');
		if (x > max)
			return false;
	}
	*v = x;
	return true;
}

/* "CPU:1 [LOST 17 EVENTS]" */
static bool lost_line(const char *s, size_t len, uint64_t *lost)
{
	static const char pre[] = "CPU:", mid[] = " [LOST ", post[] = " EVENTS]";
	if (len < sizeof(pre) - 1 || memcmp(s, pre, sizeof(pre) - 1) != 0)
		return false;
	size_t i = sizeof(pre) - 1, j = i;
	while (j < len && is_digit(s[j]))
		j++;
	uint64_t cpu;
	if (!digits(s, i, j, CGW_MAX_CPUS, &cpu) || len - j < sizeof(mid) - 1 ||
	    memcmp(s + j, mid, sizeof(mid) - 1) != 0)
		return false;
	i = j + sizeof(mid) - 1;
	j = i;
	while (j < len && is_digit(s[j]))
		j++;
	return digits(s, i, j, CGW_MAX_COUNT, lost) && len - j == sizeof(post) - 1 &&
	       memcmp(s + j, post, sizeof(post) - 1) == 0;
}

/* The part after the CPU field, from i: [FLAGS] TIME ": ", e->t set. Where the rest starts,
 * or 0 when there is no such part. */
static size_t time_part(const char *s, size_t len, size_t i, struct cgw_trace_event *e)
{
	for (int tok = 0; tok < 2; tok++) {
		while (i < len && s[i] == ' ')
			i++;
		size_t j = i;
		while (j < len && s[j] != ' ')
			j++;
		/* TIME: digits '.' digits ':' (a fixed-point decimal in a bounded token) */
		if (j - i >= 4 && j - i < 32 && s[j - 1] == ':' && is_digit(s[i])) {
			char num[32];
			memcpy(num, s + i, j - i - 1);
			num[j - i - 1] = 0;
			const char *p = num;
			double t;
			if (strchr(num, '.') && parse_decimal(&p, 0, CGW_MAX_SECONDS, &t) == 0 && !*p) {
				e->t = t;
				return j < len && s[j] == ' ' ? j + 1 : 0;
			}
		}
		if (tok == 1 || j == i)
			return 0;
		i = j;                       /* that was FLAGS */
	}
	return 0;
}

/* The event after TIME, from i: NAME ": " FIELDS, or for a syscall NAME "(" FIELDS ")".
 * fat[0], fat[1]: where the fields start and how long they are. */
static bool name_part(const char *s, size_t len, size_t i, struct cgw_trace_event *e,
                      size_t fat[2])
{
	size_t j = i;
	while (j < len && is_name(s[j]))
		j++;
	if (j == i || j - i >= sizeof(e->name) || j >= len || (s[j] != ':' && s[j] != '('))
		return false;
	memcpy(e->name, s + i, j - i);
	e->name[j - i] = 0;
	if (s[j] == '(') {                   /* a syscall: "sys_openat(dfd: 0x..., mode: 0x1b6)" */
		if (s[len - 1] != ')')
			return false;
		e->call = true;
		fat[0] = j + 1;
		fat[1] = len - 1 - (j + 1);
		return true;
	}
	j++;
	if (j < len && s[j] == ' ')
		j++;
	fat[0] = j;
	fat[1] = len - j;
	return true;
}

/* COMM-PID[ (TGID)] [CPU] [FLAGS] TIME ": " of line into e, the CPU field's '[' searched
 * from *from on (then set past the one taken: a caller may try the next); where the rest
 * starts, or 0. */
static size_t head_part(const char *line, size_t len, size_t k, struct cgw_trace_event *e,
                        size_t *from)
{
	/* each " [digits] " is a candidate CPU field */
	for (size_t b = *from > 1 ? *from : 1; b + 3 < len; b++) {
		if (line[b] != '[' || line[b - 1] != ' ')
			continue;
		size_t c = b + 1;
		while (c < len && is_digit(line[c]))
			c++;
		uint64_t cpu, pid;
		if (c >= len || line[c] != ']' || !digits(line, b + 1, c, CGW_MAX_CPUS - 1, &cpu))
			continue;
		if (c + 1 < len && line[c + 1] != ' ')
			continue;
		/* before it: COMM-PID[ (TGID)], then spaces */
		size_t p = b - 1;
		while (p > 0 && line[p - 1] == ' ')
			p--;
		if (p > 0 && line[p - 1] == ')') {          /* record-tgid: " (  123)" or "(-----)" */
			size_t q = p - 1;
			while (q > 0 && line[q - 1] != '(')
				q--;
			if (q == 0)
				continue;
			p = q - 1;
			while (p > 0 && line[p - 1] == ' ')
				p--;
		}
		size_t d = p;
		while (d > 0 && is_digit(line[d - 1]))
			d--;
		if (d == p || d == 0 || line[d - 1] != '-' || !digits(line, d, p, 0x7fffffff, &pid))
			continue;
		size_t cs = k, ce = d - 1;                    /* the comm, leading blanks cut */
		if (ce < cs || ce - cs >= sizeof(e->comm))
			continue;
		size_t rest = time_part(line, len, c + 1, e);
		if (!rest)
			continue;
		memcpy(e->comm, line + cs, ce - cs);
		e->comm[ce - cs] = 0;
		e->cpu = (int)cpu;
		e->pid = (int)pid;
		*from = b + 1;
		return rest;
	}
	return 0;
}

size_t trace_parse_head(const char *line, size_t len, struct cgw_trace_event *e)
{
	memset(e, 0, sizeof(*e));
	size_t k = 0;
	while (k < len && (line[k] == ' ' || line[k] == '\t'))
		k++;
	size_t from = 1, rest = k < len && line[k] != '#' ? head_part(line, len, k, e, &from) : 0;
	if (!rest)
		memset(e, 0, sizeof(*e));
	return rest;
}

int trace_parse_line(const char *line, size_t len, struct cgw_trace_event *e,
                     size_t *fields_at, size_t *fields_len, uint64_t *lost)
{
	memset(e, 0, sizeof(*e));
	size_t k = 0;
	while (k < len && (line[k] == ' ' || line[k] == '\t'))
		k++;
	if (k == len || line[k] == '#')
		return 0;
	if (lost_line(line, len, lost))
		return 2;
	size_t fat[2], from = 1, rest;
	while ((rest = head_part(line, len, k, e, &from)))
		if (name_part(line, len, rest, e, fat)) {
			*fields_at = fat[0];
			*fields_len = fat[1];
			return 1;
		}
	memset(e, 0, sizeof(*e));
	return -EINVAL;
}

int trace_parse(const char *text, size_t len, double since, struct cgw_trace_events *out)
{
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		struct cgw_trace_event ev;
		size_t fat = 0, flen = 0;
		uint64_t lost = 0;
		int r = trace_parse_line(text + i, e - i, &ev, &fat, &flen, &lost);
		if (r == 2) {
			out->lost = out->lost + lost > CGW_MAX_COUNT ? CGW_MAX_COUNT : out->lost + lost;
		} else if (r < 0) {
			out->bad++;
		} else if (r == 1 && ev.t < since) {
			out->older++;
		} else if (r == 1) {
			if (grow((void **)&out->v, &out->cap, out->n, 256, sizeof(*out->v)) < 0 ||
			    !(ev.fields = try_strndup(text + i + fat, flen)))
				return -ENOMEM;
			out->v[out->n++] = ev;
		}
		i = e + 1;
	}
	return 0;
}

const char *trace_field(const char *fields, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	if (!fields || !kl)
		return NULL;
	for (const char *s = fields; (s = strstr(s, key)); s++) {
		if ((s != fields && s[-1] != ' ') || s[kl] != '=')
			continue;
		const char *v = s + kl + 1, *end = v + strlen(v);
		/* the value ends before the next " word=" */
		for (const char *q = strchr(v, ' '); q; q = strchr(q + 1, ' ')) {
			const char *w = q + 1;
			while (is_name(*w))
				w++;
			if (w > q + 1 && *w == '=') {
				end = q;
				break;
			}
		}
		*len = (size_t)(end - v);
		return v;
	}
	return NULL;
}

void trace_events_free(struct cgw_trace_events *out)
{
	for (size_t i = 0; i < out->n; i++)
		free(out->v[i].fields);
	free(out->v);
	memset(out, 0, sizeof(*out));
}

size_t trace_events_keep_last(struct cgw_trace_events *e, size_t max)
{
	if (e->n <= max)
		return 0;
	size_t drop = e->n - max;
	for (size_t i = 0; i < drop; i++)
		free(e->v[i].fields);
	memmove(e->v, e->v + drop, max * sizeof(*e->v));
	e->n = max;
	return drop;
}

size_t trace_events_keep_last_per_cpu(struct cgw_trace_events *e, size_t max)
{
	/* newest first: count each CPU's events, mark those past max; then compact */
	uint32_t *seen = calloc(CGW_MAX_CPUS, sizeof(*seen));
	bool *drop = calloc(e->n ? e->n : 1, sizeof(*drop));
	size_t dropped = 0;
	if (!seen || !drop) {
		free(seen);
		free(drop);
		return 0;
	}
	for (size_t i = e->n; i-- > 0;) {
		int c = e->v[i].cpu;
		if (c < 0 || c >= CGW_MAX_CPUS)
			continue;
		if (seen[c] >= max) {
			drop[i] = true;
			dropped++;
		} else {
			seen[c]++;
		}
	}
	size_t o = 0;
	for (size_t i = 0; i < e->n; i++) {
		if (drop[i])
			free(e->v[i].fields);
		else
			e->v[o++] = e->v[i];
	}
	e->n = o;
	free(seen);
	free(drop);
	return dropped;
}

void trace_window_format(const struct cgw_recwin *w, struct strbuf *b)
{
	sb_printf(b, "# cgwatch-recorder 1\n# read_at %.6f\n# window %.6g\n# dropped %llu\n",
	          w->read_at, w->window_s, (unsigned long long)w->dropped);
	sb_printf(b, "# enabled %s\n# missing %s\n", w->enabled, w->missing);
	if (w->why[0])
		sb_printf(b, "# not_recorded %s\n", w->why);
	if (w->ev.lost)
		sb_printf(b, "CPU:0 [LOST %llu EVENTS]\n", (unsigned long long)w->ev.lost);
	for (size_t i = 0; i < w->ev.n; i++) {
		const struct cgw_trace_event *e = &w->ev.v[i];
		sb_printf(b, "%16s-%-7d [%03d] ..... %.6f: %s%s%s%s\n", e->comm, e->pid, e->cpu, e->t,
		          e->name, e->call ? "(" : ": ", e->fields ? e->fields : "",
		          e->call ? ")" : "");
	}
}

/* "# KEY VALUE": VALUE (to the line's end) when line is that header, else NULL */
static const char *header(const char *line, size_t len, const char *key, size_t *vlen)
{
	size_t kl = strlen(key);
	if (len < kl + 2 || memcmp(line, "# ", 2) != 0 || memcmp(line + 2, key, kl) != 0 ||
	    (len > kl + 2 && line[kl + 2] != ' '))
		return NULL;
	size_t at = len > kl + 2 ? kl + 3 : len;
	*vlen = len - at;
	return line + at;
}

static bool header_num(const char *v, size_t n, double max, double *out)
{
	char num[48];
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, v, n);
	num[n] = 0;
	const char *p = num;
	return parse_decimal(&p, 0, max, out) == 0 && !*p;
}

int trace_window_parse(const char *text, size_t len, struct cgw_recwin *w)
{
	memset(w, 0, sizeof(*w));
	static const char magic[] = "# cgwatch-recorder 1";
	const char *nl = memchr(text, '\n', len);
	size_t first = nl ? (size_t)(nl - text) : len;
	if (first != sizeof(magic) - 1 || memcmp(text, magic, first) != 0)
		return -EINVAL;
	bool have_read = false;
	for (size_t i = 0; i < len;) {
		const char *e = memchr(text + i, '\n', len - i);
		size_t l = e ? (size_t)(e - (text + i)) : len - i;
		const char *line = text + i, *v;
		size_t vl;
		double x;
		if ((v = header(line, l, "read_at", &vl)) && header_num(v, vl, CGW_MAX_SECONDS, &x)) {
			w->read_at = x;
			have_read = true;
		} else if ((v = header(line, l, "window", &vl)) &&
		           header_num(v, vl, CGW_MAX_SECONDS, &x)) {
			w->window_s = x;
		} else if ((v = header(line, l, "dropped", &vl)) &&
		           header_num(v, vl, CGW_MAX_COUNT, &x)) {
			w->dropped = (uint64_t)x;
		} else if ((v = header(line, l, "enabled", &vl))) {
			snprintf(w->enabled, sizeof(w->enabled), "%.*s", (int)vl, v);
		} else if ((v = header(line, l, "missing", &vl))) {
			snprintf(w->missing, sizeof(w->missing), "%.*s", (int)vl, v);
		} else if ((v = header(line, l, "not_recorded", &vl)) && vl) {
			snprintf(w->why, sizeof(w->why), "%.*s", (int)vl, v);
		}
		i += l + 1;
	}
	if (!have_read)
		return -EINVAL;
	return trace_parse(text, len, -1, &w->ev);
}

void recwin_free(struct cgw_recwin *w)
{
	trace_events_free(&w->ev);
}
