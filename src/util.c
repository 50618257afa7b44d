/* util.c: allocation, strings, small file reads, escaping, numbers, time. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

_Thread_local long cgw_fail_alloc_after = -1;

/* The test hook: true when this allocation is the one to fail. */
static bool alloc_refused(void)
{
	if (cgw_fail_alloc_after < 0)
		return false;
	return cgw_fail_alloc_after-- == 0;   /* then -1: the next ones succeed */
}

void *try_malloc(size_t n)
{
	return alloc_refused() ? NULL : malloc(n ? n : 1);
}

void *try_calloc(size_t n, size_t size)
{
	return alloc_refused() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

char *try_strndup(const char *s, size_t n)
{
	char *p = n < SIZE_MAX ? try_malloc(n + 1) : NULL;
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *try_strdup(const char *s)
{
	return try_strndup(s, strlen(s));
}

void *try_reallocarray(void *p, size_t n, size_t size)
{
	if (alloc_refused() || (size && n > SIZE_MAX / size))
		return NULL;
	size_t bytes = n * size;
	return realloc(p, bytes ? bytes : 1);
}

int grow(void **v, size_t *cap, size_t n, size_t first, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : first;
	void *nv = try_reallocarray(*v, c, size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

void swap_arrays(void **a, size_t *acap, void **b, size_t *bcap)
{
	void *v = *a;
	size_t c = *acap;
	*a = *b;
	*acap = *bcap;
	*b = v;
	*bcap = c;
}

/* Room for more bytes and the NUL; false (b->lost set, b as it was) when there is none. */
static bool sb_reserve(struct strbuf *b, size_t more)
{
	if (more < SIZE_MAX / 4 && b->len + more + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (more < SIZE_MAX / 4 && cap < b->len + more + 1)
		cap *= 2;
	char *s = more < SIZE_MAX / 4 && !alloc_refused() ? realloc(b->s, cap) : NULL;
	if (!s) {
		b->lost = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void sb_add(struct strbuf *b, const char *s, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	char probe[1];
	va_start(ap, fmt);
	int n = vsnprintf(probe, sizeof(probe), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!sb_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->lost = false;
}

int write_small_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	int e = w < 0 ? -errno : (size_t)w != n ? -EIO : 0;
	if (close(fd) < 0 && !e)
		e = -errno;
	return e;
}

ssize_t read_small_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		record_read(path, NULL, -e);
		return -e;
	}
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t r = read(fd, buf + len, cap - 1 - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			record_read(path, NULL, -e);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	record_read(path, buf, (ssize_t)len);
	return (ssize_t)len;
}

char *read_whole_file(const char *path, size_t max, size_t *len, int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	size_t cap = 64u << 10, n = 0;
	char *b = try_malloc(cap);
	*err = b ? 0 : -ENOMEM;
	while (b) {
		ssize_t r = read(fd, b + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				*err = -errno;
				free(b);
				b = NULL;
			}
			break;
		}
		n += (size_t)r;
		if (n == cap - 1) {             /* full: twice the room, up to max */
			char *nb = cap < max ? try_reallocarray(b, cap * 2, 1) : NULL;
			if (nb)
				cap *= 2;
			else
				*err = cap < max ? -ENOMEM : -EFBIG;
			if (!nb)
				free(b);
			b = nb;
		}
	}
	close(fd);
	if (b) {
		b[n] = '\0';
		*len = n;
	}
	return b;
}

ssize_t read_once_at(int dirfd, const char *name, off_t off, char *buf, size_t cap)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (off < 0)
			record_read_at(dirfd, name, NULL, -e);
		return -e;
	}
	ssize_t r;
	do
		r = off < 0 ? read(fd, buf, cap - 1) : pread(fd, buf, cap - 1, off);
	while (r < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (r < 0) {
		if (off < 0)
			record_read_at(dirfd, name, NULL, -e);
		return -e;
	}
	buf[r] = '\0';
	if (off < 0)                      /* a memory read (pread) is the caller's to record */
		record_read_at(dirfd, name, buf, r);
	return r;
}

char *cescape(const char *s, size_t n, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	if (cap == 0)
		return out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[4];
		size_t k;
		switch (c) {
		case '\n': tmp[0] = '\\'; tmp[1] = 'n'; k = 2; break;
		case '\t': tmp[0] = '\\'; tmp[1] = 't'; k = 2; break;
		case '\r': tmp[0] = '\\'; tmp[1] = 'r'; k = 2; break;
		case '"': tmp[0] = '\\'; tmp[1] = '"'; k = 2; break;
		case '\\': tmp[0] = '\\'; tmp[1] = '\\'; k = 2; break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				tmp[0] = '\\'; tmp[1] = 'x';
				tmp[2] = hex[c >> 4]; tmp[3] = hex[c & 15];
				k = 4;
			} else {
				tmp[0] = (char)c;
				k = 1;
			}
		}
		if (o + k + 1 > cap)
			break;
		memcpy(out + o, tmp, k);
		o += k;
	}
	out[o] = '\0';
	return out;
}

/* Length of the well-formed UTF-8 sequence at s (n > 0 bytes left), or 0 when s[0] does not
 * start one. The second byte's range rules out overlong forms (E0 80..9F, F0 80..8F),
 * surrogates (ED A0..BF) and code points above U+10FFFF (F4 90..BF): Unicode table 3-7. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k = c >= 0x01 && c <= 0x7f ? 1 : c >= 0xc2 && c <= 0xdf ? 2 :
	           c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return k;
}

char *utf8_escape(const char *s, size_t n, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;
	if (cap == 0)
		return out;
	for (size_t i = 0; i < n;) {
		size_t run = 0;                 /* ASCII but NUL, as it is: copied at once */
		while (i + run < n && u[i + run] - 1u < 0x7fu)
			run++;
		if (run) {
			size_t m = run < cap - 1 - o ? run : cap - 1 - o;
			memcpy(out + o, s + i, m);
			o += m;
			i += m;
			if (m < run)
				break;
			continue;
		}
		size_t k = utf8_seq(u + i, n - i);
		if (o + (k ? k : 4) + 1 > cap)
			break;
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[u[i] >> 4];
			out[o++] = hex[u[i++] & 15];
		}
	}
	out[o] = '\0';
	return out;
}

