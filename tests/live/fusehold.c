/* fusehold: mount an uninitialised FUSE filesystem and never answer INIT.
 *
 *   fusehold DIR [--child] [--name NAME | --hostile] [--owner UID]
 *   fusehold --file FILE [--child] [--name NAME | --hostile] [--owner UID]
 *
 * Opens /dev/fuse, mounts it on DIR (fstype fuse.x, rootmode=40000), prints
 * "mounted\n" and then holds the fd until killed.  Closing the fd (i.e. the
 * death of this process) aborts the connection and releases every waiter.
 *
 * With --file, the mount point FILE must be an existing regular file and the
 * filesystem is mounted with a regular-file root (rootmode=100000): any
 * open(), read() or stat() of FILE then blocks in D state in fuse_get_req
 * until the fd is closed.
 *
 * With --owner, the mount is UID's (user_id=UID,group_id=UID), as if that user had made it
 * with fusermount3: only UID may use it (no allow_other); by default it is root's.
 *
 * With --child, it forks a child that closes the fuse fd, optionally renames
 * itself (prctl PR_SET_NAME), prints "child TID SEC.NSEC\n" (CLOCK_REALTIME,
 * taken right before the call) and stat()s DIR/x, which blocks in D state in
 * fuse_get_req (with --file: stat()s FILE itself).  When the call returns it
 * prints "released ERRNO\n" and exits.
 * The helper dies with its parent (PR_SET_PDEATHSIG) so a killed test script
 * never leaves the fd open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#define HOSTILE "f\nb\"c\\\x1b[31m"


int main(int argc, char **argv)
{
	const char *dir = NULL, *name = NULL;
	int child = 0, file = 0;
	long owner = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--child"))
			child = 1;
		else if (!strcmp(argv[i], "--file"))
			file = 1;
		else if (!strcmp(argv[i], "--hostile"))
			name = HOSTILE;
		else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--owner") && i + 1 < argc)
			owner = strtol(argv[++i], NULL, 10);
		else if (!dir && argv[i][0] != '-')
			dir = argv[i];
		else {
			fprintf(stderr, "usage: fusehold [--file] PATH [--child] [--name NAME|--hostile] [--owner UID]\n");
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "usage: fusehold [--file] PATH [--child] [--name NAME|--hostile] [--owner UID]\n");
		return 2;
	}
	if (file) {
		/* Checked before the mount: afterwards a stat() of it would block. */
		struct stat st;
		if (lstat(dir, &st) < 0) {
			fprintf(stderr, "--file %s: %s\n", dir, strerror(errno));
			return 2;
		}
		if (!S_ISREG(st.st_mode)) {
			fprintf(stderr, "--file %s: not a regular file\n", dir);
			return 2;
		}
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		perror("prctl(PR_SET_PDEATHSIG)");
		return 1;
	}
	if (getppid() == 1)
		return 1; /* parent already gone */

	int fd = open("/dev/fuse", O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "open /dev/fuse: %s\n", strerror(errno));
		return 4;
	}
	char opts[128];
	snprintf(opts, sizeof opts, "fd=%d,rootmode=%s,user_id=%ld,group_id=%ld", fd,
		 file ? "100000" : "40000", owner, owner);
	if (mount("x", dir, "fuse.x", MS_NOSUID | MS_NODEV, opts) < 0) {
		fprintf(stderr, "mount fuse on %s: %s\n", dir, strerror(errno));
		return 5;
	}
	say("mounted\n");

	if (child) {
		char path[4096];
		snprintf(path, sizeof path, file ? "%s" : "%s/x", dir);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			struct timespec ts;
			struct stat st;
			close(fd);
			if (name && prctl(PR_SET_NAME, name) < 0)
				_exit(6);
			clock_gettime(CLOCK_REALTIME, &ts);
			say("child %d %lld.%09ld\n", (int)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
			int r = stat(path, &st);
			say("released %s\n", r == 0 ? "OK" : strerrorname_np(errno));
			_exit(0);
		}
	}
	for (;;)
		pause();
}
