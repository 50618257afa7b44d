/* test-ustackcap.c: a capture's cgwatch/ustack/TGID files (parse-ustack.c), their redaction
 * (sink-redact.c), and a replay's side of source-ustackcap.c: notes, memory, build-ids. */
#include <fcntl.h>
#include <sys/stat.h>

#include "unit.h"

/* The bytes 0..n-1 of a pattern at addr. */
static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

static void test_mem(void **state)
{
	(void)state;
	struct ustack_mem m = { 0 };
	uint8_t b[600], got[600];
	pattern(b, sizeof(b), 3);
	assert_int_equal(umem_put(&m, 0x7ffd00001003, b, 5), 0);        /* unaligned, 2 words */
	assert_true(umem_get(&m, 0x7ffd00001003, got, 5));
	assert_bytes_equal((char *)got, (char *)b, 5);
	assert_false(umem_get(&m, 0x7ffd00001002, got, 2));              /* one byte unknown */
	assert_false(umem_get(&m, 0x7ffd00001007, got, 2));
	assert_int_equal(umem_put(&m, 0x1000, b, sizeof(b)), 0);          /* many words: grows */
	assert_true(umem_get(&m, 0x1000, got, sizeof(b)));
	assert_bytes_equal((char *)got, (char *)b, sizeof(b));
	assert_int_equal(m.bytes, 5 + sizeof(b));
	assert_int_equal(umem_put(&m, 0x1000, b, 8), 0);                  /* again: not counted */
	assert_int_equal(m.bytes, 5 + sizeof(b));
	assert_int_equal(umem_put(&m, UINT64_MAX - 2, b, 8), -EINVAL);
	assert_false(umem_get(&m, UINT64_MAX - 2, got, 8));
	umem_free(&m);
	assert_false(umem_get(&m, 0x1000, got, 1));                       /* empty */
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct ustack_file a = { 0 }, b;
	uint8_t stack[700], got[700];
	pattern(stack, sizeof(stack), 9);
	assert_int_equal(ustack_add_unwound(&a, 812), 0);
	assert_int_equal(ustack_add_unwound(&a, 812), 0);                 /* once */
	assert_int_equal(ustack_add_note(&a, 813, "user stack unreadable: timed out\nafter 2 s", 42), 0);
	assert_int_equal(ustack_add_module(&a, "/usr/lib/x86_64-linux-gnu/libc.so.6",
	                                   "93ac61ec5a8eb1396f9fbd350e3169a558528a40"), 0);
	assert_int_equal(ustack_add_module(&a, "/opt/my app/bin/prog (deleted)", "-"), 0);
	assert_int_equal(ustack_add_module(&a, "/opt/my app/bin/prog (deleted)", "abcd"), 0);
	assert_int_equal(umem_put(&a.mem, 0x7ffd2a3c1f08, stack, sizeof(stack)), 0);
	assert_int_equal(umem_put(&a.mem, 0x55c51b8f2101, stack, 3), 0);
	assert_int_equal(ustack_add_scan(&a, 0x7ffd2a3c1e00, 8192), 0);
	assert_int_equal(ustack_add_scan(&a, 0x7ffd2a3c1e00, 16), 0);     /* the first stays */
	assert_int_equal(ustack_add_scan(&a, 0x7ffd2a3c0000, 0), 0);
	assert_int_equal(ustack_add_scan(&a, 0x1000, USTACK_SCAN_MAX + 1), -EINVAL);
	assert_int_equal(ustack_add_scan(&a, UINT64_MAX - 8, 16), -EINVAL);
	a.cut = true;
	struct strbuf t = { 0 };
	ustack_format(&a, &t);
	assert_false(t.lost);
	assert_non_null(strstr(t.s, "note 813 user stack unreadable: timed out after 2 s\n"));
	assert_non_null(strstr(t.s, "module - /opt/my app/bin/prog (deleted)\n"));
	assert_non_null(strstr(t.s, "mem 55c51b8f2101 "));
	assert_non_null(strstr(t.s, "\nscan 7ffd2a3c1e00 8192\nscan 7ffd2a3c0000 0\n"));
	size_t line;
	assert_int_equal(ustack_parse(t.s, t.len, &b, &line), 0);
	assert_true(ustack_was_unwound(&b, 812));
	assert_false(ustack_was_unwound(&b, 813));
	assert_string_equal(ustack_note(&b, 813), "user stack unreadable: timed out after 2 s");
	assert_null(ustack_note(&b, 812));
	assert_string_equal(ustack_module(&b, "/usr/lib/x86_64-linux-gnu/libc.so.6")->build_id,
	                    "93ac61ec5a8eb1396f9fbd350e3169a558528a40");
	assert_string_equal(ustack_module(&b, "/opt/my app/bin/prog (deleted)")->build_id, "-");
	assert_null(ustack_module(&b, "/opt/my app/bin/prog"));
	assert_true(umem_get(&b.mem, 0x7ffd2a3c1f08, got, sizeof(stack)));
	assert_bytes_equal((char *)got, (char *)stack, sizeof(stack));
	assert_false(umem_get(&b.mem, 0x7ffd2a3c1f07, got, 1));
	assert_false(umem_get(&b.mem, 0x55c51b8f2100, got, 1));
	assert_true(b.cut);
	assert_false(b.redacted);
	assert_int_equal(b.nscans, 2);
	assert_int_equal(ustack_scan_at(&b, 0x7ffd2a3c1e00)->len, 8192);
	assert_int_equal(ustack_scan_at(&b, 0x7ffd2a3c0000)->len, 0);
	assert_null(ustack_scan_at(&b, 0x7ffd2a3c1e08));
	struct strbuf t2 = { 0 };                 /* written again: the same text */
	ustack_format(&b, &t2);
	assert_string_equal(t2.s, t.s);
	sb_free(&t2);
	ustack_file_free(&b);

	/* the redacted form: no memory, marked, still a file */
	struct strbuf d = { 0 };
	assert_int_equal(ustack_drop_mem(t.s, t.len, &d), 0);
	assert_null(strstr(d.s, "mem "));
	assert_int_equal(ustack_parse(d.s, d.len, &b, &line), 0);
	assert_true(b.redacted);
	assert_int_equal(b.mem.bytes, 0);
	assert_true(ustack_was_unwound(&b, 812));
	assert_int_equal(b.nscans, 2);
	ustack_file_free(&b);
	sb_free(&d);
	sb_free(&t);
	ustack_file_free(&a);
}

