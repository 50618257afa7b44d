/* source-psi.c: pressure stall information from the host. The system-wide files
 * /proc/pressure/{cpu,memory,io} are kept open and read with one pread each scan (psi_show
 * takes no lock a hang can hold); the pressure files of the findings' cgroups (cgroup v2:
 * cpu.pressure, memory.pressure, io.pressure, there even where no controller is enabled) are
 * read with the scan's deadline, as every cgroup file. The daemon also registers the kernel's
 * triggers (Documentation/accounting/psi.rst): "some STALL_US WINDOW_US" written to a pressure
 * file kept open, then poll()ed for POLLPRI, at most one event per window. In a replay (--root)
 * /proc is the tree's: its files are read when it holds them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

#define PSI_MAX_CGROUPS 64                /* cgroups a report reads the pressure of, at most */

struct cgw_psi_src {
	int fd[PSI_NRES];                 /* -errno when not open */
};

static const char *sys_path(int res, char *buf, size_t cap)
{
	snprintf(buf, cap, "/proc/pressure/%s", psi_res_name(res));
	return buf;
}

struct cgw_psi_src *psi_src_open(void)
{
	struct cgw_psi_src *s = try_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	char path[64];
	for (int r = 0; r < PSI_NRES; r++) {
		s->fd[r] = open(sys_path(r, path, sizeof(path)), O_RDONLY | O_CLOEXEC);
		if (s->fd[r] < 0)
			s->fd[r] = -errno;
	}
	return s;
}

void psi_src_free(struct cgw_psi_src *s)
{
	if (!s)
		return;
	for (int r = 0; r < PSI_NRES; r++)
		if (s->fd[r] >= 0)
			close(s->fd[r]);
	free(s);
}

static const char *open_why(int e)
{
	return e == ENOENT ? "not there (a kernel without PSI, or booted with psi=0)" : strerror(e);
}

int psi_read_sys(struct cgw_psi_src *src, struct cgw_pressure *p)
{
	int n = 0;
	char path[64], buf[512], why[160];
	for (int r = 0; r < PSI_NRES; r++) {
		memset(&p->sys[r], 0, sizeof(p->sys[r]));
		p->error[r][0] = '\0';
		sys_path(r, path, sizeof(path));
		if (src->fd[r] < 0) {
			record_read(path, NULL, src->fd[r]);
			snprintf(p->error[r], sizeof(p->error[r]), "%s: %s", path, open_why(-src->fd[r]));
			continue;
		}
		ssize_t got = pread(src->fd[r], buf, sizeof(buf) - 1, 0);
		int e = errno;
		record_read(path, buf, got < 0 ? -e : got);   /* a capture keeps it as read */
		if (got < 0) {
			snprintf(p->error[r], sizeof(p->error[r]), "%s: %s", path, strerror(e));
			continue;
		}
		buf[got] = '\0';
		if (psi_parse(buf, &p->sys[r], why, sizeof(why)) < 0) {
			snprintf(p->error[r], sizeof(p->error[r]), "%s: %s", path, why);
			continue;
		}
		n++;
	}
	return n;
}

int psi_read_total(struct cgw_psi_src *src, int res, bool full, unsigned long long *total_us)
{
	char buf[512], why[160];
	struct cgw_psi x;
	if (res < 0 || res >= PSI_NRES || src->fd[res] < 0)
		return res < 0 || res >= PSI_NRES ? -EINVAL : src->fd[res];
	ssize_t got = pread(src->fd[res], buf, sizeof(buf) - 1, 0);
	if (got < 0)
		return -errno;
	buf[got] = '\0';
	if (psi_parse(buf, &x, why, sizeof(why)) < 0)
		return -EINVAL;
	const struct cgw_psi_avg *a = full ? &x.full : &x.some;
	if (!a->have)
		return -ENODATA;
	*total_us = a->total_us;
	return 0;
}

int psi_trigger_open(int res, const struct cgw_psi_trigger *t, char *why, size_t cap)
{
	char path[64], cmd[64];
	sys_path(res, path, sizeof(path));
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, cap, "cannot open %s for writing: %s", path, open_why(e));
		return -e;
	}
	/* the kernel's own format: psi_write takes "some|full STALL_US WINDOW_US" and the NUL */
	int n = snprintf(cmd, sizeof(cmd), "%s %u %u", t->full ? "full" : "some", t->stall_us,
	                 t->window_us);
	if (write(fd, cmd, (size_t)n + 1) < 0) {
		int e = errno;
		close(fd);
		snprintf(why, cap, "%s refused the trigger \"%s\": %s%s", path, cmd, strerror(e),
		         e == EINVAL && t->window_us % 2000000 ? " (without CAP_SYS_RESOURCE the kernel "
		         "takes only windows that are whole multiples of 2 s)" : "");
		return -e;
	}
	return fd;
}

/* The cgroup's entry in p->cg, added (and read) when new; NULL when full or out of memory. */
static struct cgw_psi_cgroup *cg_entry(struct cgw_report *r, struct cgw_pressure *p,
                                       const char *cg, unsigned timeout_ms)
{
	for (size_t k = 0; k < p->ncg; k++)
		if (strcmp(p->cg[k].path, cg) == 0)
			return &p->cg[k];
	if (p->ncg >= PSI_MAX_CGROUPS)
		return NULL;
	if (!p->cg && !(p->cg = try_calloc(PSI_MAX_CGROUPS, sizeof(*p->cg)))) {
		r->scan->nomem = true;
		return NULL;
	}
	struct cgw_psi_cgroup *c = &p->cg[p->ncg++];
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", cg);
	char path[1024], buf[512], why[160];
	for (int res = 0; res < PSI_NRES; res++) {
		snprintf(path, sizeof(path), "%s%s/%s.pressure", r->scan->cgroup2_mnt,
		         strcmp(cg, "/") ? cg : "", psi_res_name(res));
		ssize_t got = scan_read(r->scan, path, buf, sizeof(buf), timeout_ms);
		if (got == -ENOENT)
			continue;                 /* gone, or a kernel without cgroup PSI */
		if (got < 0)
			scan_unreadable(r->scan, path, "%s", strerror((int)-got));
		else if (psi_parse(buf, &c->res[res], why, sizeof(why)) < 0)
			scan_unreadable(r->scan, path, "%s", why);
	}
	return c;
}

int psi_read_cgroups(struct cgw_report *r, struct cgw_pressure *p, unsigned timeout_ms)
{
	if (!r->scan || !r->scan->cgroup2_mnt[0])
		return 0;
	for (size_t i = 0; i < r->nf; i++) {
		const struct cgw_finding *f = &r->f[i];
		for (size_t k = 0; k < f->ntasks; k++) {
			const char *cg = r->scan->t[f->tasks[k]].cgroup;
			/* the 0:: path; "?" or "" when it was not read or not trusted, ".." refused */
			if (cg[0] != '/' || strstr(cg, "/.."))
				continue;
			if (!cg_entry(r, p, cg, timeout_ms) && r->scan->nomem)
				return -ENOMEM;
		}
	}
	return 0;
}
