/* test-fpchain.c: the frame-pointer search (fpchain_find, parse-fpchain.c).
 *
 * Real stacks first: the files of tests/unit/fpchain were dumped (tests/unit/fpchain/dump.py) from
 * live vfork parents of tests/live/ustackhold built -O0 and -O2 -fno-omit-frame-pointer,
 * stopped in middle, and in middle_decoy, whose locals hold well-formed frame records that
 * are not its own (one linking to another beside the real return address into outer; one
 * linking into outer's frame beside a return address after another call; one ending in 0);
 * and stopped in middle called by main itself, and in main itself: the outermost frame
 * record's link is libc's rbp, which is not a record.
 * The search must find each frame's record ("want"), and whatever it is denied (the
 * prologue, the function, part of the window) it finds that one or none: never another.
 * Then made-up memory for each rule: the call forms, PLT stubs, links, recursion, the bound.
 * And what a capture keeps of the view (fpchain_word_counts): the same answer from it. */
#include "unit.h"

/* ---- memory: chunks at addresses ---- */

struct chunk { unsigned long at; size_t n; unsigned char *b; };
struct image {
	struct chunk c[512]; size_t nc;
	struct fpc_range ex[16]; size_t nex;
	unsigned long sp, pc, fn_start, fn_end, stack_lo, stack_hi, want;
	unsigned long hide_lo, hide_hi;     /* reads here fail */
	unsigned reads;
};

static int img_read(void *ctx, unsigned long addr, void *buf, size_t n)
{
	struct image *m = ctx;
	m->reads++;
	if (addr < m->hide_hi && addr + n > m->hide_lo)
		return -1;
	for (size_t i = 0; i < m->nc; i++)
		if (addr >= m->c[i].at && addr - m->c[i].at <= m->c[i].n &&
		    m->c[i].n - (addr - m->c[i].at) >= n) {
			memcpy(buf, m->c[i].b + (addr - m->c[i].at), n);
			return 0;
		}
	return -1;
}

/* bytes at at, joined to the chunk they continue */
static void img_put(struct image *m, unsigned long at, const void *b, size_t n)
{
	if (m->nc && m->c[m->nc - 1].at + m->c[m->nc - 1].n == at) {
		struct chunk *c = &m->c[m->nc - 1];
		c->b = realloc(c->b, c->n + n);
		assert_non_null(c->b);
		memcpy(c->b + c->n, b, n);
		c->n += n;
		return;
	}
	assert_true(m->nc < ARRAY_SIZE(m->c));
	struct chunk *c = &m->c[m->nc++];
	c->at = at;
	c->n = n;
	c->b = malloc(n);
	assert_non_null(c->b);
	memcpy(c->b, b, n);
}

static void img_free(struct image *m)
{
	for (size_t i = 0; i < m->nc; i++)
		free(m->c[i].b);
	m->nc = 0;
}

static struct chunk *img_chunk(struct image *m, unsigned long at)
{
	for (size_t i = 0; i < m->nc; i++)
		if (m->c[i].at == at)
			return &m->c[i];
	return NULL;
}

static void img_load(struct image *m, const char *name)
{
	char rel[256], path[4096], line[512];
	memset(m, 0, sizeof(*m));
	snprintf(rel, sizeof(rel), "tests/unit/fpchain/%s", name);
	assert_true(unit_srcpath(rel, path, sizeof(path)));
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char hex[300];
		if (sscanf(line, "sp %lx", &m->sp) == 1 || sscanf(line, "pc %lx", &m->pc) == 1 ||
		    sscanf(line, "want %lx", &m->want) == 1)
			continue;
		if (sscanf(line, "fn %lx %lx", &m->fn_start, &m->fn_end) == 2 ||
		    sscanf(line, "stack %lx %lx", &m->stack_lo, &m->stack_hi) == 2)
			continue;
		if (sscanf(line, "exec %lx %lx", &a, &b) == 2) {
			assert_true(m->nex < ARRAY_SIZE(m->ex));
			m->ex[m->nex++] = (struct fpc_range){ a, b };
		} else if (sscanf(line, "mem %lx %299s", &a, hex) == 2) {
			unsigned char by[150];
			size_t n = strlen(hex) / 2;
			for (size_t i = 0; i < n; i++)
				assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &by[i]), 1);
			img_put(m, a, by, n);
		}
	}
	fclose(f);
	assert_true(m->sp && m->want > m->sp && m->fn_start && m->nex && img_chunk(m, m->sp));
}

/* The search over m, its window the chunk at sp (len bytes of it; 0: all). */
static int search(struct image *m, size_t len, struct fpc_out *out)
{
	struct chunk *w = img_chunk(m, m->sp);
	assert_non_null(w);
	struct fpc_in in = {
		.win = w->b, .len = len && len < w->n ? len : w->n, .base = m->sp, .sp = m->sp,
		.pc = m->pc, .fn_start = m->fn_start, .fn_end = m->fn_end, .stack_lo = m->stack_lo,
		.stack_hi = m->stack_hi, .exec = m->ex, .nexec = m->nex, .read = img_read, .ctx = m,
	};
	return fpchain_find(&in, out);
}

