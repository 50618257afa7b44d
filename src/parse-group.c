/* parse-group.c: the other names of a host's people and of the host, for redaction:
 * /etc/group text (name, gid) and the /etc/hosts lines that name the host (their names and
 * addresses). Pure: text in, structs out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgwatch.h"

void group_free(struct group_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct group_ctx { struct group_list *l; size_t cap; };

/* "name:password:gid:members": four fields, a name without NUL that is not a NIS "+"/"-"
 * entry, a gid. */
static int group_line(void *p, const char *s, size_t n)
{
	struct group_ctx *c = p;
	const char *f[4];
	size_t len[4], k = 0;
	const char *q = s, *end = s + n;
	if (memchr(s, '\0', n))
		return -EINVAL;
	for (;;) {
		const char *colon = memchr(q, ':', (size_t)(end - q));
		if (k == 4)
			return -EINVAL;
		f[k] = q;
		len[k] = colon ? (size_t)(colon - q) : (size_t)(end - q);
		k++;
		if (!colon)
			break;
		q = colon + 1;
	}
	struct group_ent e = { 0 };
	if (k != 4 || len[0] == 0 || f[0][0] == '+' || f[0][0] == '-' ||
	    !etc_id(f[2], len[2], &e.gid))
		return -EINVAL;
	if (grow((void **)&c->l->v, &c->cap, c->l->n, 32, sizeof(*c->l->v)) < 0 ||
	    !(e.name = try_strndup(f[0], len[0])))
		return -ENOMEM;
	c->l->v[c->l->n++] = e;
	return 0;
}

int group_parse(const char *text, size_t n, struct group_list *out, size_t *bad)
{
	memset(out, 0, sizeof(*out));
	size_t nbad = 0;
	struct group_ctx c = { out, 0 };
	if (etc_each_line(text, n, &nbad, &c, group_line) < 0) {
		group_free(out);
		return -ENOMEM;
	}
	if (bad)
		*bad = nbad;
	return 0;
}

/* ---- /etc/hosts ---- */

void hosts_free(struct hosts_list *l)
{
	for (size_t i = 0; i < l->nnames; i++)
		free(l->names[i]);
	for (size_t i = 0; i < l->naddrs; i++)
		free(l->addrs[i]);
	free(l->names);
	free(l->addrs);
	memset(l, 0, sizeof(*l));
}

struct hosts_ctx { struct hosts_list *l; const char *host; size_t hl, capn, capa; };

static bool loopback_addr(const char *a, size_t n)
{
	return (n >= 4 && !memcmp(a, "127.", 4)) || (n == 3 && !memcmp(a, "::1", 3)) ||
	       (n == 7 && !memcmp(a, "0.0.0.0", 7)) || (n == 2 && !memcmp(a, "::", 2));
}

static bool localhost_name(const char *s, size_t n)
{
	static const char *const names[] = { "localhost", "localhost.localdomain", "ip6-localhost",
	                                     "ip6-loopback", "ip6-localnet", "ip6-mcastprefix",
	                                     "ip6-allnodes", "ip6-allrouters", "broadcasthost" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !strncasecmp(s, names[i], n))
			return true;
	return false;
}

/* Append s (n bytes) to *v unless it is there. */
static int push_unique(char ***v, size_t *count, size_t *cap, const char *s, size_t n)
{
	for (size_t i = 0; i < *count; i++)
		if (strlen((*v)[i]) == n && !memcmp((*v)[i], s, n))
			return 0;
	char *d = NULL;
	if (grow((void **)v, cap, *count, 8, sizeof(**v)) < 0 || !(d = try_strndup(s, n)))
		return -ENOMEM;
	(*v)[(*count)++] = d;
	return 0;
}

/* "ADDRESS NAME [ALIAS...] [# comment]": when a name is the host or begins "HOST.", every
 * name (but localhost's) and the address (unless a loopback's). */
static int hosts_line(void *p, const char *s, size_t n)
{
	struct hosts_ctx *c = p;
	const char *hash = memchr(s, '#', n);
	if (hash)
		n = (size_t)(hash - s);
	if (memchr(s, '\0', n))
		return -EINVAL;
	const char *w[64];
	size_t wl[64], nw = 0;
	for (size_t i = 0; i < n && nw < 64;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		size_t b = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		if (i > b) {
			w[nw] = s + b;
			wl[nw++] = i - b;
		}
	}
	if (nw < 2)
		return -EINVAL;
	bool ours = false;
	for (size_t k = 1; k < nw && !ours; k++)
		ours = wl[k] >= c->hl && !strncasecmp(w[k], c->host, c->hl) &&
		       (wl[k] == c->hl || w[k][c->hl] == '.');
	if (!ours)
		return 0;
	for (size_t k = 1; k < nw; k++)
		if (!localhost_name(w[k], wl[k]) &&
		    push_unique(&c->l->names, &c->l->nnames, &c->capn, w[k], wl[k]) < 0)
			return -ENOMEM;
	if (!loopback_addr(w[0], wl[0]) &&
	    push_unique(&c->l->addrs, &c->l->naddrs, &c->capa, w[0], wl[0]) < 0)
		return -ENOMEM;
	return 0;
}

int hosts_parse(const char *text, size_t n, const char *host, struct hosts_list *out)
{
	memset(out, 0, sizeof(*out));
	size_t hl = host ? strcspn(host, ".\n") : 0, bad = 0;
	if (hl == 0 || localhost_name(host, hl))
		return 0;
	struct hosts_ctx c = { out, host, hl, 0, 0 };
	if (etc_each_line(text, n, &bad, &c, hosts_line) < 0) {
		hosts_free(out);
		return -ENOMEM;
	}
	return 0;
}
