/* source-ustackcap.c: the inputs of user-stack unwinds (source-ustack.c) kept by a capture,
 * and a replay's unwinds from them.
 *
 * Recording (check --capture, bundle, the daemon's recorded scans): every byte an unwind
 * reads of the target's memory goes through ucap_saw (the words of return addresses and
 * saved registers on the stack, of the unwind tables it looked up; of a frame-pointer scan's
 * view of the stack, only the words that count, with the view's extent: ucap_scan; at most
 * UNWIND_MEM_MAX per unwind), and once it finished, the build-id of each file its frames
 * are in (read from the mapped file itself, /proc/TGID/map_files/START-END) and
 * /proc/TGID/maps as read; threads that were not unwound keep their reason. One
 * cgwatch/ustack/TGID per process (parse-ustack.c), recorded when the report's unwinds are
 * done.
 *
 * Replay (check --root of such a tree): the unwind reads memory from the file instead of
 * /proc/TID/mem, the mappings from the tree's proc/TGID/maps, and the unwind info and names
 * from the files at the mapped paths on this machine, each used only when its build-id is
 * the recorded one; otherwise the stack ends there, saying which file is missing or
 * another build. A thread the live run did not unwind says why, as captured; a process the
 * live run did not try has no file, and nothing is said, as live. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define UNWIND_MEM_MAX (64u << 10)    /* bytes of memory kept per unwind */
#define MAPS_MAX (8u << 20)
#define FILE_READ_MAX (3u << 20)      /* a cgwatch/ustack file read back */

struct ucheck { char *path; bool ok; char why[300]; };

/* A message cut to cap (cut messages are expected: they end a 320-byte ustack_error). */
static void say(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, cap, fmt, ap);
	va_end(ap);
}

struct ucap {
	bool replay;
	struct ustack_file f;             /* recording: this unwind's; replay: the whole file */
	char *maps; size_t maps_len;      /* recording: /proc/TGID/maps as read; NULL not yet */
	int maps_err;
	struct ucheck *chk; size_t nchk;  /* replay: the files checked, by path */
	unsigned long missed;             /* replay: an address read that the file lacks */
	bool have_missed;
};

struct uproc_rec {
	int tgid;
	struct ustack_file f;             /* recording: merged; replay: unused */
	char *text; size_t len;           /* replay: the file's text; NULL with err */
	int err;                          /* replay: -ENOENT none, or why it is not used */
	char *maps; size_t maps_len;      /* recording: /proc/TGID/maps, once */
};

struct ucap_set {
	bool replay;
	const char *root;
	unsigned timeout_ms;
	struct uproc_rec *p; size_t n;
	bool nomem;
};

struct ucap_set *ucap_begin(const struct cgw_scan *s, unsigned timeout_ms)
{
	bool replay = !s->live && s->replay_root;
	if (!replay && !(s->live && record_active()))
		return NULL;
	if (replay) {                     /* a tree with no such files: nothing to replay */
		char path[4200], b[8];
		snprintf(path, sizeof(path), "%s/cgwatch/ustack", s->replay_root);
		if (dl_read_file(path, b, sizeof(b), timeout_ms) == -ENOENT)
			return NULL;
	}
	struct ucap_set *u = try_calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->replay = replay;
	u->root = s->replay_root;
	u->timeout_ms = timeout_ms;
	return u;
}

static struct uproc_rec *rec_of(struct ucap_set *u, int tgid)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->p[i].tgid == tgid)
			return &u->p[i];
	struct uproc_rec *np = realloc(u->p, (u->n + 1) * sizeof(*np));
	if (!np) {
		u->nomem = true;
		return NULL;
	}
	u->p = np;
	memset(&np[u->n], 0, sizeof(np[u->n]));
	np[u->n].tgid = tgid;
	return &np[u->n++];
}

