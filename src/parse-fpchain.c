/* parse-fpchain.c: the frame pointer of a task blocked in frame-pointer code, found in its
 * stack bytes (pure: memory comes from the caller, as a window of bytes and a read callback).
 *
 * rbp is callee-saved, and /proc/TID/syscall does not give it. In code built with frame
 * pointers (-O0 too) a function's prologue is push %rbp; mov %rsp,%rbp, so the register
 * holds the address of a frame record: [rbp] the caller's rbp, [rbp+8] the return address
 * into the caller. The unwinder stops at the innermost frame whose unwind info needs the
 * register, so the value it needs is that frame's record: somewhere above the frame's sp.
 *
 * A record is a pair of words whose second, the return address, is in an executable mapping
 * right after a call instruction. It is linked when its link is 0 or a higher address in the
 * same stack whose record has a link that could be one too (two links, or the chain's end).
 * The outermost frame-pointer frame's record is not linked: its link is the rbp of a caller
 * built without frame pointers (main's is libc's), anything. So a record unlinked still
 * counts as one, and may be the frame's, but only its own call or place can tell it is.
 * Locals hold records that are not the frame's (left by earlier calls, or copied), so one
 * is trusted only when:
 *   - it lies at or above the frame the function's prologue makes (sp plus its pushes and
 *     its sub $N,%rsp, with the register moves compilers put among them: locals are below
 *     that), and
 *   - its return address follows a call that reaches the stopped function (a direct call of
 *     its start, or of a PLT stub whose GOT slot holds it), it is the lowest such, every other
 *     such record is in its chain (and one calling the function from outside it is not
 *     followed by another: that is recursion only from inside), and no record below it could
 *     be the frame's too (an indirect call's, linked or not; any record at all, when the
 *     prologue was decoded whole and the record should sit exactly on its frame);
 *   - or, when no record's call reaches the function (it was called indirectly or through a
 *     tail call), it lies exactly where the decoded prologue puts it (unlinked, only when
 *     no record above it links to another: the outermost frame has no chain above it), or
 *     it is the lowest record, linked, its call indirect, and every other record is in its
 *     chain (an indirect call's record is never taken over a lower one: _start's, above
 *     main's, is linked, its link 0, while main's is not).
 * Telling a record from the others takes seeing them: unless it lies exactly where the
 * prologue puts it, the window must go on FPC_VIEW bytes above it (or to the stack's end),
 * else a copy in the locals could pass for it while the real one lies past the window.
 * Anything else is no answer: the unwinder's stop stands. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cgwatch.h"

#define FPC_MAX_CAND 128            /* well-formed records considered */
#define FPC_MAX_READS 2048          /* read() calls per search */
#define FPC_MAX_CHAIN 256           /* links followed */
#define FPC_VIEW 1024               /* the window seen above a record told apart from others */

enum { NOT_CALL, CALL_TO_FN, CALL_OTHER, CALL_UNKNOWN };

struct fpc_st {
	const struct fpc_in *in;
	unsigned reads;
	bool spent;                     /* a read refused for the budget: records may be unseen */
};

/* linked: its link 0 or a record whose own link could be one (else the outermost
 * frame-pointer frame's, or no frame's at all) */
struct rec { unsigned long at, link, ra; int cls; bool linked; };

/* n bytes at addr: from the window when it holds them, else through read(). */
static int mem(struct fpc_st *st, unsigned long addr, void *buf, size_t n)
{
	const struct fpc_in *in = st->in;
	if (addr >= in->base && addr - in->base <= in->len && in->len - (addr - in->base) >= n) {
		memcpy(buf, in->win + (addr - in->base), n);
		return 0;
	}
	if (st->reads >= FPC_MAX_READS)
		st->spent = true;
	if (!in->read || st->spent || addr > ~0ul - n)
		return -1;
	st->reads++;
	return in->read(in->ctx, addr, buf, n) == 0 ? 0 : -1;
}

static bool is_exec(const struct fpc_in *in, unsigned long a)
{
	size_t lo = 0, hi = in->nexec;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (a < in->exec[m].start)
			hi = m;
		else if (a >= in->exec[m].end)
			lo = m + 1;
		else
			return true;
	}
	return false;
}

/* The length of an indirect near call (ff /2; an optional 2e/3e prefix and a REX) at p,
 * n bytes available; 0 when p is not one. */
