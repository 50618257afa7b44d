/* sink-bundle-incidents.c: the incidents the daemon has open when a bundle is made, whose
 * newest text and JSON reports and whose page (<id>.html) the bundle holds as
 * incidents/<name>. Which files is decided from the incidents alone (pure): only a report the
 * daemon names, directly in the reports directory, named as the daemon names that incident's
 * reports, and that incident's page beside it. The state file and the reports are read with
 * the deadline (the disk holding them may not answer), as regular files, never through a
 * symlink. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

static int add_note(struct bundle_incidents *b, const char *path, const char *why)
{
	struct bundle_note *v = try_reallocarray(b->notes, b->nnotes + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->notes = v;
	struct bundle_note *n = &v[b->nnotes];
	memset(n, 0, sizeof(*n));
	n->path = try_strdup(path);
	n->why = try_strdup(why);
	if (!n->path || !n->why) {
		free(n->path);
		free(n->why);
		return -ENOMEM;
	}
	b->nnotes++;
	return 0;
}

static int add_file(struct bundle_incidents *b, const char *dir, size_t dlen, const char *base,
                    size_t blen, const char *ext)
{
	struct bundle_inc_file *v = try_reallocarray(b->v, b->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->v = v;
	char *path = NULL, *name = NULL;
	if (asprintf(&path, "%.*s/%.*s%s", (int)dlen, dir, (int)blen, base, ext) < 0)
		path = NULL;
	if (asprintf(&name, "incidents/%.*s%s", (int)blen, base, ext) < 0)
		name = NULL;
	if (!path || !name) {
		free(path);
		free(name);
		return -ENOMEM;
	}
	v[b->n++] = (struct bundle_inc_file){ path, name };
	return 0;
}

/* s (n bytes) without its trailing slashes ("/" stays). */
static size_t trim_slashes(const char *s, size_t n)
{
	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

/* Is base (n bytes, no ".json") "<id>-NN-<state>", a report name of incident id? */
static bool report_of(const char *base, size_t n, const char *id)
{
	size_t il = strlen(id), k = il + 1;
	if (n <= k || strncmp(base, id, il) != 0 || base[il] != '-')
		return false;
	size_t digits = 0;
	while (k < n && base[k] >= '0' && base[k] <= '9') {
		k++;
		digits++;
	}
	if (digits < 2 || digits > 8 || k >= n || base[k] != '-')
		return false;
	char st[16];
	if (n - k - 1 >= sizeof(st))
		return false;
	memcpy(st, base + k + 1, n - k - 1);
	st[n - k - 1] = '\0';
	return inc_state_parse(st) != INC_NONE;
}

int bundle_incident_files(const struct cgw_incidents *in, const char *report_dir,
                          struct bundle_incidents *out)
{
	size_t rl = trim_slashes(report_dir, strlen(report_dir));
	for (size_t k = 0; k < in->n; k++) {
		const struct incident *i = &in->v[k];
		if (i->resolved_at != 0)
			continue;
		char note[200], why[8192];
		snprintf(note, sizeof(note), "incidents/%s", i->id);
		const char *r = i->report, *slash = strrchr(r, '/');
		size_t len = strlen(r);
		if (!r[0]) {
			if (add_note(out, note, "the daemon wrote no report of it (its reports "
			             "directory failed or did not answer)") < 0)
				return -ENOMEM;
			continue;
		}
		const char *base = slash ? slash + 1 : r;
		size_t dl = slash ? trim_slashes(r, (size_t)(slash - r)) : 0;
		size_t bl = len - (size_t)(base - r);
		bool ok = slash && r[0] == '/' && dl == rl && strncmp(r, report_dir, rl) == 0 &&
		          bl > 5 && strcmp(base + bl - 5, ".json") == 0 &&
		          report_of(base, bl - 5, i->id);
		if (!ok) {
			snprintf(why, sizeof(why), "its report \"%s\" is not a report of it in the reports "
			         "directory %s: not read", cesc(r), cesc(report_dir));
			if (add_note(out, note, why) < 0)
				return -ENOMEM;
			continue;
		}
		if (add_file(out, r, (size_t)(slash - r), base, bl - 5, ".json") < 0 ||
		    add_file(out, r, (size_t)(slash - r), base, bl - 5, ".txt") < 0 ||
		    add_file(out, r, (size_t)(slash - r), i->id, strlen(i->id), ".html") < 0)
			return -ENOMEM;
	}
	return 0;
}

void bundle_incidents_free(struct bundle_incidents *b)
{
	for (size_t k = 0; k < b->n; k++) {
		free(b->v[k].path);
		free(b->v[k].name);
	}
	for (size_t k = 0; k < b->nnotes; k++) {
		free(b->notes[k].path);
		free(b->notes[k].why);
	}
	free(b->v);
	free(b->notes);
	memset(b, 0, sizeof(*b));
}

/* ---- a regular file, read with the deadline ---- */

struct reg_job { char *path; uint64_t max; int err; uint64_t size; char *data; size_t len; };

static void reg_fn(void *p)
{
	struct reg_job *j = p;
	/* a FIFO or a device is refused unopened */
	int fd = open_regular_flags(j->path, O_NOFOLLOW);
	struct stat st;
	if (fd < 0) {
		j->err = fd == -CGW_ENOTREG || fd == -EISDIR ? ENODEV : -fd;
		return;
	}
	if (fstat(fd, &st) < 0) {
		j->err = errno;
		close(fd);
		return;
	}
	j->size = (uint64_t)st.st_size;
	if (j->size > j->max) {
		j->err = EFBIG;
		close(fd);
		return;
	}
	size_t cap = (size_t)j->size + 2;      /* one byte more shows a file that grew */
	if (!(j->data = try_malloc(cap))) {
		j->err = ENOMEM;
		close(fd);
		return;
	}
	while (j->len < cap - 1) {
		ssize_t r = read(fd, j->data + j->len, cap - 1 - j->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			j->err = errno;
			break;
		}
		if (r == 0)
			break;
		j->len += (size_t)r;
	}
	close(fd);
	if (!j->err && j->len > j->max) {       /* grew past the cap while read */
		j->err = EFBIG;
		j->size = j->len;
	}
	if (j->err) {
		free(j->data);
		j->data = NULL;
		return;
	}
	j->data[j->len] = '\0';
}

static void reg_release(void *p)
{
	struct reg_job *j = p;
	free(j->path);
	free(j->data);
	free(j);
}

int bundle_read_regular(const char *path, uint64_t max, unsigned timeout_ms, char **data,
                        size_t *len, uint64_t *size, char *why, size_t cap)
{
	*data = NULL;
	*len = 0;
	*size = 0;
	struct reg_job *j = try_calloc(1, sizeof(*j));
	if (!j || !(j->path = try_strdup(path))) {
		free(j);
		snprintf(why, cap, "%s: no memory to read it", cesc(path));
		return -ENOMEM;
	}
	j->max = max;
	int e = dl_call(reg_fn, j, reg_release, timeout_ms);
	if (e < 0) {                           /* j is the worker's, or freed */
		if (e == -ETIMEDOUT)
			snprintf(why, cap, "%s: timed out after %g s", cesc(path), timeout_ms / 1000.0);
		else
			snprintf(why, cap, "%s: %s", cesc(path), strerror(-e));
		return e;
	}
	e = -j->err;
	if (e == -ELOOP)
		snprintf(why, cap, "%s: a symlink: not followed", cesc(path));
	else if (e == -ENODEV)
		snprintf(why, cap, "%s: not a regular file", cesc(path));
	else if (e == -EFBIG)
		snprintf(why, cap, "%s: %llu bytes, over %llu", cesc(path),
		         (unsigned long long)j->size, (unsigned long long)max);
	else if (e < 0)
		snprintf(why, cap, "%s: %s", cesc(path), strerror(-e));
	*size = j->size;
	if (!e) {
		*data = j->data;
		*len = j->len;
		j->data = NULL;
	}
	reg_release(j);
	return e;
}

/* ---- the state file ---- */

int bundle_incidents_load(const struct cgw_conf *c, unsigned timeout_ms,
                          struct bundle_incidents *out)
{
	memset(out, 0, sizeof(*out));
	char path[4200], why[4400], boot[64];
	snprintf(path, sizeof(path), "%s/incidents.json", c->state_dir);
	char *text = NULL;
	size_t len = 0;
	uint64_t size = 0;
	int e = bundle_read_regular(path, STATE_MAX_BYTES, timeout_ms, &text, &len, &size, why,
	                            sizeof(why));
	if (e == -ENOENT || e == -ENOTDIR)
		return 0;                          /* no daemon: no open incidents */
	if (e == -ENOMEM)
		return -ENOMEM;
	if (e < 0) {
		char w[4600];
		snprintf(w, sizeof(w), "the daemon's open incidents: %s", why);
		return add_note(out, "incidents", w);
	}
	if (read_small_file("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) < 0)
		snprintf(boot, sizeof(boot), "unknown");
	boot[strcspn(boot, "\n")] = '\0';
	/* what the parser says of the file and of each incident it drops: notes */
	char *msgs = NULL;
	size_t mlen = 0, dropped = 0;
	FILE *err = open_memstream(&msgs, &mlen);
	if (!err) {
		free(text);
		return -ENOMEM;
	}
	struct cgw_incidents in = { 0 };
	incidents_parse(&in, text, len, path, boot, &dropped, err);
	free(text);
	int r = fclose(err) == 0 ? 0 : -ENOMEM;
	for (char *p = msgs, *nl; r == 0 && p && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p) - 1;
		else
			*nl = '\0';
		snprintf(why, sizeof(why), "the daemon's open incidents: %s", p);
		r = add_note(out, "incidents", why);
	}
	free(msgs);
	if (r == 0)
		r = bundle_incident_files(&in, c->report_dir, out);
	incidents_free(&in);
	return r;
}
