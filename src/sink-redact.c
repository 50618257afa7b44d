/* sink-redact.c: stable tokens for what a bundle must not carry off the host: host names,
 * user names, command lines, paths under home directories. The same value always gets the
 * same token within one map, so a redacted bundle still reads as one story; the map itself
 * stays on the host. Pure: text in, text out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

struct redact_ent { char *kind, *value, *token; size_t len; };
struct cgw_redact {
	struct redact_ent *v; size_t n, cap;
	char **prefix; size_t nprefix, capprefix;   /* path prefixes: "/home/" */
	size_t npaths;                              /* tokens made for paths under a prefix */
};

struct cgw_redact *redact_new(void)
{
	return try_calloc(1, sizeof(struct cgw_redact));
}

void redact_free(struct cgw_redact *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].kind);
		free(r->v[i].value);
		free(r->v[i].token);
	}
	for (size_t i = 0; i < r->nprefix; i++)
		free(r->prefix[i]);
	free(r->v);
	free(r->prefix);
	free(r);
}

static const struct redact_ent *find(const struct cgw_redact *r, const char *value, size_t n)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].len == n && memcmp(r->v[i].value, value, n) == 0)
			return &r->v[i];
	return NULL;
}

/* The token of value, made as "REDACTED-KIND-N" (N counting that kind) when new. */
static const char *add(struct cgw_redact *r, const char *kind, const char *value, size_t n)
{
	const struct redact_ent *e = find(r, value, n);
	if (e)
		return e->token;
	if (grow((void **)&r->v, &r->cap, r->n, 16, sizeof(*r->v)) < 0)
		return NULL;
	size_t same = 0;
	for (size_t i = 0; i < r->n; i++)
		same += strcmp(r->v[i].kind, kind) == 0;
	char tok[96];
	snprintf(tok, sizeof(tok), "REDACTED-%s-%zu", kind, same + 1);
	struct redact_ent x = { try_strdup(kind), try_malloc(n + 1), try_strdup(tok), n };
	if (!x.kind || !x.value || !x.token) {
		free(x.kind);
		free(x.value);
		free(x.token);
		return NULL;
	}
	memcpy(x.value, value, n);
	x.value[n] = '\0';
	r->v[r->n] = x;
	return r->v[r->n++].token;
}

const char *redact_add(struct cgw_redact *r, const char *kind, const char *value, size_t n)
{
	if (n == 0 || !kind[0] || strlen(kind) > 32)
		return NULL;
	return add(r, kind, value, n);
}

int redact_prefix(struct cgw_redact *r, const char *prefix)
{
	if (!prefix[0])
		return -EINVAL;
	if (grow((void **)&r->prefix, &r->capprefix, r->nprefix, 4, sizeof(*r->prefix)) < 0)
		return -ENOMEM;
	if (!(r->prefix[r->nprefix] = try_strdup(prefix)))
		return -ENOMEM;
	r->nprefix++;
	return 0;
}

/* A byte that can be part of a name: a value matches only between two bytes that are not. */
static bool name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c >= 0x80;
}

/* Where a path under a prefix ends: at white space, a quote, a NUL, a control byte. */
static size_t path_len(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (unsigned char)s[k] > ' ' && s[k] != '"' && s[k] != '\'' && s[k] != 0x7f)
		k++;
	return k;
}

/* The longest value that starts at in[i] with name boundaries on both sides, or NULL. */
static const struct redact_ent *match_at(const struct cgw_redact *r, const char *in, size_t n,
                                         size_t i)
{
	if (i > 0 && name_byte((unsigned char)in[i - 1]))
		return NULL;
	const struct redact_ent *best = NULL;
	for (size_t k = 0; k < r->n; k++) {
		const struct redact_ent *e = &r->v[k];
		if (e->len > n - i || (best && e->len <= best->len) ||
		    memcmp(in + i, e->value, e->len) != 0)
			continue;
		if (i + e->len < n && name_byte((unsigned char)in[i + e->len]) &&
		    name_byte((unsigned char)e->value[e->len - 1]))
			continue;
		best = e;
	}
	return best;
}

int redact_text(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	size_t i = 0;
	while (i < n) {
		bool done = false;
		for (size_t p = 0; p < r->nprefix && !done; p++) {
			size_t pl = strlen(r->prefix[p]);
			if (pl > n - i || memcmp(in + i, r->prefix[p], pl) != 0 ||
			    (i > 0 && name_byte((unsigned char)in[i - 1])))
				continue;
			size_t len = path_len(in + i, n - i);
			if (len <= pl)
				continue;                 /* the prefix alone ("/home/") says nothing */
			const char *tok = add(r, "path", in + i, len);
			if (!tok)
				return -ENOMEM;
			sb_add(out, tok, strlen(tok));
			i += len;
			done = true;
		}
		if (done)
			continue;
		const struct redact_ent *e = match_at(r, in, n, i);
		if (e) {
			sb_add(out, e->token, strlen(e->token));
			i += e->len;
		} else {
			sb_add(out, in + i, 1);
			i++;
		}
	}
	return out->lost ? -ENOMEM : 0;
}

void redact_map_text(const struct cgw_redact *r, struct strbuf *out)
{
	for (size_t i = 0; i < r->n; i++) {
		sb_printf(out, "%s\t", r->v[i].token);
		sb_add_term(out, r->v[i].value, r->v[i].len, false);
		sb_add(out, "\n", 1);
	}
}