static unsigned long word_at(struct image *m, unsigned long a)
{
	unsigned long v = 0;
	assert_int_equal(img_read(m, a, &v, 8), 0);
	return v;
}

/* Each real stack and what the search makes of it: the frame's record, told apart how, or
 * none, and why. */
static const struct { const char *file; int how; const char *why; } real[] = {
	{ "O0-vfork.txt", FPC_BY_CALL, NULL },
	{ "fp-vfork.txt", FPC_BY_CALL, NULL },
	{ "O0-decoy.txt", FPC_BY_CALL, NULL },
	{ "fp-decoy.txt", FPC_BY_CALL, NULL },
	/* middle called by main: its record links to main's, whose link (libc's rbp) is no
	 * record; above them the record of _start's indirect call, its link 0 */
	{ "O0-direct.txt", FPC_BY_CALL, NULL },
	{ "fp-direct.txt", FPC_BY_CALL, NULL },
	/* main itself, called through a pointer, its record's link no record: where its
	 * prologue puts it (-O2's has register moves among its pushes, 33 bytes), never
	 * _start's record */
	{ "O0-self.txt", FPC_BY_BOUND, NULL },
	{ "fp-self.txt", FPC_BY_BOUND, NULL },
	/* 1 KiB of alloca below the locals: the prologue's frame no longer keeps the scan above
	 * the decoys */
	{ "O0-decoya.txt", 0, "two records calling the function, not in one chain" },
	{ "fp-decoya.txt", 0, "two records calling the function, not in one chain" },
};

static bool is_decoy(size_t k)
{
	return strstr(real[k].file, "decoy") != NULL;
}

static void test_real_stacks(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(real); k++) {
		struct image m;
		struct fpc_out o;
		img_load(&m, real[k].file);
		int r = search(&m, 0, &o);
		if (real[k].how && (r != 0 || o.rbp != m.want || o.how != real[k].how)) {
			print_error("%s: %d rbp %lx how %d, want %lx how %d (%s)\n", real[k].file, r,
			            o.rbp, o.how, m.want, real[k].how, o.why ? o.why : "");
			fail();
		}
		if (!real[k].how && (r == 0 || strcmp(o.why, real[k].why))) {
			print_error("%s: %d rbp %lx (%s), want none: %s\n", real[k].file, r, o.rbp,
			            o.why ? o.why : "", real[k].why);
			fail();
		}
		if (real[k].how) {
			assert_true(o.ra == word_at(&m, m.want + 8));
			/* the prologue's frame: -O0 sub $N; fp builds push %rbx first, or not */
			assert_true(o.bound_exact && o.bound == m.want);
		} else if (is_decoy(k)) {
			/* below alloca: the decoy with the real return address is the lowest record
			 * calling middle_decoy, and the real one is not in its chain */
			assert_int_equal(r, -EAGAIN);
			assert_true(o.bound_exact && o.bound < m.want - 1024);
		}
		img_free(&m);
	}
}

/* The decoys are tempting: below the frame's record, inside its locals, a well-formed record
 * with the very return address into outer, and one linking into outer's frame. */
static void test_decoys_are_there(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(real); k++) {
		if (!is_decoy(k))
			continue;
		struct image m;
		img_load(&m, real[k].file);
		unsigned long ra = word_at(&m, m.want + 8), outer = word_at(&m, m.want);
		bool copy = false, into_outer = false;
		for (unsigned long a = m.sp; a < m.want; a += 8) {
			unsigned long l = word_at(&m, a), v = word_at(&m, a + 8);
			copy |= v == ra && l > a && l < m.stack_hi;
			into_outer |= l == outer && v != ra && v >= m.ex[0].start && v < m.ex[0].end;
		}
		assert_true(copy && into_outer);
		img_free(&m);
	}
}

/* Whatever the search is denied, it finds the frame's record or none. */
static void test_real_never_wrong(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(real); k++) {
		struct image m;
		struct fpc_out o;
		img_load(&m, real[k].file);
		size_t full = img_chunk(&m, m.sp)->n;
		for (int deny = 0; deny < 4; deny++) {
			struct image d = m;
			if (deny == 1) {            /* no prologue: no bound */
				d.hide_lo = m.fn_start;
				d.hide_hi = m.fn_start + 32;
			} else if (deny == 2) {     /* the function unknown: no call reaches it */
				d.fn_start = d.fn_end = 0;
			} else if (deny == 3) {     /* no code at all */
				d.hide_lo = 0;
				d.hide_hi = ~0ul;
			}
			for (size_t len = 16; len <= full; len += 8) {
				int r = search(&d, len, &o);
				if (r == 0 && o.rbp != m.want) {
					print_error("%s deny %d window %zu: rbp %lx, the frame's is %lx\n",
					            real[k].file, deny, len, o.rbp, m.want);
					fail();
				}
				assert_true(r == 0 || r == -ENOENT || r == -EAGAIN);
				assert_true(r == 0 || (o.why && o.why[0] && o.rbp == 0));
				if (real[k].how && deny == 0 && len >= m.want + 16 - m.sp && r != 0) {
					print_error("%s window %zu (its record in it): %d (%s)\n", real[k].file,
					            len, r, o.why);
					fail();
				}
			}
		}
		/* denied the prologue, a decoy calling the function is below the real record:
		 * two records calling it, not one chain: none */
		if (is_decoy(k)) {
			struct image d = m;
			d.hide_lo = m.fn_start;
			d.hide_hi = m.fn_start + 32;
			assert_int_equal(search(&d, 0, &o), -EAGAIN);
			d = m;
			d.fn_start = d.fn_end = 0;
			assert_int_equal(search(&d, 0, &o), -EAGAIN);
		}
		img_free(&m);
	}
}

