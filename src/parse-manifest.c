/* parse-manifest.c: a bundle's manifest.json (cgwatch.bundle/1), written and read back, and
 * the names an archive may hold: nothing here touches a file. */
#include <errno.h>
#include <json-c/json.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static int fail(char *why, size_t cap, const char *fmt, const char *arg)
{
	if (why && cap)
		snprintf(why, cap, fmt, arg);
	return -EINVAL;
}

/* member_name_check with the limits maxlen and maxcomp. */
static int name_check(const char *name, size_t len, size_t maxlen, size_t maxcomp, char *why,
                      size_t cap)
{
	if (!name || len == 0)
		return fail(why, cap, "an empty name%s", "");
	if (memchr(name, '\0', len))
		return fail(why, cap, "a name holding a NUL byte%s", "");
	if (len > maxlen)
		return fail(why, cap, "a name longer than 4095 bytes%s", "");
	if (name[0] == '/')
		return fail(why, cap, "an absolute name%s", "");
	if (len > 1 && name[len - 1] == '/')     /* a directory's name */
		len--;
	const char *p = name, *end = name + len;
	while (p <= end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		const char *ce = slash ? slash : end;
		size_t n = (size_t)(ce - p);
		if (n == 0)
			return fail(why, cap, "an empty component (\"//\" or a trailing \"/\")%s", "");
		if (n == 1 && p[0] == '.')
			return fail(why, cap, "a \".\" component%s", "");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return fail(why, cap, "a \"..\" component%s", "");
		if (n > maxcomp)
			return fail(why, cap, "a component longer than 255 bytes%s", "");
		if (!slash)
			break;
		p = slash + 1;
	}
	return 0;
}

int member_name_check(const char *name, size_t len, char *why, size_t cap)
{
	return name_check(name, len, 4095, 255, why, cap);
}

int manifest_name_check(const char *name, char *why, size_t cap)
{
	return name_check(name, strlen(name), 4095, 4 * 255, why, cap);
}

/* A decimal number of one or more digits from *p up to the next '/' or the end. */
static bool digits(const char **p)
{
	const char *s = *p;
	while (**p >= '0' && **p <= '9')
		(*p)++;
	return *p > s && (**p == '/' || **p == '\0');
}

bool member_link_allowed(const char *name)
{
	const char *p = name;
	if (strncmp(p, "tree/proc/", 10))
		return false;
	p += 10;
	if (!digits(&p) || *p != '/')
		return false;
	p++;
	if (strncmp(p, "task/", 5) == 0) {
		p += 5;
		if (!digits(&p) || *p != '/')
			return false;
		p++;
	}
	if (strncmp(p, "fd/", 3) == 0) {
		p += 3;
		return digits(&p) && *p == '\0';
	}
	return strcmp(p, "cwd") == 0 || strcmp(p, "root") == 0 || strcmp(p, "exe") == 0;
}

int member_link_check(const char *name, const char *target, char *why, size_t cap)
{
	if (member_link_allowed(name)) {
		if (!target || !target[0])
			return fail(why, cap, "a link with an empty target%s", "");
		return 0;                         /* a name the replay reads, never follows */
	}
	if (!target || target[0] == '/')
		return fail(why, cap, "a symlink to \"%s\": it points outside the tree (absolute)",
		            target ? cesc(target) : "");
	for (const char *p = target; *p; ) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return fail(why, cap, "a symlink to \"%s\": it points outside the tree (..)",
			            cesc(target));
		if (!slash)
			break;
		p = slash + 1;
	}
	return fail(why, cap, "a symlink to \"%s\": a tree holds symlinks only as a task's "
	            "fd/N, cwd, root and exe links", cesc(target));
}

uint64_t bundle_member_cost(enum bm_type t, uint64_t size, size_t namelen)
{
	uint64_t data = t == BM_FILE ? (size + BUNDLE_PAGE - 1) / BUNDLE_PAGE * BUNDLE_PAGE :
	                t == BM_SYMLINK ? size : 0;
	return data + BUNDLE_INODE + namelen;
}