static size_t ff2_len(const unsigned char *p, size_t n)
{
	size_t i = 0;
	if (i < n && (p[i] == 0x3e || p[i] == 0x2e))
		i++;
	if (i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i + 2 > n || p[i] != 0xff || ((p[i + 1] >> 3) & 7) != 2)
		return 0;
	unsigned mod = p[i + 1] >> 6, rm = p[i + 1] & 7;
	i += 2;
	if (mod == 3)
		return i;
	if (rm == 4) {                      /* a SIB byte */
		if (i >= n)
			return 0;
		bool disp32 = mod == 0 && (p[i] & 7) == 5;
		i++;
		if (disp32)
			i += 4;
	} else if (mod == 0 && rm == 5) {   /* rip-relative */
		i += 4;
	}
	if (mod == 1)
		i += 1;
	else if (mod == 2)
		i += 4;
	return i <= n ? i : 0;
}

/* Where a PLT stub at t jumps: endbr64, bnd, jmp *disp32(%rip); the GOT slot's value, or 0. */
static unsigned long plt_to(struct fpc_st *st, unsigned long t)
{
	unsigned char c[16];
	unsigned long v;
	if (mem(st, t, c, sizeof(c)) < 0)
		return 0;
	size_t i = 0;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		i = 4;
	if (c[i] == 0xf2)
		i++;
	if (c[i] != 0xff || c[i + 1] != 0x25)
		return 0;
	int32_t d;
	memcpy(&d, c + i + 2, sizeof(d));
	if (mem(st, t + i + 6 + (unsigned long)(long)d, &v, sizeof(v)) < 0)
		return 0;
	return v;
}

/* What call, if any, ends right before ra. */
static int call_class(struct fpc_st *st, unsigned long ra)
{
	const struct fpc_in *in = st->in;
	unsigned char c[16];
	if (ra < sizeof(c) || mem(st, ra - sizeof(c), c, sizeof(c)) < 0)
		return NOT_CALL;
	if (c[11] == 0xe8) {
		int32_t rel;
		memcpy(&rel, c + 12, sizeof(rel));
		unsigned long t = ra + (unsigned long)(long)rel;
		if (!is_exec(in, t))
			return NOT_CALL;
		if (!in->fn_start)
			return CALL_UNKNOWN;
		return t == in->fn_start || plt_to(st, t) == in->fn_start ? CALL_TO_FN : CALL_OTHER;
	}
	for (size_t l = 2; l <= 10; l++)
		if (ff2_len(c + sizeof(c) - l, l) == l)
			return CALL_UNKNOWN;
	return NOT_CALL;
}

/* The words at at, their second in an executable mapping. */
static bool rec_words(struct fpc_st *st, unsigned long at, struct rec *r)
{
	const struct fpc_in *in = st->in;
	unsigned long w[2];
	if ((at & 7) || in->stack_hi < 16 || at < in->stack_lo || at > in->stack_hi - 16 ||
	    mem(st, at, w, sizeof(w)) < 0)
		return false;
	r->at = at;
	r->link = w[0];
	r->ra = w[1];
	r->linked = false;
	return is_exec(in, r->ra);
}

/* Could r's link be a record's: 0, or aligned, above r and in the stack? */
static bool link_fits(const struct fpc_in *in, const struct rec *r)
{
	return !r->link || (!(r->link & 7) && r->link >= r->at + 16 && r->link <= in->stack_hi - 16);
}

/* A record at at, its link whatever it is. */
static bool rec_any(struct fpc_st *st, unsigned long at, struct rec *r)
{
	return rec_words(st, at, r) && (r->cls = call_class(st, r->ra)) != NOT_CALL;
}

/* A record at at whose link could be a record's. */
static bool rec_read(struct fpc_st *st, unsigned long at, struct rec *r)
{
	return rec_words(st, at, r) && link_fits(st->in, r) &&
	       (r->cls = call_class(st, r->ra)) != NOT_CALL;
}

/* Any record at at (rec_any), linked when its link is 0 or a record whose own link could be
 * one (rec_read). */
static bool rec_scan(struct fpc_st *st, unsigned long at, struct rec *r)
{
	struct rec n;
	if (!rec_any(st, at, r))
		return false;
	r->linked = link_fits(st->in, r) && (r->link == 0 || rec_read(st, r->link, &n));
	return true;
}

/* Is the record at to in the chain of links from the record from? (A link that could be no
 * record's is none: a capture does not keep it.) */
