/* parse-passwd.c: who the users of a host are, for redaction: /etc/passwd text (name, uid,
 * home) and the uids a /proc status file names. Pure: text in, structs out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

void passwd_free(struct passwd_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].home);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

bool etc_id(const char *s, size_t n, unsigned *out)
{
	if (n == 0 || n > 10)
		return false;
	unsigned long long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v >= 0xffffffffULL)
		return false;
	*out = (unsigned)v;
	return true;
}

int etc_each_line(const char *text, size_t n, size_t *bad, void *ctx,
                     int (*fn)(void *ctx, const char *line, size_t len))
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (text + i)) : n - i;
		const char *line = text + i;
		i += len + (nl ? 1 : 0);
		if (len && line[len - 1] == '\r')
			len--;
		size_t lead = 0;
		while (lead < len && (line[lead] == ' ' || line[lead] == '\t'))
			lead++;
		if (lead == len || line[lead] == '#')
			continue;
		int r = fn(ctx, line, len);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			(*bad)++;
	}
	return 0;
}

/* One line (n bytes, no newline) into e: seven fields, a name without NUL that is not a NIS
 * "+"/"-" entry, a uid. Returns 0, -EINVAL, or -ENOMEM. */
static int passwd_line(const char *s, size_t n, struct passwd_ent *e)
{
	const char *f[7];
	size_t len[7], k = 0;
	const char *p = s, *end = s + n;
	if (memchr(s, '\0', n))
		return -EINVAL;
	for (;;) {
		const char *c = memchr(p, ':', (size_t)(end - p));
		if (k == 7)
			return -EINVAL;               /* more than seven fields */
		f[k] = p;
		len[k] = c ? (size_t)(c - p) : (size_t)(end - p);
		k++;
		if (!c)
			break;
		p = c + 1;
	}
	if (k != 7)
		return -EINVAL;
	if (len[0] == 0 || f[0][0] == '+' || f[0][0] == '-' || !etc_id(f[2], len[2], &e->uid))
		return -EINVAL;
	if (!etc_id(f[3], len[3], &e->gid))
		e->gid = 0xffffffffu;
	e->name = try_strndup(f[0], len[0]);
	e->home = try_strndup(f[5], len[5]);
	if (!e->name || !e->home) {
		free(e->name);
		free(e->home);
		return -ENOMEM;
	}
	return 0;
}

struct passwd_acc { struct passwd_list *out; size_t cap; };

/* One line of etc_each_line: kept, -EINVAL (counted bad) or -ENOMEM. */
static int passwd_one(void *ctx, const char *line, size_t len)
{
	struct passwd_acc *a = ctx;
	struct passwd_ent e = { 0 };
	int r = passwd_line(line, len, &e);
	if (r < 0)
		return r;
	if (grow((void **)&a->out->v, &a->cap, a->out->n, 32, sizeof(*a->out->v)) < 0) {
		free(e.name);
		free(e.home);
		return -ENOMEM;
	}
	a->out->v[a->out->n++] = e;
	return 0;
}

int passwd_parse(const char *text, size_t n, struct passwd_list *out, size_t *bad)
{
	memset(out, 0, sizeof(*out));
	size_t nbad = 0;
	struct passwd_acc a = { out, 0 };
	if (etc_each_line(text, n, &nbad, &a, passwd_one) < 0) {
		passwd_free(out);
		return -ENOMEM;
	}
	if (bad)
		*bad = nbad;
	return 0;
}

int status_uids(const char *buf, size_t n, unsigned out[4])
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(buf + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (buf + i)) : n - i;
		const char *l = buf + i;
		i += len + 1;
		if (len < 4 || memcmp(l, "Uid:", 4) != 0)
			continue;
		size_t k = 4, got = 0;
		while (got < 4) {
			while (k < len && (l[k] == ' ' || l[k] == '\t'))
				k++;
			size_t s = k;
			while (k < len && l[k] != ' ' && l[k] != '\t')
				k++;
			if (!etc_id(l + s, k - s, &out[got]))
				break;
			got++;
		}
		return (int)got;
	}
	return 0;
}
