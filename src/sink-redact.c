/* sink-redact.c: stable tokens for what a bundle must not carry off the host: host names,
 * user names, command lines, paths under home directories. The same value always gets the
 * same token within one map, so a redacted bundle still reads as one story; the map itself
 * stays on the host. A path under a home directory keeps its directory above the home and its
 * slashes, each component after that replaced on its own ("/home/alice/mnt/f" ->
 * "/home/REDACTED-user-1/REDACTED-path-1/REDACTED-path-2"), so a mount point and the files
 * under it still nest as they did and a replay finds the mount a task waits on. The kernel's
 * own words stay: stacks, wchan, syscall, cgroup controller files, CPU lists, numbers, a
 * kernel symbol (what runs to "+0x"), and a host name that is a word ("vm") where it does not
 * name the host (names_host: "vm.dirty_ratio", "/proc/sys/vm"). The host's addresses match
 * as whole addresses. Pure: text in, text out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* How a value is matched in text: on name boundaries anywhere (a user, a host name that is
 * not a word), only where it names the host (a host or domain name of letters only: "vm",
 * "ubuntu"), or as an address (not inside a longer one). */
enum { M_WORD, M_HOST, M_ADDR };
/* A value (host, user, cmdline, ...) matched in text as how says, or a path component (comp)
 * replaced only inside a path under a home directory, or a whole file's (whole). */
struct redact_ent { char *kind, *value, *token; size_t len; bool comp, whole; int how; };
/* A path prefix: keep ("/home/") stays, then every component is replaced; with first set
 * (a home "/srv/projx": keep "/srv/", first "projx"), only paths whose next component is
 * first. */
struct redact_prefix { char *keep, *first; };
struct cgw_redact {
	struct redact_ent *v; size_t n, cap;
	struct redact_prefix *p; size_t np, capp;
	unsigned char first[32];                    /* first bytes of the values: a bitmap */
};

struct cgw_redact *redact_new(void)
{
	return try_calloc(1, sizeof(struct cgw_redact));
}

void redact_free(struct cgw_redact *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].kind);
		free(r->v[i].value);
		free(r->v[i].token);
	}
	for (size_t i = 0; i < r->np; i++) {
		free(r->p[i].keep);
		free(r->p[i].first);
	}
	free(r->v);
	free(r->p);
	free(r);
}

/* The entry of value: a value matched in text first, then a component when comp, a whole
 * file's otherwise. */
static const struct redact_ent *find(const struct cgw_redact *r, const char *value, size_t n,
                                     bool comp)
{
	const struct redact_ent *c = NULL;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].len == n && memcmp(r->v[i].value, value, n) == 0) {
			if (!r->v[i].comp && !r->v[i].whole)
				return &r->v[i];
			if (r->v[i].comp == comp)
				c = &r->v[i];
		}
	return c;
}

/* The token of value, made as "REDACTED-KIND-N" (N counting that kind) when new. */
static const char *add(struct cgw_redact *r, const char *kind, const char *value, size_t n,
                       bool comp, bool whole, int how)
{
	struct redact_ent *e = (struct redact_ent *)find(r, value, n, comp);
	if (e) {
		if (!e->comp && !e->whole && !comp && !whole && how == M_WORD)
			e->how = M_WORD;              /* a user "vm" too: everywhere */
		return e->token;
	}
	if (grow((void **)&r->v, &r->cap, r->n, 16, sizeof(*r->v)) < 0)
		return NULL;
	size_t same = 0;
	for (size_t i = 0; i < r->n; i++)
		same += strcmp(r->v[i].kind, kind) == 0;
	char tok[96];
	snprintf(tok, sizeof(tok), "REDACTED-%s-%zu", kind, same + 1);
	struct redact_ent x = { try_strdup(kind), try_malloc(n + 1), try_strdup(tok), n, comp,
	                        whole, how };
	if (!x.kind || !x.value || !x.token) {
		free(x.kind);
		free(x.value);
		free(x.token);
		return NULL;
	}
	memcpy(x.value, value, n);
	x.value[n] = '\0';
	if (!comp && !whole)
		r->first[(unsigned char)value[0] / 8] |= (unsigned char)(1u << ((unsigned char)value[0] % 8));
	r->v[r->n] = x;
	return r->v[r->n++].token;
}

const char *redact_add(struct cgw_redact *r, const char *kind, const char *value, size_t n)
{
	if (n == 0 || !kind[0] || strlen(kind) > 32)
		return NULL;
	return add(r, kind, value, n, false, false, M_WORD);
}

const char *redact_add_whole(struct cgw_redact *r, const char *kind, const char *value, size_t n)
{
	if (n == 0 || !kind[0] || strlen(kind) > 32)
		return NULL;
	return add(r, kind, value, n, false, true, M_WORD);
}

