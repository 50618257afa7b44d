/* fuzz-unwind.c: the user-stack unwinder (source-ustack.c) as a replay runs it: our accessors,
 * the unwind tables of source-ehframe.c and libunwind's own CFI and DWARF expression
 * evaluation, over one ELF file with its unwind info, mapped at a given bias, its loaded
 * bytes and a stack image as the process's memory (a replay's, source-ustackcap.c), and
 * pc, sp and the argument registers. The input is a header (struct in, little-endian), the
 * stack image, then the ELF file; the seeds are stacks of a running program
 * (tests/fuzz/unwind-prog.c, seeds.py).
 *
 * What is promised: at most USTACK_MAX_FRAMES frames, each at a pc in an executable mapping
 * of the file, the first at pc itself; no frames only with a reason; no descriptor left open;
 * the same frames and reason again with the file's table cached. An unwind ends: its reads
 * are bounded (MAX_READS words), and libunwind reads each op of an expression it evaluates,
 * so a loop in one (DW_OP_skip back, as unwind-prog.c's loop_fn) ends there, not in a
 * timeout; a loop that reads nothing would be a timeout (tests/fuzz/run.sh: 5 s).
 * FUZZ_UNWIND_SAY=1 prints an input's frames and why its stack ends (to read a finding). */
#include <errno.h>

#include "fuzz.h"

#define MAX_READS 20000ul             /* ten times what the seeds' unwinds read */
#define SEG_MAX (1u << 20)            /* a larger segment is not put in memory */

struct in {
	uint64_t bias;                    /* where the file is mapped: runtime - link-time address */
	uint64_t pc, sp, arg[6];
	uint64_t stack;                   /* the address of the stack image's first byte */
	uint32_t stack_len;               /* its bytes, after the header (the rest: the file) */
	uint32_t flags;                   /* bit 0: arg[] are known */
};

struct buf { const uint8_t *d; size_t n; };

static int buf_read(void *ctx, uint64_t off, void *out, size_t len)
{
	const struct buf *b = ctx;
	if (off > b->n || len > b->n - off)
		return -EIO;
	memcpy(out, b->d + off, len);
	return 0;
}

static unsigned long page_down(unsigned long a) { return a & ~4095ul; }
static unsigned long page_up(unsigned long a) { return (a + 4095) & ~4095ul; }

/* The file's bytes (n) from off as its mapping at addr shows them: len bytes (none past
 * SEG_MAX) and on to the end of the last word, what the file holds there, zeros past its end. The rest
 * of the mapping's pages is left out (a read there fails): the unwind reads words of the code
 * and of the tables, and whole pages would cost most of each run. */
static void map_file(struct ustack_file *f, unsigned long addr, uint64_t off, uint64_t len,
                     const uint8_t *elf, size_t n)
{
	static const uint8_t zeros[8];
	if (len > SEG_MAX)
		return;
	uint64_t end = len + ((8 - ((addr + len) & 7)) & 7);
	uint64_t in = off < n ? n - off : 0;
	if (in > end)
		in = end;
	umem_put(&f->mem, addr, elf + (in ? off : 0), in);
	for (uint64_t z = in; z < end;) {
		uint64_t k = 8 - ((addr + z) & 7);
		k = k < end - z ? k : end - z;
		umem_put(&f->mem, addr + z, zeros, k);
		z += k;
	}
}

/* maps text as the kernel shows a process that mapped the file (as ld.so would: each
 * PT_LOAD, or the whole file when it does not parse) and the stack, into maps (NULL: not
 * wanted); the file's loaded bytes, the stack image and the file's build-id into f. */
static void lay_out(const struct in *h, const uint8_t *elf, size_t n, const char *path,
                    const uint8_t *stack, struct strbuf *maps, struct ustack_file *f)
{
	struct buf b = { elf, n };
	struct elf_info *e = xcalloc(1, sizeof(*e));
	char bid[2 * ELF_BUILD_ID_MAX + 2] = "-";
	bool ok = elf_parse_head(buf_read, &b, n, e) == 0 && e->nload;
	if (ok && e->build_id_len)
		elf_build_id_hex(e, bid, sizeof(bid));
	struct elf_load whole = { .filesz = n, .memsz = n ? n : 1, .flags = 5 };   /* r-x */
	for (size_t i = 0; i < (ok ? e->nload : 1); i++) {
		const struct elf_load *l = ok ? &e->load[i] : &whole;
		if (maps)
			sb_printf(maps, "%lx-%lx %c%c%cp %08lx 08:01 4242 %s\n",
			          h->bias + page_down(l->vaddr), h->bias + page_up(l->vaddr + l->memsz),
			          l->flags & 4 ? 'r' : '-', l->flags & 2 ? 'w' : '-',
			          l->flags & 1 ? 'x' : '-', page_down(l->off), path);
		map_file(f, h->bias + l->vaddr, l->off, l->filesz, elf, n);
	}
	elf_info_free(e);
	free(e);
	if (maps)
		sb_printf(maps, "%lx-%lx rw-p 00000000 00:00 0 [stack]\n", page_down(h->stack),
		          page_up(h->stack + h->stack_len));
	umem_put(&f->mem, h->stack, stack, h->stack_len);
	FUZZ_CHECK(ustack_add_module(f, path, bid) == 0);
}

