/* source-root.c: --root DIR. A private mount namespace with DIR/proc on /proc and DIR/sys on /sys
 * makes every reader — ours and libproc2, which knows no other root — see the captured tree
 * exactly as it saw the live host. DIR may itself sit on a file system that does not answer
 * (a stuck FUSE or NFS mount): it is probed with a deadline before anything else touches it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

/* Enter new mount namespace; as non-root, through a user namespace mapping us to root. */
static int new_mount_ns(void)
{
	open_regular_keep_proc();         /* the tree's proc/ is about to cover /proc */
	if (unshare(CLONE_NEWNS) == 0)
		return 0;
	if (errno != EPERM)
		return -errno;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -EPERM;
	char map[64];
	write_small_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	int r = write_small_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (r == 0)
		r = write_small_file("/proc/self/gid_map", map);
	return r;
}

#define PRIVATE_DIR "/tmp"                /* a bundle's tmpfs goes over it, in our namespace */
#define PRIVATE_TREE PRIVATE_DIR "/tree"
static char private_tree[64];             /* set once a bundle's tree is extracted */

const char *root_tree(const char *root)
{
	return private_tree[0] ? private_tree : root;
}

/* --root FILE, a bundle (source-archive.c): its tree/ extracted into a tmpfs mounted in a new
 * mount namespace, then entered as a directory. Nothing reaches the host's file systems, and
 * the tree is gone when the process ends, however it ends. -ENOTDIR: not a regular file. */
static int bundle_enter(const char *path, unsigned timeout_ms, char *msg, size_t cap)
{
	int fd = archive_open(path, timeout_ms);
	if (fd == -ETIMEDOUT) {
		snprintf(msg, cap, "--root %s: opening it timed out after %g s: the file system "
		         "holding it does not answer", path, timeout_ms / 1000.0);
		return fd;
	}
	if (fd < 0)
		return -ENOTDIR;                  /* the caller says why it is no tree */
	/* what the extraction lets in: max_size counts a file's data in whole pages, as a tmpfs
	 * keeps them (bundle_member_cost), and max_members the inodes; the kernel holds the
	 * tmpfs to it besides */
	char opts[128];
	snprintf(opts, sizeof(opts), "size=%llu,nr_inodes=%zu,mode=0700",
	         (unsigned long long)(archive_read_caps.max_total + (4u << 20)),
	         archive_read_caps.max_members + 64);
	int e = new_mount_ns();
	if (e == 0 && mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		e = -errno;
	if (e == 0 && mount("cgwatch-bundle", PRIVATE_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	                    opts) < 0)
		e = -errno;
	int treefd = -1;
	if (e == 0)
		treefd = mkdir(PRIVATE_TREE, 0755) < 0 ? -1 :
		         open(PRIVATE_TREE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (e == 0 && treefd < 0)
		e = -errno;
	if (e < 0) {
		close(fd);
		snprintf(msg, cap, "--root %s: cannot make a private tmpfs for the bundle's tree "
		         "(%s): run as root, or allow unprivileged user namespaces", path,
		         strerror(-e));
		return e;
	}
	/* the worker that opened the file lives in the host's namespace: retire it */
	dl_reset();
	e = archive_extract(fd, path, treefd, timeout_ms, msg, cap);
	close(fd);
	bool has_sched = faccessat(treefd, "proc/self/sched", F_OK, 0) == 0;
	close(treefd);
	if (e < 0)
		return e;
	if (!has_sched) {
		snprintf(msg, cap, "--root %s: the bundle holds no tree/proc/self/sched: not a "
		         "captured tree", path);
		return -ENOENT;
	}
	snprintf(private_tree, sizeof(private_tree), "%s", PRIVATE_TREE);
	return root_enter(private_tree, timeout_ms, msg, cap);
}

int root_enter(const char *dir, unsigned timeout_ms, char *msg, size_t cap)
{
	char path[4096], buf[4096];
	snprintf(path, sizeof(path), "%s/proc/self/sched", dir);
	ssize_t r = dl_read_file(path, buf, sizeof(buf), timeout_ms);
	if (r == -ENOTDIR) {                  /* a file: a bundle (source-archive.c)? */
		int a = bundle_enter(dir, timeout_ms, msg, cap);
		if (a != -ENOTDIR)
			return a;
	}
	if (r == -ETIMEDOUT) {
		snprintf(msg, cap, "--root %s: reading %s timed out after %g s: the file system "
		         "holding the tree does not answer", dir, path, timeout_ms / 1000.0);
		return (int)r;
	}
	if (r < 0) {
		snprintf(msg, cap, "--root %s: cannot read %s (%s): not a captured tree "
		         "(it needs DIR/proc/self/sched)", dir, path, strerror((int)-r));
		return (int)r;
	}
	/* unshare() moves only this thread: the worker that ran the probe stays in the host's
	 * namespace and would read the live /proc. Retire it; the next read starts a new one. */
	dl_reset();
	int e = new_mount_ns();
	if (e < 0) {
		snprintf(msg, cap, "--root %s: cannot make a private mount namespace (%s): "
		         "run as root, or allow unprivileged user namespaces", dir, strerror(-e));
		return e;
	}
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0 ||
	    (snprintf(path, sizeof(path), "%s/proc", dir),
	     mount(path, "/proc", "none", MS_BIND | MS_REC, NULL) < 0)) {
		e = -errno;
		snprintf(msg, cap, "--root %s: cannot bind %s on /proc: %s", dir, path, strerror(-e));
		return e;
	}
	/* without DIR/sys, an empty /sys: never mix the live host's topology into a replay */
	snprintf(path, sizeof(path), "%s/sys", dir);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		r = mount(path, "/sys", "none", MS_BIND | MS_REC, NULL);
	else
		r = mount("cgwatch-empty", "/sys", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k");
	if (r < 0) {
		e = -errno;
		snprintf(msg, cap, "--root %s: cannot mount %s on /sys: %s", dir, path, strerror(-e));
		return e;
	}
	return 0;
}