int redact_prefix(struct cgw_redact *r, const char *prefix)
{
	size_t n = strlen(prefix);
	while (n > 1 && prefix[n - 1] == '/' && prefix[n - 2] == '/')
		n--;
	if (n < 2 || prefix[0] != '/')
		return -EINVAL;                   /* "" or "/": everything, or nothing */
	char *keep, *first = NULL;
	if (prefix[n - 1] == '/') {
		keep = try_strndup(prefix, n);
	} else {
		const char *slash = prefix + n;
		while (slash[-1] != '/')
			slash--;
		keep = try_strndup(prefix, (size_t)(slash - prefix));
		first = try_strndup(slash, (size_t)(prefix + n - slash));
		if (!first) {
			free(keep);
			return -ENOMEM;
		}
	}
	if (!keep || grow((void **)&r->p, &r->capp, r->np, 4, sizeof(*r->p)) < 0) {
		free(keep);
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->np; i++)
		if (!strcmp(r->p[i].keep, keep) && (r->p[i].first ? first && !strcmp(r->p[i].first,
		    first) : !first)) {
			free(keep);
			free(first);
			return 0;                     /* already there */
		}
	r->p[r->np++] = (struct redact_prefix){ keep, first };
	return 0;
}

/* A byte that can be part of a name: a value matches only between two bytes that are not.
 * '-' and '.' separate ("app-alice.scope" holds the name alice). */
static bool name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

/* Where a path under a prefix ends in text: at white space, a quote, a NUL, a control byte;
 * punctuation after it (a comma, a closing bracket, a full stop) is the sentence's. */
static size_t path_len(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (unsigned char)s[k] > ' ' && s[k] != '"' && s[k] != '\'' && s[k] != 0x7f)
		k++;
	while (k > 1 && (strchr(",;:)]}>!?$", s[k - 1]) ||
	                 (s[k - 1] == '.' && s[k - 2] != '/' && s[k - 2] != '.')))
		k--;
	return k;
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Does a token end here: white space, a quote, a bracket, '=' or ','? */
static bool token_end(unsigned char c)
{
	return c <= ' ' || c == 0x7f || strchr("\"'=,()[]<>{}", c);
}

/* A kernel symbol: the run of name bytes and dots from end is followed by "+0x"
 * ("vm.isra.0+0x1f/0x40"). A symbol is shorter than KSYM_NAME_LEN (512): a longer run is
 * not looked through (no quadratic scan of "a.a.a..."). */
static bool in_symbol(const char *in, size_t n, size_t end)
{
	size_t lim = n - end > 512 ? end + 512 : n;
	while (end < lim && (name_byte((unsigned char)in[end]) || in[end] == '.'))
		end++;
	return n - end >= 3 && memcmp(in + end, "+0x", 3) == 0;
}

static const char *const unit_suffix[] = { ".service", ".scope", ".slice", ".mount",
	".socket", ".timer", ".target", ".device", ".swap", ".path", ".automount" };

/* Does the value at in[i], len bytes, name the host (for a name of letters only, which may
 * also be a word of the kernel's or of a sentence: "vm.dirty_ratio", "__access_remote_vm")?
 * Where it is a whole line or span (a hostname file, the report's host, a JSON string),
 * after '@' or before ":/" (user@host, host:/path), in a path that is not the kernel's (not
 * under /proc/ or /sys/ but for /sys/fs/cgroup/: "/srv/vm-data", a cgroup "/vm.slice"), in
 * a unit's name ("vm-batch.slice"), or first in a message (a line, a kernel message after
 * its ';', a syslog line after its time: "vm login:", "... 12:00:01 vm kernel:"), followed
 * by a space. whole: the span is one path. */
