/* parse-maps.c: /proc/TID/maps lines, for the user-stack unwinder (pure). A line is
 * "START-END PERMS OFFSET MAJ:MIN INODE", then spaces and the path (which may hold spaces, and
 * ends in " (deleted)" for a file removed since). Anything else is refused, never guessed.
 * A process's maps are parsed once into an array in address order (maps_index), which every
 * lookup of its unwinds searches: parsing the text again per lookup cost a process of 2,000
 * blocked threads (4,000 mappings) 0.5 s of a check. */
#include <errno.h>
#include <stdlib.h>
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

int maps_index_parse(const char *text, struct maps_index *ix, size_t *line)
{
	*ix = (struct maps_index){ 0 };
	*line = 0;
	size_t cap = 0, no = 0;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		struct maps_ent e;
		no++;
		/* the kernel writes them in ascending order, none overlapping, even when the
		 * address space changes between reads (Documentation/filesystems/proc.rst):
		 * anything else is not its text */
		if (parse_maps_line(l, n, &e) < 0 || (ix->n && e.start < ix->e[ix->n - 1].end)) {
			maps_index_free(ix);
			*line = no;
			return -EINVAL;
		}
		if (grow((void **)&ix->e, &cap, ix->n, 64, sizeof(*ix->e)) < 0) {
			maps_index_free(ix);
			return -ENOMEM;
		}
		ix->e[ix->n++] = e;
		if (!nl)
			break;
		l = nl + 1;
	}
	return 0;
}

const struct maps_ent *maps_index_find(const struct maps_index *ix, unsigned long addr)
{
	size_t lo = 0, hi = ix->n;           /* the first mapping ending above addr is in [lo, hi] */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->e[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->e[lo].start <= addr ? &ix->e[lo] : NULL;
}

void maps_index_free(struct maps_index *ix)
{
	free(ix->e);
	*ix = (struct maps_index){ 0 };
}