/* ---- made-up memory ---- */

#define CODE 0x400000ul
#define F (CODE + 0x1000)               /* the stopped function */
#define STK 0x7000000ul
#define SP (STK + 0x1000)

struct fake {
	struct image m;
	unsigned char stack[0x800];
};

static void put_code(struct image *m, unsigned long at, const char *hex)
{
	unsigned char b[64];
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &b[i]);
	img_put(m, at, b, n);
}

/* a call of target ending at ra: e8 rel32 */
static void put_call(struct image *m, unsigned long ra, unsigned long target)
{
	unsigned char b[5] = { 0xe8 };
	int32_t rel = (int32_t)(target - ra);
	memcpy(b + 1, &rel, 4);
	put_code(m, ra - 16, "9090909090909090909090");
	img_put(m, ra - 5, b, 5);
}

static void fake_init(struct fake *f, const char *prologue)
{
	memset(f, 0, sizeof(*f));
	f->m.ex[0] = (struct fpc_range){ CODE, CODE + 0x10000 };
	f->m.nex = 1;
	f->m.sp = SP;
	f->m.pc = F + 0x40;
	f->m.fn_start = F;
	f->m.fn_end = F + 0x100;
	f->m.stack_lo = STK;
	f->m.stack_hi = SP + sizeof(f->stack);
	char pro[65];
	snprintf(pro, sizeof(pro), "%s%s", prologue,
	         "9090909090909090909090909090909090909090909090909090909090909090");
	put_code(&f->m, F, pro);             /* 32 bytes: what the search reads */
}

static void rec(struct fake *f, unsigned long at, unsigned long link, unsigned long ra)
{
	memcpy(f->stack + (at - SP), &link, 8);
	memcpy(f->stack + (at - SP) + 8, &ra, 8);
}

static int fsearch(struct fake *f, struct fpc_out *o)
{
	struct fpc_in in = {
		.win = f->stack, .len = sizeof(f->stack), .base = SP, .sp = SP, .pc = f->m.pc,
		.fn_start = f->m.fn_start, .fn_end = f->m.fn_end, .stack_lo = STK,
		.stack_hi = f->m.stack_hi, .exec = f->m.ex, .nexec = f->m.nex, .read = img_read,
		.ctx = &f->m,
	};
	int r = fpchain_find(&in, o);
	img_free(&f->m);
	return r;
}

#define PRO_SUB20 "554889e54883ec20"     /* push %rbp; mov %rsp,%rbp; sub $0x20,%rsp */
/* endbr64; push %rbp; mov %rsp,%rbp; push %rbx; push %r12; push %rax; then a nop */
#define PRO_PUSH "f30f1efa554889e553415450"

static void test_call_of_function(void **state)
{
	(void)state;
	struct fake f;
	struct fpc_out o;
	/* the record where the prologue puts it, its ra after a call of F; its caller's ends */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20 && o.ra == CODE + 0x2005 && o.how == FPC_BY_CALL);
	assert_true(o.bound == SP + 0x20 && o.bound_exact);
	/* a record in the locals (below the prologue's frame) is not looked at */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x00, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20);
	/* through a PLT stub (endbr64; bnd jmp *GOT(%rip)) whose GOT slot holds F */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, CODE + 0x5000);
	put_code(&f.m, CODE + 0x5000, "f30f1efaf2ff25f60f00009090909090");   /* GOT at 0x5000+11+0xff6 */
	unsigned long got = F;
	img_put(&f.m, CODE + 0x6001, &got, 8);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20 && o.how == FPC_BY_CALL);
	/* a PLT stub's slot holding another function: not F's call; nothing else reaches F,
	 * but the record is where the prologue puts it */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, CODE + 0x5000);
	put_code(&f.m, CODE + 0x5000, "f30f1efaf2ff25f60f00009090909090");
	got = F + 0x500;
	img_put(&f.m, CODE + 0x6001, &got, 8);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20 && o.how == FPC_BY_BOUND);
}