static bool names_host(const char *in, size_t n, size_t i, size_t len, bool whole)
{
	size_t end = i + len, ls = i, le = end;
	while (ls > 0 && in[ls - 1] != '\n')
		ls--;
	while (le < n && in[le] != '\n')
		le++;
	size_t a = ls, b = le;
	while (a < i && (in[a] == ' ' || in[a] == '\t'))
		a++;
	while (b > end && (in[b - 1] == ' ' || in[b - 1] == '\t' || in[b - 1] == '\r'))
		b--;
	if (a == i && b == end)
		return true;                          /* the whole line */
	if ((i > 0 && in[i - 1] == '@') || (n - end >= 2 && in[end] == ':' && in[end + 1] == '/'))
		return true;
	size_t ts = whole ? 0 : i, te = whole ? n : end;
	while (!whole && ts > 0 && !token_end((unsigned char)in[ts - 1]))
		ts--;
	while (!whole && te < n && !token_end((unsigned char)in[te]))
		te++;
	if (in[ts] == '/') {
		size_t tl = te - ts;
		bool kernel = (tl >= 6 && !memcmp(in + ts, "/proc/", 6)) ||
		              (tl >= 5 && !memcmp(in + ts, "/sys/", 5) &&
		               !(tl >= 15 && !memcmp(in + ts, "/sys/fs/cgroup/", 15)));
		return !kernel;
	}
	while (te > end && strchr(".,;:!?", in[te - 1]))
		te--;                                 /* the sentence's punctuation */
	for (size_t k = 0; k < sizeof(unit_suffix) / sizeof(unit_suffix[0]); k++) {
		size_t sl = strlen(unit_suffix[k]);
		if (te - end >= sl && !memcmp(in + te - sl, unit_suffix[k], sl))
			return true;
	}
	if (end >= n || in[end] != ' ')
		return false;
	if (i == ls)
		return true;                          /* first on its line */
	if (in[i - 1] == ';')                     /* a kernel message: "6,101,1001,-;vm ..." */
		return !memchr(in + ls, ' ', i - ls);
	if (in[i - 1] == ' ' && i >= 2 && is_digit((unsigned char)in[i - 2])) {
		size_t t = i - 1;                     /* a syslog time before it: "12:00:01 vm" */
		while (t > ls && in[t - 1] != ' ')
			t--;
		return memchr(in + t, ':', i - 1 - t) != NULL;
	}
	return false;
}

/* Is the address at in[i], len bytes, all of one (not "10.1.2.3" in "10.1.2.34" or
 * "110.1.2.3" or "10.1.2.3.4", not "fe80::1" in "fe80::1:2")? */
static bool addr_alone(const char *in, size_t n, size_t i, size_t len, bool v6)
{
	size_t end = i + len;
	if (i > 0) {
		unsigned char c = (unsigned char)in[i - 1];
		if (name_byte(c) || c == '.' || (v6 && c == ':'))
			return false;
	}
	if (end < n) {
		unsigned char c = (unsigned char)in[end];
		if (name_byte(c) || ((c == '.' || c == ':') && end + 1 < n &&
		                     (v6 ? is_hex((unsigned char)in[end + 1]) :
		                           is_digit((unsigned char)in[end + 1]))))
			return false;
	}
	return true;
}

/* The longest value that starts at in[i] and matches there as its entry says (name
 * boundaries on both sides, names_host for a host name of letters, addr_alone for an
 * address), never inside a kernel symbol ("+0x" after it), or NULL. whole: in is one path. */
static const struct redact_ent *match_at(const struct cgw_redact *r, const char *in, size_t n,
                                         size_t i, bool whole)
{
	unsigned char c = (unsigned char)in[i];
	if (!(r->first[c / 8] & (1u << (c % 8))) || (i > 0 && name_byte((unsigned char)in[i - 1])))
		return NULL;                          /* inside a name (or an address) */
	const struct redact_ent *best = NULL;
	for (size_t k = 0; k < r->n; k++) {
		const struct redact_ent *e = &r->v[k];
		if (e->comp || e->whole || e->len > n - i || (best && e->len <= best->len) ||
		    memcmp(in + i, e->value, e->len) != 0)
			continue;
		size_t end = i + e->len;
		if (e->how == M_ADDR) {
			if (!addr_alone(in, n, i, e->len, memchr(e->value, ':', e->len) != NULL))
				continue;
		} else {
			if (end < n && name_byte((unsigned char)in[end]) &&
			    name_byte((unsigned char)e->value[e->len - 1]))
				continue;
			if (in_symbol(in, n, end))
				continue;
			if (e->how == M_HOST && !names_host(in, n, i, e->len, whole))
				continue;
		}
		best = e;
	}
	return best;
}

/* A component's key: mountinfo's octal escapes ("\040") decoded, so a mount point and a
 * link's target that name the same directory get the same token. */
static char *comp_key(const char *s, size_t n, size_t *len)
{
	char *k = try_malloc(n + 1);
	if (!k)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			k[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			k[o++] = s[i];
		}
	}
	k[o] = '\0';
	*len = o;
	return k;
}

/* Does the path at in (n bytes) start with prefix p: its kept part, then its first
 * component ending at a '/' or the end? Returns the length of the kept part, or 0. */
static size_t prefix_at(const struct redact_prefix *p, const char *in, size_t n)
{
	size_t kl = strlen(p->keep);
	if (kl > n || memcmp(in, p->keep, kl) != 0)
		return 0;
	if (p->first) {
		size_t fl = strlen(p->first);
		if (kl + fl > n || memcmp(in + kl, p->first, fl) != 0 ||
		    (kl + fl < n && in[kl + fl] != '/'))
			return 0;
	}
	return kl;
}

