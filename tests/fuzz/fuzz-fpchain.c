/* fuzz-fpchain.c: the frame-pointer search (parse-fpchain.c) over made-up memory. The input
 * is both the code, mapped executable at CODE, and (from byte 16 on) the stack window at
 * STACK; its first bytes say where sp is in the window, where the stopped function starts in
 * the code, pc's distance from it, whether the function is known and whether the stack goes
 * on past the window. What is promised: 0, -ENOENT or -EAGAIN; an answer is an aligned record
 * in the stack at or above sp and the bound, its return address the word at rbp + 8 and in
 * the code, said how; no answer says why; the same input gives the same answer; and so does
 * what a capture keeps of the stack (the words that count, FPC_UNKEPT for the others). */
#include <errno.h>

#include "fuzz.h"

#define CODE 0x400000ul
#define STACK 0x7ff000000000ul

struct mem { const uint8_t *d; size_t n; const uint8_t *w; size_t wn; unsigned long hi; };

static int rd(void *ctx, unsigned long addr, void *buf, size_t n)
{
	const struct mem *m = ctx;
	if (addr >= CODE && addr - CODE <= m->n && m->n - (addr - CODE) >= n) {
		memcpy(buf, m->d + (addr - CODE), n);
		return 0;
	}
	if (addr >= STACK && addr - STACK <= m->wn && m->wn - (addr - STACK) >= n) {
		memcpy(buf, m->w + (addr - STACK), n);
		return 0;
	}
	if (addr >= STACK && addr + n <= m->hi) {   /* past the window: zeros */
		memset(buf, 0, n);
		return 0;
	}
	return -1;
}

/* A capture's copy: a stack word that cannot be read, or that does not count, reads
 * FPC_UNKEPT (as a replay reads what the capture left out); code as it is. */
struct kept { struct mem *m; const struct fpc_in *in; };

static unsigned long kept_word(const struct kept *k, unsigned long a)
{
	unsigned long w, up;
	if (rd(k->m, a, &w, 8) < 0)
		return FPC_UNKEPT;
	if (rd(k->m, a + 8, &up, 8) < 0)
		up = FPC_UNKEPT;
	return fpchain_word_counts(k->in, a, w, up) ? w : FPC_UNKEPT;
}

static int kept_rd(void *ctx, unsigned long addr, void *buf, size_t n)
{
	const struct kept *k = ctx;
	unsigned char *b = buf;
	if (addr < k->in->stack_lo || addr >= k->in->stack_hi)
		return rd(k->m, addr, buf, n);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 16)
		return 0;
	uint8_t *d = (uint8_t *)fuzz_bytes(data, size);
	struct mem m = { .d = d, .n = size, .w = d + 16, .wn = size - 16 };
	unsigned sp_off = (unsigned)(d[0] | d[1] << 8) % (unsigned)(m.wn + 1) & ~7u;
	unsigned long fn = CODE + (unsigned long)((d[2] | d[3] << 8) % size);
	unsigned long pc = fn + (unsigned long)(d[4] | d[5] << 8);
	bool known = d[6] & 1, more = d[6] & 2;
	m.hi = STACK + m.wn + (more ? 0x10000 : 0);
	struct fpc_range ex = { CODE, CODE + size };
	struct fpc_in in = {
		.win = m.w + sp_off, .len = m.wn - sp_off, .base = STACK + sp_off,
		.sp = STACK + sp_off + (d[7] & 7), .pc = pc, .fn_start = known ? fn : 0,
		.fn_end = known ? fn + d[8] + 1 : 0, .stack_lo = STACK, .stack_hi = m.hi,
		.exec = &ex, .nexec = 1, .read = rd, .ctx = &m,
	};
	struct fpc_out o, o2;
	memset(&o, 0xa5, sizeof(o));
	int r = fpchain_find(&in, &o);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EAGAIN);
	if (r == 0) {
		unsigned long ra;
		FUZZ_CHECK(o.how >= FPC_BY_CALL && o.how <= FPC_BY_CHAIN && o.why == NULL);
		FUZZ_CHECK(o.rbp % 8 == 0 && o.rbp >= in.sp && o.rbp >= o.bound);
		FUZZ_CHECK(o.rbp + 16 <= in.stack_hi && o.rbp >= in.stack_lo);
		FUZZ_CHECK(rd(&m, o.rbp + 8, &ra, 8) == 0 && ra == o.ra);
		FUZZ_CHECK(ra >= CODE && ra < CODE + size);
		FUZZ_CHECK(o.how != FPC_BY_BOUND || (o.bound_exact && o.rbp == o.bound));
	} else {
		FUZZ_CHECK(o.why && o.why[0] && o.rbp == 0 && o.how == 0);
	}
	FUZZ_CHECK(o.bound >= in.sp);
	FUZZ_CHECK(fpchain_find(&in, &o2) == r && o2.rbp == o.rbp && o2.bound == o.bound);
	/* the window as a capture keeps it, read whole words from its start */
	struct fpc_in kin = in;
	struct kept k = { &m, &kin };
	size_t kn = in.len & ~7ul;
	unsigned char *kw = xmalloc(kn + 1);
	for (size_t i = 0; i < kn; i += 8) {
		unsigned long w = kept_word(&k, in.base + i);
		memcpy(kw + i, &w, 8);
	}
	struct fpc_in lin = in;
	lin.len = kn;
	kin.win = kw;
	kin.len = kn;
	kin.read = kept_rd;
	kin.ctx = &k;
	r = fpchain_find(&lin, &o);
	FUZZ_CHECK(fpchain_find(&kin, &o2) == r && o2.rbp == o.rbp && o2.how == o.how &&
	           (o.why == o2.why || (o.why && o2.why && !strcmp(o.why, o2.why))));
	free(kw);
	free(d);
	return 0;
}
