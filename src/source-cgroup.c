/* source-cgroup.c: whether a task's cgroup is frozen.
 * A task frozen while it slept keeps its old stack and shows D: only the freezer state can
 * tell it from a hang (README section 2). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* Cgroup paths come from the kernel but name directories users created: refuse "..". */
static bool safe_cgroup_path(const char *p)
{
	return p[0] == '/' && !strstr(p, "/..");
}

bool freezer_file(const char *mnt, const char *cg, const char *name, char *out, size_t cap)
{
	if (!cg || !cg[0] || !mnt[0] || !safe_cgroup_path(cg))
		return false;
	snprintf(out, cap, "%s%s/%s", mnt, strcmp(cg, "/") ? cg : "", name);
	return true;
}

bool freezer_state_frozen(const char *buf, ssize_t r)
{
	return r > 0 && strncmp(buf, "FROZEN", 6) == 0 && (buf[6] == '\n' || buf[6] == '\0');
}

bool cgroup_events_frozen(const char *buf, ssize_t r)
{
	if (r <= 0)
		return false;
	for (const char *l = buf; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, "frozen 1", 8) == 0 && (l[8] == '\n' || l[8] == '\0'))
			return true;              /* "frozen 10", "frozen 1x": not the kernel's 0/1 */
	return false;
}

_Static_assert(sizeof(((struct cgw_frzmemo *)0)->path) == FREEZER_PATH_MAX &&
               sizeof(((struct cgw_frzmemo *)0)->buf) == FREEZER_BUF, "the memo keeps a read");

bool freezer_memo(const struct cgw_scan *s, int k, const char *path, char *buf, ssize_t *r)
{
	const struct cgw_frzmemo *m = s->frz_memo ? &s->frz_memo[k] : NULL;
	if (!m || !m->path[0] || strcmp(m->path, path) != 0)
		return false;
	memcpy(buf, m->buf, sizeof(m->buf));
	*r = m->r;
	return true;
}

/* Freezer file k at path, from the memo or read (and kept when the read answered: its
 * bytes, or that it does not exist). */
static ssize_t freezer_read(struct cgw_scan *s, int k, const char *path, char *buf,
                            unsigned timeout_ms)
{
	ssize_t r;
	if (freezer_memo(s, k, path, buf, &r))
		return r;
	r = scan_read(s, path, buf, FREEZER_BUF, timeout_ms);
	if ((r >= 0 || r == -ENOENT) &&
	    (s->frz_memo || (s->frz_memo = calloc(2, sizeof(*s->frz_memo))))) {
		struct cgw_frzmemo *m = &s->frz_memo[k];
		snprintf(m->path, sizeof(m->path), "%s", path);
		memcpy(m->buf, buf, r >= 0 ? (size_t)r + 1 : 0);
		m->r = r;
	}
	return r;
}

const char *cgroup_frozen(struct cgw_scan *s, const char *v1, const char *v2,
                          unsigned timeout_ms)
{
	char path[FREEZER_PATH_MAX], buf[FREEZER_BUF];
	if (freezer_file(s->freezer_mnt, v1, "freezer.state", path, sizeof(path)) &&
	    freezer_state_frozen(buf, freezer_read(s, 0, path, buf, timeout_ms)))
		return v1;
	if (freezer_file(s->cgroup2_mnt, v2, "cgroup.events", path, sizeof(path)) &&
	    cgroup_events_frozen(buf, freezer_read(s, 1, path, buf, timeout_ms)))
		return v2;
	return NULL;
}