/* Append the path in (n bytes, under a prefix whose kept part is kl bytes) with each
 * component after the kept part replaced. 0 or -ENOMEM. */
static int put_path(struct cgw_redact *r, const char *in, size_t n, size_t kl,
                    struct strbuf *out)
{
	sb_add(out, in, kl);
	for (size_t i = kl; i < n;) {
		if (in[i] == '/') {
			sb_add(out, "/", 1);
			i++;
			continue;
		}
		const char *sl = memchr(in + i, '/', n - i);
		size_t len = sl ? (size_t)(sl - (in + i)) : n - i;
		if ((len == 1 && in[i] == '.') || (len == 2 && in[i] == '.' && in[i + 1] == '.')) {
			sb_add(out, in + i, len);
		} else {
			size_t kn;
			char *key = comp_key(in + i, len, &kn);
			const char *tok = key ? add(r, "path", key, kn, true, false, M_WORD) : NULL;
			free(key);
			if (!tok)
				return -ENOMEM;
			sb_add(out, tok, strlen(tok));
		}
		i += len;
	}
	return 0;
}

/* Redact in (n bytes): paths under a prefix (to path_len, or to the end when whole) and
 * values. */
static int redact_span(struct cgw_redact *r, const char *in, size_t n, bool whole,
                       struct strbuf *out)
{
	size_t i = 0;
	while (i < n) {
		bool done = false;
		if (in[i] == '/' && (i == 0 || !name_byte((unsigned char)in[i - 1]))) {
			size_t len = whole ? n - i : path_len(in + i, n - i);
			for (size_t p = 0; p < r->np && !done; p++) {
				size_t kl = prefix_at(&r->p[p], in + i, len);
				size_t k = kl;
				while (k < len && in[i + k] == '/')
					k++;
				if (!kl || (!r->p[p].first && k == len))
					continue;             /* the prefix alone ("/home/") says nothing */
				if (put_path(r, in + i, len, kl, out) < 0)
					return -ENOMEM;
				i += len;
				done = true;
			}
		}
		if (done)
			continue;
		const struct redact_ent *e = match_at(r, in, n, i, whole);
		if (e) {
			sb_add(out, e->token, strlen(e->token));
			i += e->len;
		} else {
			sb_add(out, in + i, 1);
			i++;
		}
	}
	return out->lost ? -ENOMEM : 0;
}

int redact_text(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	return redact_span(r, in, n, false, out);
}

int redact_path(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	return redact_span(r, in, n, true, out);
}

void redact_map_text(const struct cgw_redact *r, struct strbuf *out)
{
	for (size_t i = 0; i < r->n; i++) {
		sb_printf(out, "%s\t", r->v[i].token);
		sb_add_term(out, r->v[i].value, r->v[i].len, false);
		sb_add(out, "\n", 1);
	}
}

size_t redact_count(const struct cgw_redact *r)
{
	return r->n;
}

/* ---- what counts as a secret ---- */

bool redact_uid_personal(unsigned uid)
{
	return uid >= 1000 && uid != 65534 && uid != 65535 && uid != 0xfffffffeu;
}

bool redact_user_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 256)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f || name[i] == '/' || name[i] == ':')
			return false;
	return true;
}

