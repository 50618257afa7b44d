/* owner.c: one owner for a thing every cgwatch on the host shares: a tracefs instance of a
 * given name, the timerlat tracer's global settings. The owner holds DIR/NAME.lock
 * (/run/cgwatch) with flock and writes its PID in it; another process finds it held and
 * names that PID. The lock goes with the process, however it ends, so a file whose lock is
 * free is stale and is taken over. Beside it the owner keeps small state files (what to put
 * back), written atomically, for the next owner to find after a SIGKILL.
 *
 * The directory is opened without following a symlink and refused when others may write it;
 * its owner may be root or the unit's dynamic user (systemd makes /run/cgwatch its
 * RuntimeDirectory, 0755). Every file is reached relative to it, opened O_PATH first and
 * only opened for real once it is seen to be a regular file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define OWNER_TRIES 8                /* a file replaced under us, tried again this often */

static int dir_open(const char *dir, char *why, size_t cap)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		int e = -errno;
		snprintf(why, cap, "cannot make %s: %s", dir, strerror(-e));
		return e;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		int e = -errno;
		snprintf(why, cap, "cannot open %s: %s", dir, e == -ELOOP || e == -ENOTDIR ?
		         "not a directory (a symlink?)" : strerror(-e));
		if (dfd >= 0)
			close(dfd);
		return e;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, cap, "%s is writable by others (mode %04o): not used", dir,
		         (unsigned)(st.st_mode & 07777));
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

/* name in dfd, a regular file, opened with flags (O_RDWR or O_RDONLY); -errno, -EINVAL not
 * a regular file. */
static int open_file(int dfd, const char *name, int flags)
{
	int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	struct stat st;
	int e = fstat(pfd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	int fd = -1;
	if (!e) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		if ((fd = open(self, flags | O_NOCTTY | O_CLOEXEC)) < 0)
			e = -errno;
	}
	close(pfd);
	return e ? e : fd;
}

/* The PID written in the lock file at fd; 0 when it says none. */
static pid_t file_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *end;
	long v = strtol(buf, &end, 10);
	return v > 0 && v < (1L << 30) && (*end == '\n' || !*end) ? (pid_t)v : 0;
}

/* Does name in dfd still name the file open at fd? */
static bool same_file(int dfd, const char *name, int fd)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int owner_take(const char *dir, const char *name, struct cgw_owner *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = o->dfd = -1;
	if (!dir)
		dir = CGW_RUN_DIR;
	if (!name[0] || strchr(name, '/') || name[0] == '.' ||
	    snprintf(o->path, sizeof(o->path), "%s/%s.lock", dir, name) >= (int)sizeof(o->path)) {
		snprintf(o->why, sizeof(o->why), "not an owner file name: %s", name);
		return -EINVAL;
	}
	snprintf(o->dir, sizeof(o->dir), "%s", dir);
	snprintf(o->name, sizeof(o->name), "%s.lock", name);
	int dfd = dir_open(dir, o->why, sizeof(o->why));
	if (dfd < 0)
		return dfd;
	int e = -EAGAIN;
	for (int k = 0; k < OWNER_TRIES; k++) {
		bool ro = false;
		int fd = open_file(dfd, o->name, O_RDWR);
		if (fd == -EACCES) {              /* someone else's uid made it: locked as it is */
			fd = open_file(dfd, o->name, O_RDONLY);
			ro = true;
		}
		if (fd == -ENOENT) {
			fd = openat(dfd, o->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			            0644);
			if (fd < 0 && errno == EEXIST)
				continue;                /* made meanwhile: looked at again */
			if (fd < 0)
				fd = -errno;
		}
		if (fd < 0) {
			e = fd;
			snprintf(o->why, sizeof(o->why), "cannot open %s: %s", o->path,
			         fd == -EINVAL ? "not a regular file" : strerror(-fd));
			break;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			e = errno == EWOULDBLOCK ? -EBUSY : -errno;
			o->holder = e == -EBUSY ? file_pid(fd) : 0;
			close(fd);
			if (e == -EBUSY && o->holder)
				snprintf(o->why, sizeof(o->why), "held by cgwatch PID %d (%s)",
				         (int)o->holder, o->path);
			else if (e == -EBUSY)
				snprintf(o->why, sizeof(o->why), "held by another process (%s)", o->path);
			else
				snprintf(o->why, sizeof(o->why), "cannot lock %s: %s", o->path,
				         strerror(-e));
			break;
		}
		/* the owner before us removed it, or it was replaced, meanwhile: not the file */
		if (!same_file(dfd, o->name, fd)) {
			close(fd);
			continue;
		}
		if (ro) {                         /* stale, and not ours to write: made afresh */
			unlinkat(dfd, o->name, 0);
			close(fd);
			continue;
		}
		char pid[32];
		int l = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)l, 0) != l) {
			e = -errno;
			snprintf(o->why, sizeof(o->why), "cannot write %s: %s", o->path, strerror(-e));
			close(fd);
			break;
		}
		o->fd = fd;
		o->dfd = dfd;
		o->held = true;
		o->why[0] = 0;
		return 0;
	}
	if (e == -EAGAIN)
		snprintf(o->why, sizeof(o->why), "%s kept changing: not taken", o->path);
	close(dfd);
	return e;
}

void owner_release(struct cgw_owner *o)
{
	if (!o->held)
		return;
	if (same_file(o->dfd, o->name, o->fd))
		unlinkat(o->dfd, o->name, 0);
	close(o->fd);
	close(o->dfd);
	o->fd = o->dfd = -1;
	o->held = false;
}

/* NAME.lock's stem with suffix: the state file's name in the directory. */
static int state_name(const struct cgw_owner *o, const char *suffix, char *out, size_t cap)
{
	size_t stem = strlen(o->name) - strlen(".lock");
	if (!o->held || strchr(suffix, '/'))
		return -EINVAL;
	return snprintf(out, cap, "%.*s.%s", (int)stem, o->name, suffix) < (int)cap ? 0 :
	       -ENAMETOOLONG;
}

int owner_save(const struct cgw_owner *o, const char *suffix, const char *text)
{
	char name[128], tmp[160];
	int e = state_name(o, suffix, name, sizeof(name));
	if (e < 0)
		return e;
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	unlinkat(o->dfd, tmp, 0);                 /* one a SIGKILL left: made afresh */
	int fd = openat(o->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0) {
		e = errno ? -errno : -EIO;
		close(fd);
		unlinkat(o->dfd, tmp, 0);
		return e;
	}
	close(fd);
	if (renameat(o->dfd, tmp, o->dfd, name) < 0) {
		e = -errno;
		unlinkat(o->dfd, tmp, 0);
		return e;
	}
	fsync(o->dfd);
	return 0;
}

ssize_t owner_load(const struct cgw_owner *o, const char *suffix, char *buf, size_t cap)
{
	char name[128];
	int e = state_name(o, suffix, name, sizeof(name));
	if (e < 0 || cap == 0)
		return e < 0 ? e : -EINVAL;
	int fd = open_file(o->dfd, name, O_RDONLY);
	if (fd < 0)
		return fd;
	ssize_t n = read(fd, buf, cap - 1);
	e = n < 0 ? -errno : 0;
	close(fd);
	if (e < 0)
		return e;
	buf[n] = 0;
	return n;
}

int owner_forget(const struct cgw_owner *o, const char *suffix)
{
	char name[128];
	int e = state_name(o, suffix, name, sizeof(name));
	if (e < 0)
		return e;
	return unlinkat(o->dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
}
