/* diagnose-sig.c: the signature library — INI files naming the frames of a kernel wait. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* the correlators a signature may name: diagnose-correlate.c's chains (lru-drain, workqueue,
 * starvation) and diagnose-rates.c's cgroup activity evidence; kmsg and none add nothing beyond
 * the kernel messages every finding gets */
static const char *const correlators[] = {
	"none", "lru-drain", "workqueue", "starvation", "cgroup-churn", "cgroup1-pidlist",
	"rstat", "sched-domains", "cgroup-fork", "task-groups", "kmsg", NULL
};
/* ids the code assigns without a stack match; they may have no [match] section */
static const char *const builtin_ids[] = { "frozen", "unknown", "starved", "runq-latency",
                                           "pressure-stall", "kthread-unstarted", NULL };

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

static void pat_free(struct cgw_pat *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < p[i].n; j++)
			free(p[i].alt[j]);
		free(p[i].alt);
	}
	free(p);
}

static void sig_clear(struct cgw_sig *s)
{
	free(s->id);
	free(s->title);
	free(s->summary);
	free(s->explanation);
	free(s->correlator);
	free(s->workqueue);
	free(s->file);
	free(s->replaced);
	pat_free(s->frames, s->nframes);
	pat_free(s->order, s->norder);
	pat_free(s->optional, s->noptional);
	ini_strv_free(s->remedies, s->nremedies);
	ini_strv_free(s->references, s->nreferences);
	memset(s, 0, sizeof(*s));
}

void sig_free(struct cgw_sigset *set)
{
	for (size_t i = 0; i < set->n; i++)
		sig_clear(&set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

/* A copy of s (NULL stays NULL): false when there was no memory for it. */
static bool str_copy(char **out, const char *s)
{
	*out = s ? try_strdup(s) : NULL;
	return !s || *out;
}

/* Copies of v[0..n-1] into a new array *out, *nout = n once it is allocated (so that a copy
 * cut short frees as it is: the entries not made are NULL). */
static bool strv_copy(char ***out, size_t *nout, char *const *v, size_t n)
{
	if (!(*out = try_calloc(n + 1, sizeof(**out))))
		return false;
	*nout = n;
	for (size_t i = 0; i < n; i++)
		if (!str_copy(&(*out)[i], v[i]))
			return false;
	return true;
}

static bool pat_copy(struct cgw_pat **out, size_t *nout, const struct cgw_pat *p, size_t n)
{
	if (!(*out = try_calloc(n + 1, sizeof(**out))))
		return false;
	*nout = n;
	for (size_t i = 0; i < n; i++)
		if (!strv_copy(&(*out)[i].alt, &(*out)[i].n, p[i].alt, p[i].n))
			return false;
	return true;
}

int sig_copy(struct cgw_sigset *dst, const struct cgw_sigset *src)
{
	memset(dst, 0, sizeof(*dst));
	if (!(dst->v = try_calloc(src->n + 1, sizeof(*dst->v))))
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		const struct cgw_sig *s = &src->v[i];
		struct cgw_sig *d = &dst->v[i];
		*d = *s;                          /* the numbers; every pointer replaced below */
		d->id = d->title = d->summary = d->explanation = d->correlator = NULL;
		d->workqueue = d->file = d->replaced = NULL;
		d->frames = d->order = d->optional = NULL;
		d->remedies = d->references = NULL;
		d->nframes = d->norder = d->noptional = d->nremedies = d->nreferences = 0;
		dst->n = i + 1;                   /* freed by sig_free from here on */
		if (!str_copy(&d->id, s->id) || !str_copy(&d->title, s->title) ||
		    !str_copy(&d->summary, s->summary) || !str_copy(&d->explanation, s->explanation) ||
		    !str_copy(&d->correlator, s->correlator) || !str_copy(&d->workqueue, s->workqueue) ||
		    !str_copy(&d->file, s->file) || !str_copy(&d->replaced, s->replaced) ||
		    !pat_copy(&d->frames, &d->nframes, s->frames, s->nframes) ||
		    !pat_copy(&d->order, &d->norder, s->order, s->norder) ||
		    !pat_copy(&d->optional, &d->noptional, s->optional, s->noptional) ||
		    !strv_copy(&d->remedies, &d->nremedies, s->remedies, s->nremedies) ||
		    !strv_copy(&d->references, &d->nreferences, s->references, s->nreferences))
			goto nomem;
	}
	return 0;
nomem:
	sig_free(dst);
	return -ENOMEM;
}

const struct cgw_sig *sig_find(const struct cgw_sigset *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i].id, id) == 0)
			return &set->v[i];
	return NULL;
}