/* The replay's file of tgid, read once (with the deadline). */
static struct uproc_rec *replay_rec(struct ucap_set *u, struct cgw_scan *s, int tgid)
{
	bool fresh = true;
	for (size_t i = 0; i < u->n && fresh; i++)
		fresh = u->p[i].tgid != tgid;
	struct uproc_rec *r = rec_of(u, tgid);
	if (!r || !fresh)
		return r;
	char path[4200], tp[64];
	snprintf(path, sizeof(path), "%s/cgwatch/ustack/%d", u->root, tgid);
	snprintf(tp, sizeof(tp), "cgwatch/ustack/%d", tgid);
	char *buf = try_malloc(FILE_READ_MAX);
	if (!buf) {
		r->err = -ENOMEM;
		return r;
	}
	ssize_t n = dl_read_file(path, buf, FILE_READ_MAX, u->timeout_ms);
	struct ustack_file f;
	size_t line = 0;
	int pe = n < 0 ? (int)n : ustack_parse(buf, (size_t)n, &f, &line);
	if (pe == 0) {
		r->f = f;                     /* its notes; each process's unwinds parse their own */
		r->text = buf;
		r->len = (size_t)n;
		return r;
	}
	free(buf);
	r->err = pe;
	if (pe == -ENOENT)
		return r;
	if (n < 0)
		scan_unreadable(s, tp, "%s; user stacks of this process are not replayed",
		                strerror((int)-n));
	else if (pe == -EINVAL)
		scan_unreadable(s, tp, "line %zu: not understood; user stacks of this process are "
		                "not replayed", line);
	return r;
}

int ucap_replay_task(struct ucap_set *u, struct cgw_scan *s, const struct cgw_task *t,
                     char *err, size_t cap)
{
	if (!u || !u->replay)
		return 0;
	struct uproc_rec *r = replay_rec(u, s, t->tgid);
	if (!r) {
		s->nomem = true;
		return 1;
	}
	if (r->err == -ENOENT)
		return 1;                     /* not tried live: nothing to say, as live */
	if (r->err) {
		say(err, cap, "user stack not replayed: cgwatch/ustack/%d: %s", t->tgid,
		         r->err == -EINVAL ? "not understood" : strerror(-r->err));
		return 1;
	}
	int ret = 0;
	const char *note = ustack_note(&r->f, t->tid);
	if (note) {
		say(err, cap, "%s (as captured)", note);
		ret = 1;
	} else if (r->f.redacted) {
		snprintf(err, cap, "user stack not replayed: the bundle was redacted, which leaves "
		         "out the memory it was unwound from (report.json holds the frames unwound "
		         "where it was made)");
		ret = 1;
	}
	return ret;
}

bool ucap_in_round(struct ucap_set *u, struct cgw_scan *s, const struct cgw_task *t, int round)
{
	if (!u || !u->replay)
		return round == 0;
	/* the replay's order of tasks may differ from the live one's (durations equal to within
	 * the clocks' precision): the threads whose memory the capture holds go first, so that
	 * the others share their unwinds as they did live */
	struct uproc_rec *r = replay_rec(u, s, t->tgid);
	bool first = r && !r->err && ustack_was_unwound(&r->f, t->tid);
	return round == 0 ? first : !first;
}