/* The prologue's frame, with the register moves compilers schedule among its pushes (gcc
 * -O2 -fno-omit-frame-pointer: main of tests/live/ustackhold), up to 48 bytes of it; a move
 * into rsp or rbp ends it. */
static void test_prologue(void **state)
{
	(void)state;
	static const struct { const char *code; unsigned long bound; bool exact; } cases[] = {
		/* push %rbp; xor %eax,%eax; mov %rsp,%rbp; push %r14; push %r13; push %r12;
		 * mov %edi,%r12d; mov $1,%edi; push %rbx; mov %rsi,%rbx; mov $9,%esi;
		 * sub $0x30,%rsp: 33 bytes */
		{ "5531c04889e54156415541544189fcbf01000000534889f3be090000004883ec30", 0x50, true },
		/* endbr64 first, and mov %r8,%r12 and a mov $imm,%r10d among the pushes */
		{ "f30f1efa554889e5534d89c441ba0500000041544881ec00010000", 0x110, true },
		/* mov %rax,%rsp among the pushes: the frame so far */
		{ "554889e5534889c44883ec10", 0x8, false },
		/* xor %ebp,%ebp before mov %rsp,%rbp: no prologue */
		{ "5531ed4889e54883ec10", 0, false },
		/* mov $imm,%esp: ends it */
		{ "554889e553bc100000004883ec10", 0x8, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fake f;
		struct fpc_out o;
		fake_init(&f, "");
		img_free(&f.m);
		put_code(&f.m, F, cases[i].code);
		put_code(&f.m, F + strlen(cases[i].code) / 2,
		         "9090909090909090909090909090909090909090909090909090909090909090");
		put_call(&f.m, CODE + 0x2005, F);
		put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
		rec(&f, SP + cases[i].bound, SP + 0x200, CODE + 0x2005);
		rec(&f, SP + 0x200, 0, CODE + 0x3005);
		int r = fsearch(&f, &o);
		if (r != 0 || o.bound != SP + cases[i].bound || o.bound_exact != cases[i].exact) {
			print_error("%s: %d bound sp+0x%lx exact %d\n", cases[i].code, r, o.bound - SP,
			            o.bound_exact);
			fail();
		}
	}
}

static void test_ambiguous(void **state)
{
	(void)state;
	struct fake f;
	struct fpc_out o;
	/* no prologue decoded: a record calling F in the locals, and the real one above it,
	 * not in its chain: none */
	fake_init(&f, "909090");
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x00, SP + 0x100, CODE + 0x2005);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	rec(&f, SP + 0x100, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	assert_null(strstr(o.why, "%"));
	/* the same, the locals' record linking to the real one: a record calling F from
	 * outside it, linked to another calling F, is not recursion */
	fake_init(&f, "909090");
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x00, SP + 0x20, CODE + 0x2005);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	/* real recursion: F's record returns into F after a call of F */
	fake_init(&f, "909090");
	put_call(&f.m, F + 0x45, F);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x10, SP + 0x40, F + 0x45);
	rec(&f, SP + 0x40, SP + 0x80, CODE + 0x2005);
	rec(&f, SP + 0x80, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x10 && o.how == FPC_BY_CALL);
	/* an indirect call's record below the one calling F: it may be F's: none */
	fake_init(&f, "909090");
	put_code(&f.m, CODE + 0x4000, "9090909090909090909090909090ffd0");
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x08, SP + 0x40, CODE + 0x4010);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	/* the prologue decoded whole and a record between its frame and the one calling F */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	put_call(&f.m, CODE + 0x7005, CODE + 0x7100);
	rec(&f, SP + 0x20, SP + 0x50, CODE + 0x7005);
	rec(&f, SP + 0x30, SP + 0x50, CODE + 0x2005);
	rec(&f, SP + 0x50, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	/* nothing calls F, the lowest is a direct call of another: none */
	fake_init(&f, "909090");
	put_call(&f.m, CODE + 0x7005, CODE + 0x7100);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x7005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -ENOENT);
	/* nothing at all */
	fake_init(&f, PRO_SUB20);
	assert_int_equal(fsearch(&f, &o), -ENOENT);
	assert_non_null(o.why);
}

/* F called indirectly: its record's call is an indirect one, in each encoding; trusted when
 * every other record is in its chain. */
