/* sink-report.c: a text and a JSON report for every incident state change, written
 * atomically, with the report directory kept to a number of files and a size. */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"

static void incident_text(const struct cgw_report *r, const struct incident *i,
                          enum inc_state st, ssize_t finding, FILE *out)
{
	char msg[512], ts[32], comm[CGW_COMM_MAX * 4], d[96];
	fprintf(out, "cgwatch incident %s: %s (%s) at %s\n", i->id, inc_state_name(st),
	        sev_name(i->severity), iso_time(i->last_event_at, ts, sizeof(ts)));
	fprintf(out, "%s\n", incident_message(i, st, msg, sizeof(msg)));
	if (i->bundle[0])
		fprintf(out, "Bundle: %s\n", i->bundle);
	report_text_sources(r, out);
	fprintf(out, "\nTasks:\n");
	for (size_t k = 0; k < i->ntasks; k++) {
		const struct inc_task *t = &i->tasks[k];
		fprintf(out, "  %s %d (%s): %s", t->tid == t->tgid ? "PID" : "TID", t->tid,
		        cescape(t->comm, t->comm_len, comm, sizeof(comm)),
		        inc_task_time(i, t, d, sizeof(d)));
		if (t->resolved_at)
			fprintf(out, ", recovered by %s", iso_time(t->resolved_at, ts, sizeof(ts)));
		fputc('\n', out);
	}
	if (i->ntasks_total > i->ntasks)
		fprintf(out, "  ... and %zu more tasks\n", i->ntasks_total - i->ntasks);
	fprintf(out, "\nTimeline:\n");
	for (size_t k = 0; k < i->ntimeline; k++) {
		const struct inc_event *e = &i->timeline[k];
		fprintf(out, "  %s  %-9s %-8s %zu task%s, longest %.*f %s\n",
		        iso_time(e->time, ts, sizeof(ts)), inc_state_name(e->state),
		        sev_name(e->severity), e->ntasks, e->ntasks == 1 ? "" : "s", 1,
		        incident_latency(i) ? e->blocked_s * 1000 : e->blocked_s,
		        incident_latency(i) ? "ms" : "s");
	}
	fputc('\n', out);
	report_text_recorder(r, out);
	if (finding >= 0)
		report_text_finding(r, (size_t)finding, out);
}

int report_prepare(const struct cgw_conf *c, const struct cgw_report *r,
                   const struct incident *i, enum inc_state st, ssize_t finding,
                   struct report_files *out)
{
	memset(out, 0, sizeof(*out));
	char base[512];
	snprintf(base, sizeof(base), "%s-%02u-%s", i->id, i->reports + 1, inc_state_name(st));
	FILE *f = open_memstream(&out->text, &out->text_len);
	if (!f)
		return -ENOMEM;
	incident_text(r, i, st, finding, f);
	fclose(f);
	json_object *o = report_json_build(r, finding >= 0 ? finding : (ssize_t)r->nf);
	json_object_object_add(o, "incident", incident_json(i, st));
	const char *js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
	out->json = js ? try_strdup(js) : NULL;
	out->json_len = js ? strlen(js) : 0;
	json_object_put(o);
	if (!out->json) {
		report_files_free(out);
		return -ENOMEM;
	}
	if (!(f = open_memstream(&out->html, &out->html_len))) {
		report_files_free(out);
		return -ENOMEM;
	}
	incident_html(r, i, st, finding, f);
	if (fclose(f) != 0 || !out->html) {
		report_files_free(out);
		return -ENOMEM;
	}
	size_t n = strlen(base) + 6;
	out->dir = try_strdup(c->report_dir);
	out->txt_name = try_malloc(n);
	out->json_name = try_malloc(n);
	out->html_name = try_malloc(n);
	if (!out->dir || !out->txt_name || !out->json_name || !out->html_name) {
		report_files_free(out);
		return -ENOMEM;
	}
	snprintf(out->txt_name, n, "%s.txt", base);
	snprintf(out->json_name, n, "%s.json", base);
	snprintf(out->html_name, n, "%s.html", i->id);
	out->keep = (size_t)c->report_keep;
	out->max_bytes = (uint64_t)(c->report_max_mib * 1024 * 1024);
	return 0;
}

