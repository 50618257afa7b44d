/* source-waitfile.c: the file a blocked suspect waits on, and the mount holding it. Read for D
 * suspects only (source-tasks.c's scan_suspect), never for every thread: /proc/TID/syscall, then the
 * fd link (read, fstat, getdents64, ...) or the path in the task's memory (stat, openat,
 * statx, ...; live only, through a deadline read: /proc/PID/mem waits on the task's mmap
 * lock), made absolute against the directory fd or the cwd, then the longest mount point
 * above it in the mountinfo of the task's mount namespace: the host snapshot's when it is
 * cgwatch's own, else read once per namespace and scan when first needed. A replay (--root)
 * reads the tree's syscall file, fd links and mountinfo (the task's, which a capture holds
 * when its namespace is not cgwatch's, else proc/self/mountinfo), and a capture's memory
 * strings (cgwatch/mem), never memory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

#define PF_KTHREAD 0x00200000          /* include/linux/sched.h */

/* readlink of /proc/TGID/task/TID/NAME, else /proc/TGID/NAME (a replay's tree has only that),
 * into out; only an absolute path counts ("pipe:[5]", "anon_inode:..." do not). */
static bool proc_link(const struct cgw_task *t, const char *name, char *out, size_t cap)
{
	char p[96];
	for (int k = 0; k < 2; k++) {
		if (k == 0)
			snprintf(p, sizeof(p), "/proc/%d/task/%d/%s", t->tgid, t->tid, name);
		else
			snprintf(p, sizeof(p), "/proc/%d/%s", t->tgid, name);
		ssize_t n = readlink(p, out, cap - 1);
		if (n > 0) {
			out[n] = '\0';
			record_link(p, out, n);
			return out[0] == '/';
		}
	}
	return false;
}

/* The link of fd in t's fd table (AT_FDCWD: its cwd). */
static bool fd_link(const struct cgw_task *t, int fd, char *out, size_t cap)
{
	char name[32];
	if (fd == AT_FDCWD)
		return proc_link(t, "cwd", out, cap);
	if (fd < 0)
		return false;
	snprintf(name, sizeof(name), "fd/%d", fd);
	return proc_link(t, name, out, cap);
}

/* The NUL-terminated string at addr in t's memory, live only, with the deadline. */
static bool mem_string(struct cgw_scan *s, struct cgw_task *t, unsigned long addr,
                       char *out, size_t cap, unsigned timeout_ms)
{
	char p[4200];
	if (addr == 0 || addr > (unsigned long)LLONG_MAX)
		return false;
	if (!s->live) {                   /* a capture's: the string as the live run read it */
		if (!s->replay_root)
			return false;
		snprintf(p, sizeof(p), "%s/cgwatch/mem/%d-%lx", s->replay_root, t->tid, addr);
		ssize_t n = scan_read(s, p, out, cap, timeout_ms);
		return n > 0 && strlen(out) < (size_t)n;
	}
	snprintf(p, sizeof(p), "/proc/%d/task/%d/mem", t->tgid, t->tid);
	ssize_t n = scan_pread(s, p, (off_t)addr, out, cap, timeout_ms);
	if (n == -ETIMEDOUT) {            /* evidence: its mmap lock is held */
		t->wait_err = (int)n;
		t->wait_err_s = timeout_ms / 1000.0;
	}
	bool str = n > 0 && strnlen(out, (size_t)n) < (size_t)n;   /* a NUL within what was read */
	if (n != 0 && record_active()) {  /* a read that failed (timed out) is listed too */
		/* the string and its NUL, nothing after: the read ran on into what follows it in
		 * memory (the next arguments, the environment), which a capture must not carry */
		snprintf(p, sizeof(p), "cgwatch/mem/%d-%lx", t->tid, addr);
		record_put(p, REC_FILE, out, n < 0 ? n : str ? (ssize_t)strlen(out) + 1 : 0);
	}
	return str;
}

#define MNTNS_MAX 32                   /* mount namespaces whose mountinfo one scan keeps */

/* The whole of path (mountinfo), or NULL when it cannot be read (said, for the report). */
static char *read_grow(struct cgw_scan *s, const char *path, unsigned timeout_ms)
{
	int err = 0;
	char *text = scan_read_whole(s, path, timeout_ms, &err);
	if (!text && err != -ENOENT && err != -ESRCH && err != -ENOMEM)
		scan_unreadable(s, path, "%s; the mounts suspects wait on are not named",
		                err == -EFBIG ? "larger than 16 MiB" : strerror(-err));
	return text;
}

/* The mountinfo of t's mount namespace, read once per namespace and scan. Paths a task names
 * are in its namespace, not in cgwatch's (the service's has a /tmp and a /home of its own).
 * A replay's tree has no ns links: its proc/self/mountinfo stands for the host's. */