void sha256_hex(const void *p, size_t len, char out[65])
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_init(&c);
	sha256_update(&c, len, p);
	sha256_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int manifest_add(struct bundle_manifest *m, const char *path, enum bm_type type, uint64_t size,
                 const char *sha256, const char *target)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		struct bundle_member *v = try_reallocarray(m->m, nc, sizeof(*v));
		if (!v)
			return -ENOMEM;
		m->m = v;
		m->cap = nc;
	}
	struct bundle_member *b = &m->m[m->n];
	memset(b, 0, sizeof(*b));
	b->path = try_strdup(path);
	b->target = target ? try_strdup(target) : NULL;
	if (!b->path || (target && !b->target)) {
		free(b->path);
		free(b->target);
		return -ENOMEM;
	}
	b->type = type;
	b->size = size;
	snprintf(b->sha256, sizeof(b->sha256), "%s", sha256 ? sha256 : "");
	m->n++;
	return 0;
}

int manifest_note(struct bundle_manifest *m, bool left_out, const char *path, uint64_t size,
                  const char *why)
{
	struct bundle_note **v = left_out ? &m->left_out : &m->unreadable;
	size_t *n = left_out ? &m->nleft_out : &m->nunreadable;
	size_t *c = left_out ? &m->left_out_cap : &m->unreadable_cap;
	if (*n == *c) {
		size_t nc = *c ? *c * 2 : 16;
		struct bundle_note *nv = try_reallocarray(*v, nc, sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*c = nc;
	}
	struct bundle_note *b = &(*v)[*n];
	b->path = try_strdup(path);
	b->why = try_strdup(why);
	b->size = size;
	if (!b->path || !b->why) {
		free(b->path);
		free(b->why);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

static const char *const type_names[] = { "file", "symlink", "directory" };

static json_object *notes_json(const struct bundle_note *v, size_t n, bool sizes)
{
	json_object *a = json_object_new_array();
	for (size_t k = 0; k < n; k++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "path", jstr(v[k].path));
		if (sizes)
			json_object_object_add(o, "size", json_object_new_int64((int64_t)v[k].size));
		json_object_object_add(o, "why", jstr(v[k].why));
		json_object_array_add(a, o);
	}
	return a;
}

char *manifest_json(const struct bundle_manifest *m, size_t *len)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string(BUNDLE_SCHEMA));
	json_object_object_add(o, "cgwatch", jstr(m->version));
	json_object_object_add(o, "host", jstr(m->host));
	json_object_object_add(o, "kernel", jstr(m->kernel));
	json_object_object_add(o, "root", jstr(m->root));
	json_object *kf = m->kfeat ? json_tokener_parse(m->kfeat) : NULL;
	if (kf && json_object_is_type(kf, json_type_object))
		json_object_object_add(o, "kernel_features", kf);
	else
		json_object_put(kf);
	json_object *c = json_object_new_object();
	json_object_object_add(c, "start", jstr(m->start));
	json_object_object_add(c, "end", jstr(m->end));
	json_object_object_add(o, "capture", c);
	json_object_object_add(o, "check_exit", json_object_new_int(m->check_exit));
	json_object_object_add(o, "redacted", json_object_new_boolean(m->redacted));
	json_object *caps = json_object_new_object();
	json_object_object_add(caps, "max_file_size_mib", json_object_new_double(m->max_file_mib));
	json_object_object_add(caps, "max_size_mib", json_object_new_double(m->max_mib));
	json_object_object_add(o, "caps", caps);
	json_object *a = json_object_new_array();
	for (size_t k = 0; k < m->n; k++) {
		const struct bundle_member *b = &m->m[k];
		json_object *e = json_object_new_object();
		json_object_object_add(e, "path", jstr(b->path));
		if (b->type != BM_FILE)
			json_object_object_add(e, "type", json_object_new_string(type_names[b->type]));
		if (b->target)
			json_object_object_add(e, "target", jstr(b->target));
		json_object_object_add(e, "size", json_object_new_int64((int64_t)b->size));
		json_object_object_add(e, "sha256", json_object_new_string(b->sha256));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "members", a);
	json_object_object_add(o, "unreadable", notes_json(m->unreadable, m->nunreadable, false));
	json_object_object_add(o, "left_out", notes_json(m->left_out, m->nleft_out, true));
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	                                                  JSON_C_TO_STRING_NOSLASHESCAPE);
	char *r = NULL;
	if (s) {
		*len = strlen(s) + 1;
		r = try_malloc(*len + 1);
		if (r) {
			memcpy(r, s, *len - 1);
			r[*len - 1] = '\n';
			r[*len] = '\0';
		}
	}
	json_object_put(o);
	return r;
}