static void test_indirect(void **state)
{
	(void)state;
	static const char *const forms[] = {
		"ffd0",                 /* call *%rax */
		"41ffd3",               /* call *%r11 */
		"3effd2",               /* notrack call *%rdx */
		"ff15f0ffffff",         /* call *disp32(%rip) */
		"ff542408",             /* call *0x8(%rsp) */
		"ff10",                 /* call *(%rax) */
		"41ff9424a0000000",     /* call *0xa0(%r12) */
		"ff5008",               /* call *0x8(%rax) */
	};
	struct fake f;
	struct fpc_out o;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		char code[80];
		size_t n = strlen(forms[i]) / 2;
		snprintf(code, sizeof(code), "%.*s%s", (int)(2 * (16 - n)),
		         "90909090909090909090909090909090", forms[i]);
		fake_init(&f, PRO_PUSH);
		put_code(&f.m, CODE + 0x4000, code);
		put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
		rec(&f, SP + 0x30, SP + 0x60, CODE + 0x4010);
		rec(&f, SP + 0x60, 0, CODE + 0x3005);
		int r = fsearch(&f, &o);
		if (r != 0 || o.rbp != SP + 0x30 || o.how != FPC_BY_CHAIN) {
			print_error("%s: %d rbp %lx how %d (%s)\n", forms[i], r, o.rbp, o.how,
			            o.why ? o.why : "");
			fail();
		}
		assert_true(o.bound == SP + 0x18 && !o.bound_exact);   /* three pushes, no sub */
	}
	/* not a call before it (nops; a jmp): no record */
	static const char *const nots[] = { "9090", "ffe0", "ff20", "c3" };
	for (size_t i = 0; i < ARRAY_SIZE(nots); i++) {
		char code[80];
		size_t n = strlen(nots[i]) / 2;
		snprintf(code, sizeof(code), "%.*s%s", (int)(2 * (16 - n)),
		         "cccccccccccccccccccccccccccccccc", nots[i]);
		fake_init(&f, PRO_PUSH);
		put_code(&f.m, CODE + 0x4000, code);
		put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
		rec(&f, SP + 0x30, SP + 0x60, CODE + 0x4010);
		rec(&f, SP + 0x60, 0, CODE + 0x3005);
		assert_int_equal(fsearch(&f, &o), -ENOENT);
	}
	/* an indirect call's record, and a record of another call outside its chain: none */
	fake_init(&f, PRO_PUSH);
	put_code(&f.m, CODE + 0x4000, "9090909090909090909090909090ffd0");
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x30, SP + 0x60, CODE + 0x4010);
	rec(&f, SP + 0x60, 0, CODE + 0x3005);
	rec(&f, SP + 0x90, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
}

/* The outermost frame-pointer frame: its caller keeps no frame pointer, so the rbp it saved
 * (its record's link) is anything, not a record. Such a record is trusted by its own call of
 * F, or where the prologue puts it; and it is a record for the others: an indirect call's
 * record above it (_start's, its link 0) is never taken over it. */
#define INDIRECT "9090909090909090909090909090ffd0"   /* ...; call *%rax: ra CODE+0x4010 */