bool redact_home_counts(const char *home)
{
	static const char *const system[] = { "/proc", "/sys", "/dev", "/run", "/bin", "/sbin",
	                                      "/usr", "/lib", "/etc", "/var", "/tmp",
	                                      "/nonexistent", "/boot", "/home" };
	size_t n = home ? strlen(home) : 0;
	while (n > 1 && home[n - 1] == '/')
		n--;
	if (n < 2 || home[0] != '/' || memchr(home, '\n', n))
		return false;
	for (size_t i = 0; i < n;) {              /* no "." or ".." component */
		while (i < n && home[i] == '/')
			i++;
		size_t c = i;
		while (i < n && home[i] != '/')
			i++;
		if ((i - c == 1 && home[c] == '.') || (i - c == 2 && home[c] == '.' && home[c + 1] == '.'))
			return false;
	}
	for (size_t i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (strlen(system[i]) == n && memcmp(home, system[i], n) == 0)
			return false;             /* a system directory itself: never a person's */
	for (const char *p = "/proc/\0/sys/\0/dev/\0"; *p; p += strlen(p) + 1)
		if (strncmp(home, p, strlen(p)) == 0)
			return false;             /* the tree a replay reads */
	return true;
}

int redact_add_home(struct cgw_redact *r, const char *home)
{
	if (!redact_home_counts(home))
		return 0;
	size_t n = strlen(home);
	while (n > 1 && home[n - 1] == '/')
		n--;
	char *h = try_strndup(home, n);
	int e = h ? redact_prefix(r, h) : -ENOMEM;
	free(h);
	return e == -EINVAL ? 0 : e;
}

/* A host or domain name that is letters only may be a word ("vm", "build", "lan"): matched
 * where it names the host (names_host); any other everywhere. */
static const char *add_name(struct cgw_redact *r, const char *kind, const char *v, size_t n)
{
	bool word = true;
	for (size_t i = 0; i < n && word; i++)
		word = is_alpha((unsigned char)v[i]);
	return add(r, kind, v, n, false, false, word ? M_HOST : M_WORD);
}

int redact_add_host(struct cgw_redact *r, const char *hostname, const char *domain)
{
	char h[256], d[256];
	snprintf(h, sizeof(h), "%.*s", (int)strcspn(hostname ? hostname : "", "\n"),
	         hostname ? hostname : "");
	snprintf(d, sizeof(d), "%.*s", (int)strcspn(domain ? domain : "", "\n"),
	         domain ? domain : "");
	if (!strcmp(h, "(none)"))
		h[0] = '\0';
	if (!strcmp(d, "(none)"))
		d[0] = '\0';
	size_t sl = strcspn(h, ".");
	if (sl && !add_name(r, "host", h, sl))
		return -ENOMEM;
	if (h[sl] == '.' && h[sl + 1]) {
		if (!add_name(r, "host", h, strlen(h)) ||
		    !add_name(r, "domain", h + sl + 1, strlen(h + sl + 1)))
			return -ENOMEM;
	}
	if (d[0]) {
		if (!add_name(r, "domain", d, strlen(d)))
			return -ENOMEM;
		if (sl) {
			char fq[520];
			snprintf(fq, sizeof(fq), "%.*s.%s", (int)sl, h, d);
			if (!add_name(r, "host", fq, strlen(fq)))
				return -ENOMEM;
		}
	}
	return 0;
}

int redact_add_addr(struct cgw_redact *r, const char *addr)
{
	size_t n = strlen(addr);
	if (n < 2 || n > 64 || strspn(addr, "0123456789abcdefABCDEF.:") != n)
		return -EINVAL;
	return add(r, "addr", addr, n, false, false, M_ADDR) ? 0 : -ENOMEM;
}

/* ---- a bundle's members ---- */

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* "proc/PID/..." or "proc/PID/task/TID/..." (PID digits or self): the rest, else NULL. */
static const char *task_file(const char *name)
{
	if (!starts(name, "proc/"))
		return NULL;
	const char *p = name + 5;
	if (starts(p, "self/"))
		p += 5;
	else if (*p >= '0' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != '/')
			return NULL;
	} else {
		return NULL;
	}
	if (starts(p, "task/") && p[5] >= '0' && p[5] <= '9') {
		p += 5;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != '/')
			return NULL;
	}
	return p;
}

/* Each line of in through fn; the newline kept. */
static int by_line(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out,
                   int (*fn)(struct cgw_redact *, const char *, size_t, struct strbuf *))
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(in + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (in + i)) : n - i;
		if (fn(r, in + i, len, out) < 0)
			return -ENOMEM;
		if (nl)
			sb_add(out, "\n", 1);
		i += len + (nl ? 1 : 0);
	}
	return out->lost ? -ENOMEM : 0;
}

/* "ID:CONTROLLERS:PATH": the path. */
static int cgroup_line(struct cgw_redact *r, const char *l, size_t n, struct strbuf *out)
{
	const char *a = memchr(l, ':', n), *b = a ? memchr(a + 1, ':', n - (size_t)(a + 1 - l)) : NULL;
	if (!b)
		return redact_text(r, l, n, out);
	sb_add(out, l, (size_t)(b + 1 - l));
	return redact_path(r, b + 1, n - (size_t)(b + 1 - l), out);
}

/* mountinfo: root and mount point as paths, source and super options as text (but a cgroup
 * mount's: its controllers); the ids, options, optional fields and file system type as they
 * are. */
