/* sink-bundle-redact.c: what a redacted bundle must not carry off this host, gathered before
 * anything is written: the host names (this host's and the tree's, the NIS domain, the name
 * in /etc/hostname, the /etc/hosts lines naming either host) and this host's addresses (its
 * interfaces' and those lines'; no DNS), the users whose names are personal (this host's
 * /etc/passwd, read once, and every uid of the tree's status files, through the name service
 * when passwd does not have it) with their home directories and their groups (/etc/group),
 * and /home/ and /root/. And the map file, next to the bundle, for this host only. Every
 * read has the deadline: the tree may sit on a file system that does not answer. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define PASSWD_MAX (8 << 20)              /* bytes of /etc/passwd read, at most */
#define STATUS_MAX 8192

/* ---- the tree's task directories, listed with the deadline ---- */

struct names_job { char *path; char **v; size_t n, cap; int err; };

static void names_fn(void *p)
{
	struct names_job *j = p;
	DIR *d = opendir(j->path);
	if (!d) {
		j->err = errno;
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;                     /* a task's directory: digits */
		char *s = NULL;
		if (grow((void **)&j->v, &j->cap, j->n, 64, sizeof(*j->v)) < 0 ||
		    !(s = try_strdup(de->d_name))) {
			j->err = ENOMEM;
			break;
		}
		j->v[j->n++] = s;
	}
	closedir(d);
}

static void names_release(void *p)
{
	struct names_job *j = p;
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i]);
	free(j->v);
	free(j->path);
	free(j);
}

/* The numeric entries of path; NULL when it cannot be listed in time (*timed_out set). */
static struct names_job *list_tasks(const char *path, unsigned timeout_ms, bool *timed_out)
{
	struct names_job *j = try_calloc(1, sizeof(*j));
	if (!j || !(j->path = try_strdup(path))) {
		free(j);
		return NULL;
	}
	int e = dl_call(names_fn, j, names_release, timeout_ms);
	if (e < 0) {
		*timed_out = e == -ETIMEDOUT || e == -EBUSY;
		return NULL;                      /* j is the worker's, or released */
	}
	if (j->err) {
		names_release(j);
		return NULL;
	}
	return j;
}

/* ---- the name service, with the deadline ---- */

struct pw_job { unsigned uid, gid; char name[256], home[4096]; bool found; };

static void pw_fn(void *p)
{
	struct pw_job *j = p;
	struct passwd pw, *res = NULL;
	char buf[16384];
	if (getpwuid_r((uid_t)j->uid, &pw, buf, sizeof(buf), &res) == 0 && res) {
		snprintf(j->name, sizeof(j->name), "%s", pw.pw_name ? pw.pw_name : "");
		snprintf(j->home, sizeof(j->home), "%s", pw.pw_dir ? pw.pw_dir : "");
		j->gid = (unsigned)pw.pw_gid;
		j->found = true;
	}
}

struct gather {
	struct cgw_redact *r;
	unsigned timeout_ms;
	unsigned *seen; size_t nseen, capseen;   /* uids looked at */
	struct passwd_list pw;
	unsigned *gids; size_t ngids, capgids;   /* the primary groups of the users redacted */
	char hosts[2][256];                       /* the short host names: this host's, the tree's */
	bool stuck;                               /* a read of the tree timed out: stop */
	int err;
};

static void gid_add(struct gather *g, unsigned gid)
{
	if (gid == 0xffffffffu)
		return;
	for (size_t i = 0; i < g->ngids; i++)
		if (g->gids[i] == gid)
			return;
	if (grow((void **)&g->gids, &g->capgids, g->ngids, 16, sizeof(*g->gids)) < 0)
		g->err = -ENOMEM;
	else
		g->gids[g->ngids++] = gid;
}

static void user_add(struct gather *g, const char *name, const char *home)
{
	if (redact_user_name_ok(name) && !redact_add(g->r, "user", name, strlen(name)))
		g->err = -ENOMEM;
	if (home && redact_add_home(g->r, home) < 0)
		g->err = -ENOMEM;
}

static void uid_seen(struct gather *g, unsigned uid)
{
	if (!redact_uid_personal(uid))
		return;
	for (size_t i = 0; i < g->nseen; i++)
		if (g->seen[i] == uid)
			return;
	if (grow((void **)&g->seen, &g->capseen, g->nseen, 16, sizeof(*g->seen)) < 0) {
		g->err = -ENOMEM;
		return;
	}
	g->seen[g->nseen++] = uid;
	for (size_t i = 0; i < g->pw.n; i++)
		if (g->pw.v[i].uid == uid)
			return;                           /* passwd has it: added already */
	struct pw_job *j = try_calloc(1, sizeof(*j));
	if (!j) {
		g->err = -ENOMEM;
		return;
	}
	j->uid = uid;
	if (dl_call(pw_fn, j, free, g->timeout_ms) < 0)
		return;                               /* the name service does not answer */
	if (j->found) {
		user_add(g, j->name, j->home);
		gid_add(g, j->gid);
	}
	free(j);
}