static void test_outermost(void **state)
{
	(void)state;
	struct fake f;
	struct fpc_out o;
	for (int pro = 0; pro < 2; pro++) {
		/* F called by main, main's record's link libc's rbp (argc): F's record */
		fake_init(&f, pro ? PRO_SUB20 : "909090");
		put_call(&f.m, CODE + 0x2005, F);
		put_code(&f.m, CODE + 0x4000, INDIRECT);
		rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
		rec(&f, SP + 0x40, 3, CODE + 0x4010);
		rec(&f, SP + 0x80, 0, CODE + 0x4010);
		int r = fsearch(&f, &o);
		if (r != 0 || o.rbp != SP + 0x20 || o.how != FPC_BY_CALL)
			print_error("called by main, prologue %d: %d rbp %lx (%s)\n", pro, r, o.rbp,
			            o.why ? o.why : "");
		assert_int_equal(r, 0);
		assert_true(o.rbp == SP + 0x20 && o.ra == CODE + 0x2005 && o.how == FPC_BY_CALL);
		/* F's own link no record: called by code without frame pointers */
		fake_init(&f, pro ? PRO_SUB20 : "909090");
		put_call(&f.m, CODE + 0x2005, F);
		put_code(&f.m, CODE + 0x4000, INDIRECT);
		rec(&f, SP + 0x20, 0x12345, CODE + 0x2005);
		rec(&f, SP + 0x80, 0, CODE + 0x4010);
		assert_int_equal(fsearch(&f, &o), 0);
		assert_true(o.rbp == SP + 0x20 && o.how == FPC_BY_CALL);
		/* F called through a pointer, its link no record: where its prologue puts it, or
		 * none; never _start's */
		fake_init(&f, pro ? PRO_SUB20 : "909090");
		put_code(&f.m, CODE + 0x4000, INDIRECT);
		rec(&f, SP + 0x20, 3, CODE + 0x4010);
		rec(&f, SP + 0x80, 0, CODE + 0x4010);
		r = fsearch(&f, &o);
		if (pro) {
			assert_int_equal(r, 0);
			assert_true(o.rbp == SP + 0x20 && o.how == FPC_BY_BOUND);
		} else {
			if (r != -EAGAIN)
				print_error("through a pointer: %d rbp %lx (%s)\n", r, o.rbp,
				            o.why ? o.why : "");
			assert_int_equal(r, -EAGAIN);
			assert_string_equal(o.why, "the lowest record's link is not a record, and its "
			                    "call does not reach the function");
		}
	}
	/* where the prologue puts it, its link no record, but a chain of records above it (F
	 * took alloca, and its own record, an indirect call's, lies higher): none */
	fake_init(&f, PRO_SUB20);
	put_code(&f.m, CODE + 0x4000, INDIRECT);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, 0x9999, CODE + 0x4010);
	rec(&f, SP + 0x60, SP + 0xa0, CODE + 0x4010);
	rec(&f, SP + 0xa0, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	assert_string_equal(o.why, "the record where the prologue puts it links to no record, "
	                    "and records above it do");
	/* F's link no record's (below it), though a record calling F lies there, in its
	 * locals: not followed (a capture keeps no such link) */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_code(&f.m, CODE + 0x4000, INDIRECT);
	rec(&f, SP + 0x00, SP + 0x80, CODE + 0x2005);
	rec(&f, SP + 0x20, SP + 0x00, CODE + 0x2005);
	rec(&f, SP + 0x80, 0, CODE + 0x4010);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20 && o.how == FPC_BY_CALL);
	/* a copy of F's call in its locals, its link no record, below the real record: two
	 * records calling F, not in one chain: none */
	fake_init(&f, "909090");
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x00, 0x777, CODE + 0x2005);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	assert_string_equal(o.why, "two records calling the function, not in one chain");
	/* F called through a pointer from code without frame pointers (a callback of qsort that
	 * F itself called): its record, link no record, below the one of F's own call: that may
	 * be its frame as well: none */
	fake_init(&f, "909090");
	put_code(&f.m, CODE + 0x4000, INDIRECT);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x10, 0x9999, CODE + 0x4010);
	rec(&f, SP + 0x40, SP + 0x80, CODE + 0x2005);
	rec(&f, SP + 0x80, 0, CODE + 0x3005);
	int r = fsearch(&f, &o);
	if (r != -EAGAIN)
		print_error("callback: %d rbp %lx (%s)\n", r, o.rbp, o.why ? o.why : "");
	assert_int_equal(r, -EAGAIN);
	/* the prologue decoded whole: a record with its link no record between its frame and
	 * the one calling F: none */
	fake_init(&f, PRO_SUB20);
	put_code(&f.m, CODE + 0x4000, INDIRECT);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, 0x9999, CODE + 0x4010);
	rec(&f, SP + 0x40, SP + 0x80, CODE + 0x2005);
	rec(&f, SP + 0x80, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -EAGAIN);
	/* an indirect call's record, its chain whole, above one whose call does not reach F
	 * and whose link is no record: none */
	fake_init(&f, "909090");
	put_code(&f.m, CODE + 0x4000, INDIRECT);
	put_call(&f.m, CODE + 0x7005, CODE + 0x7100);
	rec(&f, SP + 0x10, 0x9999, CODE + 0x7005);
	rec(&f, SP + 0x40, 0, CODE + 0x4010);
	assert_int_equal(fsearch(&f, &o), -ENOENT);
}

/* What makes a record: its return address in an executable mapping after a call of an
 * executable address; and a record linked: its link 0 or above it in the stack, aligned,
 * itself a record. An indirect call's record is trusted only linked. */
static void test_links(void **state)
{
	(void)state;
	struct fake f;
	struct fpc_out o;
	static const struct { unsigned long link; int want; } cases[] = {
		{ SP + 0x40, 0 },
		{ 0, 0 },                       /* the chain's end */
		{ SP + 0x44, -EAGAIN },         /* misaligned */
		{ SP + 0x28, -EAGAIN },         /* not past the record itself */
		{ SP + 0x10, -EAGAIN },         /* below it */
		{ SP + 0x800, -EAGAIN },        /* past the stack */
		{ SP + 0x50, -EAGAIN },         /* no record there */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		fake_init(&f, "909090");
		put_code(&f.m, CODE + 0x4000, INDIRECT);
		put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
		rec(&f, SP + 0x20, cases[i].link, CODE + 0x4010);
		if (cases[i].link)                 /* else the chain ends: no other record */
			rec(&f, SP + 0x40, 0, CODE + 0x3005);
		int r = fsearch(&f, &o);
		if (r != cases[i].want || (r == 0 && (o.rbp != SP + 0x20 || o.how != FPC_BY_CHAIN))) {
			print_error("link %lx: %d rbp %lx, want %d\n", cases[i].link, r, o.rbp,
			            cases[i].want);
			fail();
		}
	}
	/* the return address in no executable mapping; a call of a non-executable address */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, 0x900005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -ENOENT);
	fake_init(&f, "909090");
	put_call(&f.m, CODE + 0x2005, 0x900000);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), -ENOENT);
	/* the caller's record past the window: read through read() */
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	f.m.stack_hi = SP + 0x2000;
	unsigned long far[2] = { 0, CODE + 0x3005 };
	img_put(&f.m, SP + 0x1000, far, sizeof(far));
	rec(&f, SP + 0x20, SP + 0x1000, CODE + 0x2005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20);
	/* pc inside the prologue: its frame not made, no bound */
	fake_init(&f, PRO_SUB20);
	f.m.pc = F + 4;
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.bound == SP && !o.bound_exact);
}

