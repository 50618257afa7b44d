/* diagnose-hazard.c: the hazard library (conf/hazards.d built in, then [hazards] local), and
 * the rules evaluated on the facts of a host. hazard_eval is what `cgwatch audit` runs and what
 * a daemon can run again: its result is a list of hazard ids with their evidence. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

const char *hazard_source(const struct cgw_hazard *h)
{
	return h->builtin ? "built in" : h->file;
}

const struct cgw_hazard *hazard_find(const struct cgw_hazset *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i].id, id) == 0)
			return &set->v[i];
	return NULL;
}

/* Move every rule of add into set, one with a loaded id replacing it (add is left empty). */
static void hazset_merge(struct cgw_hazset *set, struct cgw_hazset *add)
{
	for (size_t i = 0; i < add->n; i++) {
		struct cgw_hazard *h = &add->v[i];
		struct cgw_hazard *old = (struct cgw_hazard *)hazard_find(set, h->id);
		if (old) {
			free(h->replaced);
			h->replaced = xstrdup(hazard_source(old));
			hazard_clear(old);
			*old = *h;
		} else {
			set->v = xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
			set->v[set->n++] = *h;
		}
		memset(h, 0, sizeof(*h));
	}
	free(add->v);
	add->v = NULL;
	add->n = 0;
}

/* One library (a directory or the built-in files): ids unique within it (a file repeating one
 * is skipped whole), then merged into set. Returns the error count. */
static int hazard_load_files(struct cgw_hazset *set, const struct cgw_sigfile *files, size_t n,
                             bool builtin, FILE *err)
{
	struct cgw_hazset here = { 0 };
	int errors = 0;
	for (size_t i = 0; i < n; i++) {
		struct cgw_hazset one = { 0 };
		const struct cgw_sigfile *f = &files[i];
		int r;
		if (f->text) {
			r = hazard_parse(&one, f->name, f->text, f->len, err);
		} else {
			char *text = NULL;
			size_t len = 0;
			int e = 0;
			FILE *in = fopen_regular(f->name, &e);
			if (in) {
				struct strbuf b = { 0 };
				char buf[8192];
				size_t k;
				while ((k = fread(buf, 1, sizeof(buf), in)) > 0 && b.len < (1u << 22))
					sb_add(&b, buf, k);
				if (ferror(in))
					e = EIO;
				fclose(in);
				text = b.s;
				len = b.len;
				if (b.lost)
					e = ENOMEM;
			}
			if (e) {
				errorf(err, "%s: %s", cesc(f->name), cgw_strerror(e));
				r = 1;
			} else {
				r = hazard_parse(&one, f->name, text ? text : "", len, err);
			}
			free(text);
		}
		errors += r;
		bool dup = false;
		for (size_t j = 0; j < one.n; j++) {
			const struct cgw_hazard *d = hazard_find(&here, one.v[j].id);
			if (d) {
				errorf(err, "%s:%d: id %s is already defined at %s:%d; skipping this file",
				       cesc(one.v[j].file), one.v[j].line, one.v[j].id, cesc(d->file),
				       d->line);
				errors++;
				dup = true;
			}
		}
		for (size_t j = 0; j < one.n; j++)
			one.v[j].builtin = builtin;
		if (!dup)
			hazset_merge(&here, &one);
		hazset_free(&one);
	}
	hazset_merge(set, &here);
	return errors;
}

int hazard_load_dir(struct cgw_hazset *set, const char *dir, FILE *err)
{
	struct cgw_sigfile *files;
	int n = sigfile_list_dir(dir, &files);
	if (n < 0)
		return n;
	int errors = hazard_load_files(set, files, (size_t)n, false, err);
	sigfile_list_free(files, n);
	return errors;
}

int hazard_load_builtin(struct cgw_hazset *set, FILE *err)
{
	size_t n = 0;
	while (hazard_builtin_files[n].name)
		n++;
	return hazard_load_files(set, hazard_builtin_files, n, true, err);
}