/* Loading indexes a set by id: an open-addressing hash table (FNV-1a, linear probing, at
 * most half full) whose slots hold an index into v plus one, 0 for empty. A library of n
 * signatures loads with O(1) lookups and v grows geometrically: O(n) in all, where a linear
 * search per signature made it quadratic (10,000 files: 0.7 s, 20,000: 3.3 s). */
struct sig_index { struct cgw_sigset *set; size_t cap, *slot, nslot; };

static size_t id_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return (size_t)(h ^ h >> 32);
}

/* The slot of id: holding its index + 1, or the empty slot where it would go. */
static size_t *slot_of(const struct sig_index *x, const char *id)
{
	size_t mask = x->nslot - 1;
	for (size_t i = id_hash(id) & mask;; i = (i + 1) & mask) {
		size_t *p = &x->slot[i];
		if (*p == 0 || strcmp(x->set->v[*p - 1].id, id) == 0)
			return p;
	}
}

/* (Re)build the table for x->set, at most half full. */
static void index_rehash(struct sig_index *x)
{
	const struct cgw_sigset *set = x->set;
	free(x->slot);
	x->nslot = 64;
	while (x->nslot < 2 * set->n + 2)
		x->nslot *= 2;
	x->slot = xcalloc(x->nslot, sizeof(size_t));
	for (size_t i = 0; i < set->n; i++)
		*slot_of(x, set->v[i].id) = i + 1;
}

/* Index set (its signatures have distinct ids; v holds exactly n, or is NULL); sig_put()
 * adds to it; free with index_free(). */
static void index_build(struct sig_index *x, struct cgw_sigset *set)
{
	x->set = set;
	x->cap = set->n;
	x->slot = NULL;
	index_rehash(x);
}

static void index_free(struct sig_index *x)
{
	free(x->slot);
	x->slot = NULL;
}

static const struct cgw_sig *index_find(const struct sig_index *x, const char *id)
{
	size_t k = *slot_of(x, id);
	return k ? &x->set->v[k - 1] : NULL;
}

/* A kernel symbol: [A-Za-z_][A-Za-z0-9_]*, optionally ending in '*' (a prefix). */
static bool valid_symbol(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++) {
		if (*s == '*' && s[1] == '\0')
			return true;
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	}
	return true;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* "a|b|c" into a group; returns 0 or -EINVAL naming the bad part in bad. An empty
 * alternative ("a||b", "a|") is an error, not skipped. */
static int pat_parse(const char *text, struct cgw_pat *out, char *bad, size_t badcap)
{
	char *copy = xstrdup(text), *next = copy;
	memset(out, 0, sizeof(*out));
	if (text[strspn(text, " \t|")] == '\0') {   /* "", "|": no name at all */
		free(copy);
		snprintf(bad, badcap, "empty frame group");
		return -EINVAL;
	}
	for (char *t = strsep(&next, "|"); t; t = strsep(&next, "|")) {
		t = trim(t);
		if (!*t) {
			snprintf(bad, badcap, "empty alternative in \"%s\" (nothing between two '|')",
			         cesc(text));
			goto fail;
		}
		if (!valid_symbol(t)) {
			snprintf(bad, badcap, "\"%s\" is not a kernel function name", cesc(t));
			goto fail;
		}
		out->alt = xrealloc(out->alt, (out->n + 1) * sizeof(char *));
		out->alt[out->n++] = xstrdup(t);
	}
	free(copy);
	if (out->n == 0) {
		snprintf(bad, badcap, "empty frame group");
		return -EINVAL;
	}
	return 0;
fail:
	free(copy);
	for (size_t i = 0; i < out->n; i++)
		free(out->alt[i]);
	free(out->alt);
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

static void pat_push(struct cgw_pat **v, size_t *n, struct cgw_pat p)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = p;
}