int report_files_write(const struct report_files *f, char *why, size_t cap)
{
	/* reports quote kernel stacks, which /proc gives to root only */
	if (mkdir(f->dir, 0750) < 0 && errno != EEXIST) {
		int e = -errno;
		snprintf(why, cap, "%s", strerror(-e));
		return e;
	}
	const struct atomic_file files[3] = { { f->txt_name, f->text, f->text_len },
	                                      { f->json_name, f->json, f->json_len },
	                                      { f->html_name, f->html, f->html_len } };
	int e = atomic_write_set(f->dir, files, f->html_name ? 3 : 2, 0640, why, cap);
	if (e < 0)
		return e;
	reports_rotate(f->dir, f->keep, f->max_bytes);   /* fails only if the dir went away */
	return 0;
}

void report_files_free(struct report_files *f)
{
	free(f->dir);
	free(f->txt_name);
	free(f->json_name);
	free(f->html_name);
	free(f->text);
	free(f->json);
	free(f->html);
	memset(f, 0, sizeof(*f));
}

int sink_report(const struct cgw_conf *c, const struct cgw_report *r, struct incident *i,
                enum inc_state st, ssize_t finding)
{
	struct report_files f;
	int e = report_prepare(c, r, i, st, finding, &f);
	if (e < 0)
		return e;
	char why[512];
	e = report_files_write(&f, why, sizeof(why));
	if (e == 0) {
		i->reports++;
		snprintf(i->report, sizeof(i->report), "%s/%s", f.dir, f.json_name);
	}
	report_files_free(&f);
	return e;
}

/* A report (one change's .txt and .json: ext is the set of those found) or an incident's page
 * (<id>.html), as the directory holds it. */
struct rfile {
	char *name;                       /* the base: no extension */
	size_t idlen;                     /* its incident id's length (the first idlen bytes) */
	bool page;
	unsigned ext;                     /* 1 .txt, 2 .json, 4 .html */
	int64_t mtime_ns;                 /* the newest of its files */
	uint64_t size;                    /* of its files */
	size_t inc;                       /* its incident's index (reports_rotate) */
};

static int rfile_cmp(const void *a, const void *b)
{
	const struct rfile *x = a, *y = b;
	if (x->page != y->page)
		return x->page ? 1 : -1;      /* the pages after the reports */
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* By base (a page apart), to bring a report's two files together. */
static int base_cmp(const void *a, const void *b)
{
	const struct rfile *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (int)x->page - (int)y->page;
}

/* By incident id (2 or -2 when they differ), then its reports (-1, 1) before its page. */
static int id_cmp(const void *a, const void *b)
{
	const struct rfile *x = a, *y = b;
	size_t l = x->idlen < y->idlen ? x->idlen : y->idlen;
	int c = memcmp(x->name, y->name, l);
	if (c || x->idlen != y->idlen)
		return (c ? c < 0 : x->idlen < y->idlen) ? -2 : 2;
	return x->page == y->page ? 0 : x->page ? 1 : -1;
}

/* Reports are "<YYYYMMDDTHHMMSSZ>-SIG-NN-state.{txt,json}", an incident's page "<id>.html":
 * only those are ever deleted. Sets *ext and the base's length, and the id's (the base less
 * "-NN-state"; the whole base for a page). */
static bool is_report(const char *n, unsigned *ext, size_t *blen, size_t *idlen)
{
	size_t l = strlen(n);
	if (l <= 17 || n[0] < '0' || n[0] > '9' || n[8] != 'T' || n[15] != 'Z')
		return false;
	if (strcmp(n + l - 4, ".txt") == 0)
		*ext = 1, *blen = l - 4;
	else if (strcmp(n + l - 5, ".json") == 0)
		*ext = 2, *blen = l - 5;
	else if (strcmp(n + l - 5, ".html") == 0)
		*ext = 4, *blen = l - 5;
	else
		return false;
	if (*ext == 4) {
		*idlen = *blen;
		return true;
	}
	/* "-NN-state": the last two '-' of the base */
	const char *st = memrchr(n, '-', *blen);
	const char *nn = st && st > n ? memrchr(n, '-', (size_t)(st - n)) : NULL;
	*idlen = nn ? (size_t)(nn - n) : *blen;
	return true;
}

static void rfiles_free(struct rfile *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k].name);
	free(v);
}

