/* fuzz-passwd.c: who a host's users are (parse-passwd.c), and the redaction built from them
 * (sink-redact.c). The input as /etc/passwd: every entry has a name without ':', newline or
 * NUL, a uid below 2^32-1 and a home without ':' or newline; entries and bad lines together
 * are at most the lines; the entries written back as passwd lines parse to the same. The
 * input as a status file: 0..4 uids. Then the personal users and counted homes as a
 * redaction map over the input: the text redacted twice with one map is the same both times,
 * no personal name stands alone in it, and each counted home redacted as a path is no longer
 * itself. The input as every kind of bundle member, an incident's page too (no '<' added). */
#include <errno.h>

#include "fuzz.h"

static bool alone(const char *s, size_t n, const char *v)
{
	size_t vl = strlen(v);
	for (size_t i = 0; vl && i + vl <= n; i++)
		if (!memcmp(s + i, v, vl) && (i == 0 || s[i - 1] == ' ') &&
		    (i + vl == n || s[i + vl] == ' '))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	struct passwd_list l, again;
	size_t bad = 0, lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += buf[i] == '\n';
	FUZZ_CHECK(passwd_parse(buf, size, &l, &bad) == 0);
	FUZZ_CHECK(l.n + bad <= lines);
	struct strbuf w = { 0 };
	for (size_t i = 0; i < l.n; i++) {
		const struct passwd_ent *e = &l.v[i];
		FUZZ_CHECK(e->name[0] && !strpbrk(e->name, ":\n") && e->name[0] != '+' &&
		           e->name[0] != '-');
		FUZZ_CHECK(!strpbrk(e->home, ":\n"));
		FUZZ_CHECK(e->uid < 0xffffffffu);
		sb_printf(&w, "%s:x:%u:0::%s:/bin/sh\n", e->name, e->uid, e->home);
	}
	FUZZ_CHECK(!w.lost);
	FUZZ_CHECK(passwd_parse(w.s ? w.s : "", w.len, &again, &bad) == 0 && bad == 0);
	FUZZ_CHECK(again.n == l.n);
	for (size_t i = 0; i < l.n; i++)
		FUZZ_CHECK(!strcmp(again.v[i].name, l.v[i].name) && again.v[i].uid == l.v[i].uid &&
		           !strcmp(again.v[i].home, l.v[i].home));
	passwd_free(&again);
	sb_free(&w);

	unsigned uids[4];
	int nu = status_uids(buf, size, uids);
	FUZZ_CHECK(nu >= 0 && nu <= 4);

	struct cgw_redact *r = redact_new();
	FUZZ_CHECK(r);
	FUZZ_CHECK(redact_prefix(r, "/home/") == 0);
	for (size_t i = 0; i < l.n && i < 64; i++) {
		if (!redact_uid_personal(l.v[i].uid))
			continue;
		if (redact_user_name_ok(l.v[i].name))
			FUZZ_CHECK(redact_add(r, "user", l.v[i].name, strlen(l.v[i].name)));
		FUZZ_CHECK(redact_add_home(r, l.v[i].home) == 0);
	}
	struct strbuf a = { 0 }, b = { 0 };
	FUZZ_CHECK(redact_text(r, buf, size, &a) == 0);
	FUZZ_CHECK(redact_text(r, buf, size, &b) == 0);
	FUZZ_CHECK(a.len == b.len && (!a.len || !memcmp(a.s, b.s, a.len)));
	for (size_t i = 0; i < l.n && i < 64; i++)
		if (redact_uid_personal(l.v[i].uid) && redact_user_name_ok(l.v[i].name))
			FUZZ_CHECK(!alone(a.s ? a.s : "", a.len, l.v[i].name));
	for (size_t i = 0; i < l.n && i < 64; i++) {
		const char *h = l.v[i].home;
		if (!redact_uid_personal(l.v[i].uid) || !redact_home_counts(h))
			continue;
		struct strbuf p = { 0 };
		FUZZ_CHECK(redact_path(r, h, strlen(h), &p) == 0);
		FUZZ_CHECK(p.len > 0 && p.s[0] == '/');
		FUZZ_CHECK(p.len != strlen(h) || memcmp(p.s, h, p.len) != 0);   /* redacted */
		sb_free(&p);
	}
	/* the same input as every kind of member: whatever it holds, no crash, and the JSON
	 * rule keeps a report's quotes (an unterminated string stays so) */
	static const char *const names[] = { "report.json", "config/cgwatch.conf",
		"tree/proc/1/stat", "tree/proc/1/status", "tree/proc/1/sched", "tree/proc/1/cgroup",
		"tree/proc/self/mountinfo", "tree/proc/1/cmdline", "tree/cgwatch/mem/1-2",
		"tree/dev/kmsg", "tree/proc/1/stack", "incidents/20261130T071622Z-x.html" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct strbuf o = { 0 };
		FUZZ_CHECK(redact_file(r, names[k], buf, size, &o) == 0);
		if (k == 0) {
			size_t qi = 0, qo = 0;
			for (size_t i = 0; i < size; i++)
				qi += buf[i] == '"';
			for (size_t i = 0; i < o.len; i++)
				qo += o.s[i] == '"';
			bool quoted = false;              /* a name holding '"' takes it away */
			for (size_t i = 0; i < l.n && i < 64; i++)
				quoted |= redact_uid_personal(l.v[i].uid) && redact_user_name_ok(l.v[i].name) &&
				          strchr(l.v[i].name, '"');
			FUZZ_CHECK(quoted ? qo <= qi : qo == qi);
		}
		if (k == sizeof(names) / sizeof(names[0]) - 1) {   /* a page: no markup added */
			size_t li = 0, lo = 0;
			for (size_t i = 0; i < size; i++)
				li += buf[i] == '<';
			for (size_t i = 0; i < o.len; i++)
				lo += o.s[i] == '<';
			FUZZ_CHECK(lo <= li);
		}
		sb_free(&o);
	}
	char *nm = fuzz_str(data, size > 200 ? 200 : size);
	struct strbuf o = { 0 }, tn = { 0 };
	sb_printf(&tn, "tree/sys/fs/cgroup/%s", nm);
	sb_add(&tn, "", 1);
	FUZZ_CHECK(!tn.lost && redact_name(r, tn.s, false, &o) == 0);
	FUZZ_CHECK(o.len >= 19 && !memcmp(o.s, "tree/sys/fs/cgroup/", 19));
	sb_free(&o);
	sb_free(&tn);
	free(nm);
	sb_free(&a);
	sb_free(&b);
	redact_free(r);
	passwd_free(&l);
	free(buf);
	return 0;
}