/* Past its budget of reads the search may not have seen the record that disagrees: none. */
static void test_read_budget(void **state)
{
	(void)state;
	struct fake f;
	struct fpc_out o;
	size_t len = 0x9000;
	unsigned long *w = calloc(len / 8, 8);
	assert_non_null(w);
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	put_code(&f.m, CODE + 0x4000, "90909090909090909090909090909090");
	w[0x20 / 8] = SP + 0x40;                 /* F's record, where its prologue puts it */
	w[0x28 / 8] = CODE + 0x2005;
	w[0x40 / 8] = 0;
	w[0x48 / 8] = CODE + 0x3005;
	for (size_t i = 0x60 / 8; i < len / 8; i++)   /* a chain's end, then code to read */
		w[i] = i % 2 ? CODE + 0x4010 : 0;    /* with no call before it */
	struct fpc_in in = {
		.win = (unsigned char *)w, .len = len, .base = SP, .sp = SP, .pc = f.m.pc,
		.fn_start = F, .fn_end = F + 0x100, .stack_lo = STK, .stack_hi = SP + len,
		.exec = f.m.ex, .nexec = 1, .read = img_read, .ctx = &f.m,
	};
	int r = fpchain_find(&in, &o);
	if (r != -EAGAIN || !strstr(o.why, "too much memory"))
		print_error("%d %s (%u reads)\n", r, o.why ? o.why : "-", f.m.reads);
	assert_int_equal(r, -EAGAIN);
	assert_non_null(strstr(o.why, "too much memory"));
	in.len = 0x1000;                         /* within the budget: found */
	in.stack_hi = SP + in.len;
	r = fpchain_find(&in, &o);
	if (r != 0)
		print_error("%d %s\n", r, o.why);
	assert_int_equal(r, 0);
	assert_true(o.rbp == SP + 0x20);
	img_free(&f.m);
	free(w);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct fpc_out o;
	unsigned char b[64] = { 0 };
	struct fpc_in in = { .win = b, .len = 8, .base = SP, .sp = SP, .stack_lo = STK,
	                     .stack_hi = SP + 64 };
	assert_int_equal(fpchain_find(&in, &o), -ENOENT);       /* too short */
	in.len = 64;
	in.sp = SP - 8;
	assert_int_equal(fpchain_find(&in, &o), -ENOENT);       /* sp below the window */
	in.sp = SP;
	in.stack_lo = in.stack_hi;
	assert_int_equal(fpchain_find(&in, &o), -ENOENT);
	in.stack_lo = STK;
	in.win = NULL;
	assert_int_equal(fpchain_find(&in, &o), -ENOENT);
	/* every word an executable address, no read(): nothing is a call */
	unsigned long w[8];
	for (size_t i = 0; i < 8; i++)
		w[i] = CODE + 0x10 + 8 * i;
	struct fpc_range ex = { CODE, CODE + 0x1000 };
	in = (struct fpc_in){ .win = (unsigned char *)w, .len = sizeof(w), .base = SP, .sp = SP,
	                      .stack_lo = STK, .stack_hi = SP + sizeof(w), .exec = &ex, .nexec = 1 };
	assert_int_equal(fpchain_find(&in, &o), -ENOENT);
}

/* ---- what a capture keeps of the scan's view ---- */

/* A capture's copy of image m: its stack words that do not count (fpchain_word_counts) read
 * FPC_UNKEPT, as a replay reads the words a capture left out (source-ustack.c). */
struct kept { struct image *m; const struct fpc_in *in; unsigned nkept, nread; };

static unsigned long kept_word(struct kept *k, unsigned long a)
{
	unsigned long w = 0, up = 0;
	bool ok = img_read(k->m, a, &w, 8) == 0, ok_up = img_read(k->m, a + 8, &up, 8) == 0;
	bool counts = ok && fpchain_word_counts(k->in, a, w, ok_up ? up : FPC_UNKEPT);
	k->nread++;
	k->nkept += counts;
	return counts ? w : FPC_UNKEPT;
}

static int kept_read(void *ctx, unsigned long addr, void *buf, size_t n)
{
	struct kept *k = ctx;
	unsigned char *b = buf;
	if (addr < k->in->stack_lo || addr >= k->in->stack_hi)
		return img_read(k->m, addr, buf, n);        /* code: as read */
	while (n) {
		unsigned long a = addr & ~7ul, o = addr - a, w = kept_word(k, a);
		size_t c = 8 - o < n ? 8 - o : n;
		memcpy(b, (unsigned char *)&w + o, c);
		b += c;
		addr += c;
		n -= c;
	}
	return 0;
}

/* The search over a capture's copy of the view comes to the same answer as over the stack
 * itself, for every real stack, whatever it is denied and however long its view; and the
 * copy keeps a small part of the view. */
