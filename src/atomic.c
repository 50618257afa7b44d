/* atomic.c: files that are either the old version or the new one, never half of either. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

int atomic_write(const char *path, const char *data, size_t len, mode_t mode)
{
	char tmp[4096];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
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
	if (!e && fsync(fd) < 0)
		e = -errno;
	if (close(fd) < 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) < 0)
		e = -errno;
	if (e) {
		unlink(tmp);
		return e;
	}
	char *copy = xstrdup(path);
	int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (dfd >= 0) {                       /* make the rename itself durable */
		fsync(dfd);
		close(dfd);
	}
	return 0;
}