struct ucap *ucap_for(struct ucap_set *u, int tgid)
{
	struct ucap *c = try_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->replay = u->replay;
	if (!u->replay)
		return c;
	struct uproc_rec *r = rec_of(u, tgid);
	size_t line;
	if (!r || !r->text || ustack_parse(r->text, r->len, &c->f, &line) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

struct ucap *ucap_replay_of(struct ustack_file *f)
{
	struct ucap *c = try_calloc(1, sizeof(*c));
	if (c) {
		c->replay = true;
		c->f = *f;
		memset(f, 0, sizeof(*f));
	} else {
		ustack_file_free(f);
	}
	return c;
}

void ucap_free(struct ucap *c)
{
	if (!c)
		return;
	ustack_file_free(&c->f);
	free(c->maps);
	for (size_t i = 0; i < c->nchk; i++)
		free(c->chk[i].path);
	free(c->chk);
	free(c);
}

bool ucap_replaying(const struct ucap *c)
{
	return c && c->replay;
}

int ucap_mem(struct ucap *c, unsigned long addr, void *v, size_t n)
{
	if (umem_get(&c->f.mem, addr, v, n))
		return 0;
	if (!c->have_missed) {
		c->have_missed = true;
		c->missed = addr;
	}
	return -1;
}

void ucap_saw(struct ucap *c, unsigned long addr, const void *v, size_t n)
{
	if (c->replay)
		return;
	if (c->f.mem.bytes + n > UNWIND_MEM_MAX) {
		c->f.cut = true;
		return;
	}
	if (umem_put(&c->f.mem, addr, v, n) < 0)
		c->f.cut = true;
}

bool ucap_peek(const struct ucap *c, unsigned long addr, void *v, size_t n)
{
	return c && c->replay && umem_get(&c->f.mem, addr, v, n);
}

void ucap_scan(struct ucap *c, unsigned long addr, size_t len)
{
	if (c && !c->replay && ustack_add_scan(&c->f, addr, len) < 0)
		c->f.cut = true;
}

int ucap_scan_len(const struct ucap *c, unsigned long addr, size_t *len)
{
	const struct ustack_scan *sc = c && c->replay ? ustack_scan_at(&c->f, addr) : NULL;
	if (!sc)
		return -ENOENT;
	*len = sc->len;
	return 0;
}

void ucap_explain(const struct ucap *c, char *err, size_t cap)
{
	if (!c || !c->replay || !c->have_missed || !err[0])
		return;
	size_t n = strlen(err);
	say(err + n, cap - n, " (replay: the capture does not hold its memory at 0x%lx%s)",
	         c->missed, c->f.cut ? "; it kept only part of what the unwind read" : "");
}

/* ---- build-ids ---- */

static int rd_fd(void *ctx, uint64_t off, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	return 0;
}

/* The build-id of the ELF file open at fd, hex into out ("-" none). 0, or -errno. */
static int build_id_fd(int fd, char *out, size_t cap)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -CGW_ENOTREG;
	struct elf_info *e = try_calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int r = elf_parse_head(rd_fd, &fd, (uint64_t)st.st_size, e);
	if (r == 0) {
		elf_build_id_hex(e, out, cap);
		if (!out[0])
			snprintf(out, cap, "-");
	}
	elf_info_free(e);
	free(e);
	return r;
}

static int build_id_path(const char *path, char *out, size_t cap)
{
	int fd = open_regular(path);      /* a bundle names it: never a device or a FIFO */
	if (fd < 0)
		return fd;
	int r = build_id_fd(fd, out, cap);
	close(fd);
	return r;
}

int ucap_module(struct ucap *c, const char *path, char *why, size_t cap)
{
	for (size_t i = 0; i < c->nchk; i++)
		if (!strcmp(c->chk[i].path, path)) {
			snprintf(why, cap, "%s", c->chk[i].why);
			return c->chk[i].ok ? 0 : -1;
		}
	struct ucheck k = { 0 };
	const struct ustack_mod *m = ustack_module(&c->f, path);
	char here[2 * ELF_BUILD_ID_MAX + 2];
	int r;
	if (!m)
		say(k.why, sizeof(k.why), "replay: %.200s: the capture holds no build-id for "
		         "it, so the file here cannot be checked", path);
	else if (!strcmp(m->build_id, "-"))
		say(k.why, sizeof(k.why), "replay: %.200s: the capture has no build-id of it "
		         "(the file had none, or could not be read), so the file here cannot be "
		         "checked", path);
	else if ((r = build_id_path(path, here, sizeof(here))) < 0)
		say(k.why, sizeof(k.why), "replay: %.200s build-id %.64s not on this machine "
		         "(%.60s)", path, m->build_id, cgw_strerror(-r));
	else if (strcmp(here, m->build_id))
		say(k.why, sizeof(k.why), "replay: %.200s build-id %.64s not on this machine "
		         "(the file there is build-id %.64s)", path, m->build_id,
		         strcmp(here, "-") ? here : "none");
	else
		k.ok = true;
	snprintf(why, cap, "%s", k.why);
	struct ucheck *nc = realloc(c->chk, (c->nchk + 1) * sizeof(*nc));
	if (nc && (k.path = try_strdup(path))) {
		c->chk = nc;
		c->chk[c->nchk++] = k;
	} else if (nc) {
		c->chk = nc;
	}
	return k.ok ? 0 : -1;
}

/* ---- after a recorded unwind ---- */

void ucap_unwound(struct ucap *c, int tgid, const struct maps_index *maps,
                  const struct cgw_uframe *f, size_t n)
{
	if (!c || c->replay)
		return;
	char path[96];
	if (!c->maps && !c->maps_err) {  /* what libunwind's table lookup reads, as read */
		snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
		c->maps = read_whole_file(path, MAPS_MAX, &c->maps_len, &c->maps_err);
	}
	for (size_t i = 0; i < n; i++) {
		if (f[i].module[0] != '/' || ustack_module(&c->f, f[i].module))
			continue;
		const struct maps_ent *e = maps ? maps_index_find(maps, f[i].pc) : NULL;
		char bid[2 * ELF_BUILD_ID_MAX + 2] = "-";
		int r = -ENOENT;
		if (e) {
			/* the mapped file itself, whatever its path shows now */
			snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", tgid, e->start, e->end);
			int fd = open_regular(path);   /* what a user mapped: a regular file only */
			if (fd >= 0) {
				r = build_id_fd(fd, bid, sizeof(bid));
				close(fd);
			}
		}
		if (r < 0)
			snprintf(bid, sizeof(bid), "-");
		if (ustack_add_module(&c->f, f[i].module, bid) < 0)
			c->f.cut = true;
	}
}

void ucap_done(struct ucap_set *u, int tgid, int tid, struct ucap *c)
{
	if (!u || u->replay || !c)
		return;
	struct uproc_rec *r = rec_of(u, tgid);
	if (!r)
		return;
	if (ustack_merge(&r->f, &c->f) < 0 || ustack_add_unwound(&r->f, tid) < 0)
		u->nomem = true;
	if (c->maps && !r->maps) {
		r->maps = c->maps;
		r->maps_len = c->maps_len;
		c->maps = NULL;
	}
	umem_free(&c->f.mem);             /* the next unwind of the process counts afresh */
	free(c->f.scans);
	c->f.scans = NULL;
	c->f.nscans = 0;
	c->f.cut = false;
}

void ucap_note(struct ucap_set *u, const struct cgw_task *t)
{
	if (!u || u->replay || t->ustack_same_as || !t->ustack_error[0])
		return;
	struct uproc_rec *r = rec_of(u, t->tgid);
	if (r && !ustack_was_unwound(&r->f, t->tid) &&
	    ustack_add_note(&r->f, t->tid, t->ustack_error, strlen(t->ustack_error)) == -ENOMEM)
		u->nomem = true;
}

void ucap_end(struct ucap_set *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		struct uproc_rec *r = &u->p[i];
		if (!u->replay) {
			char tp[64];
			struct strbuf b = { 0 };
			ustack_format(&r->f, &b);
			snprintf(tp, sizeof(tp), "cgwatch/ustack/%d", r->tgid);
			if (!b.lost)
				record_put(tp, REC_FILE, b.s, (ssize_t)b.len);
			sb_free(&b);
			if (r->maps) {
				snprintf(tp, sizeof(tp), "proc/%d/maps", r->tgid);
				record_put(tp, REC_FILE, r->maps, (ssize_t)r->maps_len);
			}
		}
		ustack_file_free(&r->f);
		free(r->text);
		free(r->maps);
	}
	if (u->nomem)
		log_debug("user stacks: out of memory recording their inputs for the capture");
	free(u->p);
	free(u);
}
