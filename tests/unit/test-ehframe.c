/* test-ehframe.c: the unwind tables of mapped files (parse-ehframe.c, source-ehframe.c,
 * source-mapfile.c): .eh_frame_hdr parsed from bytes built here (encodings, cut short, what
 * libunwind cannot search); the span of file bytes kept; the mapped file opened by
 * map_files, else by its path only when it is the mapped inode; and libunwind's lookup of a
 * pc of this very program in a forked copy of it, through ehtab_find_proc_info: the function
 * found is the one at that pc, and a second process of the same binary parses no file. */
#include <fcntl.h>
#include <libunwind.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"

static void put32(uint8_t *b, uint32_t v) { for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *b, uint64_t v) { for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i)); }

/* What ld writes: pcrel sdata4 eh_frame_ptr, udata4 count, datarel sdata4 table. */
static void test_hdr_ld(void **state)
{
	(void)state;
	uint8_t b[12 + 3 * 8] = { 1, 0x1b, 0x03, 0x3b };
	put32(b + 4, (uint32_t)(0x1000 - 4));         /* .eh_frame 0x1000 after the field */
	put32(b + 8, 3);
	struct eh_frame_hdr h;
	assert_int_equal(parse_eh_frame_hdr(b, sizeof(b), 0x5000, &h), 0);
	assert_int_equal(h.eh_frame, 0x5000 + 4 + 0x1000 - 4);
	assert_int_equal(h.fde_count, 3);
	assert_int_equal(h.table, 0x5000 + 12);
	/* a negative pc-relative offset: .eh_frame before the header */
	put32(b + 4, (uint32_t)-0x204);
	assert_int_equal(parse_eh_frame_hdr(b, sizeof(b), 0x5000, &h), 0);
	assert_int_equal(h.eh_frame, 0x5000 - 0x200);
	/* the table one pair short of its count */
	assert_int_equal(parse_eh_frame_hdr(b, sizeof(b) - 1, 0x5000, &h), -EINVAL);
	put32(b + 8, 0x20000000);
	assert_int_equal(parse_eh_frame_hdr(b, sizeof(b), 0x5000, &h), -EINVAL);
}

static void test_hdr_encodings(void **state)
{
	(void)state;
	uint8_t b[4 + 8 + 2 + 8] = { 1, 0x04, 0x02, 0x3b };   /* udata8 absolute, udata2 count */
	put64(b + 4, 0x123456789aull);
	b[12] = 1;
	b[13] = 0;
	struct eh_frame_hdr h;
	assert_int_equal(parse_eh_frame_hdr(b, sizeof(b), 0x5000, &h), 0);
	assert_int_equal(h.eh_frame, 0x123456789aull);
	assert_int_equal(h.fde_count, 1);
	assert_int_equal(h.table, 0x5000 + 14);
	b[1] = 0x3a;                                  /* datarel sdata2: -2 from the header */
	b[4] = 0xfe; b[5] = 0xff;
	memmove(b + 6, b + 12, 10);                   /* count and table follow at once */
	assert_int_equal(parse_eh_frame_hdr(b, 16, 0x5000, &h), 0);
	assert_int_equal(h.eh_frame, 0x5000 - 2);
	assert_int_equal(h.table, 0x5000 + 8);
	uint8_t ok[12 + 8] = { 1, 0x1b, 0x03, 0x3b };
	put32(ok + 8, 1);
	uint8_t c[sizeof(ok)];
	memcpy(c, ok, sizeof(c));
	c[0] = 2;                                     /* another version */
	assert_int_equal(parse_eh_frame_hdr(c, sizeof(c), 0, &h), -ENOTSUP);
	memcpy(c, ok, sizeof(c));
	c[3] = 0x03;                                  /* a table libunwind does not search */
	assert_int_equal(parse_eh_frame_hdr(c, sizeof(c), 0, &h), -ENOTSUP);
	memcpy(c, ok, sizeof(c));
	c[1] = 0xff;                                  /* omitted */
	assert_int_equal(parse_eh_frame_hdr(c, sizeof(c), 0, &h), -ENOTSUP);
	memcpy(c, ok, sizeof(c));
	c[1] = 0x9b;                                  /* indirect */
	assert_int_equal(parse_eh_frame_hdr(c, sizeof(c), 0, &h), -ENOTSUP);
	memcpy(c, ok, sizeof(c));
	c[1] = 0x01;                                  /* uleb128 */
	assert_int_equal(parse_eh_frame_hdr(c, sizeof(c), 0, &h), -ENOTSUP);
	memcpy(c, ok, sizeof(c));
	put32(c + 8, 0);                              /* no entries */
	assert_int_equal(parse_eh_frame_hdr(c, sizeof(c), 0, &h), -ENOTSUP);
	for (size_t n = 0; n < 12; n++)               /* every cut of the fixed part */
		assert_int_equal(parse_eh_frame_hdr(ok, n, 0, &h), -EINVAL);
	assert_int_equal(parse_eh_frame_hdr(ok, sizeof(ok), 0, &h), 0);
}

