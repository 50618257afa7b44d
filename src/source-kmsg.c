/* source-kmsg.c: reading the ring (whole, or followed from start-up) and the hung-task sysctls. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "kmsg-int.h"

/* ---- readers ---- */

struct kmsg_job {
	char *path;
	struct strbuf buf;
	unsigned epipe;
	int err;
	bool truncated;
};

static void kmsg_job_release(void *p)
{
	struct kmsg_job *j = p;
	free(j->path);
	sb_free(&j->buf);
	free(j);
}

/* Read fd until EAGAIN (the ring) or EOF (a capture), at most max bytes into b.
 * Returns 0 or -errno; EPIPE (records overwritten under us) is counted and read past. */
static int read_records(int fd, struct strbuf *b, size_t max, unsigned *epipe, bool *truncated)
{
	char *chunk = malloc(KMSG_READ_CHUNK);
	if (!chunk)
		return -ENOMEM;
	int err = 0;
	size_t got = 0;
	for (;;) {
		if (got >= max) {
			*truncated = true;
			break;
		}
		ssize_t n = read(fd, chunk, KMSG_READ_CHUNK);
		if (n > 0) {
			sb_add(b, chunk, (size_t)n);
			if (b->lost) {                /* what was read stays; the rest waits */
				err = -ENOMEM;
				break;
			}
			got += (size_t)n;
			continue;
		}
		if (n == 0 || errno == EAGAIN)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EPIPE && ++*epipe < KMSG_MAX_EPIPE)
			continue;
		err = -errno;
		break;
	}
	free(chunk);
	return err;
}

static void kmsg_job_fn(void *p)
{
	struct kmsg_job *j = p;
	int fd = open(j->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		j->err = -errno;
		return;
	}
	j->err = read_records(fd, &j->buf, KMSG_READ_MAX, &j->epipe, &j->truncated);
	close(fd);
}

/* A sysctl holding one decimal, -1 or a count ("%d\n"); absent when it holds anything else. */
static long read_long_file(const char *path, long absent)
{
	char buf[64];
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return absent;
	const char *p = buf;
	long v = -1;
	uint64_t c;
	if (p[0] == '-' && p[1] == '1')
		p += 2;
	else if (parse_count(&p, 0x7fffffff, &c) == 0)
		v = (long)c;
	else
		return absent;
	return *p && *p != '\n' ? absent : v;
}

void kmsg_read_sysctls(struct cgw_kmsg *k)
{
	char path[sizeof(k->proc) + 64], buf[128];
	snprintf(path, sizeof(path), "%s/sys/kernel/hung_task_detect_count", k->proc);
	k->detect_count = read_long_file(path, -1);
	snprintf(path, sizeof(path), "%s/sys/kernel/hung_task_warnings", k->proc);
	k->warnings = read_long_file(path, -2);
	if (k->warnings < -1)
		k->warnings = -2;
	snprintf(path, sizeof(path), "%s/uptime", k->proc);
	k->uptime_s = 0;
	if (read_small_file(path, buf, sizeof(buf)) > 0 && parse_uptime(buf, &k->uptime_s) < 0)
		k->uptime_s = 0;                   /* no uptime: reports are not dated against it */
}

int kmsg_read_raw(const char *path, struct kmsg_raw *out, unsigned timeout_ms)
{
	memset(out, 0, sizeof(*out));
	struct kmsg_job *j = xcalloc(1, sizeof(*j));
	j->path = xstrdup(path);
	int e = dl_call(kmsg_job_fn, j, kmsg_job_release, timeout_ms);
	if (e == 0) {
		out->ran = true;
		out->buf = j->buf;                 /* taken over */
		j->buf = (struct strbuf){ 0 };
		out->epipe = j->epipe;
		out->truncated = j->truncated;
		e = j->err;
		kmsg_job_release(j);
	}
	return e;
}

int kmsg_read(const char *path, struct cgw_kmsg *out, unsigned timeout_ms)
{
	kmsg_init(out);
	snprintf(out->source, sizeof(out->source), "%s", path);
	struct kmsg_raw raw;
	int e = kmsg_read_raw(path, &raw, timeout_ms);
	if (raw.ran) {
		kmsg_feed_buf(out, raw.buf.s ? raw.buf.s : "", raw.buf.len);
		record_read(path, raw.buf.s ? raw.buf.s : "", (ssize_t)raw.buf.len);
		if (raw.epipe && !out->lost)
			out->lost = raw.epipe;
		out->truncated = raw.truncated;
	}
	sb_free(&raw.buf);
	out->state = KS_IDLE;
	out->error = e;
	kmsg_read_sysctls(out);
	return e;
}

int kmsg_open_follow(struct cgw_kmsg *k, const char *path)
{
	kmsg_init(k);
	snprintf(k->source, sizeof(k->source), "%s", path);
	k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0 || lseek(k->fd, 0, SEEK_END) < 0) {
		k->error = -errno;
		if (k->fd >= 0)
			close(k->fd);
		k->fd = -1;
	}
	kmsg_read_sysctls(k);
	return k->error;
}

int kmsg_poll(struct cgw_kmsg *k)
{
	if (k->fd < 0) {                   /* not open (k->error says why): the sysctls still */
		kmsg_read_sysctls(k);
		return -EBADF;
	}
	uint64_t before = k->records;
	unsigned epipe = 0;
	bool truncated = false;
	int e = read_records(k->fd, &k->partial, KMSG_POLL_MAX, &epipe, &truncated);
	/* whole lines only: a followed plain file may end in the middle of one (the device
	 * returns whole records) */
	const char *nl = k->partial.len ? memrchr(k->partial.s, '\n', k->partial.len) : NULL;
	if (nl) {
		size_t n = (size_t)(nl - k->partial.s) + 1;
		kmsg_feed_buf(k, k->partial.s, n);
		memmove(k->partial.s, k->partial.s + n, k->partial.len - n + 1);
		k->partial.len -= n;
	}
	if (k->partial.len == 0 && k->partial.cap > 65536)
		sb_free(&k->partial);              /* a burst's buffer is not kept (locked memory) */
	k->error = e;
	kmsg_read_sysctls(k);
	return e < 0 ? e : (int)(k->records - before > INT_MAX ? INT_MAX : k->records - before);
}