void sb_add_term(struct strbuf *b, const char *s, size_t n, bool keep_newlines)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i, n - i);
		bool ctl = k == 0 || (k == 1 && (u[i] < 0x20 || u[i] == 0x7f) &&
		                      !(keep_newlines && u[i] == '\n')) ||
		           (k == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0);      /* C1: U+0080..U+009F */
		if (!ctl) {
			sb_add(b, s + i, k);
			i += k;
			continue;
		}
		for (size_t j = 0; j < (k ? k : 1); j++, i++) {
			char e[4] = { '\\', 'x', hex[u[i] >> 4], hex[u[i] & 15] };
			sb_add(b, e, 4);
		}
	}
}

size_t text_bad(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i, n - i);
		if (k == 0 || (k == 1 && ((u[i] < 0x20 && u[i] != '\t') || u[i] == 0x7f)) ||
		    (k == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0))
			return i;
		i += k;
	}
	return n;
}

void term_write(FILE *out, const char *s, size_t n, bool keep_newlines)
{
	struct strbuf b = { 0 };
	sb_add_term(&b, s, n, keep_newlines);
	if (b.lost)                       /* not half of it, and never unescaped */
		fputs("(text not printed: out of memory)\n", out);
	else if (b.len)
		fwrite(b.s, 1, b.len, out);
	sb_free(&b);
}

const char *cesc(const char *s)
{
	static __thread char buf[4][2048];
	static __thread unsigned k;
	k = (k + 1) % 4;
	size_t n = strlen(s), need = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		need += strchr("\n\t\r\"\\", c) ? 2 : c < 0x20 || c >= 0x7f ? 4 : 1;
	}
	if (need < sizeof(buf[k]))
		return cescape(s, n, buf[k], sizeof(buf[k]));
	cescape(s, n, buf[k], sizeof(buf[k]) - 3);   /* cut between escapes: say so */
	strcat(buf[k], "...");
	return buf[k];
}

const char *cgw_strerror(int e)
{
	return e == CGW_ENOTREG ? "not a regular file" : strerror(e);
}

/* The real /proc, kept open where a replay is to cover /proc with a captured tree
 * (open_regular reopens through its self/fd); -1: /proc by its path. */
static int real_proc = -1;

