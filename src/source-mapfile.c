/* source-mapfile.c: the file a mapping of another process maps, opened from here. Its path in
 * /proc/TGID/maps is a path in that process's mount namespace, as it was when mapped: in
 * cgwatch's own namespace it may be another file (a container's, a service's PrivateTmp), or
 * none (deleted or replaced since). /proc/TGID/map_files/START-END is the mapped file itself
 * whatever its name (opened with CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE); without it, the
 * path under the process's root (/proc/TGID/root/PATH) is taken only when it is still the
 * mapped inode. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgwatch.h"

int mapfile_open(int tgid, const struct maps_ent *e, struct stat *st, char *why, size_t cap)
{
	char p[4096];
	snprintf(p, sizeof(p), "/proc/%d/map_files/%lx-%lx", tgid, e->start, e->end);
	int fd = open_regular(p);
	if (fd >= 0 && fstat(fd, st) == 0)
		return fd;                             /* the mapped file, by construction */
	int mf = fd >= 0 ? errno : -fd;
	if (fd >= 0)
		close(fd);
	if (e->path_len == 0 || e->path[0] != '/') {
		snprintf(why, cap, "its file cannot be opened here (map_files: %s; no path)",
		         cgw_strerror(mf));
		return -mf;
	}
	int n = snprintf(p, sizeof(p), "/proc/%d/root%.*s", tgid, (int)e->path_len, e->path);
	if (n < 0 || (size_t)n >= sizeof(p)) {
		snprintf(why, cap, "its file cannot be opened here (map_files: %s; path too long)",
		         cgw_strerror(mf));
		return -ENAMETOOLONG;
	}
	if ((fd = open_regular(p)) < 0) {
		snprintf(why, cap, "its file cannot be opened here (map_files: %s; by its path in "
		         "its mount namespace: %s: deleted or replaced since)", cgw_strerror(mf),
		         cgw_strerror(-fd));
		return fd;
	}
	if (fstat(fd, st) < 0) {
		int err = errno;
		close(fd);
		snprintf(why, cap, "its file cannot be read here (fstat: %s)", strerror(err));
		return -err;
	}
	if (st->st_ino != e->inode || major(st->st_dev) != e->dev_major ||
	    minor(st->st_dev) != e->dev_minor) {
		close(fd);
		snprintf(why, cap, "the file at its path is not the one mapped (replaced since; "
		         "map_files: %s), so it is not used", cgw_strerror(mf));
		return -ESTALE;
	}
	return fd;
}
