/* sink-report.c: a text and a JSON report for every incident state change, written
 * atomically, with the report directory kept to a number of files and a size. */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"

static void incident_text(const struct cgw_report *r, const struct incident *i,
                          enum inc_state st, ssize_t finding, FILE *out)
{
	char msg[512], ts[32], comm[CGW_COMM_MAX * 4], d[48];
	fprintf(out, "cgwatch incident %s: %s (%s) at %s\n", i->id, inc_state_name(st),
	        sev_name(i->severity), iso_time(i->last_event_at, ts, sizeof(ts)));
	fprintf(out, "%s\n", incident_message(i, st, msg, sizeof(msg)));
	if (i->bundle[0])
		fprintf(out, "Bundle: %s\n", i->bundle);
	report_text_sources(r, out);
	fprintf(out, "\nTasks:\n");
	for (size_t k = 0; k < i->ntasks; k++) {
		const struct inc_task *t = &i->tasks[k];
		fprintf(out, "  %s %d (%s): %s %s", t->tid == t->tgid ? "PID" : "TID", t->tid,
		        cescape(t->comm, t->comm_len, comm, sizeof(comm)),
		        t->resolved_at ? "was stuck" : "stuck for",
		        dur_text(inc_task_dur(t), d, sizeof(d)));
		if (t->resolved_at)
			fprintf(out, ", recovered by %s", iso_time(t->resolved_at, ts, sizeof(ts)));
		fputc('\n', out);
	}
	if (i->ntasks_total > i->ntasks)
		fprintf(out, "  ... and %zu more tasks\n", i->ntasks_total - i->ntasks);
	fprintf(out, "\nTimeline:\n");
	for (size_t k = 0; k < i->ntimeline; k++) {
		const struct inc_event *e = &i->timeline[k];
		fprintf(out, "  %s  %-9s %-8s %zu task%s, longest %.1f s\n",
		        iso_time(e->time, ts, sizeof(ts)), inc_state_name(e->state),
		        sev_name(e->severity), e->ntasks, e->ntasks == 1 ? "" : "s", e->blocked_s);
	}
	fputc('\n', out);
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
	size_t n = strlen(base) + 6;
	out->dir = try_strdup(c->report_dir);
	out->txt_name = try_malloc(n);
	out->json_name = try_malloc(n);
	if (!out->dir || !out->txt_name || !out->json_name) {
		report_files_free(out);
		return -ENOMEM;
	}
	snprintf(out->txt_name, n, "%s.txt", base);
	snprintf(out->json_name, n, "%s.json", base);
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
	const struct atomic_file files[2] = { { f->txt_name, f->text, f->text_len },
	                                      { f->json_name, f->json, f->json_len } };
	int e = atomic_write_set(f->dir, files, 2, 0640, why, cap);
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
	free(f->text);
	free(f->json);
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

struct rfile { char *name; time_t mtime; long nsec; off_t size; };

static int rfile_cmp(const void *a, const void *b)
{
	const struct rfile *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	if (x->nsec != y->nsec)
		return x->nsec < y->nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Reports are "<YYYYMMDDTHHMMSSZ>-...-NN-state.{txt,json}": only those are ever deleted. */
static bool is_report(const char *n)
{
	size_t l = strlen(n);
	return l > 17 && n[0] >= '0' && n[0] <= '9' && n[8] == 'T' && n[15] == 'Z' &&
	       ((l > 5 && strcmp(n + l - 5, ".json") == 0) || strcmp(n + l - 4, ".txt") == 0);
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
		if (!is_report(de->d_name) || fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		struct rfile *nv = try_reallocarray(v, n + 1, sizeof(*v));
		char *name = nv ? try_strdup(de->d_name) : NULL;
		if (nv)
			v = nv;
		if (!name) {                      /* no memory to sort them: nothing is deleted */
			for (size_t k = 0; k < n; k++)
				free(v[k].name);
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = (struct rfile){ name, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_size };
		total += (uint64_t)st.st_size;
	}
	if (n)                                /* qsort(NULL, 0) is undefined */
		qsort(v, n, sizeof(*v), rfile_cmp);
	int deleted = 0;
	for (size_t k = 0; k < n; k++) {
		if (n - (size_t)deleted > keep || total > max_bytes) {
			if (unlinkat(dirfd(d), v[k].name, 0) == 0) {
				deleted++;
				total -= (uint64_t)v[k].size;
			}
		}
		free(v[k].name);
	}
	free(v);
	closedir(d);
	return deleted;
}