struct sig_ctx {
	const char *path;
	FILE *err;
	struct cgw_sig *v; size_t n, cap;   /* signatures of this file */
	char **last;                   /* text field a continuation line extends */
};

#define SIGERR(fmt, ...) \
	(errorf(x->err, "%s:%d: " fmt, cesc(x->path), line, __VA_ARGS__), 0)

static int sig_handler(void *user, const char *section, const char *key, const char *value,
                       int line, bool cont)
{
	struct sig_ctx *x = user;
	if (cont && x->last) {
		ini_text_append(x->last, value);
		return 1;
	}
	x->last = NULL;
	if (strcmp(section, "signature") == 0 && strcmp(key, "id") == 0) {
		if (!ini_id_ok(value, x->path, line, x->err))
			return 0;
		if (x->n == x->cap) {
			x->cap = x->cap ? 2 * x->cap : 4;
			x->v = xrealloc(x->v, x->cap * sizeof(*x->v));
		}
		struct cgw_sig *s = &x->v[x->n++];
		memset(s, 0, sizeof(*s));
		s->id = xstrdup(value);
		s->file = xstrdup(x->path);
		s->line = line;
		s->severity = SEV_NONE;
		strcpy(s->states, "D");
		return 1;
	}
	if (x->n == 0)
		return SIGERR("\"%s\" before \"id\": a file starts with [signature] and id = ...",
		              cesc(key));
	struct cgw_sig *s = &x->v[x->n - 1];
	char bad[160];

	if (strcmp(section, "signature") == 0) {
		static const char *const names[] = { "title", "summary", "explanation", NULL };
		char **const fields[] = { &s->title, &s->summary, &s->explanation };
		if ((x->last = ini_text_set(key, value, names, fields)))
			return 1;
		if (strcmp(key, "severity") == 0) {
			int sev = sev_parse(value);
			if (sev < 0)
				return SIGERR("severity must be info, warning or critical, not \"%s\"",
				              cesc(value));
			s->severity = (enum cgw_sev)sev;
			return 1;
		}
		if (strcmp(key, "priority") == 0) {
			char *end;
			long p = strtol(value, &end, 10);
			if (*value == '\0' || *end || p < 0 || p > 1000)
				return SIGERR("priority must be 0..1000, not \"%s\"", cesc(value));
			s->priority = (int)p;
			return 1;
		}
		if (strcmp(key, "states") == 0) {
			size_t k = 0;
			for (const char *p = value; *p; p++) {
				if (*p == ' ' || *p == ',')
					continue;
				if ((*p != 'D' && *p != 'R') || k + 1 >= sizeof(s->states))
					return SIGERR("states must list D and/or R, not \"%s\"", cesc(value));
				s->states[k++] = *p;
			}
			s->states[k] = '\0';
			if (k == 0)
				return SIGERR("%s", "states is empty");
			return 1;
		}
		if (strcmp(key, "workqueue") == 0) {
			/* as alloc_workqueue() names it, and as kworker comms show it after '+' */
			for (const char *p = value; *p; p++)
				if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
					return SIGERR("workqueue \"%s\" is not a workqueue name", cesc(value));
			if (!*value || strlen(value) > 64)
				return SIGERR("workqueue \"%s\" is not a workqueue name", cesc(value));
			free(s->workqueue);
			s->workqueue = xstrdup(value);
			return 1;
		}
		if (strcmp(key, "cause") == 0) {
			/* what its findings are split by, besides the workqueue and frozen cgroup that
			 * every signature's findings are (diagnose-cause.c) */
			if (strcmp(value, "mount") && strcmp(value, "none"))
				return SIGERR("unknown cause \"%s\" (known: mount, none)", cesc(value));
			s->cause_mount = strcmp(value, "mount") == 0;
			return 1;
		}
		if (strcmp(key, "correlator") == 0) {
			if (!in_list(correlators, value))
				return SIGERR("unknown correlator \"%s\" (known: none, lru-drain, "
				              "workqueue, starvation, cgroup-churn, cgroup1-pidlist, rstat, "
				              "sched-domains, cgroup-fork, task-groups, kmsg)", cesc(value));
			free(s->correlator);
			s->correlator = xstrdup(value);
			return 1;
		}
	} else if (strcmp(section, "match") == 0) {
		struct cgw_pat p;
		if (strcmp(key, "frame") == 0 || strcmp(key, "optional") == 0) {
			if (pat_parse(value, &p, bad, sizeof(bad)) < 0)
				return SIGERR("%s", bad);
			if (key[0] == 'f')
				pat_push(&s->frames, &s->nframes, p);
			else
				pat_push(&s->optional, &s->noptional, p);
			return 1;
		}
		if (strcmp(key, "order") == 0) {
			if (s->norder)
				return SIGERR("%s", "only one \"order\" line per signature");
			char *copy = xstrdup(value), *next = copy;
			for (char *t = strsep(&next, ","); t; t = strsep(&next, ",")) {
				if (*trim(t) == '\0' && (next || t != copy)) {
					free(copy);           /* "a,,b", "a,b,": never a group skipped */
					return SIGERR("order: empty group in \"%s\" (nothing between two "
					              "commas)", cesc(value));
				}
				if (pat_parse(t, &p, bad, sizeof(bad)) < 0) {
					free(copy);
					return SIGERR("order: %s", bad);
				}
				pat_push(&s->order, &s->norder, p);
			}
			free(copy);
			if (s->norder < 2)
				return SIGERR("%s", "order needs at least two groups, comma-separated");
			return 1;
		}
	} else if (strcmp(section, "remedies") == 0 && strcmp(key, "remedy") == 0) {
		ini_strv_push(&s->remedies, &s->nremedies, value);
		x->last = &s->remedies[s->nremedies - 1];
		return 1;
	} else if (strcmp(section, "references") == 0 && strcmp(key, "reference") == 0) {
		ini_strv_push(&s->references, &s->nreferences, value);
		x->last = &s->references[s->nreferences - 1];
		return 1;
	} else if (strcmp(section, "signature") && strcmp(section, "match") &&
	           strcmp(section, "remedies") && strcmp(section, "references")) {
		return SIGERR("unknown section [%s]", cesc(section));
	}
	return SIGERR("unknown key \"%s\" in [%s]", cesc(key), cesc(section));
}