static void test_bad(void **state)
{
	(void)state;
	static const struct { const char *in; size_t line; } bad[] = {
		{ "", 1 },
		{ "cgwatch-ustack 2\n", 1 },
		{ "cgwatch-ustack 1 \n", 1 },
		{ "cgwatch-ustack 1\nunwound 0\n", 2 },
		{ "cgwatch-ustack 1\nunwound -1\n", 2 },
		{ "cgwatch-ustack 1\nunwound 2147483648\n", 2 },
		{ "cgwatch-ustack 1\nunwound 7 x\n", 2 },
		{ "cgwatch-ustack 1\nnote 7\n", 2 },
		{ "cgwatch-ustack 1\nnote 7 \n", 2 },
		{ "cgwatch-ustack 1\nnote 7 a\nnote 7 b\n", 3 },           /* twice */
		{ "cgwatch-ustack 1\nmodule abc /x\n", 2 },                /* odd hex */
		{ "cgwatch-ustack 1\nmodule ABCD /x\n", 2 },               /* upper case */
		{ "cgwatch-ustack 1\nmodule ab\n", 2 },                    /* no path */
		{ "cgwatch-ustack 1\nmodule ab \n", 2 },
		{ "cgwatch-ustack 1\nmodule ab /x\nmodule cd /x\n", 3 },   /* a path twice */
		{ "cgwatch-ustack 1\nmem 1000\n", 2 },
		{ "cgwatch-ustack 1\nmem 1000 \n", 2 },
		{ "cgwatch-ustack 1\nmem 1000 abc\n", 2 },
		{ "cgwatch-ustack 1\nmem 1000 zz\n", 2 },
		{ "cgwatch-ustack 1\nmem 0x1000 00\n", 2 },
		{ "cgwatch-ustack 1\nmem 10000000000000000 00\n", 2 },    /* 17 digits */
		{ "cgwatch-ustack 1\nmem ffffffffffffffff 0000\n", 2 },   /* past the end */
		{ "cgwatch-ustack 1\nwhat\n", 2 },
		{ "cgwatch-ustack 1\nscan 1000\n", 2 },
		{ "cgwatch-ustack 1\nscan 1000 \n", 2 },
		{ "cgwatch-ustack 1\nscan 1000 8x\n", 2 },
		{ "cgwatch-ustack 1\nscan 1000 -8\n", 2 },
		{ "cgwatch-ustack 1\nscan 1000 65537\n", 2 },            /* over USTACK_SCAN_MAX */
		{ "cgwatch-ustack 1\nscan 0x1000 8\n", 2 },
		{ "cgwatch-ustack 1\nscan ffffffffffffffff 8\n", 2 },   /* past the end */
		{ "cgwatch-ustack 1\nscan 1000 8\nscan 1000 16\n", 3 },  /* an address twice */
		{ "cgwatch-ustack 1\nunwound 3\ncut \n", 3 },
	};
	struct ustack_file f;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t line = 0;
		int r = ustack_parse(bad[i].in, strlen(bad[i].in), &f, &line);
		if (r == 0)
			print_error("accepted: %s\n", esc(bad[i].in));
		assert_int_equal(r, -EINVAL);
		if (line != bad[i].line)
			print_error("%s: line %zu, want %zu\n", esc(bad[i].in), line, bad[i].line);
		assert_int_equal(line, bad[i].line);
		assert_null(f.mods);
	}
	static const char nul[] = "cgwatch-ustack 1\nnote 7 a\0b\n";
	size_t line;
	assert_int_equal(ustack_parse(nul, sizeof(nul) - 1, &f, &line), -EINVAL);
	/* a long line of memory is read; one past USTACK_LINE_MAX bytes is not */
	struct strbuf s = { 0 };
	sb_printf(&s, "cgwatch-ustack 1\n\nmem 1000 ");
	for (size_t i = 0; i < USTACK_LINE_MAX; i++)
		sb_add(&s, "5a", 2);
	assert_int_equal(ustack_parse(s.s, s.len, &f, &line), 0);
	assert_int_equal(f.mem.bytes, USTACK_LINE_MAX);
	ustack_file_free(&f);
	sb_add(&s, "5a", 2);
	assert_int_equal(ustack_parse(s.s, s.len, &f, &line), -EINVAL);
	sb_free(&s);
	assert_int_equal(ustack_parse("cgwatch-ustack 1", 16, &f, &line), 0);   /* no newline */
	struct strbuf t = { 0 };          /* no memory: written all the same (fuzz-ustack) */
	ustack_format(&f, &t);
	assert_string_equal(t.s, "cgwatch-ustack 1\n");
	sb_free(&t);
	ustack_file_free(&f);
}