static bool on_chain(struct fpc_st *st, const struct rec *from, unsigned long to)
{
	struct rec r = *from;
	for (int i = 0; i < FPC_MAX_CHAIN; i++) {
		if (r.at == to || (r.link == to && link_fits(st->in, &r)))
			return true;
		if (!r.link || r.link > to || !rec_read(st, r.link, &r))
			return false;
	}
	return false;
}

/* The length of an instruction at p that compilers schedule into a prologue and that moves
 * neither rsp nor rbp: mov or xor of one register to another, mov of an immediate to a
 * register (0: not one). */
static size_t prologue_other(const unsigned char *p)
{
	size_t i = 0;
	unsigned rex = 0;
	if ((p[0] & 0xf0) == 0x40)
		rex = p[i++];
	unsigned op = p[i];
	if (op >= 0xb8 && op <= 0xbf && !(rex & 8))          /* mov $imm32,%r32 */
		return (rex & 1) || (op != 0xbc && op != 0xbd) ? i + 5 : 0;
	if (op != 0x89 && op != 0x8b && op != 0x31 && op != 0x33)
		return 0;
	unsigned m = p[i + 1];
	if (m >> 6 != 3)
		return 0;                       /* a memory operand */
	/* the register written: r/m for 89 and 31, reg for 8b and 33 */
	bool in_rm = op == 0x89 || op == 0x31;
	unsigned dst = in_rm ? (m & 7) | (rex & 1) << 3 : ((m >> 3) & 7) | (rex & 4) << 1;
	return dst == 4 || dst == 5 ? 0 : i + 2;
}

/* The frame the prologue at fn_start makes below the record, when pc is past it: push %rbp;
 * mov %rsp,%rbp; pushes; sub $N,%rsp, with the register moves a compiler schedules among
 * them (prologue_other). */
static void prologue(struct fpc_st *st, struct fpc_out *out)
{
	const struct fpc_in *in = st->in;
	unsigned char c[48] = { 0 };        /* 32 bytes at least; past them, 0 ends it */
	out->bound = in->sp;
	out->bound_exact = false;
	if (!in->fn_start || in->pc <= in->fn_start || mem(st, in->fn_start, c, 32) < 0)
		return;
	if (mem(st, in->fn_start + 32, c + 32, 16) < 0)
		memset(c + 32, 0, 16);
	size_t i = 0, k;
	unsigned long fixed = 0;
	bool exact = false;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		i = 4;                          /* endbr64 */
	if (c[i++] != 0x55)
		return;                         /* push %rbp */
	while (i < 16 && (k = prologue_other(c + i)))
		i += k;
	if (c[i] != 0x48 ||
	    !((c[i + 1] == 0x89 && c[i + 2] == 0xe5) || (c[i + 1] == 0x8b && c[i + 2] == 0xec)))
		return;                         /* mov %rsp,%rbp */
	i += 3;
	while (i < 41) {                    /* the longest read below is c[i + 6] */
		if (c[i] >= 0x50 && c[i] <= 0x57) {                 /* push %reg */
			fixed += 8;
			i++;
		} else if (c[i] == 0x41 && c[i + 1] >= 0x50 && c[i + 1] <= 0x57) {
			fixed += 8;
			i += 2;
		} else if (c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xec) {
			fixed += c[i + 3];                          /* sub $imm8,%rsp */
			i += 4;
			exact = true;
			break;
		} else if (c[i] == 0x48 && c[i + 1] == 0x81 && c[i + 2] == 0xec) {
			uint32_t imm;                               /* sub $imm32,%rsp */
			memcpy(&imm, c + i + 3, sizeof(imm));
			fixed += imm;
			i += 7;
			exact = true;
			break;
		} else if ((k = prologue_other(c + i))) {
			i += k;
		} else {
			break;
		}
	}
	if (in->pc - in->fn_start < i || in->sp > ~0ul - fixed)
		return;                         /* pc is in the prologue: its frame is not made yet */
	out->bound = in->sp + fixed;
	out->bound_exact = exact;
}

/* Does the window go on far enough above at to see the records that could disagree? */
static bool view_ok(const struct fpc_in *in, unsigned long at)
{
	unsigned long end = in->base + in->len;
	return end >= in->stack_hi || end - at >= FPC_VIEW;
}

static int none(struct fpc_out *out, int err, const char *why)
{
	out->rbp = out->ra = 0;
	out->how = 0;
	out->why = why;
	return err;
}