static void status_of(struct gather *g, const char *path)
{
	char buf[STATUS_MAX];
	ssize_t n = g->stuck ? -ETIMEDOUT : dl_read_file(path, buf, sizeof(buf), g->timeout_ms);
	if (n == -ETIMEDOUT || n == -EBUSY)
		g->stuck = true;
	if (n <= 0)
		return;
	unsigned u[4];
	int k = status_uids(buf, (size_t)n, u);
	for (int i = 0; i < k; i++)
		uid_seen(g, u[i]);
}

/* Every proc/PID/status and proc/PID/task/TID/status of the tree. */
static void tree_uids(struct gather *g, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/proc", dir);
	struct names_job *pids = list_tasks(path, g->timeout_ms, &g->stuck);
	for (size_t i = 0; pids && i < pids->n && !g->stuck && !g->err; i++) {
		snprintf(path, sizeof(path), "%s/proc/%s/status", dir, pids->v[i]);
		status_of(g, path);
		snprintf(path, sizeof(path), "%s/proc/%s/task", dir, pids->v[i]);
		struct names_job *tids = g->stuck ? NULL : list_tasks(path, g->timeout_ms, &g->stuck);
		for (size_t k = 0; tids && k < tids->n && !g->stuck && !g->err; k++) {
			snprintf(path, sizeof(path), "%s/proc/%s/task/%s/status", dir, pids->v[i],
			         tids->v[k]);
			status_of(g, path);
		}
		if (tids)
			names_release(tids);
	}
	if (pids)
		names_release(pids);
}

