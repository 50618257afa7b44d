/* notifylisten: a stand-in for systemd's notify socket (NOTIFY_SOCKET).
 *
 *   notifylisten PATH SECONDS
 *
 * Binds a unix datagram socket at PATH (which must not exist), prints
 * "listening PATH\n", then prints each datagram it receives as one line:
 *
 *   SEC.NSEC pid=PID PAYLOAD
 *
 * SEC.NSEC is CLOCK_REALTIME at reception, PID the sender's pid from
 * SCM_CREDENTIALS (0 if none came), and PAYLOAD the datagram C-escaped: a
 * newline between two assignments ("READY=1\nSTATUS=...") is printed as the
 * two characters \n, a backslash as \\, other control and non-ASCII bytes as
 * \xNN, so one datagram is always exactly one line.
 *
 * It exits 0 after SECONDS (fractions allowed) or on SIGTERM/SIGINT, and
 * removes PATH on the way out. Every line is written with one write(2), so
 * a reader polling the output file never sees half a line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: notifylisten PATH SECONDS\n");
		return 2;
	}
	const char *path = argv[1];
	char *end;
	double secs = strtod(argv[2], &end);
	if (*end || secs <= 0) {
		fprintf(stderr, "notifylisten: bad SECONDS: %s\n", argv[2]);
		return 2;
	}
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "notifylisten: path too long: %s\n", path);
		return 2;
	}
	strcpy(sa.sun_path, path);

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	struct sigaction act = { .sa_handler = on_signal };
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);

	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("notifylisten: socket");
		return 1;
	}
	int one = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) {
		perror("notifylisten: SO_PASSCRED");
		return 1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		fprintf(stderr, "notifylisten: bind %s: %s\n", path, strerror(errno));
		return 1;
	}
	char line[4 * 65536 + 128];
	int n = snprintf(line, sizeof line, "listening %s\n", path);
	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		stop = 1;

	double deadline = mono() + secs;
	static char buf[65536];
	while (!stop) {
		double left = deadline - mono();
		if (left <= 0)
			break;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			perror("notifylisten: poll");
			break;
		}
		if (r == 0)
			continue;

		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 16)];
		} ctl;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof buf };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = &ctl, .msg_controllen = sizeof ctl };
		ssize_t len = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (len < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			perror("notifylisten: recvmsg");
			break;
		}
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		long pid = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred uc;
				memcpy(&uc, CMSG_DATA(c), sizeof uc);
				pid = uc.pid;
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				/* fd store (FDSTORE=1): not expected; close what came */
				size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				for (size_t i = 0; i < nfd; i++) {
					int f;
					memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
					close(f);
				}
			}
		}
		n = snprintf(line, sizeof line, "%lld.%09ld pid=%ld ", (long long)now.tv_sec,
			     now.tv_nsec, pid);
		size_t o = (size_t)n;
		/* A trailing newline (sd_notify adds none, others do) is not data. */
		if (len > 0 && buf[len - 1] == '\n')
			len--;
		for (ssize_t i = 0; i < len; i++) {
			unsigned char ch = (unsigned char)buf[i];
			if (ch == '\n') {
				line[o++] = '\\';
				line[o++] = 'n';
			} else if (ch == '\\') {
				line[o++] = '\\';
				line[o++] = '\\';
			} else if (ch < 0x20 || ch >= 0x7f) {
				o += (size_t)snprintf(line + o, 5, "\\x%02x", ch);
			} else {
				line[o++] = (char)ch;
			}
		}
		if (mh.msg_flags & MSG_TRUNC) {
			memcpy(line + o, " [truncated]", 12);
			o += 12;
		}
		line[o++] = '\n';
		if (write(STDOUT_FILENO, line, o) < 0)
			break;
	}
	unlink(path);
	return 0;
}