static int found(const struct fpc_st *st, struct fpc_out *out, const struct rec *r, int how)
{
	if (st->spent)
		return none(out, -EAGAIN, "too much memory to read to tell the records apart");
	out->rbp = r->at;
	out->ra = r->ra;
	out->how = how;
	return 0;
}

bool fpchain_word_counts(const struct fpc_in *in, unsigned long addr, unsigned long w,
                         unsigned long up)
{
	if (is_exec(in, w))
		return true;                    /* a return address */
	if (!is_exec(in, up))
		return false;                   /* not below one: never a record's link */
	return w == 0 || (!(w & 7) && addr <= ~0ul - 16 && w >= addr + 16 && in->stack_hi >= 16 &&
	                  w <= in->stack_hi - 16);
}

int fpchain_find(const struct fpc_in *in, struct fpc_out *out)
{
	struct fpc_st st = { .in = in };
	struct rec c[FPC_MAX_CAND];
	size_t n = 0;
	memset(out, 0, sizeof(*out));
	out->bound = in->sp;
	if (!in->win || in->len < 16 || in->sp < in->base || in->stack_lo >= in->stack_hi)
		return none(out, -ENOENT, "no stack bytes to scan");
	prologue(&st, out);
	unsigned long from = out->bound > in->base ? out->bound : in->base;
	from = (from + 7) & ~7ul;
	for (unsigned long at = from; at >= from && at - in->base <= in->len - 16; at += 8) {
		struct rec r;
		if (!rec_scan(&st, at, &r))
			continue;
		if (n == FPC_MAX_CAND)
			return none(out, -EAGAIN, "too many frame records to tell");
		c[n++] = r;
	}
	out->ncand = (unsigned)n;
	if (st.spent)
		return none(out, -EAGAIN, "too much memory to read to tell the records apart");
	if (n == 0)
		return none(out, -ENOENT, "no frame record above the frame");
	size_t t1 = n;
	for (size_t i = 0; i < n && t1 == n; i++)
		if (c[i].cls == CALL_TO_FN)
			t1 = i;
	if (t1 < n) {
		for (size_t i = 0; i < t1; i++) {
			if (c[i].cls == CALL_UNKNOWN)
				return none(out, -EAGAIN, "a record below the one calling the function "
				            "may be its frame too (an indirect call)");
			if (out->bound_exact)
				return none(out, -EAGAIN, "records between the function's frame and the "
				            "one calling it");
		}
		for (size_t i = t1 + 1; i < n; i++)
			if (c[i].cls == CALL_TO_FN && !on_chain(&st, &c[t1], c[i].at))
				return none(out, -EAGAIN, "two records calling the function, not in one "
				            "chain");
		/* a record calling the function linked to another: recursion, so from inside it */
		struct rec r = c[t1], nx;
		for (int i = 0; i < FPC_MAX_CHAIN && r.link && link_fits(in, &r) &&
		                rec_read(&st, r.link, &nx); i++) {
			if (nx.cls == CALL_TO_FN && r.cls == CALL_TO_FN &&
			    !(r.ra >= in->fn_start && r.ra < in->fn_end))
				return none(out, -EAGAIN, "a record calling the function links to another "
				            "one, from outside it");
			r = nx;
		}
		if (!(out->bound_exact && c[t1].at == out->bound) && !view_ok(in, c[t1].at))
			return none(out, -ENOENT, "the stack read ends too near the record to tell it "
			            "from others");
		return found(&st, out, &c[t1], FPC_BY_CALL);
	}
	if (out->bound_exact && c[0].at == out->bound) {
		/* linked to no record: the outermost frame-pointer frame, so no chain above it */
		for (size_t i = 1; i < n && !c[0].linked; i++)
			if (c[i].linked && c[i].link)
				return none(out, -EAGAIN, "the record where the prologue puts it links to "
				            "no record, and records above it do");
		return found(&st, out, &c[0], FPC_BY_BOUND);
	}
	if (c[0].cls != CALL_UNKNOWN)
		return none(out, -ENOENT, "no record whose call reaches the function");
	if (!c[0].linked)
		return none(out, -EAGAIN, "the lowest record's link is not a record, and its call "
		            "does not reach the function");
	for (size_t i = 1; i < n; i++)
		if (!on_chain(&st, &c[0], c[i].at))
			return none(out, -EAGAIN, "records not in one chain, none calling the function");
	if (!view_ok(in, c[0].at))
		return none(out, -ENOENT, "the stack read ends too near the record to tell it from "
		            "others");
	return found(&st, out, &c[0], FPC_BY_CHAIN);
}