static void test_span(void **state)
{
	(void)state;
	struct elf_info e;
	memset(&e, 0, sizeof(e));
	e.load[0] = (struct elf_load){ 0, 0, 0x1000, 0x1000, 5 };
	e.load[1] = (struct elf_load){ 0x2000, 0x2000, 0x3000, 0x3000, 4 };
	e.nload = 2;
	e.eh_hdr = (struct elf_load){ 0x2800, 0x2800, 0x100, 0x100, 4 };
	e.have_eh_hdr = true;
	struct eh_frame_hdr h = { .eh_frame = 0x2900 };
	uint64_t off, va, len;
	assert_int_equal(eh_frame_span(&e, &h, &off, &va, &len), 0);
	assert_int_equal(off, 0x2800);
	assert_int_equal(va, 0x2800);
	assert_int_equal(len, 0x2800);                /* to the segment's end */
	h.eh_frame = 0x2400;                          /* .eh_frame first */
	assert_int_equal(eh_frame_span(&e, &h, &off, &va, &len), 0);
	assert_int_equal(va, 0x2400);
	assert_int_equal(len, 0x2c00);
	h.eh_frame = 0x800;                           /* in another segment */
	assert_int_equal(eh_frame_span(&e, &h, &off, &va, &len), -ERANGE);
	h.eh_frame = 0x2900;
	e.eh_hdr.filesz = 0x3000;                     /* the header past its segment */
	assert_int_equal(eh_frame_span(&e, &h, &off, &va, &len), -ERANGE);
}

/* /proc/PID/maps, in a buffer of ours, parsed into an index of ours (freed before the next). */
static char maps_buf[1 << 20];
static struct maps_index maps_ix;
static const struct maps_index *maps_of(int pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(maps_buf, 1, sizeof(maps_buf) - 1, f), line;
	fclose(f);
	maps_buf[n] = '\0';
	maps_index_free(&maps_ix);
	assert_int_equal(maps_index_parse(maps_buf, &maps_ix, &line), 0);
	return &maps_ix;
}

