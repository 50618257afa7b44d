/* atomic.c: files that are either the old version or the new one, never half of either, and
 * that nobody else can redirect. Every file is written relative to its directory, opened
 * without following a symlink and checked first: a directory that a user other than us or
 * root could change is refused. The temporary file is made afresh with O_EXCL|O_NOFOLLOW
 * (whatever stood at its name is removed first, never followed), given its mode with fchmod,
 * synced and renamed into place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

static int fail_why(int e, char *why, size_t cap)
{
	if (why && cap)
		snprintf(why, cap, "%s", strerror(-e));
	return e;
}

int atomic_dir_check(int dfd, const char *dir, char *why, size_t cap)
{
	struct stat st;
	if (fstat(dfd, &st) < 0)
		return fail_why(-errno, why, cap);
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		if (why && cap)
			snprintf(why, cap, "%s is owned by uid %u, not by us or root: refusing to "
			         "write there", dir, (unsigned)st.st_uid);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		if (why && cap)
			snprintf(why, cap, "%s is writable by %s (mode %04o): refusing to write there",
			         dir, (st.st_mode & S_IWGRP) && (st.st_mode & S_IWOTH) ? "group and others"
			         : st.st_mode & S_IWGRP ? "its group" : "others",
			         (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* The directory itself may be a symlink: systemd's DynamicUser= makes /var/log/cgwatch and
 * /var/lib/cgwatch links into private/. It is followed only when root or we own the link (as
 * the kernel's protected_symlinks has it: nobody else could have made it), and what it leads
 * to is checked as any directory. Returns the directory's fd or -errno, why said. */
static int dir_open(const char *dir, char *why, size_t cap)
{
	struct stat lst;
	if (lstat(dir, &lst) < 0)
		return fail_why(-errno, why, cap);
	if (S_ISLNK(lst.st_mode) && lst.st_uid != 0 && lst.st_uid != geteuid()) {
		if (why && cap)
			snprintf(why, cap, "%s is a symlink owned by uid %u, not by us or root: "
			         "refusing to follow it", dir, (unsigned)lst.st_uid);
		return -EPERM;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd < 0 ? fail_why(-errno, why, cap) : dfd;
}

/* Write one temporary file tmp in dfd. Returns 0 or -errno (tmp removed). */
static int write_tmp(int dfd, const char *tmp, const char *data, size_t len, mode_t mode)
{
	/* whatever is at the name (a crash's leftover, a symlink, someone's file) goes: unlinkat
	 * removes a symlink itself, and O_EXCL|O_NOFOLLOW refuses anything that comes back */
	if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	int e = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (!e && fchmod(fd, mode) < 0)
		e = -errno;
	if (!e && fsync(fd) < 0)
		e = -errno;
	if (close(fd) < 0 && !e)
		e = -errno;
	if (e)
		unlinkat(dfd, tmp, 0);
	return e;
}

int atomic_write_set(const char *dir, const struct atomic_file *f, size_t n, mode_t mode,
                     char *why, size_t cap)
{
	char (*tmp)[NAME_MAX + 1] = xcalloc(n + 1, sizeof(*tmp));
	int e = 0;
	for (size_t k = 0; k < n && !e; k++)
		if (!f[k].name[0] || strchr(f[k].name, '/') ||
		    (size_t)snprintf(tmp[k], sizeof(tmp[k]), "%s.tmp", f[k].name) >= sizeof(tmp[k]))
			e = -ENAMETOOLONG;
	if (e) {
		free(tmp);
		return fail_why(e, why, cap);
	}
	int dfd = dir_open(dir, why, cap);
	if (dfd < 0) {
		free(tmp);
		return dfd;                       /* why says it already */
	}
	e = atomic_dir_check(dfd, dir, why, cap);
	bool refused = e < 0;                 /* why says it already */
	size_t written = 0, renamed = 0;
	for (size_t k = 0; !e && k < n; k++) {
		e = write_tmp(dfd, tmp[k], f[k].data, f[k].len, mode);
		written += !e;                    /* a failed one removed itself */
	}
	while (!e && renamed < n) {
		if (renameat(dfd, tmp[renamed], dfd, f[renamed].name) < 0)
			e = -errno;
		else
			renamed++;
	}
	if (e) {                              /* all or none: undo what is done */
		for (size_t k = renamed; k < written; k++)
			unlinkat(dfd, tmp[k], 0);
		for (size_t k = 0; k < renamed; k++)
			unlinkat(dfd, f[k].name, 0);
		if (!refused)
			fail_why(e, why, cap);
	} else {
		fsync(dfd);                       /* make the renames themselves durable */
	}
	close(dfd);
	free(tmp);
	return e;
}

int atomic_write_why(const char *path, const char *data, size_t len, mode_t mode, char *why,
                     size_t cap)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
	                  : xstrdup(".");
	struct atomic_file f = { slash ? slash + 1 : path, data, len };
	int e = strlen(f.name) > NAME_MAX - 4 ? fail_why(-ENAMETOOLONG, why, cap)
	        : atomic_write_set(dir, &f, 1, mode, why, cap);
	free(dir);
	return e;
}

int atomic_write(const char *path, const char *data, size_t len, mode_t mode)
{
	return atomic_write_why(path, data, len, mode, NULL, 0);
}

int atomic_write_new(const char *path, const char *data, size_t len, mode_t mode, char *why,
                     size_t cap)
{
	const char *slash = strrchr(path, '/');
	char *tmp = NULL, *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
	                                : xstrdup(".");
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
	             slash ? slash + 1 : path) < 0) {
		free(dir);
		return fail_why(-ENOMEM, why, cap);
	}
	int e = 0, fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		e = -errno;
	for (size_t off = 0; !e && off < len;) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno != EINTR)
			e = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (!e && fchmod(fd, mode) < 0)
		e = -errno;
	if (!e && fsync(fd) < 0)
		e = -errno;
	if (fd >= 0 && close(fd) < 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) < 0)
		e = -errno;
	if (e) {
		if (fd >= 0)
			unlink(tmp);
	} else {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);                   /* the rename itself, durable */
			close(dfd);
		}
	}
	free(tmp);
	free(dir);
	return e ? fail_why(e, why, cap) : 0;
}