static const char *const exts[] = { ".txt", ".json", ".html" };

/* Delete the files of r; returns how many went. */
static int rfile_unlink(int dfd, const struct rfile *r)
{
	int deleted = 0;
	for (int e = 0; e < 3; e++) {
		char name[NAME_MAX + 1];
		if ((r->ext & 1u << e) &&
		    (size_t)snprintf(name, sizeof(name), "%s%s", r->name, exts[e]) < sizeof(name) &&
		    unlinkat(dfd, name, 0) == 0)
			deleted++;
	}
	return deleted;
}

int reports_rotate(const char *dir, size_t keep, uint64_t max_bytes)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct rfile *v = NULL;
	size_t n = 0;
	uint64_t total = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		unsigned ext;
		size_t bl, il;
		if (!is_report(de->d_name, &ext, &bl, &il) ||
		    fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		total += (uint64_t)st.st_size;
		struct rfile *nv = try_reallocarray(v, n + 1, sizeof(*v));
		char *name = nv ? try_strndup(de->d_name, bl) : NULL;
		if (nv)
			v = nv;
		if (!name) {                      /* no memory to sort them: nothing is deleted */
			rfiles_free(v, n);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = (struct rfile){ name, il, ext == 4, ext, mt, (uint64_t)st.st_size, 0 };
	}
	/* a report's two files as one: alike bases side by side, merged */
	if (n)                                /* qsort(NULL, 0) is undefined */
		qsort(v, n, sizeof(*v), base_cmp);
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		if (m && v[m - 1].page == v[k].page && strcmp(v[m - 1].name, v[k].name) == 0) {
			v[m - 1].ext |= v[k].ext;
			v[m - 1].size += v[k].size;
			if (v[k].mtime_ns > v[m - 1].mtime_ns)
				v[m - 1].mtime_ns = v[k].mtime_ns;
			free(v[k].name);
			continue;
		}
		v[m++] = v[k];
	}
	n = m;
	/* by incident: how many reports each has, and its page */
	struct inc_files { size_t reports; uint64_t page_size; bool page; } *g = NULL;
	size_t ng = 0;
	if (n)
		qsort(v, n, sizeof(*v), id_cmp);
	for (size_t k = 0; k < n; k++) {
		if (!k || id_cmp(&v[k - 1], &v[k]) / 2 != 0) {
			struct inc_files *ngv = try_reallocarray(g, ng + 1, sizeof(*g));
			if (!ngv) {
				free(g);
				rfiles_free(v, n);
				closedir(d);
				return -ENOMEM;
			}
			g = ngv;
			g[ng++] = (struct inc_files){ 0, 0, false };
		}
		v[k].inc = ng - 1;
		if (v[k].page) {
			g[ng - 1].page = true;
			g[ng - 1].page_size = v[k].size;
		} else {
			g[ng - 1].reports++;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), rfile_cmp);
	size_t reports = 0;
	while (reports < n && !v[reports].page)
		reports++;
	/* a page whose incident has no report left goes now (its bytes not counted) */
	for (size_t k = 0; k < ng; k++)
		if (g[k].page && !g[k].reports)
			total -= g[k].page_size;
	int deleted = 0;
	for (size_t k = 0, gone = 0; k < reports && (reports - gone > keep || total > max_bytes);
	     k++, gone++) {
		deleted += rfile_unlink(dirfd(d), &v[k]);
		total -= v[k].size;
		struct inc_files *i = &g[v[k].inc];
		if (--i->reports == 0 && i->page)
			total -= i->page_size;    /* its page goes with its last report */
	}
	for (size_t k = reports; k < n; k++)
		if (!g[v[k].inc].reports)
			deleted += rfile_unlink(dirfd(d), &v[k]);
	free(g);
	rfiles_free(v, n);
	closedir(d);
	return deleted;
}
