/* parse-maps.c: /proc/TID/maps lines, for the user-stack unwinder (pure). A line is
 * "START-END PERMS OFFSET MAJ:MIN INODE", then spaces and the path (which may hold spaces, and
 * ends in " (deleted)" for a file removed since). Anything else is refused, never guessed. */
#include <errno.h>
#include <string.h>

#include "cgwatch.h"

/* Hex digits at *p (1..16 of them, none past end) into *v; *p moved past them. */
static bool hex_field(const char **p, const char *end, unsigned long *v)
{
	const char *s = *p;
	unsigned long x = 0;
	size_t n = 0;
	for (; s < end; s++, n++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else
			break;
		if (n == 16)
			return false;
		x = x << 4 | d;
	}
	if (n == 0)
		return false;
	*v = x;
	*p = s;
	return true;
}

static bool dec_field(const char **p, const char *end, unsigned long *v)
{
	const char *s = *p;
	unsigned long x = 0;
	size_t n = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++, n++) {
		if (n == 19)
			return false;
		x = x * 10 + (unsigned long)(*s - '0');
	}
	if (n == 0)
		return false;
	*v = x;
	*p = s;
	return true;
}

static bool lit(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

int parse_maps_line(const char *line, size_t len, struct maps_ent *e)
{
	const char *p = line, *end = line + len;
	unsigned long maj, min;
	memset(e, 0, sizeof(*e));
	e->path = "";
	if (!hex_field(&p, end, &e->start) || !lit(&p, end, '-') || !hex_field(&p, end, &e->end) ||
	    e->start >= e->end || !lit(&p, end, ' ') || end - p < 5)
		return -EINVAL;
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's'))
		return -EINVAL;
	e->r = p[0] == 'r';
	e->w = p[1] == 'w';
	e->x = p[2] == 'x';
	e->shared = p[3] == 's';
	p += 4;
	if (!lit(&p, end, ' ') || !hex_field(&p, end, &e->off) || !lit(&p, end, ' ') ||
	    !hex_field(&p, end, &maj) || !lit(&p, end, ':') || !hex_field(&p, end, &min) ||
	    maj > 0xfff || min > 0xfffff || !lit(&p, end, ' ') || !dec_field(&p, end, &e->inode))
		return -EINVAL;
	e->dev_major = (unsigned)maj;
	e->dev_minor = (unsigned)min;
	if (p == end)
		return 0;
	if (*p != ' ')
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	e->path = p;
	e->path_len = (size_t)(end - p);
	return 0;
}

int maps_find(const char *text, unsigned long addr, struct maps_ent *e)
{
	int r = -ENOENT;
	struct maps_ent cur;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (parse_maps_line(l, n, &cur) < 0)
			return -EINVAL;
		if (r == -ENOENT && addr >= cur.start && addr < cur.end) {
			*e = cur;
			r = 0;
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	return r;
}
