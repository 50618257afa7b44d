/* sink-textgroup.c: many alike lines as one, for the text report. A big incident repeats itself:
 * 149 isolated CPUs give 149 lines "PID 1183 (kworker/18:1-mm_percpu_wq), bound to CPU 18, is
 * runnable but has not run for 122.7 s: ..." that differ only in their numbers. Here a line is
 * cut into text and numbers, lines of the same shape (the same text, numbers in the same
 * places) are grouped, and a group is printed as one line:
 *
 *   x149 PIDs 1183,1190,1197,1204,1211,1218,1225,1232 and 141 more (kworker/N:1-mm_percpu_wq),
 *   bound to CPUs 18-95,108-178, is runnable but has not run for 122.5-122.7 s: ...
 *
 * What a number is comes from the text just before it (the evidence lines are written by
 * cgwatch, in a few fixed forms):
 *   CPU   after "CPU ", "CPUs " or "cpus=": a whole kernel CPU list ("18", "18-19,108"); the
 *         members' CPUs become one list, and "CPU " becomes "CPUs ".
 *   PID   after "PID ", "TID ", "BAR(", "/proc/", "/task/", a kernel "task COMM:PID", or a
 *         task named right after ": " ("CPU 18: 5031 (repro_worker)"): the members' ids as a
 *         list, cut to a count ("and 141 more") when long. In a path ("/proc/1183/task/1183")
 *         the id becomes PID or TID and the list goes to the end of the line.
 *   other a decimal ("122.7") becomes the range of the members' values ("122.5-122.7"), a
 *         whole number (a digit of a name, a sequence number) N when the members differ.
 * Equal numbers stay as they are. Pure functions: no I/O, no global state. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

enum tok_kind { TOK_TEXT, TOK_INT, TOK_DEC, TOK_CPU, TOK_PID };

struct tok { enum tok_kind kind; const char *s; size_t len; };

struct tline {
	const char *s; size_t len;
	struct tok *t; size_t n, cap;
	uint64_t hash;                    /* of the shape: texts and number kinds */
	bool lost;                        /* no memory for its tokens: alike to nothing */
};

#define ID_LIST_WIDTH 40              /* characters of ids before "and N more" */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* A kernel CPU list starting at s[0] (digits, ',' and '-', no trailing separator). */
static size_t cpulist_len(const char *s, size_t len)
{
	size_t j = 0;
	while (j < len && (isdigit((unsigned char)s[j]) || s[j] == ',' || s[j] == '-'))
		j++;
	while (j > 0 && (s[j - 1] == ',' || s[j - 1] == '-'))
		j--;
	return j;
}

static bool cpu_context(const char *line, size_t i)
{
	return ends_with(line, i, "CPU ") || ends_with(line, i, "CPUs ") ||
	       ends_with(line, i, "cpus=");
}

/* Is the whole number line[i..j) a task id? */
static bool pid_context(const char *line, size_t len, size_t i, size_t j)
{
	static const char *const before[] = { "PID ", "TID ", "BAR(", "/proc/", "/task/" };
	for (size_t k = 0; k < sizeof(before) / sizeof(before[0]); k++)
		if (ends_with(line, i, before[k]))
			return true;
	/* the kernel's "task kworker/u768:1:1765 blocked": the number after a name's last ':' */
	if (i > 0 && line[i - 1] == ':' && (j == len || (!isalnum((unsigned char)line[j]) &&
	                                                 line[j] != ':' && line[j] != '_'))) {
		size_t w = i - 1;
		while (w > 0 && line[w - 1] != ' ')
			w--;
		if (w < i - 1 && ends_with(line, w, "task "))
			return true;
	}
	/* "CPU 18: 5031 (repro_worker)": a task named after a colon */
	return (i == 0 || ends_with(line, i, ": ")) && j + 2 < len && line[j] == ' ' &&
	       line[j + 1] == '(' && !isdigit((unsigned char)line[j + 2]);
}

static void tok_push(struct tline *l, enum tok_kind kind, const char *s, size_t len)
{
	if (len == 0 || l->lost)
		return;
	if (grow((void **)&l->t, &l->cap, l->n, 16, sizeof(*l->t)) < 0) {
		l->lost = true;
		return;
	}
	l->t[l->n++] = (struct tok){ kind, s, len };
	/* FNV-1a over what makes the shape */
	uint64_t h = l->hash ^ (uint64_t)kind;
	h *= 1099511628211ull;
	if (kind == TOK_TEXT)
		for (size_t k = 0; k < len; k++) {
			h ^= (unsigned char)s[k];
			h *= 1099511628211ull;
		}
	l->hash = h;
}

/* Cut line (len bytes, no '\n') into text and numbers. With names, every number is a plain
 * number (a task's name is not a sentence). */
