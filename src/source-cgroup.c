/* source-cgroup.c: whether a task's cgroup is frozen.
 * A task frozen while it slept keeps its old stack and shows D: only the freezer state can
 * tell it from a hang (README section 2). */
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* Cgroup paths come from the kernel but name directories users created: refuse "..". */
static bool safe_cgroup_path(const char *p)
{
	return p[0] == '/' && !strstr(p, "/..");
}

const char *cgroup_frozen(struct cgw_scan *s, const char *v1, const char *v2,
                          unsigned timeout_ms)
{
	char path[1024], buf[256];
	if (v1 && v1[0] && s->freezer_mnt[0] && safe_cgroup_path(v1)) {
		snprintf(path, sizeof(path), "%s%s/freezer.state", s->freezer_mnt,
		         strcmp(v1, "/") ? v1 : "");
		if (scan_read(s, path, buf, sizeof(buf), timeout_ms) > 0 &&
		    strncmp(buf, "FROZEN", 6) == 0 && (buf[6] == '\n' || buf[6] == '\0'))
			return v1;
	}
	if (v2 && v2[0] && s->cgroup2_mnt[0] && safe_cgroup_path(v2)) {
		snprintf(path, sizeof(path), "%s%s/cgroup.events", s->cgroup2_mnt,
		         strcmp(v2, "/") ? v2 : "");
		if (scan_read(s, path, buf, sizeof(buf), timeout_ms) > 0) {
			for (const char *l = buf; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
				if (strncmp(l, "frozen 1", 8) == 0 && (l[8] == '\n' || l[8] == '\0'))
					return v2;        /* "frozen 10", "frozen 1x": not the kernel's 0/1 */
		}
	}
	return NULL;
}
