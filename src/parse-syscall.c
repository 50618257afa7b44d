/* parse-syscall.c: which file a blocked task waits on, from text (pure: no I/O). The syscall
 * it is in (/proc/TID/syscall), how that syscall names its file (an fd, a path, a directory
 * fd and a path), the path made absolute, and the mount holding it (mountinfo text). */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "cgwatch.h"

/* "0x7ffd5c1e2a40": hex digits after 0x, at most 16; *p moves past them. */
static bool hex_arg(const char **p, unsigned long *out)
{
	const char *s = *p;
	if (s[0] != '0' || s[1] != 'x')
		return false;
	s += 2;
	unsigned long v = 0;
	size_t n = 0;
	for (; n < 17; n++, s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (unsigned long)d;
	}
	if (n == 0 || n > 16)
		return false;
	*p = s;
	*out = v;
	return true;
}

int parse_syscall_line(const char *buf, struct cgw_syscall *out)
{
	memset(out, 0, sizeof(*out));
	out->nr = -1;
	if (strcmp(buf, "running") == 0 || strcmp(buf, "running\n") == 0)
		return 0;
	const char *p = buf;
	unsigned long v[8];
	size_t want = 8, n = 0;
	bool neg = *p == '-';
	p += neg;
	uint64_t nr;
	if (parse_count(&p, neg ? 1 : 100000, &nr) < 0 || (neg && nr != 1))
		return -EINVAL;
	if (neg)
		want = 2;                     /* "-1 sp pc": not in a syscall */
	for (; n < want; n++) {
		if (*p++ != ' ' || !hex_arg(&p, &v[n]))
			return -EINVAL;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	if (neg)
		return 0;
	out->nr = (long)nr;
	memcpy(out->arg, v, sizeof(out->arg));
	out->sp = v[6];
	out->pc = v[7];
	return 1;
}

/* The syscalls a task waits in on a file, by this architecture's numbers. */
static const struct { long nr; struct sys_info info; } sys_table[] = {
#define FD(x) { SYS_##x, { #x, SYSF_FD } }
#define PATH(x) { SYS_##x, { #x, SYSF_PATH } }
#define AT(x) { SYS_##x, { #x, SYSF_AT } }
	FD(read), FD(write), FD(pread64), FD(pwrite64), FD(readv), FD(writev), FD(preadv),
	FD(pwritev), FD(preadv2), FD(pwritev2), FD(fstat), FD(getdents64), FD(fsync),
	FD(fdatasync), FD(ioctl), FD(ftruncate), FD(fallocate), FD(flock), FD(fcntl), FD(lseek),
	FD(fgetxattr), FD(fsetxattr), FD(flistxattr), FD(fstatfs), FD(syncfs), FD(sync_file_range),
	FD(copy_file_range), FD(fchmod), FD(fchown), FD(fchdir), FD(readahead),
#ifdef SYS_getdents
	FD(getdents),
#endif
	PATH(truncate), PATH(chdir), PATH(chroot), PATH(statfs), PATH(getxattr), PATH(lgetxattr),
	PATH(listxattr), PATH(llistxattr), PATH(setxattr), PATH(lsetxattr),
#ifdef SYS_stat
	PATH(stat), PATH(lstat), PATH(open), PATH(access), PATH(creat), PATH(readlink),
	PATH(mkdir), PATH(rmdir), PATH(unlink), PATH(chmod), PATH(chown), PATH(lchown),
	PATH(rename), PATH(link), PATH(utimes), PATH(mknod),
#endif
	AT(openat), AT(newfstatat), AT(statx), AT(faccessat), AT(mkdirat), AT(unlinkat),
	AT(readlinkat), AT(fchmodat), AT(fchownat), AT(utimensat), AT(renameat2), AT(linkat),
	AT(mknodat), AT(name_to_handle_at), AT(execveat),
#ifdef SYS_openat2
	AT(openat2),
#endif
#ifdef SYS_faccessat2
	AT(faccessat2),
#endif
#ifdef SYS_renameat
	AT(renameat),
#endif
#undef FD
#undef PATH
#undef AT
};

struct sys_info syscall_info(long nr)
{
	for (size_t i = 0; i < sizeof(sys_table) / sizeof(sys_table[0]); i++)
		if (sys_table[i].nr == nr)
			return sys_table[i].info;
	return (struct sys_info){ NULL, SYSF_NONE };
}

int path_join(const char *base, const char *path, char *out, size_t cap)
{
	char tmp[8192];
	int n = path[0] == '/' || !base ? snprintf(tmp, sizeof(tmp), "%s", path)
	                                : snprintf(tmp, sizeof(tmp), "%s/%s", base, path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	if (tmp[0] != '/')
		return -EINVAL;
	/* components, lexically: "." and "" dropped, ".." drops the one before */
	size_t o = 0;
	for (const char *p = tmp; *p;) {
		p += strspn(p, "/");
		size_t k = strcspn(p, "/");
		if (k == 0 || (k == 1 && p[0] == '.')) {
			p += k;
			continue;
		}
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
			p += k;
			continue;
		}
		if (o + 1 + k + 1 > cap)
			return -ENAMETOOLONG;
		out[o++] = '/';
		memcpy(out + o, p, k);
		o += k;
		p += k;
	}
	if (cap < 2)
		return -ENAMETOOLONG;
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

int mount_of_path(const char *mountinfo, const char *path, struct mountinfo_ent *out)
{
	struct mountinfo_ent e;
	size_t best = 0;
	bool found = false;
	if (path[0] != '/')
		return -ENOENT;
	for (const char *p = mountinfo; mountinfo_next(&p, &e) > 0;) {
		size_t n = strlen(e.mnt);
		if (n > 1 && e.mnt[n - 1] == '/')
			continue;                 /* the kernel writes no trailing '/' but on "/" */
		bool under = strcmp(e.mnt, "/") == 0 ||
		             (strncmp(path, e.mnt, n) == 0 && (path[n] == '/' || path[n] == '\0'));
		if (under && (!found || n >= best)) {
			best = n;
			*out = e;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}