static int mountinfo_line(struct cgw_redact *r, const char *l, size_t n, struct strbuf *out)
{
	size_t f = 0, after_dash = 0;
	bool dash = false, kernel = false;      /* a cgroup's source and options: controllers */
	for (size_t i = 0; i < n;) {
		if (l[i] == ' ') {
			sb_add(out, " ", 1);
			i++;
			continue;
		}
		const char *sp = memchr(l + i, ' ', n - i);
		size_t len = sp ? (size_t)(sp - (l + i)) : n - i;
		int e = 0;
		if (dash)
			after_dash++;
		if (!dash && f >= 6 && len == 1 && l[i] == '-') {
			dash = true;
			sb_add(out, "-", 1);
		} else if (!dash && (f == 3 || f == 4)) {
			e = redact_path(r, l + i, len, out);
		} else if (dash && after_dash == 1) {
			kernel = (len == 6 && !memcmp(l + i, "cgroup", 6)) ||
			         (len == 7 && !memcmp(l + i, "cgroup2", 7));
			sb_add(out, l + i, len);          /* the type */
		} else if (dash && after_dash >= 2 && !kernel) {
			e = redact_text(r, l + i, len, out);
		} else {
			sb_add(out, l + i, len);          /* ids, options, type */
		}
		if (e < 0)
			return e;
		f++;
		i += len;
	}
	return 0;
}

/* "PID (COMM) S ...": the comm. */
static int stat_text(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	const char *a = memchr(in, '(', n), *b = NULL;
	for (size_t k = n; a && k > (size_t)(a - in); k--)
		if (in[k - 1] == ')') {
			b = in + k - 1;
			break;
		}
	if (!a || !b)
		return redact_text(r, in, n, out);
	sb_add(out, in, (size_t)(a + 1 - in));
	if (redact_text(r, a + 1, (size_t)(b - a - 1), out) < 0)
		return -ENOMEM;
	sb_add(out, b, n - (size_t)(b - in));
	return out->lost ? -ENOMEM : 0;
}

/* status: the Name line's value; sched: the first line (the comm). */
static int status_line(struct cgw_redact *r, const char *l, size_t n, struct strbuf *out)
{
	if (n >= 5 && memcmp(l, "Name:", 5) == 0) {
		sb_add(out, l, 5);
		return redact_text(r, l + 5, n - 5, out);
	}
	sb_add(out, l, n);
	return 0;
}

int redact_member(struct cgw_redact *r, const char *name, const char *in, size_t n,
                  struct strbuf *out)
{
	static const char *const kernel_task[] = { "stack", "wchan", "syscall", "schedstat",
	                                           "statm", "io", "oom_score", "limits" };
	static const char *const kernel_host[] = { "proc/stat", "proc/uptime", "proc/loadavg",
	                                           "proc/meminfo", "proc/cgroups", "proc/vmstat",
	                                           "cgwatch/clocks", "cgwatch/rates" };
	static const char *const kernel_dirs[] = { "proc/pressure/", "sys/fs/cgroup/",
	                                           "sys/devices/system/cpu/",
	                                           "sys/devices/virtual/workqueue/" };
	const char *t = task_file(name);
	for (size_t i = 0; i < sizeof(kernel_host) / sizeof(kernel_host[0]); i++)
		if (!strcmp(name, kernel_host[i]))
			goto as_is;
	for (size_t i = 0; i < sizeof(kernel_dirs) / sizeof(kernel_dirs[0]); i++)
		if (starts(name, kernel_dirs[i]))
			goto as_is;
	if (t) {
		for (size_t i = 0; i < sizeof(kernel_task) / sizeof(kernel_task[0]); i++)
			if (!strcmp(t, kernel_task[i]))
				goto as_is;
		if (!strcmp(t, "cmdline") || !strcmp(t, "environ")) {
			if (n == 0)
				return 0;
			const char *tok = redact_add_whole(r, "cmdline", in, n);
			if (!tok)
				return -ENOMEM;
			sb_add(out, tok, strlen(tok));
			return out->lost ? -ENOMEM : 0;
		}
		if (!strcmp(t, "stat"))
			return stat_text(r, in, n, out);
		if (!strcmp(t, "status"))
			return by_line(r, in, n, out, status_line);
		if (!strcmp(t, "cgroup"))
			return by_line(r, in, n, out, cgroup_line);
		if (!strcmp(t, "mountinfo"))
			return by_line(r, in, n, out, mountinfo_line);
		if (!strcmp(t, "sched")) {
			const char *nl = memchr(in, '\n', n);
			size_t first = nl ? (size_t)(nl - in) : n;
			if (redact_text(r, in, first, out) < 0)
				return -ENOMEM;
			sb_add(out, in + first, n - first);
			return out->lost ? -ENOMEM : 0;
		}
	}
	if (starts(name, "cgwatch/mem/")) {
		/* the path a syscall named and its NUL; what followed it in memory (the next
		 * arguments, the environment: a capture of an older cgwatch kept it) is left out,
		 * and so is a read with no NUL, which a replay does not take for a path */
		const char *nul = memchr(in, '\0', n);
		if (!nul)
			return 0;
		if (redact_path(r, in, (size_t)(nul - in), out) < 0)
			return -ENOMEM;
		sb_add(out, "", 1);
		return out->lost ? -ENOMEM : 0;
	}
	if (starts(name, "cgwatch/ustack/")) {
		/* the memory user stacks were unwound from (saved registers, whatever the stack
		 * held) is left out, and the file says so; its paths and notes as text */
		struct strbuf kept = { 0 };
		int e = ustack_drop_mem(in, n, &kept);
		if (e == 0)
			e = redact_text(r, kept.s ? kept.s : "", kept.len, out);
		sb_free(&kept);
		return e;
	}
	return redact_text(r, in, n, out);
as_is:
	sb_add(out, in, n);
	return out->lost ? -ENOMEM : 0;
}