/* Merging unwinds into one file stops at USTACK_FILE_MAX_MEM and says it was cut. */
static void test_merge_cap(void **state)
{
	(void)state;
	struct ustack_file all = { 0 }, one = { 0 };
	uint8_t *b = xcalloc(1, 64 << 10);
	for (uint64_t a = 0x10000; all.mem.bytes < USTACK_FILE_MAX_MEM; a += 1 << 20) {
		assert_int_equal(umem_put(&one.mem, a, b, 64 << 10), 0);
		assert_int_equal(ustack_add_module(&one, "/lib/x.so", "00"), 0);
		assert_int_equal(ustack_merge(&all, &one), 0);
		assert_false(all.cut);
		umem_free(&one.mem);
	}
	assert_int_equal(umem_put(&one.mem, 0x1, b, 16), 0);
	assert_int_equal(ustack_merge(&all, &one), 0);
	assert_true(all.cut);
	assert_int_equal(all.mem.bytes, USTACK_FILE_MAX_MEM);
	assert_int_equal(all.nmods, 1);
	ustack_file_free(&one);
	ustack_file_free(&all);
	free(b);
}

/* A redacted bundle's file: the memory left out, the home path of a module redacted. */
static void test_redact(void **state)
{
	(void)state;
	struct cgw_redact *r = redact_new();
	assert_non_null(r);
	assert_string_equal(redact_add(r, "user", "alice", 5), "REDACTED-user-1");
	assert_int_equal(redact_prefix(r, "/home/"), 0);
	static const char in[] = "cgwatch-ustack 1\nunwound 5\nnote 6 user stack not read: "
	                         "reading TID 5 timed out\nmodule 00ff /home/alice/bin/tool\n"
	                         "scan 7ffd0000 8192\nmem 7ffd0000 616c696365\n";
	struct strbuf out = { 0 };
	assert_int_equal(redact_member(r, "cgwatch/ustack/5", in, sizeof(in) - 1, &out), 0);
	assert_string_equal(out.s, "cgwatch-ustack 1\nredacted\nunwound 5\nnote 6 user stack not "
	                    "read: reading TID 5 timed out\nmodule 00ff "
	                    "/home/REDACTED-user-1/REDACTED-path-1/REDACTED-path-2\n"
	                    "scan 7ffd0000 8192\n");
	sb_free(&out);
	/* a file that is not one (another program's, an edited one): of its lines only those a
	 * file has, no memory in another form, no line with a NUL */
	static const char odd[] = "cgwatch-ustack 1\nstack 7ffd0000 hunter2\n\nmem2 7ffd 00\n"
	                          "note 7 a\0hunter2\nmemory hunter2\ncut\nunwound 5 hunter2\n"
	                          "scan 7ffd0000 8192 hunter2\nscan 7ffd hunter2\nmodule x /bin/y\n"
	                          "note x hunter2\ncut hunter2\nmodule - /bin/sh\nunwound 6";
	assert_int_equal(redact_member(r, "cgwatch/ustack/7", odd, sizeof(odd) - 1, &out), 0);
	assert_string_equal(out.s, "cgwatch-ustack 1\nredacted\ncut\nmodule - /bin/sh\nunwound 6\n");
	sb_free(&out);
	static const char nohead[] = "SECRET=hunter2\nunwound 5\n";
	assert_int_equal(redact_member(r, "cgwatch/ustack/8", nohead, sizeof(nohead) - 1, &out), 0);
	assert_string_equal(out.s, "redacted\nunwound 5\n");
	sb_free(&out);
	redact_free(r);
}