/* ---- reading it back ---- */

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool get_size(json_object *o, const char *key, uint64_t *out)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	errno = 0;
	int64_t n = json_object_get_int64(v);
	if (n < 0 || errno || (uint64_t)n > CGW_MAX_COUNT)
		return false;
	*out = (uint64_t)n;
	return true;
}

static bool hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

static char *dup_opt(json_object *o, const char *key)
{
	const char *s = get_str(o, key);
	return try_strdup(s ? s : "");
}

static int parse_notes(json_object *root, const char *key, bool left_out,
                       struct bundle_manifest *m, char *why, size_t cap)
{
	json_object *a;
	if (!json_object_object_get_ex(root, key, &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return fail(why, cap, "\"%s\" is not an array", key);
	size_t n = json_object_array_length(a);
	for (size_t k = 0; k < n; k++) {
		json_object *e = json_object_array_get_idx(a, k);
		const char *p = json_object_is_type(e, json_type_object) ? get_str(e, "path") : NULL;
		const char *w = p ? get_str(e, "why") : NULL;
		uint64_t size = 0;
		if (!p || !w || (left_out && json_object_object_get_ex(e, "size", NULL) &&
		                 !get_size(e, "size", &size)))
			return fail(why, cap, "an entry of \"%s\" is not {path, why}", key);
		if (manifest_note(m, left_out, p, size, w) < 0)
			return fail(why, cap, "no memory for \"%s\"", key);
	}
	return 0;
}

/* Is s what utf8_escape makes of a name: valid UTF-8, every other byte already as \xNN? */
static bool escaped_form(const char *s)
{
	size_t n = strlen(s);
	char *out = n <= 4095 ? try_malloc(4 * n + 1) : NULL;
	bool ok = out && strcmp(utf8_escape(s, n, out, 4 * n + 1), s) == 0;
	free(out);
	return ok;
}

static int parse_members(json_object *root, struct bundle_manifest *m, char *why, size_t cap)
{
	json_object *a;
	if (!json_object_object_get_ex(root, "members", &a) ||
	    !json_object_is_type(a, json_type_array))
		return fail(why, cap, "no \"members\" array%s", "");
	size_t n = json_object_array_length(a);
	if (n > BUNDLE_MAX_MEMBERS)
		return fail(why, cap, "more members than a bundle holds%s", "");
	for (size_t k = 0; k < n; k++) {
		json_object *e = json_object_array_get_idx(a, k);
		char w[192];
		if (!json_object_is_type(e, json_type_object))
			return fail(why, cap, "a member is not an object%s", "");
		const char *p = get_str(e, "path"), *t = get_str(e, "type");
		const char *h = get_str(e, "sha256"), *target = get_str(e, "target");
		uint64_t size;
		if (!p)
			return fail(why, cap, "a member without a path%s", "");
		if (!escaped_form(p) || (target && !escaped_form(target)))
			return fail(why, cap, "member \"%s\": a name or target that is not UTF-8 "
			            "(manifest.json lists every other byte as \\xNN)", cesc(p));
		if (manifest_name_check(p, w, sizeof(w)) < 0) {
			if (why && cap)
				snprintf(why, cap, "member \"%s\": %s", cesc(p), w);
			return -EINVAL;
		}
		if (!get_size(e, "size", &size))
			return fail(why, cap, "member \"%s\": no size, or not a count", cesc(p));
		if (!hex64(h))
			return fail(why, cap, "member \"%s\": sha256 is not 64 hex digits", cesc(p));
		enum bm_type type = BM_FILE;
		if (t) {
			for (type = BM_FILE; type <= BM_DIR && strcmp(t, type_names[type]); type++)
				;
			if (type > BM_DIR)
				return fail(why, cap, "member \"%s\": unknown type", cesc(p));
		}
		if ((type == BM_SYMLINK) != (target != NULL))
			return fail(why, cap, "member \"%s\": a target only and always for a symlink",
			            cesc(p));
		if (manifest_add(m, p, type, size, h, target) < 0)
			return fail(why, cap, "no memory for the members%s", "");
	}
	return 0;
}

int manifest_parse(const char *text, size_t len, struct bundle_manifest *m, char *why,
                   size_t cap)
{
	memset(m, 0, sizeof(*m));
	if (len > INT32_MAX)
		return fail(why, cap, "too large%s", "");
	json_tokener *tok = json_tokener_new_ex(32);
	if (!tok)
		return fail(why, cap, "no memory%s", "");
	json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error err = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	int r = 0;
	if (!root || err != json_tokener_success) {
		r = fail(why, cap, "not JSON (%s)", json_tokener_error_desc(err));
		goto out;
	}
	for (size_t k = used; k < len; k++)
		if (text[k] != ' ' && text[k] != '\n' && text[k] != '\t' && text[k] != '\r') {
			r = fail(why, cap, "text after the JSON document%s", "");
			goto out;
		}
	const char *schema = json_object_is_type(root, json_type_object) ?
	                     get_str(root, "schema") : NULL;
	if (!schema || strcmp(schema, BUNDLE_SCHEMA)) {
		r = fail(why, cap, "schema is not \"%s\"", BUNDLE_SCHEMA);
		goto out;
	}
	m->version = dup_opt(root, "cgwatch");
	m->host = dup_opt(root, "host");
	m->kernel = dup_opt(root, "kernel");
	m->root = dup_opt(root, "root");
	json_object *c, *v;
	m->start = try_strdup("");
	m->end = try_strdup("");
	if (json_object_object_get_ex(root, "capture", &c) &&
	    json_object_is_type(c, json_type_object)) {
		free(m->start);
		free(m->end);
		m->start = dup_opt(c, "start");
		m->end = dup_opt(c, "end");
	}
	if (json_object_object_get_ex(root, "check_exit", &v) &&
	    json_object_is_type(v, json_type_int))
		m->check_exit = json_object_get_int(v);
	if (json_object_object_get_ex(root, "redacted", &v) &&
	    json_object_is_type(v, json_type_boolean))
		m->redacted = json_object_get_boolean(v);
	if (json_object_object_get_ex(root, "caps", &c) && json_object_is_type(c, json_type_object)) {
		if (json_object_object_get_ex(c, "max_file_size_mib", &v))
			m->max_file_mib = json_object_get_double(v);
		if (json_object_object_get_ex(c, "max_size_mib", &v))
			m->max_mib = json_object_get_double(v);
	}
	if (!m->version || !m->host || !m->kernel || !m->root || !m->start || !m->end) {
		r = fail(why, cap, "no memory%s", "");
		goto out;
	}
	if ((r = parse_members(root, m, why, cap)) == 0 &&
	    (r = parse_notes(root, "unreadable", false, m, why, cap)) == 0)
		r = parse_notes(root, "left_out", true, m, why, cap);
out:
	json_object_put(root);
	if (r < 0)
		manifest_free(m);
	return r;
}

static int member_cmp(const void *a, const void *b)
{
	const struct bundle_member *x = *(const struct bundle_member *const *)a;
	const struct bundle_member *y = *(const struct bundle_member *const *)b;
	return strcmp(x->path, y->path);
}

/* Pointers to v sorted by path, or NULL (no memory). */
static const struct bundle_member **sorted(const struct bundle_member *v, size_t n)
{
	const struct bundle_member **p = try_calloc(n + 1, sizeof(*p));
	if (!p)
		return NULL;
	for (size_t k = 0; k < n; k++)
		p[k] = &v[k];
	qsort(p, n, sizeof(*p), member_cmp);
	return p;
}

/* Report duplicates of a sorted list, once each. */
static size_t dups(const struct bundle_member **p, size_t n, const char *where,
                   struct strbuf *out)
{
	size_t bad = 0;
	for (size_t k = 1; k < n; k++)
		if (strcmp(p[k]->path, p[k - 1]->path) == 0 &&
		    (k < 2 || strcmp(p[k]->path, p[k - 2]->path))) {
			sb_printf(out, "duplicate: %s: listed twice in %s\n", cesc(p[k]->path), where);
			bad++;
		}
	return bad;
}

size_t manifest_compare(const struct bundle_manifest *m, const struct bundle_member *seen,
                        size_t n, struct strbuf *out)
{
	const struct bundle_member **a = sorted(m->m, m->n), **b = sorted(seen, n);
	if (!a || !b) {
		free(a);
		free(b);
		sb_printf(out, "no memory to compare the members with the manifest\n");
		return 1;
	}
	size_t bad = dups(a, m->n, "the manifest", out) + dups(b, n, "the archive", out);
	size_t i = 0, j = 0;
	while (i < m->n || j < n) {
		int c = i == m->n ? 1 : j == n ? -1 : strcmp(a[i]->path, b[j]->path);
		if (c < 0) {
			sb_printf(out, "missing: %s: in the manifest, not in the archive\n",
			          cesc(a[i]->path));
			bad++;
			for (i++; i < m->n && strcmp(a[i]->path, a[i - 1]->path) == 0; i++)
				;
			continue;
		}
		if (c > 0) {
			sb_printf(out, "extra: %s: in the archive, not in the manifest\n",
			          cesc(b[j]->path));
			bad++;
			for (j++; j < n && strcmp(b[j]->path, b[j - 1]->path) == 0; j++)
				;
			continue;
		}
		const struct bundle_member *x = a[i++], *y = b[j++];
		while (i < m->n && strcmp(a[i]->path, x->path) == 0)
			i++;                          /* a duplicate: said once above */
		while (j < n && strcmp(b[j]->path, y->path) == 0)
			j++;
		if (x->type != y->type) {
			sb_printf(out, "type: %s: a %s in the manifest, a %s in the archive\n",
			          cesc(x->path), type_names[x->type], type_names[y->type]);
			bad++;
		} else if (x->size != y->size) {
			sb_printf(out, "size: %s: %llu bytes in the manifest, %llu in the archive\n",
			          cesc(x->path), (unsigned long long)x->size,
			          (unsigned long long)y->size);
			bad++;
		} else if (strcmp(x->sha256, y->sha256)) {
			sb_printf(out, "sha256: %s: the content does not match the manifest's hash\n",
			          cesc(x->path));
			bad++;
		} else if (x->type == BM_SYMLINK && strcmp(x->target ? x->target : "",
		                                            y->target ? y->target : "")) {
			sb_printf(out, "target: %s: the link's target does not match the manifest\n",
			          cesc(x->path));
			bad++;
		}
	}
	free(a);
	free(b);
	return bad;
}

static void notes_free(struct bundle_note *v, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(v[k].path);
		free(v[k].why);
	}
	free(v);
}

void manifest_free(struct bundle_manifest *m)
{
	for (size_t k = 0; k < m->n; k++) {
		free(m->m[k].path);
		free(m->m[k].target);
	}
	free(m->m);
	notes_free(m->unreadable, m->nunreadable);
	notes_free(m->left_out, m->nleft_out);
	free(m->version);
	free(m->host);
	free(m->kernel);
	free(m->kfeat);
	free(m->root);
	free(m->start);
	free(m->end);
	memset(m, 0, sizeof(*m));
}