int redact_name(struct cgw_redact *r, const char *name, bool dir, struct strbuf *out)
{
	size_t n = strlen(name);
	if (!starts(name, "tree/")) {
		if (!strcmp(name, "tree") || !starts(name, "signatures/site/"))
			sb_add(out, name, n);         /* cgwatch's own names */
		else
			return redact_text(r, name, n, out);
		return out->lost ? -ENOMEM : 0;
	}
	const char *rest = name + 5;
	bool cg = starts(rest, "sys/fs/cgroup/");
	if (!cg && (starts(rest, "proc/") || starts(rest, "sys/") || starts(rest, "dev/") ||
	            starts(rest, "cgwatch/") || !strcmp(rest, "proc") || !strcmp(rest, "sys") ||
	            !strcmp(rest, "dev") || !strcmp(rest, "cgwatch"))) {
		sb_add(out, name, n);             /* the kernel's names, and the capture's */
		return out->lost ? -ENOMEM : 0;
	}
	/* a path of the host: "/" + rest; a cgroup's path below the cgroup file system, its
	 * files keeping the controller file's name */
	const char *base = cg ? rest + 13 : rest - 1;     /* at the '/' before it */
	const char *last = cg && !dir ? strrchr(base, '/') : NULL;
	size_t len = last ? (size_t)(last - base) : strlen(base);
	sb_add(out, name, (size_t)(base - name));
	if (redact_path(r, base, len, out) < 0)
		return -ENOMEM;
	if (last)
		sb_add(out, last, strlen(last));
	return out->lost ? -ENOMEM : 0;
}

/* A JSON document: the string values, never the keys (a user named "tasks" leaves the
 * report's structure as it was). */
static int json_text(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	for (size_t i = 0; i < n;) {
		if (in[i] != '"') {
			sb_add(out, in + i, 1);
			i++;
			continue;
		}
		size_t e = i + 1;
		while (e < n && in[e] != '"')
			e += in[e] == '\\' ? 2 : 1;
		if (e > n)
			e = n;
		size_t k = e + 1;
		while (k < n && (in[k] == ' ' || in[k] == '\t' || in[k] == '\n' || in[k] == '\r'))
			k++;
		bool key = k < n && in[k] == ':';
		sb_add(out, "\"", 1);
		if (key)
			sb_add(out, in + i + 1, e - i - 1);
		else if (redact_text(r, in + i + 1, e - i - 1, out) < 0)
			return -ENOMEM;
		if (e < n)
			sb_add(out, "\"", 1);
		i = e + 1;
	}
	return out->lost ? -ENOMEM : 0;
}

/* An INI line: a key's value and a comment as text, the key and a section as they are. */
static int ini_line(struct cgw_redact *r, const char *l, size_t n, struct strbuf *out)
{
	size_t k = 0;
	while (k < n && (l[k] == ' ' || l[k] == '\t'))
		k++;
	const char *eq = memchr(l, '=', n);
	if (k == n || l[k] == '#' || l[k] == ';' || !eq)
		return k < n && l[k] == '[' ? (sb_add(out, l, n), 0) : redact_text(r, l, n, out);
	sb_add(out, l, (size_t)(eq + 1 - l));
	return redact_text(r, eq + 1, n - (size_t)(eq + 1 - l), out);
}

/* Text of a page (n bytes, escaped as html_esc escapes it): its entities read, redacted as
 * text, escaped again (only the five characters html_esc turns into entities: the rest of
 * its escapes are C escapes, text as the other reports have them). */