/* The unit test's own binary: its path and build-id (from /proc/self/exe). */
static void self_exe(char *path, size_t cap, char *bid, size_t bcap)
{
	ssize_t n = readlink("/proc/self/exe", path, cap - 1);
	assert_true(n > 0);
	path[n] = '\0';
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	char *img = xmalloc((size_t)st.st_size);
	assert_int_equal(read(fd, img, (size_t)st.st_size), st.st_size);
	close(fd);
	struct elf_info e;
	assert_int_equal(elf_parse_mem(img, (size_t)st.st_size, 1 << 20, &e), 0);
	elf_build_id_hex(&e, bid, bcap);
	elf_info_free(&e);
	free(img);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_replay(void **state)
{
	(void)state;
	char dir[] = "/tmp/cgw-test-ustackcap.XXXXXX", sub[4200];
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/cgwatch", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/cgwatch/ustack", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	char exe[4096], bid[2 * ELF_BUILD_ID_MAX + 1], text[8192];
	self_exe(exe, sizeof(exe), bid, sizeof(bid));
	assert_true(bid[0] != '\0');
	snprintf(text, sizeof(text), "cgwatch-ustack 1\nunwound 40\nnote 41 user stack not "
	         "unwound: [scan] ustack_max (8) unwinds this scan\nmodule %s %s\n"
	         "module 00112233 /nonexistent/lib.so\nmodule - /bin/none\n"
	         "module 0011 /proc/self/exe\nmem 7ffd1000 0102030405060708\n", bid, exe);
	put(sub, "40", text);
	put(sub, "50", "cgwatch-ustack 2\n");
	put(sub, "60", "cgwatch-ustack 1\nredacted\nunwound 60\n");

	struct cgw_scan s = { .live = false, .replay_root = dir };
	struct ucap_set *u = ucap_begin(&s, 2000);
	assert_non_null(u);
	struct cgw_task t = { .tgid = 40, .tid = 41 };
	char err[320] = "";
	assert_int_equal(ucap_replay_task(u, &s, &t, err, sizeof(err)), 1);
	assert_string_equal(err, "user stack not unwound: [scan] ustack_max (8) unwinds this "
	                    "scan (as captured)");
	err[0] = '\0';
	t.tid = 40;
	assert_int_equal(ucap_replay_task(u, &s, &t, err, sizeof(err)), 0);
	assert_true(ucap_in_round(u, &s, &t, 0));                  /* unwound live: first */
	assert_false(ucap_in_round(u, &s, &t, 1));
	t.tid = 42;                               /* not unwound, no note: may share */
	assert_int_equal(ucap_replay_task(u, &s, &t, err, sizeof(err)), 0);
	assert_false(ucap_in_round(u, &s, &t, 0));                 /* after those unwound */
	assert_true(ucap_in_round(u, &s, &t, 1));
	t.tgid = t.tid = 70;                      /* no file: not tried live, nothing said */
	assert_int_equal(ucap_replay_task(u, &s, &t, err, sizeof(err)), 1);
	assert_true(ucap_in_round(u, &s, &t, 1));
	assert_string_equal(err, "");
	t.tgid = t.tid = 50;                      /* not a file of ours: said, and named */
	assert_int_equal(ucap_replay_task(u, &s, &t, err, sizeof(err)), 1);
	assert_string_equal(err, "user stack not replayed: cgwatch/ustack/50: not understood");
	assert_int_equal(s.errors, 1);
	assert_string_equal(s.unreadable[0].path, "cgwatch/ustack/50");
	t.tgid = t.tid = 60;
	assert_int_equal(ucap_replay_task(u, &s, &t, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "user stack not replayed: the bundle was redacted"));

	struct ucap *c = ucap_for(u, 40);
	assert_non_null(c);
	assert_true(ucap_replaying(c));
	uint64_t v = 0;
	assert_int_equal(ucap_mem(c, 0x7ffd1000, &v, 8), 0);
	assert_true(v == 0x0807060504030201ull);
	assert_int_equal(ucap_mem(c, 0x7ffd1004, &v, 8), -1);   /* half of it */
	char why[300];
	assert_int_equal(ucap_module(c, exe, why, sizeof(why)), 0);
	assert_int_equal(ucap_module(c, exe, why, sizeof(why)), 0);          /* checked once */
	assert_int_equal(ucap_module(c, "/nonexistent/lib.so", why, sizeof(why)), -1);
	assert_string_equal(why, "replay: /nonexistent/lib.so build-id 00112233 not on this "
	                    "machine (No such file or directory)");
	assert_int_equal(ucap_module(c, "/bin/none", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the capture has no build-id of it"));
	assert_int_equal(ucap_module(c, "/usr/lib/other.so", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "the capture holds no build-id for it"));
	char want[600];
	snprintf(want, sizeof(want), "replay: /proc/self/exe build-id 0011 not on this machine "
	         "(the file there is build-id %s)", bid);
	assert_int_equal(ucap_module(c, "/proc/self/exe", why, sizeof(why)), -1);
	assert_string_equal(why, want);
	char stop[320] = "user stack ends at x+0x1: no unwind info for it";
	ucap_explain(c, stop, sizeof(stop));
	assert_string_equal(stop, "user stack ends at x+0x1: no unwind info for it (replay: the "
	                    "capture does not hold its memory at 0x7ffd1004)");
	ucap_free(c);
	assert_null(ucap_for(u, 50));             /* no file to unwind from */
	ucap_end(u);
	free(s.unreadable);
	remove_tree(dir);
}

/* Recording: what an unwind read is kept up to 64 KiB, the rest said cut; a finished unwind
 * is merged, and a thread with an error of its own is noted. */
static void test_record(void **state)
{
	(void)state;
	struct cgw_scan s = { .live = true };
	assert_null(ucap_begin(&s, 2000));        /* not recording: nothing to do */
	struct cgw_task t0 = { .tgid = 1, .tid = 1 };
	assert_true(ucap_in_round(NULL, &s, &t0, 0));   /* live: one round */
	assert_false(ucap_in_round(NULL, &s, &t0, 1));
	record_start();
	struct ucap_set *u = ucap_begin(&s, 2000);
	assert_non_null(u);
	struct ucap *c = ucap_for(u, 9);
	assert_non_null(c);
	assert_false(ucap_replaying(c));
	uint64_t w = 0x1122334455667788ull;
	for (unsigned long a = 0x7000; a < 0x7000 + (64 << 10); a += 8)
		ucap_saw(c, a, &w, 8);
	ucap_saw(c, 0x100000, &w, 8);             /* past 64 KiB */
	ucap_done(u, 9, 9, c);
	ucap_saw(c, 0x200000, &w, 8);             /* the next unwind counts afresh */
	ucap_done(u, 9, 10, c);
	struct cgw_task t = { .tgid = 9, .tid = 11 };
	snprintf(t.ustack_error, sizeof(t.ustack_error), "user stack not read: reading TID 9 timed out");
	ucap_note(u, &t);
	t.tid = 12;
	t.ustack_same_as = 9;                     /* shares: nothing to keep */
	ucap_note(u, &t);
	ucap_free(c);
	ucap_end(u);
	struct rec_entry *list = record_take(), *e = list;
	while (e && strcmp(e->path, "cgwatch/ustack/9"))
		e = e->next;
	assert_non_null(e);
	struct ustack_file f;
	size_t line;
	assert_int_equal(ustack_parse(e->data, e->len, &f, &line), 0);
	assert_true(ustack_was_unwound(&f, 9) && ustack_was_unwound(&f, 10));
	assert_string_equal(ustack_note(&f, 11), "user stack not read: reading TID 9 timed out");
	assert_null(ustack_note(&f, 12));
	assert_true(f.cut);
	assert_int_equal(f.mem.bytes, (64 << 10) + 8);
	assert_true(umem_get(&f.mem, 0x200000, &w, 8));
	assert_false(umem_get(&f.mem, 0x100000, &w, 8));
	ustack_file_free(&f);
	record_free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_merge_cap),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