static void test_mapfile(void **state)
{
	(void)state;
	const struct maps_ent *m = maps_index_find(maps_of(getpid()),
	                                           (unsigned long)(uintptr_t)test_mapfile);
	assert_non_null(m);
	struct maps_ent e = *m;
	struct stat st;
	char why[256] = "";
	int fd = mapfile_open(getpid(), &e, &st, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(st.st_ino, e.inode);
	/* no such mapping (map_files refuses): the path, since it is the mapped inode */
	struct maps_ent x = e;
	x.start = 0x1000;
	x.end = 0x2000;
	fd = mapfile_open(getpid(), &x, &st, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(st.st_ino, e.inode);
	/* and not when the path now holds another inode */
	x.inode++;
	assert_int_equal(mapfile_open(getpid(), &x, &st, why, sizeof(why)), -ESTALE);
	assert_non_null(strstr(why, "not the one mapped"));
	x.path = "/nonexistent/x";
	x.path_len = strlen(x.path);
	assert_int_equal(mapfile_open(getpid(), &x, &st, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "cannot be opened"));
}

/* A remote address space over process pid's memory, its tables by ehtab. */
struct rctx { int memfd; struct ehtab_proc *eh; const struct maps_index *maps; char why[200]; };

static int r_find(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need, void *arg)
{
	struct rctx *c = arg;
	return ehtab_find_proc_info(c->eh, c->maps, as, ip, pi, need, arg, c->why, sizeof(c->why));
}
static void r_put(unw_addr_space_t as, unw_proc_info_t *pi, void *arg) { (void)as; (void)pi; (void)arg; }
static int r_dyn(unw_addr_space_t as, unw_word_t *d, void *arg) { (void)as; (void)d; (void)arg; return -UNW_ENOINFO; }
static unsigned mem_reads;
static int r_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int w, void *arg)
{
	(void)as;
	struct rctx *c = arg;
	if (w)
		return -UNW_EINVAL;
	uint64_t v;
	if (ehtab_mem(c->eh, addr, &v)) {
		*val = v;
		return 0;
	}
	mem_reads++;
	return pread(c->memfd, val, 8, (off_t)addr) == 8 ? 0 : -UNW_EINVAL;
}
static int r_reg(unw_addr_space_t as, unw_regnum_t r, unw_word_t *v, int w, void *arg)
{ (void)as; (void)r; (void)v; (void)w; (void)arg; return -UNW_EBADREG; }
static int r_fpreg(unw_addr_space_t as, unw_regnum_t r, unw_fpreg_t *v, int w, void *arg)
{ (void)as; (void)r; (void)v; (void)w; (void)arg; return -UNW_EBADREG; }
static int r_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{ (void)as; (void)c; (void)arg; return -UNW_EINVAL; }
static int r_name(unw_addr_space_t as, unw_word_t ip, char *b, size_t n, unw_word_t *o, void *arg)
{ (void)as; (void)ip; (void)b; (void)n; (void)o; (void)arg; return -UNW_ENOINFO; }
static unw_accessors_t acc = { r_find, r_put, r_dyn, r_mem, r_reg, r_fpreg, r_resume, r_name };

__attribute__((noinline)) static int target_fn(int x)
{
	return x * 3 + (int)getpid();
}

/* Look up target_fn's pc in process pid (a fork of this one); its proc info into *pi. */
static int lookup(int pid, unw_proc_info_t *pi, unsigned *reads)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/mem", pid);
	struct rctx c = { .memfd = open(p, O_RDONLY), .eh = ehtab_proc_new(pid, false), .maps = maps_of(pid) };
	assert_true(c.memfd >= 0);
	assert_non_null(c.eh);
	unw_addr_space_t as = unw_create_addr_space(&acc, 0);
	assert_non_null(as);
	mem_reads = 0;
	int r = unw_get_proc_info_by_ip(as, (unw_word_t)(uintptr_t)target_fn + 1, pi, &c);
	if (r < 0)
		fprintf(stderr, "# lookup: %d %s\n", r, c.why);
	*reads = mem_reads;
	unw_destroy_addr_space(as);
	ehtab_proc_free(c.eh);
	close(c.memfd);
	return r;
}

static pid_t kids[2];

/* A copy of this process that waits, silent, and dies with it; reaped by reap_all. */
static pid_t child(size_t i)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int nul = open("/dev/null", O_RDWR);
		for (int fd = 0; fd < 3; fd++)
			dup2(nul, fd);
		pause();
		_exit(0);
	}
	return kids[i] = pid;
}

static int reap_all(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(kids); i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
			kids[i] = 0;
		}
	return 0;
}

static void test_lookup_cache(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();                                   /* /proc/PID/mem, map_files */
	ehtab_cache_clear();
	struct ehtab_stats s0, s1, s2;
	ehtab_stats(&s0);
	pid_t a = child(0), b = child(1);
	unw_proc_info_t pi;
	unsigned reads;
	assert_int_equal(lookup(a, &pi, &reads), 0);
	assert_int_equal(pi.start_ip, (uintptr_t)target_fn);
	assert_true(pi.end_ip > pi.start_ip + 1);
	assert_int_equal(reads, 0);                   /* table, FDE and CIE: all from the copy */
	ehtab_stats(&s1);
	assert_int_equal(s1.parses - s0.parses, 1);
	assert_int_equal(s1.files, 1);
	assert_true(s1.bytes > 0 && s1.bytes <= EHTAB_CACHE_BYTES);
	/* another process of the same binary: found cached, no file parsed */
	assert_int_equal(lookup(b, &pi, &reads), 0);
	assert_int_equal(pi.start_ip, (uintptr_t)target_fn);
	ehtab_stats(&s2);
	assert_int_equal(s2.parses, s1.parses);
	assert_int_equal(s2.hits - s1.hits, 1);
	assert_int_equal(s2.lookups - s1.lookups, 1);
	ehtab_cache_clear();
	ehtab_stats(&s2);
	assert_int_equal(s2.files, 0);
	assert_int_equal(s2.bytes, 0);
}

int main(void)
{
	(void)target_fn(1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_ld),
		cmocka_unit_test(test_hdr_encodings),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_mapfile),
		cmocka_unit_test_teardown(test_lookup_cache, reap_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