const char *sig_source(const struct cgw_sig *s)
{
	return s->builtin ? "built in" : s->file;
}

/* Move *s into the indexed set, replacing the signature with the same id (and noting which
 * source it replaced); *s is left empty. O(1) on average: v doubles when full, and the
 * table is rebuilt twice as big when half full. */
static void sig_put(struct sig_index *x, struct cgw_sig *s)
{
	struct cgw_sigset *set = x->set;
	size_t *k = slot_of(x, s->id);
	if (*k) {
		struct cgw_sig *old = &set->v[*k - 1];
		free(s->replaced);
		s->replaced = xstrdup(sig_source(old));
		sig_clear(old);
		*old = *s;
		memset(s, 0, sizeof(*s));
		return;
	}
	if (set->n == x->cap) {
		x->cap = x->cap < 16 ? 32 : 2 * x->cap;
		set->v = xrealloc(set->v, x->cap * sizeof(*set->v));
	}
	set->v[set->n++] = *s;
	*k = set->n;
	memset(s, 0, sizeof(*s));
	if (2 * set->n + 2 > x->nslot)
		index_rehash(x);
}

/* Whole-signature checks once its file is read. Returns the number of errors. */
static int sig_validate(const struct cgw_sig *s, FILE *err)
{
	int e = 0;
#define NEED(cond, what) \
	do { if (!(cond)) { errorf(err, "%s:%d: signature %s: %s", cesc(s->file), s->line, s->id, what); e++; } } while (0)
	NEED(s->title && *s->title, "missing title");
	NEED(s->summary && *s->summary, "missing summary");
	NEED(s->severity != SEV_NONE, "missing severity");
	NEED(s->nframes || s->norder || in_list(builtin_ids, s->id),
	     "no [match] frame or order: it would never match");
#undef NEED
	return e;
}

