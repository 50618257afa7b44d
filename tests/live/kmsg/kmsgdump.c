/* kmsgdump: the kmsg module of cgwatch against the live /dev/kmsg, for tests/live/kmsg.sh.
 * Built by that script from the objects in build/obj (main.o left out); not by tests/live/build.sh,
 * which builds standalone helpers only.
 *
 *   kmsgdump lastseq [PATH]          the seq of the newest record in the ring
 *   kmsgdump read PATH AFTER         kmsg_read(PATH); then "rec SEQ FAC LEVEL MSG" for each
 *                                    record with seq > AFTER (read raw), and the summary
 *   kmsgdump follow PATH LINE...     kmsg_open_follow(PATH), write each LINE to PATH (as a
 *                                    process would), kmsg_poll() until they are read (2 s
 *                                    at most), then the summary
 * Summary lines: "records N", "kernel N", "other N", "lost N", "first_seq N", then one line
 * per assembled event: "hung SEQ PID COMM", "blocker SEQ PID COMM", "wq SEQ", "soft SEQ PID
 * COMM", "rcu SEQ", and "suppressed SEQ" when the suppression line was taken. Strings are
 * C-escaped. Exit 0, or 1 with a message on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"

static const char *esc(const char *s)
{
	static char buf[4][4096];
	static unsigned k;
	k = (k + 1) % 4;
	return cescape(s, strlen(s), buf[k], sizeof(buf[k]));
}

/* Every record of the ring, raw, after seq `after`; the newest seq in *last. */
static int raw_pass(const char *path, unsigned long long after, bool print,
                    unsigned long long *last)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kmsgdump: %s: %s\n", path, strerror(errno));
		return -1;
	}
	static char buf[16384];
	static struct kmsg_record r;
	*last = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		if (kmsg_parse_record(buf, (size_t)n, &r) < 0)
			continue;
		*last = r.seq;
		if (print && r.seq > after)
			printf("rec %llu %u %u %s\n", (unsigned long long)r.seq, r.facility, r.level,
			       esc(r.msg));
	}
	close(fd);
	return 0;
}

static void summary(const struct cgw_kmsg *k)
{
	printf("records %llu\nkernel %llu\nother %llu\nlost %llu\nfirst_seq %llu\n",
	       (unsigned long long)k->records, (unsigned long long)k->kernel_records,
	       (unsigned long long)k->other_records, (unsigned long long)k->lost,
	       (unsigned long long)k->first_seq);
	for (size_t i = 0; i < k->nhung; i++) {
		const struct kmsg_hung *h = &k->hung[i];
		if (h->blocked_s >= 0)
			printf("hung %llu %d %s\n", (unsigned long long)h->seq, h->task.pid,
			       esc(h->task.comm));
		if (h->have_blocker)
			printf("blocker %llu %d %s\n", (unsigned long long)h->blocker_seq,
			       h->blocker.task.pid, esc(h->blocker.task.comm));
	}
	for (size_t i = 0; i < k->nwq; i++)
		printf("wq %llu\n", (unsigned long long)k->wq[i].seq);
	for (size_t i = 0; i < k->nsoft; i++)
		printf("soft %llu %d %s\n", (unsigned long long)k->soft[i].seq, k->soft[i].task.pid,
		       esc(k->soft[i].task.comm));
	for (size_t i = 0; i < k->nrcu; i++)
		printf("rcu %llu\n", (unsigned long long)k->rcu[i].seq);
	if (k->suppressed_seen)
		printf("suppressed %llu\n", (unsigned long long)k->suppressed_seq);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "lastseq") == 0) {
		unsigned long long last;
		if (raw_pass(argc > 2 ? argv[2] : KMSG_PATH, 0, false, &last) < 0)
			return 1;
		printf("%llu\n", last);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "read") == 0) {
		struct cgw_kmsg k;
		int e = kmsg_read(argv[2], &k, 5000);
		if (e < 0) {
			fprintf(stderr, "kmsgdump: kmsg_read %s: %s\n", argv[2], strerror(-e));
			return 1;
		}
		unsigned long long last;
		if (raw_pass(argv[2], strtoull(argv[3], NULL, 10), true, &last) < 0)
			return 1;
		summary(&k);
		kmsg_free(&k);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "follow") == 0) {
		struct cgw_kmsg k;
		int e = kmsg_open_follow(&k, argv[2]);
		if (e < 0) {
			fprintf(stderr, "kmsgdump: kmsg_open_follow %s: %s\n", argv[2], strerror(-e));
			return 1;
		}
		int wfd = open(argv[2], O_WRONLY | O_CLOEXEC);
		if (wfd < 0) {
			fprintf(stderr, "kmsgdump: %s for writing: %s\n", argv[2], strerror(errno));
			return 1;
		}
		for (int i = 3; i < argc; i++)
			if (write(wfd, argv[i], strlen(argv[i])) < 0) {
				fprintf(stderr, "kmsgdump: write: %s\n", strerror(errno));
				return 1;
			}
		close(wfd);
		unsigned long long want = (unsigned long long)(argc - 3);
		for (int tries = 0; tries < 200 && k.records < want; tries++) {
			if ((e = kmsg_poll(&k)) < 0) {
				fprintf(stderr, "kmsgdump: kmsg_poll: %s\n", strerror(-e));
				return 1;
			}
			if (k.records < want)
				nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		}
		summary(&k);
		kmsg_free(&k);
		return 0;
	}
	fprintf(stderr, "usage: kmsgdump lastseq [PATH] | read PATH AFTER | follow PATH LINE...\n");
	return 1;
}
