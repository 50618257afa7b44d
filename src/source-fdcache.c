/* source-fdcache.c: the daemon keeps each thread's stat file open between scans and reads it again
 * with pread at offset 0 (the kernel regenerates it on every read): 1.3-2.5 µs a thread
 * instead of 3.2-5.1 µs for open+read+close (measured here; BENCHMARKS.md). /proc lists processes, and each
 * process its threads, in ascending order, so one scan's (tgid, tid) sequence is sorted and
 * the previous scan's fds are found by walking both lists together: no hashing, no sorting.
 * If the order ever differs, an fd is closed and opened again: slower, never wrong. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgwatch.h"

struct fd_ent { int tgid, tid, fd; };

struct cgw_fdcache {
	struct fd_ent *old; size_t nold, oldcap, cur;  /* the last scan's, being walked */
	struct fd_ent *new; size_t nnew, newcap;       /* this scan's */
	size_t max;                                    /* fds we may keep open */
};

#define FD_RESERVE 256        /* left under RLIMIT_NOFILE for reports, journal, libraries */

struct cgw_fdcache *fdcache_new(void)
{
	return xcalloc(1, sizeof(struct cgw_fdcache));
}

static bool before(const struct fd_ent *e, int tgid, int tid)
{
	return e->tgid < tgid || (e->tgid == tgid && e->tid < tid);
}

/* The open fd of (tgid, tid) from the last scan, or -1. Skipped entries are closed. */
static int fdcache_take(struct cgw_fdcache *c, int tgid, int tid)
{
	while (c->cur < c->nold && before(&c->old[c->cur], tgid, tid))
		close(c->old[c->cur++].fd);                   /* gone, or out of order */
	if (c->cur < c->nold && c->old[c->cur].tgid == tgid && c->old[c->cur].tid == tid)
		return c->old[c->cur++].fd;
	return -1;
}

static void fdcache_keep(struct cgw_fdcache *c, int tgid, int tid, int fd)
{
	if (grow((void **)&c->new, &c->newcap, c->nnew, 1024, sizeof(*c->new)) < 0) {
		close(fd);                    /* no room: not kept, read afresh next scan */
		return;
	}
	c->new[c->nnew++] = (struct fd_ent){ tgid, tid, fd };
}

static ssize_t pread_all(int fd, char *buf, size_t cap)
{
	ssize_t r;
	do
		r = pread(fd, buf, cap - 1, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	return r;
}

ssize_t fdcache_read_stat(struct cgw_fdcache *c, int taskfd, int tgid, int tid,
                          const char *tidname, char *buf, size_t cap)
{
	int fd = fdcache_take(c, tgid, tid);
	if (fd >= 0) {
		ssize_t r = pread_all(fd, buf, cap);
		if (r > 0) {
			fdcache_keep(c, tgid, tid, fd);
			return r;
		}
		close(fd);               /* ESRCH: that thread is gone; the tid may be reused */
	}
	char path[320];
	snprintf(path, sizeof(path), "%s/stat", tidname);
	fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t r = pread_all(fd, buf, cap);
	if (r > 0 && c->nnew + c->nold - c->cur < c->max)
		fdcache_keep(c, tgid, tid, fd);
	else
		close(fd);
	return r;
}

void fdcache_begin(struct cgw_fdcache *c)
{
	struct rlimit rl;
	c->cur = 0;
	c->nnew = 0;
	c->max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	         rl.rlim_cur > 2 * FD_RESERVE ? (size_t)rl.rlim_cur - FD_RESERVE : FD_RESERVE;
}

void fdcache_end(struct cgw_fdcache *c)
{
	while (c->cur < c->nold)
		close(c->old[c->cur++].fd);
	swap_arrays((void **)&c->old, &c->oldcap, (void **)&c->new, &c->newcap);
	c->nold = c->nnew;
	c->nnew = 0;
	c->cur = 0;
}

void fdcache_free(struct cgw_fdcache *c)
{
	if (!c)
		return;
	for (size_t i = c->cur; i < c->nold; i++)
		close(c->old[i].fd);
	for (size_t i = 0; i < c->nnew; i++)
		close(c->new[i].fd);
	free(c->old);
	free(c->new);
	free(c);
}
