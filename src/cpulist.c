/* cpulist.c: CPU sets and the kernel's list syntax ("0-3,8,10-11", "0-15:2/4"). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

void cpus_set(struct cgw_cpus *c, unsigned cpu)
{
	if (cpu < CGW_MAX_CPUS)
		c->bits[cpu / 64] |= 1ull << (cpu % 64);
}

bool cpus_test(const struct cgw_cpus *c, unsigned cpu)
{
	return cpu < CGW_MAX_CPUS && (c->bits[cpu / 64] >> (cpu % 64)) & 1;
}

bool cpus_empty(const struct cgw_cpus *c)
{
	for (size_t i = 0; i < CGW_MAX_CPUS / 64; i++)
		if (c->bits[i])
			return false;
	return true;
}

void cpus_or(struct cgw_cpus *dst, const struct cgw_cpus *src)
{
	for (size_t i = 0; i < CGW_MAX_CPUS / 64; i++)
		dst->bits[i] |= src->bits[i];
}

void cpus_andnot(struct cgw_cpus *dst, const struct cgw_cpus *src)
{
	for (size_t i = 0; i < CGW_MAX_CPUS / 64; i++)
		dst->bits[i] &= ~src->bits[i];
}

static int parse_uint(const char **p, unsigned *out)
{
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	unsigned long v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (unsigned long)(**p - '0');
		if (v >= CGW_MAX_CPUS)
			return -ERANGE;
		(*p)++;
	}
	*out = (unsigned)v;
	return 0;
}

int cpulist_parse(const char *s, struct cgw_cpus *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n')
		return 0;
	for (;;) {
		unsigned a, b, used = 1, group = 1;
		if (parse_uint(&p, &a) < 0)
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_uint(&p, &b) < 0 || b < a)
				return -EINVAL;
			if (*p == ':') {       /* "0-15:2/4": `used` CPUs of every `group` */
				p++;
				if (parse_uint(&p, &used) < 0 || *p != '/')
					return -EINVAL;
				p++;
				if (parse_uint(&p, &group) < 0 || used == 0 || group == 0 || used > group)
					return -EINVAL;
			}
		}
		for (unsigned c = a; c <= b; c++)
			if ((c - a) % group < used)
				cpus_set(out, c);
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == '\n' || *p == ' ')
			p++;
		return *p ? -EINVAL : 0;
	}
}

char *cpulist_format(const struct cgw_cpus *c, char *out, size_t cap)
{
	size_t o = 0;
	if (cap)
		out[0] = '\0';
	for (unsigned i = 0; i < CGW_MAX_CPUS; i++) {
		if (!cpus_test(c, i))
			continue;
		unsigned j = i;
		while (j + 1 < CGW_MAX_CPUS && cpus_test(c, j + 1))
			j++;
		char tmp[32];
		int n = j == i ? snprintf(tmp, sizeof(tmp), "%s%u", o ? "," : "", i)
		               : snprintf(tmp, sizeof(tmp), "%s%u-%u", o ? "," : "", i, j);
		if (n < 0 || o + (size_t)n + 1 > cap)
			break;
		memcpy(out + o, tmp, (size_t)n + 1);
		o += (size_t)n;
		i = j;
	}
	return out;
}
