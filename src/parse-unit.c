/* parse-unit.c: the CPU settings of a systemd unit file (or drop-in) for the daemon's
 * placement: CPUAffinity= and AllowedCPUs= of its [Service] section (pure). */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "cgwatch.h"

/* A systemd CPU list ("0-3 8", "0,2-5", "1 3"): whitespace or commas between CPUs and ranges.
 * Added to out. Returns 0 or -EINVAL (out then holds what came before the bad item). */
static int unit_cpulist(const char *s, const char *end, struct cgw_cpus *out)
{
	while (s < end) {
		while (s < end && (isspace((unsigned char)*s) || *s == ','))
			s++;
		if (s == end)
			break;
		const char *t = s;
		while (t < end && !isspace((unsigned char)*t) && *t != ',')
			t++;
		char item[32];
		if ((size_t)(t - s) >= sizeof(item))
			return -EINVAL;
		memcpy(item, s, (size_t)(t - s));
		item[t - s] = '\0';
		for (const char *p = item; *p; p++)    /* digits and one '-' only */
			if (!isdigit((unsigned char)*p) && *p != '-')
				return -EINVAL;
		struct cgw_cpus one;
		if (cpulist_parse(item, &one) < 0)
			return -EINVAL;
		cpus_or(out, &one);
		s = t;
	}
	return 0;
}

int parse_unit_cpus(const char *text, size_t len, struct unit_cpus *u)
{
	const char *p = text, *end = text + len;
	bool service = false;
	int bad = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *s = p;
		p = nl ? nl + 1 : end;
		while (s < le && isspace((unsigned char)*s))
			s++;
		const char *e = le;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		if (s == e || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			service = e - s == 9 && memcmp(s, "[Service]", 9) == 0;
			continue;
		}
		if (!service)
			continue;
		const char *eq = memchr(s, '=', (size_t)(e - s));
		if (!eq)
			continue;
		const char *ke = eq;
		while (ke > s && isspace((unsigned char)ke[-1]))
			ke--;
		const char *v = eq + 1;
		while (v < e && isspace((unsigned char)*v))
			v++;
		struct cgw_cpus *set;
		bool *isset;
		if (ke - s == 11 && memcmp(s, "CPUAffinity", 11) == 0) {
			set = &u->affinity;
			isset = &u->affinity_set;
		} else if (ke - s == 11 && memcmp(s, "AllowedCPUs", 11) == 0) {
			set = &u->allowed;
			isset = &u->allowed_set;
		} else {
			continue;
		}
		if (v == e) {                 /* "CPUAffinity=": reset */
			memset(set, 0, sizeof(*set));
			*isset = false;
			continue;
		}
		if (e - v == 4 && memcmp(v, "numa", 4) == 0) {
			bad++;                    /* from the NUMA policy: not known from the file */
			continue;
		}
		struct cgw_cpus add = { 0 };
		if (unit_cpulist(v, e, &add) < 0) {
			bad++;                    /* systemd ignores the line, and so do we */
			continue;
		}
		cpus_or(set, &add);           /* repeated assignments are merged */
		*isset = true;
	}
	return bad;
}
