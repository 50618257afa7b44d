/* fuzz-group.c: a host's groups and its names in /etc/hosts (parse-group.c), and the
 * redaction built from them (sink-redact.c). The input as /etc/group: every entry has a name
 * without ':', newline or NUL that is not a NIS "+"/"-" entry and a gid below 2^32-1; entries
 * and bad lines together are at most the lines; the entries written back parse to the same.
 * The input as /etc/hosts for the host "web-01" and for its first word: names and addresses
 * non-empty, without white space or '#', each once, no localhost and no loopback address.
 * Then the groups, names and addresses as a redaction map over the input: the text redacted
 * twice is the same both times, no group name stands alone in it, and every name (shorter
 * than 200 bytes, not ending in '.') or address (2..64 of its characters) that is a span of
 * its own is no longer there. */
#include <errno.h>

#include "fuzz.h"

static bool alone(const char *s, size_t n, const char *v, const char *sep)
{
	size_t vl = strlen(v);
	for (size_t i = 0; vl && i + vl <= n; i++)
		if (!memcmp(s + i, v, vl) && (i == 0 || strchr(sep, s[i - 1])) &&
		    (i + vl == n || strchr(sep, s[i + vl])))
			return true;
	return false;
}

static void check_hosts(const struct hosts_list *l)
{
	for (size_t i = 0; i < l->nnames; i++) {
		FUZZ_CHECK(l->names[i][0] && !strpbrk(l->names[i], " \t\n#"));
		FUZZ_CHECK(strcasecmp(l->names[i], "localhost") != 0);
		for (size_t k = 0; k < i; k++)
			FUZZ_CHECK(strcmp(l->names[i], l->names[k]) != 0);
	}
	for (size_t i = 0; i < l->naddrs; i++) {
		FUZZ_CHECK(l->addrs[i][0] && !strpbrk(l->addrs[i], " \t\n#"));
		FUZZ_CHECK(strncmp(l->addrs[i], "127.", 4) && strcmp(l->addrs[i], "::1"));
		for (size_t k = 0; k < i; k++)
			FUZZ_CHECK(strcmp(l->addrs[i], l->addrs[k]) != 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	struct group_list l, again;
	size_t bad = 0, lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += buf[i] == '\n';
	FUZZ_CHECK(group_parse(buf, size, &l, &bad) == 0);
	FUZZ_CHECK(l.n + bad <= lines);
	struct strbuf w = { 0 };
	for (size_t i = 0; i < l.n; i++) {
		const struct group_ent *e = &l.v[i];
		FUZZ_CHECK(e->name[0] && !strpbrk(e->name, ":\n") && e->name[0] != '+' &&
		           e->name[0] != '-');
		FUZZ_CHECK(e->gid < 0xffffffffu);
		sb_printf(&w, "%s:x:%u:\n", e->name, e->gid);
	}
	FUZZ_CHECK(!w.lost);
	FUZZ_CHECK(group_parse(w.s ? w.s : "", w.len, &again, &bad) == 0 && bad == 0);
	FUZZ_CHECK(again.n == l.n);
	for (size_t i = 0; i < l.n; i++)
		FUZZ_CHECK(!strcmp(again.v[i].name, l.v[i].name) && again.v[i].gid == l.v[i].gid);
	group_free(&again);
	sb_free(&w);

	char first[64];
	size_t fl = 0;
	while (fl < size && fl < sizeof(first) - 1 && !strchr(" \t\n#", buf[fl]))
		fl++;
	memcpy(first, buf, fl);
	first[fl] = '\0';
	struct hosts_list h[2];
	FUZZ_CHECK(hosts_parse(buf, size, "web-01", &h[0]) == 0);
	FUZZ_CHECK(hosts_parse(buf, size, first, &h[1]) == 0);
	check_hosts(&h[0]);
	check_hosts(&h[1]);

	struct cgw_redact *r = redact_new();
	FUZZ_CHECK(r);
	for (size_t i = 0; i < l.n && i < 64; i++)
		if (redact_user_name_ok(l.v[i].name))
			FUZZ_CHECK(redact_add(r, "group", l.v[i].name, strlen(l.v[i].name)));
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < h[k].nnames && i < 64; i++)
			FUZZ_CHECK(redact_add_host(r, h[k].names[i], NULL) == 0);
		for (size_t i = 0; i < h[k].naddrs && i < 64; i++) {
			int e = redact_add_addr(r, h[k].addrs[i]);
			FUZZ_CHECK(e == 0 || e == -EINVAL);
		}
	}
	struct strbuf a = { 0 }, b = { 0 };
	FUZZ_CHECK(redact_text(r, buf, size, &a) == 0);
	FUZZ_CHECK(redact_text(r, buf, size, &b) == 0);
	FUZZ_CHECK(a.len == b.len && (!a.len || !memcmp(a.s, b.s, a.len)));
	for (size_t i = 0; i < l.n && i < 64; i++)
		if (redact_user_name_ok(l.v[i].name))
			FUZZ_CHECK(!alone(a.s ? a.s : "", a.len, l.v[i].name, " "));
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < h[k].nnames + h[k].naddrs && i < 64; i++) {
			const char *v = i < h[k].nnames ? h[k].names[i] : h[k].addrs[i - h[k].nnames];
			struct strbuf o = { 0 };
			FUZZ_CHECK(redact_text(r, v, strlen(v), &o) == 0);
			bool addr = i >= h[k].nnames;
			size_t vl = strlen(v);            /* what the map takes as it is */
			/* a name that is itself a token ("REDACTED-host-4") may be given that token */
			bool taken = addr ? vl >= 2 && vl <= 64 && strspn(v, "0123456789abcdefABCDEF.:") == vl
			                  : vl < 200 && v[vl - 1] != '.' && strcmp(v, "(none)") != 0 &&
			                    strncmp(v, "REDACTED-", 9) != 0;
			if (taken)
				FUZZ_CHECK(o.len != strlen(v) || memcmp(o.s, v, o.len) != 0);
			sb_free(&o);
		}
		hosts_free(&h[k]);
	}
	sb_free(&a);
	sb_free(&b);
	redact_free(r);
	group_free(&l);
	free(buf);
	return 0;
}