const struct cgw_sigfile *hazard_builtin_file(const char *name)
{
	for (const struct cgw_sigfile *f = hazard_builtin_files; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

int hazards_load(struct cgw_hazset *set, const struct cgw_conf *c)
{
	int r = hazard_load_builtin(set, stderr);
	if (r > 0)
		log_warnx("built-in hazard rules: %d error%s, those files skipped", r,
		          r == 1 ? "" : "s");
	const char *dir = c->local_hazards_dir;
	if (dir && *dir) {
		r = hazard_load_dir(set, dir, stderr);
		if (r == -ENOENT)
			log_debug("hazard directory %s does not exist, skipping", cesc(dir));
		else if (r < 0)
			log_warnx("hazard directory %s: %s, skipping", cesc(dir), cgw_strerror(-r));
		else if (r > 0)
			log_warnx("%s: %d error%s, those files skipped", cesc(dir), r, r == 1 ? "" : "s");
	}
	return 0;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct cgw_hazard_hit *x = a, *y = b;
	if (x->h->severity != y->h->severity)
		return x->h->severity > y->h->severity ? -1 : 1;
	return strcmp(x->h->id, y->h->id);
}

int hazard_eval(const struct cgw_hazset *set, const struct cgw_facts *f, struct cgw_audit *out)
{
	memset(out, 0, sizeof(*out));
	out->facts = f;
	size_t caphit = 0, capopen = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct cgw_hazard *h = &set->v[i];
		bool holds = true;
		int unknown = -1;
		for (size_t j = 0; j < h->nwhen && holds; j++) {
			const struct haz_cond *c = &h->when[j];
			if (!f->known[c->fact]) {
				if (unknown < 0)
					unknown = (int)c->fact;
				continue;
			}
			holds = hazard_cond_holds(c, f->v[c->fact]);
		}
		if (holds && unknown >= 0) {  /* the known conditions hold, an unknown one decides */
			if (grow((void **)&out->open, &capopen, out->nopen, 8, sizeof(*out->open)) < 0)
				goto nomem;
			out->open[out->nopen++] = (struct cgw_hazard_open){ h, (enum haz_fact)unknown };
			continue;
		}
		if (!holds)
			continue;
		struct strbuf ev = { 0 };
		for (size_t k = 0; k < h->nevidence; k++) {
			enum haz_fact e = h->evidence[k];
			if (f->known[e] && f->ev[e].len)
				sb_add(&ev, f->ev[e].s, f->ev[e].len);
			else if (f->known[e])
				sb_printf(&ev, "%s = %g\n", hazard_fact_name(e), f->v[e]);
		}
		if (ev.lost ||
		    grow((void **)&out->hits, &caphit, out->nhits, 8, sizeof(*out->hits)) < 0) {
			sb_free(&ev);
			goto nomem;
		}
		out->hits[out->nhits++] = (struct cgw_hazard_hit){ h, ev.s ? ev.s : xstrdup("") };
	}
	if (out->nhits > 1)                  /* (qsort of NULL is undefined, even of 0) */
		qsort(out->hits, out->nhits, sizeof(*out->hits), hit_cmp);
	return 0;
nomem:
	audit_free(out);
	return -ENOMEM;
}

enum cgw_sev audit_max_severity(const struct cgw_audit *a)
{
	enum cgw_sev m = SEV_NONE;
	for (size_t i = 0; i < a->nhits; i++)
		if (a->hits[i].h->severity > m)
			m = a->hits[i].h->severity;
	return m;
}

void audit_free(struct cgw_audit *a)
{
	for (size_t i = 0; i < a->nhits; i++)
		free(a->hits[i].evidence);
	free(a->hits);
	free(a->open);
	memset(a, 0, sizeof(*a));
}

int audit_items(const struct cgw_hazset *set, const struct cgw_audit *a, struct haz_items *out)
{
	memset(out, 0, sizeof(*out));
	out->v = try_calloc(set->n + 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		const struct cgw_hazard *h = &set->v[i];
		struct haz_item *it = &out->v[out->n++];
		it->verdict = HV_CLEAR;
		const char *ev = "";
		for (size_t k = 0; k < a->nhits; k++)
			if (a->hits[k].h == h) {
				it->verdict = HV_HOLDS;
				ev = a->hits[k].evidence ? a->hits[k].evidence : "";
			}
		for (size_t k = 0; k < a->nopen; k++)
			if (a->open[k].h == h)
				it->verdict = HV_UNDECIDED;
		it->severity = h->severity;
		it->id = try_strdup(h->id);
		it->title = try_strdup(h->title);
		it->signature = try_strdup(h->signature ? h->signature : "");
		it->evidence = try_strdup(ev);
		if (!it->id || !it->title || !it->signature || !it->evidence) {
			haz_items_free(out);
			return -ENOMEM;
		}
	}
	return 0;
}

void haz_items_free(struct haz_items *it)
{
	for (size_t i = 0; it->v && i < it->n; i++) {
		free(it->v[i].id);
		free(it->v[i].title);
		free(it->v[i].signature);
		free(it->v[i].evidence);
	}
	free(it->v);
	memset(it, 0, sizeof(*it));
}
