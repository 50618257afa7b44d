/* parse-psi.c: the kernel's pressure stall information as its files give it (pure):
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * (kernel/sched/psi.c, psi_show: avgN are percents with two decimals, total is microseconds
 * stalled since boot). /proc/pressure/{cpu,memory,io} and a cgroup v2 directory's
 * {cpu,memory,io}.pressure read the same; a kernel before 5.13 has no "full" line for cpu. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"

static const char *const res_names[PSI_NRES] = { "cpu", "memory", "io" };

const char *psi_res_name(int res)
{
	return res >= 0 && res < PSI_NRES ? res_names[res] : "?";
}

/* Digits [. digits] at *p into a percent 0..100 (as the kernel prints it: the value is
 * digits/10^decimals, rounded once); *p moved past it. */
static bool take_pct(const char **p, double *out)
{
	const char *s = *p;
	unsigned long long v = 0, den = 1;
	int n = 0;
	for (; *s >= '0' && *s <= '9' && n < 4; s++, n++)
		v = v * 10 + (unsigned)(*s - '0');
	if (n == 0 || (*s >= '0' && *s <= '9'))
		return false;
	if (*s == '.') {
		s++;
		n = 0;
		for (; *s >= '0' && *s <= '9' && n < 6; s++, n++) {
			v = v * 10 + (unsigned)(*s - '0');
			den *= 10;
		}
		if (n == 0 || (*s >= '0' && *s <= '9'))
			return false;
	}
	if (v > 100 * den)
		return false;
	*out = (double)v / (double)den;
	*p = s;
	return true;
}

/* A decimal count at *p, at most CGW_MAX_SECONDS * 1e6 (a century of microseconds). */
static bool take_total(const char **p, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	const unsigned long long max = (unsigned long long)(CGW_MAX_SECONDS * 1e6);
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > max)
			return false;
	}
	*out = v;
	*p = s;
	return true;
}

/* One line (len bytes at l): "KIND avg10=X avg60=X avg300=X total=N" into a. */
static bool parse_line(const char *l, size_t len, const char *kind, struct cgw_psi_avg *a,
                       const char **bad)
{
	char line[160];
	if (len >= sizeof(line)) {
		*bad = "too long";
		return false;
	}
	memcpy(line, l, len);
	line[len] = '\0';
	const char *p = line;
	size_t k = strlen(kind);
	if (strncmp(p, kind, k) != 0 || p[k] != ' ') {
		*bad = "an unknown kind";
		return false;
	}
	p += k + 1;
	static const char *const keys[] = { "avg10=", "avg60=", "avg300=" };
	double *vals[] = { &a->avg10, &a->avg60, &a->avg300 };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(keys[i]);
		if (strncmp(p, keys[i], n) != 0) {
			*bad = i == 0 ? "no avg10=" : i == 1 ? "no avg60=" : "no avg300=";
			return false;
		}
		p += n;
		if (!take_pct(&p, vals[i])) {
			*bad = "an average that is not a percent 0..100";
			return false;
		}
		if (*p++ != ' ') {
			*bad = "not one space between fields";
			return false;
		}
	}
	if (strncmp(p, "total=", 6) != 0) {
		*bad = "no total=";
		return false;
	}
	p += 6;
	if (!take_total(&p, &a->total_us)) {
		*bad = "a total that is not a count of microseconds";
		return false;
	}
	if (*p) {
		*bad = "text after total=";
		return false;
	}
	a->have = true;
	return true;
}

int psi_parse(const char *buf, struct cgw_psi *p, char *err, size_t cap)
{
	memset(p, 0, sizeof(*p));
	if (!buf[0]) {
		snprintf(err, cap, "empty: no \"some\" line");
		return -EINVAL;
	}
	const char *l = buf;
	int line = 0;
	while (*l) {
		line++;
		size_t len = strcspn(l, "\n");
		const char *kind = line == 1 ? "some" : line == 2 ? "full" : NULL;
		const char *bad = "more than two lines";
		struct cgw_psi_avg *a = line == 1 ? &p->some : &p->full;
		if (!kind || !parse_line(l, len, kind, a, &bad)) {
			char shown[96];
			size_t n = len < 40 ? len : 40;
			cescape(l, n, shown, sizeof(shown));
			snprintf(err, cap, "line %d: %s (want \"%s avg10=P avg60=P avg300=P total=US\"): "
			         "%s%s", line, bad, kind ? kind : "some|full", shown, len > n ? "..." : "");
			memset(p, 0, sizeof(*p));
			return -EINVAL;
		}
		l += len;
		if (*l == '\n')
			l++;
	}
	p->have = true;
	return 0;
}