static void tline_cut(struct tline *l, const char *line, size_t len, bool names)
{
	memset(l, 0, sizeof(*l));
	l->s = line;
	l->len = len;
	l->hash = 14695981039346656037ull;
	size_t text = 0, i = 0;
	while (i < len) {
		if (!isdigit((unsigned char)line[i])) {
			i++;
			continue;
		}
		size_t j = i;
		enum tok_kind kind;
		if (!names && cpu_context(line, i)) {
			j = i + cpulist_len(line + i, len - i);
			kind = TOK_CPU;
		} else {
			while (j < len && isdigit((unsigned char)line[j]))
				j++;
			kind = TOK_INT;
			if (j + 1 < len && line[j] == '.' && isdigit((unsigned char)line[j + 1])) {
				for (j++; j < len && isdigit((unsigned char)line[j]); j++)
					;
				kind = TOK_DEC;
			} else if (!names && pid_context(line, len, i, j)) {
				kind = TOK_PID;
			}
		}
		tok_push(l, TOK_TEXT, line + text, i - text);
		tok_push(l, kind, line + i, j - i);
		text = i = j;
	}
	tok_push(l, TOK_TEXT, line + text, len - text);
}

static void tline_free(struct tline *l)
{
	free(l->t);
	l->t = NULL;
}

static bool same_shape(const struct tline *a, const struct tline *b)
{
	if (a->lost || b->lost || a->hash != b->hash || a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++) {
		const struct tok *x = &a->t[k], *y = &b->t[k];
		if (x->kind != y->kind)
			return false;
		if (x->kind == TOK_TEXT && (x->len != y->len || memcmp(x->s, y->s, x->len)))
			return false;
	}
	return true;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

char *idlist_format(const long *ids, size_t n, char *out, size_t cap)
{
	long *v = try_reallocarray(NULL, n ? n : 1, sizeof(long));
	if (!v) {
		snprintf(out, cap, "(%zu, not listed: out of memory)", n);
		return out;
	}
	if (n)                            /* ids may be NULL then: memcpy/qsort of NULL is UB */
		memcpy(v, ids, n * sizeof(long));
	if (n > 1)
		qsort(v, n, sizeof(long), cmp_long);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[m - 1] != v[i])
			v[m++] = v[i];
	struct strbuf b = { 0 };
	size_t shown = 0;
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && v[j + 1] == v[j] + 1)
			j++;
		char item[48];
		int len = j == i ? snprintf(item, sizeof(item), "%s%ld", i ? "," : "", v[i])
		                 : snprintf(item, sizeof(item), "%s%ld-%ld", i ? "," : "", v[i], v[j]);
		if (i && b.len + (size_t)len > ID_LIST_WIDTH)
			break;
		sb_add(&b, item, (size_t)len);
		shown = j + 1;
		i = j + 1;
	}
	if (shown < m)
		sb_printf(&b, " and %zu more", m - shown);
	if (b.lost)
		snprintf(out, cap, "(%zu, not listed: out of memory)", n);
	else
		snprintf(out, cap, "%s", b.s ? b.s : "");
	sb_free(&b);
	free(v);
	return out;
}

/* Where the text written so far ends with "CPU " or "PID ", make it plural. */
static void pluralize(struct strbuf *b, const char *word)
{
	size_t n = strlen(word);
	if (b->len > n && memcmp(b->s + b->len - n - 1, word, n) == 0 && b->s[b->len - 1] == ' ') {
		b->s[b->len - 1] = 's';
		sb_add(b, " ", 1);
	}
}

/* A number token's value (tokens are not NUL-terminated). */
static long tok_long(const struct tok *t)
{
	return strtol(t->s, NULL, 10);        /* stops at the first non-digit */
}

static double tok_double(const struct tok *t)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*s", (int)t->len, t->s);
	return strtod(buf, NULL);
}