/* One file, from disk or (f->text) built in. Returns the error count. */
static int sig_load_file(struct cgw_sigset *set, const struct cgw_sigfile *f, bool builtin,
                         FILE *err)
{
	const char *path = f->name;
	struct sig_ctx x = { .path = path, .err = err };
	int r = f->text ? ini_load_text(path, f->text, f->len, sig_handler, &x, err)
	                : ini_load(path, sig_handler, &x, err);
	if (r < 0) {
		errorf(err, "%s: %s", cesc(path), cgw_strerror(-r));
		r = 1;
	}
	if (r == 0 && x.n == 0) {
		errorf(err, "%s:1: no [signature] with an id", cesc(path));
		r = 1;
	}
	for (size_t i = 0; r == 0 && i < x.n; i++)
		r += sig_validate(&x.v[i], err);
	struct cgw_sigset mine = { 0 };           /* this file's, by id: a repeated id is an error */
	struct sig_index mx;
	index_build(&mx, &mine);
	for (size_t i = 0; r == 0 && i < x.n; i++) {
		const struct cgw_sig *dup = index_find(&mx, x.v[i].id);
		if (dup) {
			errorf(err, "%s:%d: duplicate id %s (also at line %d)", cesc(path), x.v[i].line,
			       x.v[i].id, dup->line);
			r++;
		} else {
			sig_put(&mx, &x.v[i]);
		}
	}
	index_free(&mx);
	for (size_t i = 0; i < x.n; i++)          /* what was not moved */
		sig_clear(&x.v[i]);
	free(x.v);
	if (r) {                                  /* a bad file is skipped whole */
		sig_free(&mine);
		return r;
	}
	struct sig_index sx;
	index_build(&sx, set);
	for (size_t i = 0; i < mine.n; i++) {
		if (!mine.v[i].correlator)
			mine.v[i].correlator = xstrdup("none");
		mine.v[i].builtin = builtin;
		sig_put(&sx, &mine.v[i]);
	}
	index_free(&sx);
	sig_free(&mine);
	return 0;
}

static int conf_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

int sigfile_list_dir(const char *dir, struct cgw_sigfile **out)
{
	struct dirent **names;
	int n = scandir(dir, &names, conf_filter, alphasort);
	if (n < 0)
		return -errno;
	struct cgw_sigfile *files = xcalloc((size_t)n + 1, sizeof(*files));
	for (int i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(names[i]->d_name) + 2;
		char *path = xmalloc(len);
		snprintf(path, len, "%s/%s", dir, names[i]->d_name);
		files[i].name = path;
		free(names[i]);
	}
	free(names);
	*out = files;
	return n;
}

void sigfile_list_free(struct cgw_sigfile *files, int n)
{
	for (int i = 0; i < n; i++)
		free((char *)files[i].name);
	free(files);
}

/* Files of one library, in order; ids are unique within it (a file repeating one is skipped
 * whole), and each replaces a signature of set by id. Returns the error count. */
static int sig_load_files(struct cgw_sigset *set, const struct cgw_sigfile *files, size_t n,
                          bool builtin, FILE *err)
{
	struct cgw_sigset here = { 0 };
	struct sig_index hx, sx;
	index_build(&hx, &here);
	int errors = 0;
	for (size_t i = 0; i < n; i++) {
		struct cgw_sigset one = { 0 };
		errors += sig_load_file(&one, &files[i], builtin, err);
		bool dup_found = false;
		for (size_t j = 0; j < one.n; j++) {
			const struct cgw_sig *dup = index_find(&hx, one.v[j].id);
			if (dup) {
				errorf(err, "%s:%d: id %s is already defined at %s:%d; skipping this file",
				       cesc(one.v[j].file), one.v[j].line, one.v[j].id, cesc(dup->file),
				       dup->line);
				errors++;
				dup_found = true;
			}
		}
		for (size_t j = 0; !dup_found && j < one.n; j++)
			sig_put(&hx, &one.v[j]);
		sig_free(&one);
	}
	index_free(&hx);
	index_build(&sx, set);
	for (size_t j = 0; j < here.n; j++)      /* a later library replaces by id */
		sig_put(&sx, &here.v[j]);
	index_free(&sx);
	sig_free(&here);
	return errors;
}

int sig_load_dir(struct cgw_sigset *set, const char *dir, FILE *err)
{
	struct cgw_sigfile *files;
	int n = sigfile_list_dir(dir, &files);
	if (n < 0)
		return n;
	int errors = sig_load_files(set, files, (size_t)n, false, err);
	sigfile_list_free(files, n);
	return errors;
}