/* The host names in root/proc/sys/kernel/{hostname,domainname} (root "" is this host). */
static void host_of(struct gather *g, const char *root, char *shortname, size_t cap)
{
	char path[4096], h[256] = "", d[256] = "";
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/hostname", root);
	ssize_t n = dl_read_file(path, h, sizeof(h), g->timeout_ms);
	h[n > 0 ? (size_t)n < sizeof(h) ? (size_t)n : sizeof(h) - 1 : 0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/domainname", root);
	n = dl_read_file(path, d, sizeof(d), g->timeout_ms);
	d[n > 0 ? (size_t)n < sizeof(d) ? (size_t)n : sizeof(d) - 1 : 0] = '\0';
	if (redact_add_host(g->r, h, d) < 0)
		g->err = -ENOMEM;
	snprintf(shortname, cap, "%.*s", (int)strcspn(h, ".\n"), h);
	if (!strcmp(shortname, "(none)"))
		shortname[0] = '\0';
}

/* path (an /etc file of this host) read with the deadline into a buffer of at most max
 * bytes, NUL-terminated (freed by the caller); NULL when it cannot be read. */
static char *etc_file(struct gather *g, const char *path, size_t max, size_t *len)
{
	char *t = try_malloc(max + 1);
	ssize_t n = t ? dl_read_file(path, t, max, g->timeout_ms) : -ENOMEM;
	if (n == -ENOMEM)
		g->err = -ENOMEM;
	if (n < 0) {
		free(t);
		return NULL;
	}
	t[n] = '\0';
	*len = (size_t)n;
	return t;
}

/* The host's other names: /etc/hostname (an FQDN, maybe), the names and addresses of the
 * /etc/hosts lines that name this host or the tree's; and this host's own addresses
 * (getifaddrs: every interface's but a loopback's), in their text forms. No DNS. */
static void host_names(struct gather *g)
{
	size_t n;
	char *t = etc_file(g, "/etc/hostname", 4096, &n);
	if (t) {
		char *l = t + strspn(t, " \t\n");
		l[strcspn(l, " \t\n#")] = '\0';
		if (l[0] && redact_add_host(g->r, l, NULL) < 0)
			g->err = -ENOMEM;
		free(t);
	}
	t = etc_file(g, "/etc/hosts", PASSWD_MAX, &n);
	for (int k = 0; t && k < 2 && !g->err; k++) {
		struct hosts_list hl;
		if (!g->hosts[k][0] || (k == 1 && !strcmp(g->hosts[0], g->hosts[1])))
			continue;
		if (hosts_parse(t, n, g->hosts[k], &hl) < 0) {
			g->err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < hl.nnames; i++)
			if (redact_add_host(g->r, hl.names[i], NULL) < 0)
				g->err = -ENOMEM;
		for (size_t i = 0; i < hl.naddrs; i++)
			if (redact_add_addr(g->r, hl.addrs[i]) == -ENOMEM)
				g->err = -ENOMEM;
		hosts_free(&hl);
	}
	free(t);
	struct ifaddrs *ifa = NULL;
	if (getifaddrs(&ifa) < 0) {
		log_warnx("--redact: cannot list this host's addresses (%s): they are not redacted",
		          strerror(errno));
		return;
	}
	for (struct ifaddrs *i = ifa; i && !g->err; i = i->ifa_next) {
		char a[INET6_ADDRSTRLEN];
		if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		const void *x = i->ifa_addr->sa_family == AF_INET ?
		                (const void *)&((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr :
		                i->ifa_addr->sa_family == AF_INET6 ?
		                (const void *)&((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr : NULL;
		if (x && inet_ntop(i->ifa_addr->sa_family, x, a, sizeof(a)) &&
		    redact_add_addr(g->r, a) == -ENOMEM)
			g->err = -ENOMEM;
	}
	freeifaddrs(ifa);
}

/* The groups of the users redacted: a group named as one, or that is one's primary group,
 * and every group from gid 1000 (but nogroup, 65534), from /etc/group. */
static void groups_of(struct gather *g)
{
	size_t n;
	char *t = etc_file(g, "/etc/group", PASSWD_MAX, &n);
	struct group_list gl;
	if (!t)
		return;
	if (group_parse(t, n, &gl, NULL) < 0)
		g->err = -ENOMEM;
	free(t);
	if (g->err)
		return;
	for (size_t i = 0; i < gl.n && !g->err; i++) {
		const struct group_ent *e = &gl.v[i];
		bool ours = redact_uid_personal(e->gid);
		for (size_t k = 0; k < g->ngids && !ours; k++)
			ours = g->gids[k] == e->gid;
		if (ours && redact_user_name_ok(e->name) &&
		    !redact_add(g->r, "group", e->name, strlen(e->name)))
			g->err = -ENOMEM;
	}
	group_free(&gl);
}

struct cgw_redact *bundle_redact_map(const char *dir, unsigned timeout_ms, char *msg, size_t cap)
{
	struct gather g = { .r = redact_new(), .timeout_ms = timeout_ms };
	if (!g.r) {
		snprintf(msg, cap, "--redact: no memory");
		return NULL;
	}
	if (redact_prefix(g.r, "/home/") < 0 || redact_prefix(g.r, "/root/") < 0)
		g.err = -ENOMEM;
	host_of(&g, "", g.hosts[0], sizeof(g.hosts[0]));       /* this host */
	host_of(&g, dir, g.hosts[1], sizeof(g.hosts[1]));      /* the host the tree was captured on */
	if (!g.err)
		host_names(&g);
	char *text = try_malloc(PASSWD_MAX);
	ssize_t n = text ? dl_read_file("/etc/passwd", text, PASSWD_MAX, timeout_ms) : -ENOMEM;
	if (n == -ENOMEM || (n >= 0 && passwd_parse(text, (size_t)n, &g.pw, NULL) < 0))
		g.err = -ENOMEM;
	else if (n < 0 && n != -ENOENT)
		log_warnx("--redact: cannot read /etc/passwd (%s): the users are those of the tree's "
		          "tasks only", strerror((int)-n));
	free(text);
	for (size_t i = 0; i < g.pw.n && !g.err; i++) {
		const struct passwd_ent *e = &g.pw.v[i];
		if (redact_uid_personal(e->uid)) {
			user_add(&g, e->name, e->home);
			gid_add(&g, e->gid);
		}
		else if (e->uid == 0)
			user_add(&g, "", e->home);        /* root's home, not its name */
	}
	if (!g.err)
		tree_uids(&g, dir);
	if (!g.err)
		groups_of(&g);
	passwd_free(&g.pw);
	free(g.seen);
	free(g.gids);
	if (g.err) {
		snprintf(msg, cap, "--redact: no memory");
		redact_free(g.r);
		return NULL;
	}
	return g.r;
}

int bundle_redact_write_map(const struct cgw_redact *r, const char *path, char *why, size_t cap)
{
	struct strbuf m = { 0 };
	static const char head[] = "# cgwatch redaction map: TOKEN<TAB>VALUE. Keep it on this host.\n";
	sb_add(&m, head, sizeof(head) - 1);
	redact_map_text(r, &m);
	if (m.lost) {
		sb_free(&m);
		snprintf(why, cap, "no memory");
		return -ENOMEM;
	}
	int e = atomic_write_new(path, m.s, m.len, 0600, why, cap);
	sb_free(&m);
	return e;
}