static void test_kept_words(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(real); k++) {
		struct image m;
		img_load(&m, real[k].file);
		struct chunk *c = img_chunk(&m, m.sp);
		unsigned char *copy = malloc(c->n);
		assert_non_null(copy);
		for (int deny = 0; deny < 3; deny++) {
			struct image d = m;
			if (deny == 1) {
				d.hide_lo = m.fn_start;
				d.hide_hi = m.fn_start + 32;
			} else if (deny == 2) {
				d.fn_start = d.fn_end = 0;
			}
			for (size_t len = 16; len <= c->n; len += 8) {
				struct fpc_out o1, o2;
				int r1 = search(&d, len, &o1);
				struct fpc_in in = {
					.win = copy, .len = len, .base = d.sp, .sp = d.sp, .pc = d.pc,
					.fn_start = d.fn_start, .fn_end = d.fn_end, .stack_lo = d.stack_lo,
					.stack_hi = d.stack_hi, .exec = d.ex, .nexec = d.nex, .read = kept_read,
				};
				struct kept kp = { &d, &in, 0, 0 };
				in.ctx = &kp;
				for (size_t i = 0; i + 8 <= len; i += 8) {
					unsigned long w = kept_word(&kp, d.sp + i);
					memcpy(copy + i, &w, 8);
				}
				int r2 = fpchain_find(&in, &o2);
				if (r1 != r2 || o1.rbp != o2.rbp || o1.how != o2.how ||
				    strcmp(o1.why ? o1.why : "", o2.why ? o2.why : "")) {
					print_error("%s deny %d view %zu: %d %lx (%s), its copy's %d %lx (%s)\n",
					            real[k].file, deny, len, r1, o1.rbp, o1.why ? o1.why : "", r2,
					            o2.rbp, o2.why ? o2.why : "");
					fail();
				}
				if (deny == 0 && len == c->n && kp.nkept * 4 > kp.nread) {
					print_error("%s: %u of %u words read kept\n", real[k].file, kp.nkept,
					            kp.nread);
					fail();
				}
			}
		}
		free(copy);
		img_free(&m);
	}
}

/* Text in the locals and above the frames (a password, the environment) never counts; the
 * record, its link and its return address do. */
static void test_kept_not_text(void **state)
{
	(void)state;
	struct fake f;
	struct fpc_out o;
	fake_init(&f, PRO_SUB20);
	put_call(&f.m, CODE + 0x2005, F);
	put_call(&f.m, CODE + 0x3005, CODE + 0x2000);
	rec(&f, SP + 0x20, SP + 0x40, CODE + 0x2005);
	rec(&f, SP + 0x40, 0, CODE + 0x3005);
	static const char local[] = "TOPSECRET-1234", strings[] = "SECRET=hunter2\0--password=x";
	memcpy(f.stack, local, sizeof(local));                  /* a local array */
	memcpy(f.stack + 0x100, strings, sizeof(strings));      /* the stack's top */
	struct fpc_in in = { .stack_lo = STK, .stack_hi = f.m.stack_hi, .exec = f.m.ex,
	                     .nexec = f.m.nex };
	unsigned long w[2];
	for (size_t i = 0; i + 8 < sizeof(f.stack); i += 8) {
		memcpy(w, f.stack + i, 16);
		bool counts = fpchain_word_counts(&in, SP + i, w[0], w[1]);
		bool want = i == 0x20 || i == 0x28 || i == 0x40 || i == 0x48;
		if (counts != want)
			print_error("word at sp+0x%zx (%lx): counts %d\n", i, w[0], counts);
		assert_true(counts == want);
	}
	assert_int_equal(fsearch(&f, &o), 0);
	assert_true(o.rbp == SP + 0x20);
	/* a link only below a return address, and only one that could be a link */
	assert_false(fpchain_word_counts(&in, SP, SP + 0x40, 0));
	assert_true(fpchain_word_counts(&in, SP, 0, CODE + 0x10));
	assert_true(fpchain_word_counts(&in, SP, SP + 0x10, CODE + 0x10));
	assert_false(fpchain_word_counts(&in, SP, SP + 0x8, CODE + 0x10));    /* not above it */
	assert_false(fpchain_word_counts(&in, SP, SP + 0x11, CODE + 0x10));   /* unaligned */
	assert_false(fpchain_word_counts(&in, SP, f.m.stack_hi, CODE + 0x10)); /* past the stack */
	assert_false(fpchain_word_counts(&in, SP, FPC_UNKEPT, CODE + 0x10));
	assert_false(fpchain_word_counts(&in, SP, FPC_UNKEPT, FPC_UNKEPT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_stacks),
		cmocka_unit_test(test_decoys_are_there),
		cmocka_unit_test(test_real_never_wrong),
		cmocka_unit_test(test_call_of_function),
		cmocka_unit_test(test_prologue),
		cmocka_unit_test(test_ambiguous),
		cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_outermost),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_read_budget),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_kept_words),
		cmocka_unit_test(test_kept_not_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