void open_regular_keep_proc(void)
{
	if (real_proc < 0)
		real_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int open_regular_proc_fd(void)
{
	return real_proc;
}

int open_regular_flags(const char *path, int oflags)
{
	/* O_PATH opens nothing: a device's or a FIFO's open has effects of its own (a watchdog
	 * armed, a tape rewound, a FIFO's writer woken), so the type is learned first from the
	 * inode, and only a regular file is opened, through the same inode */
	int pfd = open(path, O_PATH | O_CLOEXEC | (oflags & O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	struct stat st;
	int e = fstat(pfd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR :
	        S_ISLNK(st.st_mode) ? ELOOP : !S_ISREG(st.st_mode) ? CGW_ENOTREG : 0;
	int fd = -1;
	if (!e) {
		char self[64];
		snprintf(self, sizeof(self), "%sself/fd/%d", real_proc >= 0 ? "" : "/proc/", pfd);
		fd = openat(real_proc >= 0 ? real_proc : AT_FDCWD, self, O_RDONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			e = errno;
	}
	close(pfd);
	return e ? -e : fd;
}

int open_regular(const char *path)
{
	return open_regular_flags(path, 0);
}

FILE *fopen_regular(const char *path, int *err)
{
	int fd = open_regular(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	*err = fd < 0 ? -fd : f ? 0 : errno;
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

int parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	/* decimal only: strtod would also take hex floats, "inf" and "nan" */
	if (s[strspn(s, "0123456789.eE+- \t")] != '\0')
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end || !isfinite(v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* What may not follow a number: more of a number, or of a word ("5x", "1e3", "0x10"). */
static bool num_continues(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '.' || c == '+' || c == '-' || c == '_';
}

int parse_count(const char **p, uint64_t max, uint64_t *out)
{
	const char *q = *p;
	bool neg = *q == '-';
	q += neg;
	if (*q < '0' || *q > '9')
		return -EINVAL;
	uint64_t v = 0;
	bool over = false;
	for (; *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');
		if (over || v > (UINT64_MAX - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (num_continues(*q))
		return -EINVAL;
	if (over || v > max || (neg && v != 0))
		return -ERANGE;
	*out = v;
	*p = q;
	return 0;
}

int parse_decimal(const char **p, double min, double max, double *out)
{
	const char *q = *p, *start = q;
	q += *q == '-';
	size_t n = strspn(q, "0123456789");
	if (n == 0)
		return -EINVAL;
	q += n;
	if (*q == '.') {
		n = strspn(q + 1, "0123456789");
		if (n == 0)
			return -EINVAL;
		q += 1 + n;
	}
	if (num_continues(*q))
		return -EINVAL;
	char num[64];
	size_t len = (size_t)(q - start);
	if (len >= sizeof(num))
		return -ERANGE;           /* no time or count the kernel prints is that long */
	memcpy(num, start, len);
	num[len] = '\0';
	double v = strtod(num, NULL);
	if (!isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v == 0 ? 0 : v;        /* "-0" is a zero, printed as 0 */
	*p = q;
	return 0;
}

uint64_t now_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

struct timespec mono_after(unsigned ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

double mono_ms(void)
{
	return (double)now_usec() / 1000.0;
}

static const char *const sev_names[] = { "none", "info", "warning", "critical" };

const char *sev_name(enum cgw_sev s)
{
	return (unsigned)s < 4 ? sev_names[s] : "none";
}

int sev_parse(const char *s)
{
	for (int i = SEV_INFO; i <= SEV_CRITICAL; i++)
		if (strcmp(s, sev_names[i]) == 0)
			return i;
	return -1;
}

char *iso_time(double epoch, char *out, size_t cap)
{
	time_t t = (time_t)epoch;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, cap, "?");
	return out;
}

double now_epoch(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool cgw_stop_pending(void)
{
	sigset_t set;
	return sigpending(&set) == 0 && (sigismember(&set, SIGTERM) == 1 ||
	                                 sigismember(&set, SIGINT) == 1);
}

#define RM_DEPTH_MAX 128            /* levels below the top; a capture is a dozen deep */
#define RM_ENTRIES_MAX (1u << 22)    /* names removed at most: a capture of 30,000 threads is
                                        a few hundred thousand */

struct rm_walk { dev_t dev; size_t left; int err; };

static void rm_note(struct rm_walk *w, int e)
{
	if (!w->err)
		w->err = e;
}

/* Everything in the directory open at dfd (taken: closed here), by name relative to it:
 * a name is unlinked, or opened as a directory without following a symlink and emptied
 * through that descriptor, then removed; nothing is reached through a path. */
static void rm_dir(int dfd, unsigned depth, struct rm_walk *w)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		rm_note(w, -errno);
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (!w->left) {
			rm_note(w, -E2BIG);
			break;
		}
		w->left--;
		if (unlinkat(dfd, n, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {      /* EPERM: unlink(2) of a directory */
			rm_note(w, -errno);
			continue;
		}
		if (depth >= RM_DEPTH_MAX) {
			rm_note(w, -ENAMETOOLONG);
			continue;
		}
		int sub = openat(dfd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0) {
			/* a symlink swapped in since the unlink: removed, not followed */
			if ((errno == ELOOP || errno == ENOTDIR) && unlinkat(dfd, n, 0) == 0)
				continue;
			rm_note(w, -errno);
			continue;
		}
		if (fstat(sub, &st) < 0 || st.st_dev != w->dev) {   /* another file system */
			rm_note(w, -EXDEV);
			close(sub);
			continue;
		}
		rm_dir(sub, depth + 1, w);
		if (unlinkat(dfd, n, AT_REMOVEDIR) < 0)
			rm_note(w, -errno);
	}
	closedir(d);
}

int remove_tree(const char *dir)
{
	char parent[4096];
	const char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (slash && (size_t)(slash - dir) >= sizeof(parent))
		return -ENAMETOOLONG;
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == dir)
		snprintf(parent, sizeof(parent), "/");
	else
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = -errno;
		if (fd >= 0)
			close(fd);
		close(pfd);
		return e;
	}
	struct rm_walk w = { .dev = st.st_dev, .left = RM_ENTRIES_MAX };
	rm_dir(fd, 0, &w);
	if (unlinkat(pfd, name, AT_REMOVEDIR) < 0)
		rm_note(&w, -errno);
	close(pfd);
	return w.err;
}