static int html_part(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	static const struct { const char *ent; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&#39;", '\'' },
	};
	struct strbuf raw = { 0 }, red = { 0 };
	for (size_t i = 0; i < n;) {
		size_t k = 0;
		if (in[i] == '&')
			while (k < (sizeof(ents) / sizeof(ents[0])) && (n - i < strlen(ents[k].ent) ||
			       memcmp(in + i, ents[k].ent, strlen(ents[k].ent)) != 0))
				k++;
		if (in[i] == '&' && k < (sizeof(ents) / sizeof(ents[0]))) {
			sb_add(&raw, &ents[k].c, 1);
			i += strlen(ents[k].ent);
		} else {
			sb_add(&raw, in + i, 1);
			i++;
		}
	}
	int e = raw.lost ? -ENOMEM : redact_text(r, raw.s ? raw.s : "", raw.len, &red);
	for (size_t i = 0; e == 0 && i < red.len; i++) {
		size_t k = 0;
		while (k < (sizeof(ents) / sizeof(ents[0])) && ents[k].c != red.s[i])
			k++;
		if (k < (sizeof(ents) / sizeof(ents[0])))
			sb_add(out, ents[k].ent, strlen(ents[k].ent));
		else
			sb_add(out, red.s + i, 1);
	}
	if (red.lost)
		e = -ENOMEM;
	sb_free(&raw);
	sb_free(&red);
	return e < 0 ? e : out->lost ? -ENOMEM : 0;
}

/* A page cgwatch wrote (sink-html.c): its text, title and href attributes (tooltips and the
 * references, as the JSON's strings are) redacted (html_part); the markup, every other
 * attribute (classes, ids, the policy) and the style sheet, whose sha256 the policy holds, as
 * they are. */
static int html_text(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out)
{
	size_t i = 0;
	while (i < n) {
		if (in[i] != '<') {
			const char *lt = memchr(in + i, '<', n - i);
			size_t e = lt ? (size_t)(lt - in) : n;
			if (html_part(r, in + i, e - i, out) < 0)
				return -ENOMEM;
			i = e;
			continue;
		}
		bool style = n - i >= 6 && strncmp(in + i, "<style", 6) == 0;
		while (i < n && in[i] != '>') {
			if (in[i] != '"') {
				sb_add(out, in + i, 1);
				i++;
				continue;
			}
			const char *q = memchr(in + i + 1, '"', n - i - 1);
			size_t e = q ? (size_t)(q - in) : n;
			bool title = (i >= 6 && memcmp(in + i - 6, "title=", 6) == 0) ||
			             (i >= 5 && memcmp(in + i - 5, "href=", 5) == 0);
			sb_add(out, "\"", 1);
			if (title && html_part(r, in + i + 1, e - i - 1, out) < 0)
				return -ENOMEM;
			if (!title)
				sb_add(out, in + i + 1, e - i - 1);
			if (e < n)
				sb_add(out, "\"", 1);
			i = e + 1;
		}
		if (i < n) {
			sb_add(out, ">", 1);
			i++;
		}
		if (style) {
			const char *end = memmem(in + i, n - i, "</style>", 8);
			size_t e = end ? (size_t)(end - in) : n;
			sb_add(out, in + i, e - i);
			i = e;
		}
	}
	return out->lost ? -ENOMEM : 0;
}

int redact_file(struct cgw_redact *r, const char *name, const char *in, size_t n,
                struct strbuf *out)
{
	size_t len = strlen(name);
	if (starts(name, "tree/"))
		return redact_member(r, name + 5, in, n, out);
	/* the reports: a check's, and the daemon's of the incidents open (incidents/NAME) */
	bool inc = starts(name, "incidents/") && !strchr(name + 10, '/');
	if (!strcmp(name, "report.json") || (inc && len > 15 && !strcmp(name + len - 5, ".json")))
		return json_text(r, in, n, out);
	if (inc && len > 15 && !strcmp(name + len - 5, ".html"))
		return html_text(r, in, n, out);
	bool txt = !strcmp(name, "report.txt") || (inc && len > 14 && !strcmp(name + len - 4, ".txt"));
	static const char on[] = "cgwatch check on ", kern[] = " (kernel ";
	const char *k = n > sizeof(on) && txt &&
	                !memcmp(in, on, sizeof(on) - 1) ? memmem(in, n, kern, sizeof(kern) - 1) : NULL;
	const char *nl = k ? memchr(in, '\n', n) : NULL;
	if (k && (!nl || k < nl)) {               /* the report's host: a field of its own */
		sb_add(out, in, sizeof(on) - 1);
		if (redact_text(r, in + sizeof(on) - 1, (size_t)(k - in) - (sizeof(on) - 1), out) < 0)
			return -ENOMEM;
		return redact_text(r, k, n - (size_t)(k - in), out);
	}
	if (!strcmp(name, "config/cgwatch.conf") ||
	    (starts(name, "signatures/") && len > 5 && !strcmp(name + len - 5, ".conf")))
		return by_line(r, in, n, out, ini_line);
	return redact_text(r, in, n, out);
}
