/* source-mapfile.c: open the file a task has mapped, as that task sees it, and make sure it
 * is the file mapped. /proc/PID/maps names a mapping's file by its path in the task's mount
 * namespace (a container's root, a service's PrivateTmp), with " (deleted)" when it was
 * removed or renamed over since (an upgrade): the path opened from here may be another
 * file, or none. So: the path under /proc/TGID/root (the task's own root and mounts), kept
 * when its device and inode are the mapping's; else /proc/TGID/map_files/START-END, the
 * mapping's own file (root only), kept when its inode is the mapping's. The path is
 * preferred: a debug file is looked for in its directory. Every open may block (a binary
 * on a stuck mount): callers run this under a deadline. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgwatch.h"

#define DELETED " (deleted)"

int mapfile_open(int tgid, const struct maps_ent *e, char *path, size_t cap, char *why,
                 size_t wcap)
{
	char rp[PATH_MAX + 64], mp[96];
	size_t dl = sizeof(DELETED) - 1;
	bool deleted = e->path_len > dl && memcmp(e->path + e->path_len - dl, DELETED, dl) == 0;
	why[0] = '\0';
	if (!e->path_len || e->path[0] != '/') {
		snprintf(why, wcap, "not a file");
		return -ENOENT;
	}
	dev_t mdev = makedev(e->dev_major, e->dev_minor);
	int rfd = -ENOENT, n = snprintf(rp, sizeof(rp), "/proc/%d/root%.*s", tgid,
	                                (int)e->path_len, e->path);
	struct stat rs = { 0 }, ms = { 0 };
	if (n < 0 || (size_t)n >= sizeof(rp))
		rfd = -ENAMETOOLONG;
	else if (!deleted && (rfd = open_regular(rp)) >= 0 && fstat(rfd, &rs) < 0) {
		close(rfd);
		rfd = -errno;
	}
	if (rfd >= 0 && rs.st_ino == e->inode && rs.st_dev == mdev)
		goto use_root;
	snprintf(mp, sizeof(mp), "/proc/%d/map_files/%lx-%lx", tgid, e->start, e->end);
	int mfd = open_regular(mp);
	if (mfd >= 0 && fstat(mfd, &ms) < 0) {
		close(mfd);
		mfd = -errno;
	}
	if (mfd >= 0 && ms.st_ino == e->inode) {
		/* the same file as at the path, its device only numbered otherwise there (btrfs
		 * subvolumes, an overlay's upper file): the path, for its directory */
		if (rfd >= 0 && rs.st_ino == ms.st_ino && rs.st_dev == ms.st_dev) {
			close(mfd);
			goto use_root;
		}
		if (rfd >= 0)
			close(rfd);
		snprintf(path, cap, "%s", mp);
		return mfd;
	}
	if (mfd >= 0) {
		close(mfd);
		mfd = -ESTALE;                 /* another mapping there since maps was read */
	}
	if (rfd >= 0) {
		close(rfd);
		snprintf(why, wcap, "the file at its path is not the one mapped (device %u:%u inode "
		         "%llu there, %u:%u inode %lu mapped: replaced since, or another file mounted "
		         "over it), and %s: %s", major(rs.st_dev), minor(rs.st_dev),
		         (unsigned long long)rs.st_ino, e->dev_major, e->dev_minor, e->inode, mp,
		         cgw_strerror(-mfd));
		return -ESTALE;
	}
	if (deleted)
		snprintf(why, wcap, "deleted since it was mapped, and %s: %s", mp, cgw_strerror(-mfd));
	else
		snprintf(why, wcap, "cannot open it: %s: %s; %s: %s", rp, cgw_strerror(-rfd), mp,
		         cgw_strerror(-mfd));
	return mfd;
use_root:
	snprintf(path, cap, "%s", rp);
	return rfd;
}