int sig_load_builtin(struct cgw_sigset *set, FILE *err)
{
	size_t n = 0;
	while (sig_builtin_files[n].name)
		n++;
	return sig_load_files(set, sig_builtin_files, n, true, err);
}

const struct cgw_sigfile *sig_builtin_file(const char *name)
{
	for (const struct cgw_sigfile *f = sig_builtin_files; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

static bool alt_match(const struct cgw_pat *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *a = p->alt[i];
		size_t k = strlen(a);
		if (k && a[k - 1] == '*') {
			if (strncmp(name, a, k - 1) == 0)
				return true;
		} else if (strcmp(name, a) == 0) {
			return true;
		}
	}
	return false;
}

/* Index of the innermost frame that matched, via *top; marks as documented. */
static bool sig_match_top(const struct cgw_sig *s, const struct cgw_frame *f, size_t n,
                          bool *marks, size_t *top)
{
	size_t best = n;
	for (size_t g = 0; g < s->nframes; g++) {
		size_t i;
		for (i = 0; i < n; i++)
			if (alt_match(&s->frames[g], f[i].name))
				break;
		if (i == n)
			return false;
		if (i < best)
			best = i;
	}
	if (s->norder) {
		size_t i = 0, g = 0;
		for (; i < n && g < s->norder; i++)
			if (alt_match(&s->order[g], f[i].name)) {
				if (g == 0 && i < best)
					best = i;
				g++;
			}
		if (g < s->norder)
			return false;
	}
	if (s->nframes == 0 && s->norder == 0)
		return false;
	if (marks) {
		for (size_t i = 0; i < n; i++) {
			bool m = false;
			for (size_t g = 0; !m && g < s->nframes; g++)
				m = alt_match(&s->frames[g], f[i].name);
			for (size_t g = 0; !m && g < s->norder; g++)
				m = alt_match(&s->order[g], f[i].name);
			for (size_t g = 0; !m && g < s->noptional; g++)
				m = alt_match(&s->optional[g], f[i].name);
			marks[i] = m;
		}
	}
	if (top)
		*top = best;
	return true;
}

bool sig_match(const struct cgw_sig *s, const struct cgw_frame *f, size_t n, bool *marks)
{
	return sig_match_top(s, f, n, marks, NULL);
}

const struct cgw_sig *sig_best(const struct cgw_sigset *set, char state,
                               const struct cgw_frame *f, size_t n)
{
	const struct cgw_sig *best = NULL;
	size_t best_top = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct cgw_sig *s = &set->v[i];
		size_t top;
		if (!strchr(s->states, state) || !sig_match_top(s, f, n, NULL, &top))
			continue;
		if (!best || s->priority > best->priority ||
		    (s->priority == best->priority && top < best_top)) {
			best = s;
			best_top = top;
		}
	}
	return best;
}

/* A configured directory on top of set: one that does not exist is skipped (debug only);
 * one that cannot be read, and bad files, cost a warning. */
static void signatures_load_dir(struct cgw_sigset *set, const char *dir)
{
	if (!*dir)
		return;
	int r = sig_load_dir(set, dir, stderr);
	if (r == -ENOENT)
		log_debug("signature directory %s does not exist, skipping", cesc(dir));
	else if (r < 0)
		log_warnx("signature directory %s: %s, skipping", cesc(dir), cgw_strerror(-r));
	else if (r > 0)
		log_warnx("%s: %d error%s, those files skipped", cesc(dir), r, r == 1 ? "" : "s");
}

/* Built-in library, then [signatures] shipped and local, each replacing by id. Bad files
 * are reported and skipped. Returns 0, or EXIT_USAGE when a built-in id is missing. */
int signatures_load(struct cgw_sigset *set, const struct cgw_conf *c)
{
	int r = sig_load_builtin(set, stderr);
	if (r > 0)
		log_warnx("built-in signature library: %d error%s, those files skipped", r,
		          r == 1 ? "" : "s");
	signatures_load_dir(set, c->signatures_dir);
	signatures_load_dir(set, c->local_signatures_dir);
	for (const char *const *b = builtin_ids; *b; b++)
		if (!sig_find(set, *b)) {
			log_warnx("the signature library lacks the built-in id \"%s\"", *b);
			return EXIT_USAGE;
		}
	return 0;
}