static const char *task_mountinfo(struct cgw_scan *s, const struct cgw_task *t,
                                  unsigned timeout_ms)
{
	char key[64] = "", p[96];
	snprintf(p, sizeof(p), "/proc/%d/task/%d/mountinfo", t->tgid, t->tid);
	if (s->live) {
		char ns[96];
		snprintf(ns, sizeof(ns), "/proc/%d/task/%d/ns/mnt", t->tgid, t->tid);
		ssize_t n = readlink(ns, key, sizeof(key) - 1);
		if (n <= 0)
			return NULL;              /* gone, or not ours to see */
		key[n] = '\0';
		if (strcmp(key, s->mntns_self) == 0)
			return s->mountinfo;      /* cgwatch's own: the host snapshot's */
	} else {
		/* a capture holds the mountinfo of a task in a namespace of its own; else the
		 * tree's proc/self/mountinfo stands for the host's */
		snprintf(key, sizeof(key), "task %d", t->tid);
	}
	for (size_t i = 0; i < s->nmntns; i++)
		if (strcmp(s->mntns[i].ns, key) == 0) {
			if (s->mntns[i].text && record_active())   /* what this task's lookup used */
				record_put(p + 1, REC_FILE, s->mntns[i].text,
				           (ssize_t)strlen(s->mntns[i].text));
			return s->mntns[i].text;
		}
	if (s->nmntns == MNTNS_MAX)
		return NULL;
	if (!s->mntns && !(s->mntns = calloc(MNTNS_MAX, sizeof(*s->mntns)))) {
		s->nomem = true;
		return NULL;
	}
	struct cgw_mntns *m = &s->mntns[s->nmntns++];
	snprintf(m->ns, sizeof(m->ns), "%s", key);
	m->text = read_grow(s, p, timeout_ms);     /* NULL too is kept: not read again */
	if (!s->live && !m->text) {
		s->nmntns--;                  /* not in the tree: the host's */
		return s->mountinfo;
	}
	return m->text;
}

/* The mount holding path in mountinfo text mi (NULL: none), found once for a run of suspects
 * that wait on one path in one namespace: mi is the scan's, unchanged until its end. */
static const struct mountinfo_ent *mount_memo(struct cgw_scan *s, const char *mi,
                                              const char *path)
{
	struct cgw_mntmemo *m = s->mnt_memo;
	if (!m && !(m = s->mnt_memo = calloc(1, sizeof(*m)))) {
		s->nomem = true;
		return NULL;
	}
	if (m->mi != mi || !m->path || strcmp(m->path, path) != 0) {
		free(m->path);
		m->path = try_strdup(path);     /* NULL: not kept, looked up again next time */
		m->mi = mi;
		m->found = mount_of_path(mi, path, &m->e) == 0;
	}
	return m->found ? &m->e : NULL;
}

bool waitfile_wanted(const struct cgw_task *t)
{
	return t->state == 'D' && t->suspect == SUSPECT_BLOCKED && !(t->flags & PF_KTHREAD);
}

bool waitfile_mem_addr(const char *line, ssize_t r, unsigned long *addr)
{
	struct cgw_syscall sc;
	if (r <= 0 || parse_syscall_line(line, &sc) != 1)
		return false;
	struct sys_info si = syscall_info(sc.nr);
	if (!si.name || si.kind == SYSF_FD)
		return false;
	*addr = sc.arg[si.kind == SYSF_AT];
	return *addr != 0 && *addr <= (unsigned long)LLONG_MAX;     /* as mem_string reads */
}

void waitfile_read(struct cgw_scan *s, struct cgw_task *t, unsigned timeout_ms)
{
	if (!waitfile_wanted(t))
		return;
	char p[96], line[WAITFILE_LINE];
	snprintf(p, sizeof(p), "/proc/%d/task/%d/syscall", t->tgid, t->tid);
	struct cgw_syscall sc;
	if (scan_read(s, p, line, sizeof(line), timeout_ms) <= 0 ||
	    parse_syscall_line(line, &sc) != 1)
		return;
	t->sys_known = true;
	t->sys_nr = sc.nr;
	t->sys_regs = true;
	t->sys_pc = sc.pc;
	t->sys_sp = sc.sp;
	struct sys_info si = syscall_info(sc.nr);
	if (!si.name)
		return;
	char *raw = malloc(PATH_MAX), *base = malloc(PATH_MAX), *path = malloc(PATH_MAX);
	if (!raw || !base || !path) {
		s->nomem = true;
		goto out;
	}
	bool have;
	int dirfd = (int)sc.arg[0];
	if (si.kind == SYSF_FD)
		have = fd_link(t, dirfd, path, PATH_MAX);
	else if (!mem_string(s, t, sc.arg[si.kind == SYSF_AT], raw, PATH_MAX, timeout_ms))
		have = false;
	else if (raw[0] == '/')
		have = path_join(NULL, raw, path, PATH_MAX) == 0;
	else                              /* relative, or "" with AT_EMPTY_PATH: the dirfd's */
		have = fd_link(t, si.kind == SYSF_AT ? dirfd : AT_FDCWD, base, PATH_MAX) &&
		       path_join(base, raw, path, PATH_MAX) == 0;
	if (!have)
		goto out;
	t->wait_path = try_strdup(path);
	const char *mi = task_mountinfo(s, t, timeout_ms);
	const struct mountinfo_ent *e = mi ? mount_memo(s, mi, path) : NULL;
	if (e) {
		t->wait_mnt = try_strdup(e->mnt);
		snprintf(t->wait_dev, sizeof(t->wait_dev), "%s", e->dev);
		snprintf(t->wait_fstype, sizeof(t->wait_fstype), "%s", e->fstype);
	}
out:
	free(raw);
	free(base);
	free(path);
}