static void merge_ids(struct strbuf *b, struct tline *const *m, size_t n, size_t k)
{
	long *v = try_reallocarray(NULL, n, sizeof(long));
	if (!v) {
		b->lost = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = tok_long(&m[i]->t[k]);
	char list[256];
	idlist_format(v, n, list, sizeof(list));
	free(v);
	pluralize(b, "PID");
	pluralize(b, "TID");
	sb_printf(b, "%s", list);
}

static void merge_cpus(struct strbuf *b, struct tline *const *m, size_t n, size_t k)
{
	struct cgw_cpus all, one;
	memset(&all, 0, sizeof(all));
	char list[4096];
	for (size_t i = 0; i < n; i++) {
		char *l = try_strndup(m[i]->t[k].s, m[i]->t[k].len);
		if (!l) {
			b->lost = true;
			return;
		}
		if (cpulist_parse(l, &one) == 0)
			cpus_or(&all, &one);
		free(l);
	}
	cpulist_format(&all, list, sizeof(list));
	if (strpbrk(list, ",-"))
		pluralize(b, "CPU");
	sb_printf(b, "%s", list);
}

static void merge_range(struct strbuf *b, struct tline *const *m, size_t n, size_t k)
{
	const struct tok *lo = &m[0]->t[k], *hi = lo;
	for (size_t i = 1; i < n; i++) {
		const struct tok *t = &m[i]->t[k];
		if (tok_double(t) < tok_double(lo))
			lo = t;
		if (tok_double(t) > tok_double(hi))
			hi = t;
	}
	sb_printf(b, "%.*s", (int)lo->len, lo->s);
	if (hi->len != lo->len || memcmp(hi->s, lo->s, lo->len))
		sb_printf(b, "-%.*s", (int)hi->len, hi->s);
}

/* One line for n lines of the same shape (see the top of this file). */
static void merge(struct strbuf *b, struct tline *const *m, size_t n)
{
	ssize_t path_ids = -1;            /* the last id in a path, listed at the end */
	bool ids_listed = false;
	const struct tline *l = m[0];
	for (size_t k = 0; k < l->n; k++) {
		const struct tok *t = &l->t[k];
		bool same = true;
		for (size_t i = 1; i < n && same; i++)
			same = m[i]->t[k].len == t->len && memcmp(m[i]->t[k].s, t->s, t->len) == 0;
		if (t->kind == TOK_TEXT || same) {
			sb_add(b, t->s, t->len);
			continue;
		}
		switch (t->kind) {
		case TOK_CPU:
			merge_cpus(b, m, n, k);
			break;
		case TOK_PID:
			if (ends_with(b->s, b->len, "/proc/") || ends_with(b->s, b->len, "/task/")) {
				sb_printf(b, ends_with(b->s, b->len, "/proc/") ? "PID" : "TID");
				path_ids = (ssize_t)k;
			} else {
				merge_ids(b, m, n, k);
				ids_listed = true;
			}
			break;
		case TOK_DEC:
			merge_range(b, m, n, k);
			break;
		default:
			sb_add(b, "N", 1);
		}
	}
	if (path_ids >= 0 && !ids_listed) {
		bool tid = ends_with(l->t[path_ids - 1].s, l->t[path_ids - 1].len, "/task/");
		sb_printf(b, " (%s ", tid ? "TIDs" : "PIDs");
		merge_ids(b, m, n, (size_t)path_ids);
		sb_add(b, ")", 1);
	}
}

char *text_merge(const char *const *s, const size_t *len, size_t n, bool names)
{
	struct tline *l = try_calloc(n, sizeof(*l));
	struct tline **m = try_calloc(n, sizeof(*m));
	if (!l || !m) {
		free(l);
		free(m);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		tline_cut(&l[i], s[i], len[i], names);
		m[i] = &l[i];
	}
	struct strbuf b = { 0 };
	bool alike = n > 0, lost = n > 0 && l[0].lost;
	for (size_t i = 1; i < n && alike; i++) {
		alike = same_shape(&l[0], &l[i]);
		lost |= l[i].lost;
	}
	if (alike)
		merge(&b, m, n);
	for (size_t i = 0; i < n; i++)
		tline_free(&l[i]);
	free(l);
	free(m);
	if (lost || b.lost) {
		sb_free(&b);
		return NULL;
	}
	return b.s ? b.s : try_strdup("");
}

bool text_alike(const char *a, size_t alen, const char *b, size_t blen, bool names)
{
	struct tline x, y;
	tline_cut(&x, a, alen, names);
	tline_cut(&y, b, blen, names);
	bool r = same_shape(&x, &y);
	tline_free(&x);
	tline_free(&y);
	return r;
}

char *lines_group(const char *text)
{
	struct tline *l = NULL;
	size_t n = 0, cap = 0;
	bool lost = false;
	for (const char *p = text ? text : ""; *p && !lost;) {
		size_t len = strcspn(p, "\n");
		if (grow((void **)&l, &cap, n, 32, sizeof(*l)) < 0) {
			lost = true;
			break;
		}
		tline_cut(&l[n], p, len, false);
		lost |= l[n++].lost;
		p += len + (p[len] == '\n');
	}
	struct strbuf out = { 0 };
	bool *done = lost ? NULL : try_calloc(n, sizeof(bool));
	struct tline **m = done ? try_calloc(n, sizeof(*m)) : NULL;
	for (size_t i = 0; i < n && m; i++) {
		if (done[i])
			continue;
		size_t k = 0;
		for (size_t j = i; j < n; j++)
			if (!done[j] && (j == i || same_shape(&l[i], &l[j]))) {
				m[k++] = &l[j];
				done[j] = true;
			}
		if (k == 1)
			sb_add(&out, l[i].s, l[i].len);
		else {
			sb_printf(&out, "x%zu ", k);
			merge(&out, m, k);
		}
		sb_add(&out, "\n", 1);
	}
	for (size_t i = 0; i < n; i++)
		tline_free(&l[i]);
	free(l);
	if (!m || out.lost) {
		free(m);
		free(done);
		sb_free(&out);
		return NULL;
	}
	free(m);
	free(done);
	return out.s ? out.s : try_strdup("");
}