struct result { struct cgw_uframe f[USTACK_MAX_FRAMES]; size_t n; char err[320]; };

/* One unwind, from the process f (moved in) and its maps. */
static void unwind(const struct in *h, const char *maps, struct ustack_file *f,
                   struct result *r)
{
	struct ucap *cap = ucap_replay_of(f);
	FUZZ_CHECK(cap);
	struct ustack_start st = { .pc = h->pc, .sp = h->sp, .args = h->flags & 1,
	                           .max_reads = MAX_READS };
	memcpy(st.arg, h->arg, sizeof(st.arg));
	memset(r, 0xa5, sizeof(*r));
	ustack_unwind_replay(cap, maps, &st, r->f, &r->n, r->err, sizeof(r->err));
}

static void check(const struct in *h, const char *maps, const char *path, const struct result *r)
{
	FUZZ_CHECK(r->n <= USTACK_MAX_FRAMES && memchr(r->err, 0, sizeof(r->err)));
	FUZZ_CHECK(r->n > 0 || r->err[0]);
	struct maps_index ix;
	size_t line;
	FUZZ_CHECK(r->n == 0 || maps_index_parse(maps, &ix, &line) == 0);
	for (size_t i = 0; i < r->n; i++) {
		const struct cgw_uframe *f = &r->f[i];
		const struct maps_ent *e = maps_index_find(&ix, f->pc);
		FUZZ_CHECK(e && e->x);
		FUZZ_CHECK(f->offset == f->pc - e->start + e->off);
		FUZZ_CHECK(memchr(f->module, 0, sizeof(f->module)) && !strcmp(f->module, path));
		FUZZ_CHECK(i > 0 || (f->pc == h->pc && f->pc_exact));
	}
	if (r->n)
		maps_index_free(&ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in h;
	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	size_t rest = size - sizeof(h);
	if (h.stack_len > rest)
		h.stack_len = (uint32_t)rest;
	const uint8_t *stack = data + sizeof(h), *elf = stack + h.stack_len;
	size_t n = rest - h.stack_len;
	const char *path = fuzz_file(elf, n);

	ehtab_cache_clear();              /* the file was rewritten: its table read anew */
	struct strbuf maps = { 0 };
	struct ustack_file f = { 0 };
	lay_out(&h, elf, n, path, stack, &maps, &f);
	FUZZ_CHECK(!maps.lost);

	struct result *a = xmalloc(sizeof(*a)), *b = xmalloc(sizeof(*b));
	unwind(&h, maps.s, &f, a);
	if (getenv("FUZZ_UNWIND_SAY")) {   /* to see what an input does: its frames, its end */
		for (size_t i = 0; i < a->n && i < USTACK_MAX_FRAMES; i++)
			fprintf(stderr, "#%zu pc 0x%lx +0x%lx%s%s\n", i, a->f[i].pc, a->f[i].offset,
			        a->f[i].pc_exact ? " exact" : "", a->f[i].fp_recovered ? " fp" : "");
		fprintf(stderr, "%zu frames; %s\n", a->n, a->err[0] ? a->err : "(outermost)");
	}
	check(&h, maps.s, path, a);
	int fd0 = dup(0);                 /* the lowest free descriptor, after a first unwind */
	close(fd0);
	lay_out(&h, elf, n, path, stack, NULL, &f);
	unwind(&h, maps.s, &f, b);                     /* its table from the cache */
	FUZZ_CHECK(a->n == b->n && !strcmp(a->err, b->err));
	for (size_t i = 0; i < a->n; i++)
		FUZZ_CHECK(a->f[i].pc == b->f[i].pc && a->f[i].fp_recovered == b->f[i].fp_recovered);
	ehtab_cache_clear();
	int fd1 = dup(0);
	close(fd1);
	FUZZ_CHECK(fd1 == fd0);
	free(a);
	free(b);
	sb_free(&maps);
	return 0;
}
