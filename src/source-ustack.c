/* source-ustack.c: the user-space stack of a blocked task, unwound without stopping it and
 * without ptrace. /proc/TID/syscall gives a task blocked in a syscall its pc, sp and the six
 * argument registers (rdi, rsi, rdx, r10, r8, r9 as they entered the kernel); /proc/TID/mem
 * its memory (root reads it without attaching). libunwind's remote API walks the frames
 * with accessors of ours over those two: access_mem is a pread of /proc/TID/mem,
 * access_reg knows only those registers; the unwind tables are found by source-ehframe.c in
 * the mapped files themselves (/proc/TGID/map_files: the process's own, whatever its mount
 * namespace), cached by binary, and read from that cache rather than the task's memory.
 * The frames are named once the unwind is done, in the calling thread, from the mapped files
 * (source-ustackname.c): libunwind's names are not asked for, and nothing of libunwind-ptrace
 * is used (it would read the files again in the unwind).
 *
 * Known gaps, each said rather than guessed: a leaf with no unwind info (a syscall stub, or
 * glibc's clone past its FDE's end) is stepped over through the return address at sp; a frame whose caller needs a register
 * /proc/TID/syscall does not give ends the stack with that said, unless it is rbp in
 * frame-pointer code (at -O0 too) and a scan of the stack finds the one frame record it must
 * hold (fp_recover, below); a frame whose pc is not in an executable mapping, or whose sp does not
 * grow, ends it too. Reading memory waits on the target's mmap lock, so each task's whole
 * unwind (maps, memory, tables) runs in dl_call's helper thread under the read deadline:
 * a timeout is evidence, and the scan goes on.
 *
 * Which tasks: those the findings list, after diagnosis, not every suspect. A suspect that is
 * in no finding is not reported, so its stack would be read (and its mmap lock waited on)
 * for nothing; a finding's chain comes first, since its outermost waiter leads the report.
 * Threads of one process blocked at the same pc, as deep into a stack mapping of the same
 * size, went through the same frames (the depth is the sum of the frames' sizes, and pthread
 * stacks of one size are laid out alike): they share one unwind rather than each reading the
 * memory again. Comparing results instead would cost every thread its unwind, which is what
 * a process with hundreds of blocked threads cannot afford. */
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define PF_KTHREAD 0x00200000          /* include/linux/sched.h */
#define MAPS_MAX (8u << 20)
#define PAGE_CACHE 16                  /* pages of the target's memory kept per process */

/* What one process shares between the unwinds of its threads within one report: its maps,
 * libunwind's address space (which caches the unwind info it found: UNW_CACHE_GLOBAL), the
 * tables of its mappings, and the pages of its memory read so far (text and tables are read many
 * times over). Owned by one unwind at a time; an unwind that times out keeps it. */
struct uproc {
	int tgid;
	char *maps;
	struct maps_index ix;               /* maps parsed, once (NULL maps: not yet read) */
	unw_addr_space_t as;
	struct ehtab_proc *eh;              /* the tables of its mappings found so far */
	int memfd;
	struct { unsigned long addr; bool ok; unsigned char b[4096]; } page[PAGE_CACHE];
	unsigned next_page;
	struct ucap *cap;                   /* a capture's record, or a replay's memory and files
	                                     * (source-ustackcap.c); NULL: neither */
};

/* The registers of the frame an unwind starts from. */
struct uregs {
	unsigned long pc, sp, arg[6];
	bool args;                          /* arg[] are the registers' values */
	unsigned long rbp;                  /* found by a stack scan (fp_recover), when have_rbp */
	bool have_rbp;
};

/* Why a replay's file at a frame's path cannot be used (0: it can). */
struct fkey { int err; };

/* One unwind: the task, its process's state, and what came of it. */
struct ujob {
	struct fkey key[USTACK_MAX_FRAMES];
	int tgid, tid;
	struct uproc *p;
	struct uregs regs;
	int bad_reg;                        /* a register libunwind asked for and we lack; -1 */
	char tab_why[200];                  /* why the last pc looked up has no unwind info */
	struct cgw_uframe f[USTACK_MAX_FRAMES];
	size_t n;
	char err[320];
	char why[300];                      /* a replay's file refused: which, and why */
	unsigned long stack_end, stack_size;  /* the mapping holding sp: the dedup key */
	/* where an unwind stopped for want of a register: that frame's sp and function */
	unsigned long stop_sp, stop_fn_start, stop_fn_end;
	unsigned long reads;                /* accessor reads of this step: STEP_READS_MAX at most */
	unsigned long all_reads, max_reads; /* of the whole unwind: past max_reads (0: no bound, a
	                                     * fuzzer's harness sets one) none is made */
	bool looped;                        /* a step passed its cap: its unwind info does not end */
};

static void uproc_free(struct uproc *p)
{
	if (!p)
		return;
	if (p->as)
		unw_destroy_addr_space(p->as);
	ehtab_proc_free(p->eh);
	if (p->memfd >= 0)
		close(p->memfd);
	maps_index_free(&p->ix);
	free(p->maps);
	ucap_free(p->cap);
	free(p);
}

static int mem_word_live(struct uproc *p, unsigned long addr, unsigned long *v)
{
	unsigned long base = addr & ~4095ul, off = addr - base;
	if (off > 4096 - sizeof(*v))       /* straddles a page: read it whole */
		return pread(p->memfd, v, sizeof(*v), (off_t)addr) == (ssize_t)sizeof(*v) ? 0 : -1;
	for (unsigned i = 0; i < PAGE_CACHE; i++)
		if (p->page[i].ok && p->page[i].addr == base) {
			memcpy(v, p->page[i].b + off, sizeof(*v));
			return 0;
		}
	if (addr > (unsigned long)INT64_MAX)
		return -1;
	unsigned i = p->next_page++ % PAGE_CACHE;
	p->page[i].ok = pread(p->memfd, p->page[i].b, 4096, (off_t)base) == 4096;
	p->page[i].addr = base;
	if (!p->page[i].ok)
		return pread(p->memfd, v, sizeof(*v), (off_t)addr) == (ssize_t)sizeof(*v) ? 0 : -1;
	memcpy(v, p->page[i].b + off, sizeof(*v));
	return 0;
}

/* Every read of the target's memory: from /proc/TID/mem, kept for a capture; or, in a
 * replay, from what the capture kept. */
static int mem_word(struct uproc *p, unsigned long addr, unsigned long *v)
{
	if (ucap_replaying(p->cap))
		return ucap_mem(p->cap, addr, v, sizeof(*v));
	int r = mem_word_live(p, addr, v);
	if (r == 0 && p->cap)
		ucap_saw(p->cap, addr, v, sizeof(*v));
	return r;
}

/* The unwind this thread runs: the accessors look here. */
static _Thread_local struct ujob *cur_job;

/* The thread that runs the current unwind (a dl_call worker), for a look at it when the
 * deadline passed: one unwind at a time runs, from the reporting thread. */
static _Atomic int worker_tid;

bool ustack_read_budget(unsigned long *made, unsigned long cap)
{
	return cap == 0 || ++*made <= cap;
}

static int acc_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	(void)as; (void)arg;
	struct ujob *j = cur_job;
	unsigned long v;
	if (write)
		return -UNW_EREADONLYREG;     /* never written */
	if (!ustack_read_budget(&j->reads, STEP_READS_MAX) ||
	    !ustack_read_budget(&j->all_reads, j->max_reads)) {
		j->looped = true;             /* ends libunwind's loops: each reads its next op */
		return -UNW_EINVAL;
	}
	if (j->p->eh && ehtab_mem(j->p->eh, addr, val))
		return 0;                     /* a table's bytes, from the file's cached copy */
	if (mem_word(j->p, addr, &v) < 0)
		return -UNW_EINVAL;
	*val = v;
	return 0;
}

static int acc_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	(void)as; (void)arg;
	struct ujob *j = cur_job;
	int ai = -1;
	if (write)
		return -UNW_EREADONLYREG;
	switch (reg) {
	case UNW_X86_64_RIP: *val = j->regs.pc; return 0;
	case UNW_X86_64_RSP: *val = j->regs.sp; return 0;
	case UNW_X86_64_RDI: ai = 0; break;
	case UNW_X86_64_RSI: ai = 1; break;
	case UNW_X86_64_RDX: ai = 2; break;
	case UNW_X86_64_R10: ai = 3; break;
	case UNW_X86_64_R8: ai = 4; break;
	case UNW_X86_64_R9: ai = 5; break;
	case UNW_X86_64_RBP:
		if (j->regs.have_rbp) {
			*val = j->regs.rbp;
			return 0;
		}
		break;
	default: break;
	}
	if (ai >= 0 && j->regs.args) {
		*val = j->regs.arg[ai];
		return 0;
	}
	j->bad_reg = reg;
	return -UNW_EBADREG;
}

static int acc_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
                     void *arg)
{
	(void)as; (void)reg; (void)val; (void)write; (void)arg;
	return -UNW_EBADREG;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as; (void)c; (void)arg;
	return -UNW_EINVAL;                /* never: the task is not ours to resume */
}

/* The unwind tables come from the mapped files (source-ehframe.c). */
static int acc_find(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need, void *arg)
{
	struct ujob *j = cur_job;
	j->tab_why[0] = '\0';
	return ehtab_find_proc_info(j->p->eh, &j->p->ix, as, ip, pi, need, arg, j->tab_why,
	                            sizeof(j->tab_why));
}

static void acc_put(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the DWARF info it made itself (as _UPT_put_unwind_info would) */
	(void)as; (void)pi; (void)arg;
}

static int acc_dyn(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	/* no list of dynamically registered unwind info (JIT code) is looked for: libunwind-ptrace
	 * finds none on x86_64 either */
	(void)as; (void)dil; (void)arg;
	return -UNW_ENOINFO;
}

static int acc_name(unw_addr_space_t as, unw_word_t ip, char *buf, size_t len, unw_word_t *off,
                    void *arg)
{
	(void)as; (void)ip; (void)buf; (void)len; (void)off; (void)arg;
	return -UNW_ENOINFO;               /* names come from source-ustackname.c */
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find,
	.put_unwind_info = acc_put,
	.get_dyn_info_list_addr = acc_dyn,
	.access_mem = acc_mem,
	.access_reg = acc_reg,
	.access_fpreg = acc_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_name,
};

#define PLACE_NOEXEC (-1)            /* pc in no executable mapping */
#define PLACE_OTHER_FILE (-2)        /* a replay's file is not the recorded build */
#define EREPLAY_FILE EBADSLT           /* k->err: a replay's file is not the recorded build */

/* Is pc in an executable mapping of the process? The frame is filled from it (0). Live, its
 * unwind info comes from the mapped file itself (source-ehframe.c), its name too, later
 * (source-ustackname.c). In a replay both come from the file at the path here, which must be
 * the recorded build, else nothing of it is used (PLACE_OTHER_FILE, the frame filled). */
static int frame_place(struct uproc *p, unsigned long pc, struct cgw_uframe *f,
                       struct fkey *k, char *why, size_t whycap)
{
	memset(k, 0, sizeof(*k));
	const struct maps_ent *e = maps_index_find(&p->ix, pc);
	if (!e || !e->x)
		return PLACE_NOEXEC;
	f->pc = pc;
	f->offset = pc - e->start + e->off;
	size_t n = e->path_len < sizeof(f->module) - 1 ? e->path_len : sizeof(f->module) - 1;
	memcpy(f->module, e->path, n);
	f->module[n] = '\0';
	if (f->module[0] != '/' || !ucap_replaying(p->cap))
		return 0;
	if (n < e->path_len)               /* the file here must be the recorded build */
		k->err = ENAMETOOLONG;
	else if (ucap_module(p->cap, f->module, why, whycap) < 0)
		k->err = EREPLAY_FILE;
	return k->err ? PLACE_OTHER_FILE : 0;
}

/* The stop at a frame whose file cannot be used (a replay's): kept unnamed, and said. */
static void other_file(struct ujob *j, struct cgw_uframe *f, int err, const char *why)
{
	char m[96];
	size_t n = strnlen(f->module, sizeof(m) - 1);
	memcpy(m, f->module, n);
	m[n] = '\0';
	if (err == EREPLAY_FILE) {
		const char *base = strrchr(m, '/');   /* the path is in why */
		int w = snprintf(j->err, sizeof(j->err), "user stack ends at %s+0x%lx: %s; its unwind "
		                 "info is not used", base ? base + 1 : m, f->offset, why);
		(void)w;                      /* cut when long: the error's size */
	} else if (err == ESTALE)
		snprintf(j->err, sizeof(j->err), "user stack ends at %s+0x%lx: the file at that path "
		         "here is not the one mapped (replaced since, or another mount namespace's), "
		         "so its unwind info is not used", m, f->offset);
	else
		snprintf(j->err, sizeof(j->err), "user stack ends at %s+0x%lx: its file cannot be "
		         "opened here (%.40s: deleted, or hidden from cgwatch, as the service's /home "
		         "and /tmp), so its unwind info is not used", m, f->offset, strerror(err));
}

static int cursor_at(struct ujob *j, unw_cursor_t *c)
{
	return unw_init_remote(c, j->p->as, j);
}

static const char *reg_name(int r)
{
	switch (r) {
	case UNW_X86_64_RBP: return "rbp (frame-pointer code)";
	case UNW_X86_64_RBX: return "rbx";
	case UNW_X86_64_RAX: return "rax";
	case UNW_X86_64_RCX: return "rcx";
	case UNW_X86_64_R11: return "r11";
	case UNW_X86_64_R12: return "r12";
	case UNW_X86_64_R13: return "r13";
	case UNW_X86_64_R14: return "r14";
	case UNW_X86_64_R15: return "r15";
	default: return "a register";
	}
}

static void job_unwind(struct ujob *j)
{
	struct uproc *p = j->p;
	char path[64];
	cur_job = j;
	if (!p->maps) {
		if (ucap_replaying(p->cap))   /* the process's, as the capture read it */
			snprintf(path, sizeof(path), "/proc/%d/maps", j->tgid);
		else
			snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", j->tgid, j->tid);
		size_t len, line;
		int e;
		if (!(p->maps = read_whole_file(path, MAPS_MAX, &len, &e))) {
			snprintf(j->err, sizeof(j->err), "user stack unreadable: %s: %s", path,
			         strerror(-e));
			return;
		}
		/* parsed once for every lookup of the process's unwinds */
		if ((e = maps_index_parse(p->maps, &p->ix, &line)) < 0) {
			if (e == -EINVAL)
				snprintf(j->err, sizeof(j->err), "user stack not unwound: %s line %zu is "
				         "not a mapping in address order", path, line);
			else
				snprintf(j->err, sizeof(j->err), "user stack not unwound: out of memory");
			free(p->maps);
			p->maps = NULL;
			return;
		}
	}
	if (p->memfd < 0 && !ucap_replaying(p->cap)) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/mem", j->tgid, j->tid);
		if ((p->memfd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			snprintf(j->err, sizeof(j->err), "user stack unreadable: %s: %s", path,
			         strerror(errno));
			return;
		}
	}
	if (!p->eh && !(p->eh = ehtab_proc_new(j->tgid, ucap_replaying(p->cap)))) {
		snprintf(j->err, sizeof(j->err), "user stack not unwound: out of memory");
		return;
	}
	if (!p->as) {
		if (!(p->as = unw_create_addr_space(&accessors, 0))) {
			snprintf(j->err, sizeof(j->err), "user stack not unwound: out of memory");
			return;
		}
		unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	}
	const struct maps_ent *se = maps_index_find(&p->ix, j->regs.sp);
	if (se) {
		j->stack_end = se->end;
		j->stack_size = se->end - se->start;
	}

	unw_cursor_t c;
	j->bad_reg = -1;
	int pl = frame_place(p, j->regs.pc, &j->f[0], &j->key[0], j->why, sizeof(j->why));
	if (pl == PLACE_NOEXEC) {
		snprintf(j->err, sizeof(j->err), "user stack not unwound: pc 0x%lx is in no "
		         "executable mapping", j->regs.pc);
		return;
	}
	j->f[0].pc_exact = true;            /* where it is, not a return address */
	if (pl == PLACE_OTHER_FILE) {
		other_file(j, &j->f[0], j->key[0].err, j->why);
		j->n = 1;
		return;
	}
	if (cursor_at(j, &c) < 0) {
		snprintf(j->err, sizeof(j->err), "user stack not unwound: libunwind could not start "
		         "at pc 0x%lx", j->regs.pc);
		return;
	}
	j->n = 1;
	unsigned long sp = j->regs.sp;
	bool leaf = true;
	while (j->n < USTACK_MAX_FRAMES) {
		j->bad_reg = -1;
		unw_proc_info_t pi;
		/* x86_64's unw_get_proc_info says 0 for a pc with no unwind info too (and unw_step
		 * then follows rbp): a frame whose file's unwind info could not be had is one with
		 * none, said as such */
		j->reads = 0;
		bool info = unw_get_proc_info(&c, &pi) == 0 && !j->tab_why[0];
		/* and for a pc that no FDE of a file with unwind info covers, it makes up a procedure
		 * one byte long there: glibc's clone and clone3 (posix_spawn's vfork parent) end
		 * their FDE before the syscall, as the child's frame is another. Such a leaf is one
		 * with no unwind info. */
		if (info && leaf && pi.start_ip == j->regs.pc && pi.end_ip == j->regs.pc + 1)
			info = false;
		bool sig = info && unw_is_signal_frame(&c) > 0;   /* its caller was interrupted */
		int r = info ? unw_step(&c) : -UNW_ENOINFO;
		unw_word_t pc = 0, nsp = 0;
		if (r > 0 && (unw_get_reg(&c, UNW_REG_IP, &pc) < 0 ||
		              unw_get_reg(&c, UNW_REG_SP, &nsp) < 0))
			r = -UNW_EUNSPEC;
		if (leaf && !info) {
			/* a leaf with no unwind info (a syscall stub, clone): its caller's return
			 * address is the word at sp, and the caller's sp the next word */
			unsigned long ra;
			if (mem_word(p, j->regs.sp, &ra) < 0 ||
			    (pl = frame_place(p, ra, &j->f[j->n], &j->key[j->n], j->why,
			                      sizeof(j->why))) == PLACE_NOEXEC)
				break;
			if (pl == PLACE_OTHER_FILE) {
				other_file(j, &j->f[j->n], j->key[j->n].err, j->why);
				j->n++;
				return;
			}
			j->regs.pc = ra;
			j->regs.sp += 8;
			j->regs.args = false;      /* the callee may have changed them */
			if (cursor_at(j, &c) < 0)
				break;
			j->n++;
			sp = j->regs.sp;
			leaf = false;
			continue;
		}
		bool first = leaf;
		leaf = false;
		if (r == 0)
			return;                    /* the outermost frame: its return address is undefined */
		char at[96];
		const struct cgw_uframe *last = &j->f[j->n - 1];
		if (last->symbol[0])
			snprintf(at, sizeof(at), "%s+0x%lx", last->symbol, last->sym_off);
		else
			snprintf(at, sizeof(at), "%s+0x%lx", last->module[0] ? last->module : "?",
			         last->offset);
		if (r < 0) {
			j->stop_sp = sp;           /* for fp_recover */
			j->stop_fn_start = info ? pi.start_ip : 0;
			j->stop_fn_end = info ? pi.end_ip : 0;
			if (j->looped)
				snprintf(j->err, sizeof(j->err), "user stack ends at %s: the unwind was "
				         "aborted after %lu reads: its unwind info did not terminate (an "
				         "expression that loops)", at, STEP_READS_MAX);
			else if (!info && j->tab_why[0])
				snprintf(j->err, sizeof(j->err), "user stack ends at %s: no unwind info for "
				         "it: %.170s", at, j->tab_why);
			else if (!info)
				snprintf(j->err, sizeof(j->err), "user stack ends at %s: no unwind info for "
				         "it", at);
			else if (j->bad_reg >= 0)
				snprintf(j->err, sizeof(j->err), "user stack ends at %s: its caller's frame "
				         "needs %s, which is not known without stopping the task",
				         at, reg_name(j->bad_reg));
			else
				snprintf(j->err, sizeof(j->err), "user stack ends at %s: no unwind info "
				         "for it (%s)", at, unw_strerror(r));
			return;
		}
		/* the caller's sp is above the callee's; equal only from a leaf that popped its
		 * return address before the call (vfork keeps it in rdi) */
		if (nsp < sp || (nsp == sp && !first)) {
			snprintf(j->err, sizeof(j->err), "user stack ends at %s: the next frame's sp "
			         "0x%lx does not grow (a frame that cannot be trusted)", at,
			         (unsigned long)nsp);
			return;
		}
		if (pc == 0)
			return;
		if ((pl = frame_place(p, pc, &j->f[j->n], &j->key[j->n], j->why, sizeof(j->why))) ==
		    PLACE_NOEXEC) {
			snprintf(j->err, sizeof(j->err), "user stack ends at %s: the next pc 0x%lx is in "
			         "no executable mapping (a frame that cannot be trusted)", at,
			         (unsigned long)pc);
			return;
		}
		j->f[j->n].pc_exact = sig;
		if (pl == PLACE_OTHER_FILE) {
			other_file(j, &j->f[j->n], j->key[j->n].err, j->why);
			j->n++;
			return;
		}
		j->n++;
		sp = nsp;
	}
	if (j->n == USTACK_MAX_FRAMES)
		snprintf(j->err, sizeof(j->err), "user stack cut at %d frames", USTACK_MAX_FRAMES);
}

/* Frame-pointer recovery (parse-fpchain.c has the search and why it can be trusted). An
 * unwind that stopped because a frame's caller needs rbp (frame-pointer code: its unwind info
 * says CFA = rbp + 16) is tried again with the rbp a scan of the stack above that frame finds,
 * and libunwind's unwind info does the rest; the frames from that frame's caller on are
 * marked fp_recovered. The scan reads FP_WINDOW bytes from the frame's sp (within the stack
 * mapping) and, for the code it checks, through the same page cache. No answer, or a second
 * unwind whose next frame is not the record's return address: the stop stands, said.
 * It reads the stack only as frame records, so a capture keeps only the stack words that
 * count as a record's link or return address (fpchain_word_counts), and the view's extent:
 * not the locals, nor the arguments and environment at the stack's top. A replay reads
 * FPC_UNKEPT for the others, which counts as neither: the scan's answer is the same. */
#define FP_WINDOW 8192

struct fpread { struct uproc *p; const struct fpc_in *in; };

/* A stack word for the scan: live, kept for a capture when it counts; a replay's, or
 * FPC_UNKEPT where the capture left it out. */
static int fp_stack_word(const struct fpread *f, unsigned long a, unsigned long *w)
{
	struct uproc *p = f->p;
	unsigned long up;
	if (ucap_replaying(p->cap)) {
		if (!ucap_peek(p->cap, a, w, sizeof(*w)))
			*w = FPC_UNKEPT;
		return 0;
	}
	if (mem_word_live(p, a, w) < 0)
		return -1;
	if (p->cap && fpchain_word_counts(f->in, a, *w,
	                                  mem_word_live(p, a + 8, &up) == 0 ? up : FPC_UNKEPT))
		ucap_saw(p->cap, a, w, sizeof(*w));
	return 0;
}

static int fp_read(void *ctx, unsigned long addr, void *buf, size_t n)
{
	const struct fpread *f = ctx;
	unsigned char *b = buf;
	while (n) {
		unsigned long w, a = addr & ~7ul, o = addr - a;
		size_t k = 8 - o < n ? 8 - o : n;
		bool stack = a >= f->in->stack_lo && a < f->in->stack_hi;
		if ((stack ? fp_stack_word(f, a, &w) : mem_word(f->p, a, &w)) < 0)
			return -1;
		memcpy(b, (unsigned char *)&w + o, k);
		b += k;
		addr += k;
		n -= k;
	}
	return 0;
}

/* The executable mappings of maps, in order, into a malloc'd array (NULL: none or no
 * memory). */
static struct fpc_range *exec_ranges(const struct maps_index *maps, size_t *n)
{
	struct fpc_range *r = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < maps->n; i++) {
		const struct maps_ent *e = &maps->e[i];
		if (!e->x)
			continue;
		if (grow((void **)&r, &cap, *n, 32, sizeof(*r)) < 0) {
			free(r);
			*n = 0;
			return NULL;
		}
		r[(*n)++] = (struct fpc_range){ e->start, e->end };
	}
	return r;
}

/* The stop's text, with why no frame pointer was recovered. */
static void fp_said(struct ujob *j, const char *why)
{
	size_t n = strlen(j->err);
	snprintf(j->err + n, sizeof(j->err) - n, " (no frame pointer recovered by a stack scan: "
	         "%s)", why);
}

static void fp_recover(struct ujob *j, const struct uregs *r0)
{
	struct uproc *p = j->p;
	size_t g = j->n - 1;               /* the frame whose caller needs rbp */
	const struct maps_ent *sm = maps_index_find(&p->ix, j->stop_sp);
	if (!sm || sm->x || !sm->w) {
		fp_said(j, "its sp is in no writable stack mapping");
		return;
	}
	const struct maps_ent se = *sm;
	unsigned long base = j->stop_sp & ~7ul;
	size_t len = se.end - base < FP_WINDOW ? (size_t)(se.end - base) : FP_WINDOW;
	unsigned char *win = malloc(FP_WINDOW);
	size_t nexec = 0;
	struct fpc_range *ex = exec_ranges(&p->ix, &nexec);
	struct ujob *keep = malloc(sizeof(*keep));
	if (!win || !ex || !keep) {
		free(win);
		free(ex);
		free(keep);
		fp_said(j, "out of memory");
		return;
	}
	struct fpc_in in = {
		.win = win, .base = base, .sp = j->stop_sp, .pc = j->f[g].pc,
		.fn_start = j->stop_fn_start, .fn_end = j->stop_fn_end,
		.stack_lo = se.start, .stack_hi = se.end, .exec = ex, .nexec = nexec,
		.read = fp_read,
	};
	struct fpread fr = { p, &in };
	in.ctx = &fr;
	/* a replay's view ends where the live one did; a capture without its extent (an older
	 * cgwatch's) kept every word of the view */
	size_t got = 0, want = len;
	unsigned long w;
	bool whole = ucap_replaying(p->cap) && ucap_scan_len(p->cap, base, &want) < 0;
	want = want < len ? want : len;
	while (got + 8 <= want && (whole ? ucap_peek(p->cap, base + got, &w, 8) :
	                           fp_stack_word(&fr, base + got, &w) == 0)) {
		memcpy(win + got, &w, 8);
		got += 8;
	}
	in.len = got;
	ucap_scan(p->cap, base, got);
	struct fpc_out out;
	int r = fpchain_find(&in, &out);
	free(win);
	free(ex);
	if (r < 0) {
		fp_said(j, out.why);
		free(keep);
		return;
	}
	/* again from the start, with rbp: the frames up to g come out the same */
	*keep = *j;
	j->regs = *r0;
	j->regs.rbp = out.rbp;
	j->regs.have_rbp = true;
	j->n = 0;
	j->err[0] = '\0';
	j->stop_sp = 0;
	job_unwind(j);
	bool same = j->n > g + 1 && j->f[g + 1].pc == out.ra;
	for (size_t i = 0; same && i <= g; i++)
		same = j->f[i].pc == keep->f[i].pc;
	if (!same) {
		*j = *keep;
		fp_said(j, "the unwind with the one found did not return to its record's return "
		        "address");
	} else {
		for (size_t i = g + 1; i < j->n; i++)
			j->f[i].fp_recovered = true;
	}
	free(keep);
}

/* An unwind (job_unwind), the frame-pointer recovery when it stopped for rbp, and what a
 * capture keeps of it or a replay says of it. */
static void job_fn(void *arg)
{
	struct ujob *j = arg;
	worker_tid = gettid();
	const char *fault = getenv("CGWATCH_TEST_UNWINDER");   /* tests/live/unwindbox.sh */
	if (fault && !strcmp(fault, "loop"))
		for (volatile unsigned long i = 0;; i++)
			;
	struct uregs r0 = j->regs;         /* job_unwind moves them past a leaf */
	j->stop_sp = 0;
	job_unwind(j);
	if (j->bad_reg == UNW_X86_64_RBP && j->stop_sp && j->n && j->err[0] && j->p->maps)
		fp_recover(j, &r0);
	ucap_unwound(j->p->cap, j->tgid, j->p->maps ? &j->p->ix : NULL, j->f, j->n);
	ucap_explain(j->p->cap, j->err, sizeof(j->err));           /* a replay's missing memory */
}

void ustack_unwind_replay(struct ucap *cap, const char *maps, const struct ustack_start *in,
                          struct cgw_uframe *f, size_t *n, char *err, size_t errcap)
{
	struct uproc *p = calloc(1, sizeof(*p));
	struct ujob *j = calloc(1, sizeof(*j));
	*n = 0;
	if (p) {
		p->memfd = -1;
		p->cap = cap;                  /* freed with p */
	}
	if (!p || !j || !(p->maps = strdup(maps))) {
		if (!p)
			ucap_free(cap);
		uproc_free(p);
		free(j);
		snprintf(err, errcap, "user stack not unwound: out of memory");
		return;
	}
	j->p = p;
	j->regs.pc = in->pc;
	j->regs.sp = in->sp;
	memcpy(j->regs.arg, in->arg, sizeof(j->regs.arg));
	j->regs.args = in->args;
	j->max_reads = in->max_reads;
	job_fn(j);
	memcpy(f, j->f, j->n * sizeof(*f));
	*n = j->n;
	snprintf(err, errcap, "%s", j->err);
	uproc_free(p);
	free(j);
}

/* Processes with an unwind in flight, by tgid: one that passed its deadline stays listed
 * until its thread gets the memory and finishes, and the process is not tried again until
 * then (each try would leave one more thread stuck behind the same mmap lock, and stuck
 * threads are what every other deadline read draws on). Listed here by the unwinds of one
 * report, and by the sandbox (source-ustackbox.c) while the process that ran it lives. */
static pthread_mutex_t flight_lock = PTHREAD_MUTEX_INITIALIZER;
static int in_flight[2 * DL_MAX_STUCK + 2];

static bool flight_set(int tgid, bool add)
{
	bool done = false;
	pthread_mutex_lock(&flight_lock);
	for (size_t i = 0; i < sizeof(in_flight) / sizeof(in_flight[0]) && !done; i++)
		if (add ? in_flight[i] == 0 : in_flight[i] == tgid) {
			in_flight[i] = add ? tgid : 0;
			done = true;
		}
	pthread_mutex_unlock(&flight_lock);
	return done;
}

bool ustack_flight(int tgid, bool add)
{
	return flight_set(tgid, add);
}

static bool flight_has(int tgid)
{
	bool found = false;
	pthread_mutex_lock(&flight_lock);
	for (size_t i = 0; i < sizeof(in_flight) / sizeof(in_flight[0]) && !found; i++)
		found = in_flight[i] == tgid;
	pthread_mutex_unlock(&flight_lock);
	return found;
}

/* Processes held out of the unwinds for USTACK_HOLD_S: their unwind did not terminate (a
 * loop in their unwind info) or ended the process that ran it (a crash, or silence past the
 * deadline). Each try would cost as much again. Kept by the process that reports (the
 * sandbox's parent), inherited by the unwinds it starts. */
#define HELD_MAX 32
static struct {
	int tgid;
	unsigned long long start_ticks;
	double since, when;                 /* CLOCK_MONOTONIC s; wall clock */
	char what[200];
} held[HELD_MAX];

bool ustack_hold_over(double now_s, double since_s)
{
	return now_s - since_s >= USTACK_HOLD_S;
}

void ustack_hold(int tgid, unsigned long long start_ticks, const char *what)
{
	double now = mono_ms() / 1000, oldest = 0;
	size_t k = 0;
	for (size_t i = 0; i < HELD_MAX; i++) {
		if (held[i].tgid == tgid || !held[i].tgid || ustack_hold_over(now, held[i].since)) {
			k = i;
			break;
		}
		if (i == 0 || held[i].since < oldest)
			oldest = held[i].since, k = i;
	}
	held[k].tgid = tgid;
	held[k].start_ticks = start_ticks;
	held[k].when = now_epoch();
	held[k].since = now;
	snprintf(held[k].what, sizeof(held[k].what), "%s", what);
}

/* The hold of t's process, or -1. */
static int held_of(const struct cgw_task *t)
{
	double now = mono_ms() / 1000;
	for (int i = 0; i < HELD_MAX; i++)
		if (held[i].tgid == t->tgid && !ustack_hold_over(now, held[i].since) &&
		    held[i].start_ticks == t->start_ticks)
			return i;
	return -1;
}

/* Whether thread tid of ours computes rather than waits: runnable (R) in each of three looks
 * over 20 ms. An unwind waiting for memory sleeps (D or S); libunwind evaluating an
 * expression that loops never leaves the CPU but to be preempted. */
static bool worker_computes(int tid)
{
	char p[64], buf[512];
	snprintf(p, sizeof(p), "/proc/self/task/%d/stat", tid);
	for (int i = 0; i < 3; i++) {
		if (i)
			usleep(10000);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		const char *e = strrchr(buf, ')');
		if (!e || e[1] != ' ' || e[2] != 'R')
			return false;
	}
	return true;
}

static void job_release(void *arg)
{
	struct ujob *j = arg;
	flight_set(j->tgid, false);
	uproc_free(j->p);
	free(j);
}

/* The processes of one report's unwinds, and the unwinds done, for sharing. */
struct ustate {
	size_t *slow; size_t nslow;         /* tasks whose memory read timed out this scan */
	struct uproc **procs; size_t nprocs;
	struct { int tgid; unsigned long pc, depth, size; size_t task; bool timed_out; } *done;
	size_t ndone;
	struct ucap_set *caps;              /* a capture's record, or a replay's (NULL: neither) */
};

static struct uproc *proc_get(struct ustate *u, int tgid)
{
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i] && u->procs[i]->tgid == tgid)
			return u->procs[i];
	struct uproc **np = realloc(u->procs, (u->nprocs + 1) * sizeof(*np));
	if (!np)
		return NULL;
	u->procs = np;
	struct uproc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	p->memfd = -1;
	if (u->caps && !(p->cap = ucap_for(u->caps, tgid))) {
		free(p);
		return NULL;
	}
	u->procs[u->nprocs++] = p;
	return p;
}

static void proc_drop(struct ustate *u, struct uproc *p)
{
	for (size_t i = 0; i < u->nprocs; i++)
		if (u->procs[i] == p)
			u->procs[i] = NULL;
}

static void frames_set(struct cgw_task *t, const struct cgw_uframe *f, size_t n)
{
	free(t->uframes);
	t->uframes = NULL;
	t->nuframes = 0;
	if (n && (t->uframes = malloc(n * sizeof(*f)))) {
		memcpy(t->uframes, f, n * sizeof(*f));
		t->nuframes = n;
	}
}

/* Threads of one process blocked at the same pc with the same depth into stacks laid out
 * alike (the same distance from sp to the end of the mapping holding it) went through the
 * same frames: one unwind is theirs too. True when t has its answer so (proc: its process's
 * state, NULL when none yet): that unwind's frames, or that one of its process timed out. */
static bool share_unwind(struct cgw_scan *s, struct ustate *u, struct cgw_task *t,
                         struct uproc *proc, unsigned long pc, unsigned long sp)
{
	for (size_t i = 0; i < u->ndone; i++) {
		if (u->done[i].tgid != t->tgid)
			continue;
		const struct cgw_task *o = &s->t[u->done[i].task];
		if (u->done[i].timed_out) {
			snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: "
			         "reading TID %d of this process timed out (its mmap lock is held or "
			         "waited for)", o->tid);
			return true;
		}
		const struct maps_ent *e = proc && proc->maps ? maps_index_find(&proc->ix, sp) : NULL;
		if (!e)
			continue;
		if (u->done[i].pc == pc && u->done[i].depth == e->end - sp &&
		    u->done[i].size == e->end - e->start) {
			frames_set(t, o->uframes, o->nuframes);
			snprintf(t->ustack_error, sizeof(t->ustack_error), "%s", o->ustack_error);
			t->ustack_same_as = o->tid;
			return true;
		}
	}
	return false;
}

/* Unwind t (or share an earlier unwind of its process). USTACK_LOOPED when its unwind did not
 * terminate (the thread running it still computes: only ending the process ends it), and
 * USTACK_TIMED_OUT when it waited past the deadline; 0 otherwise. */
static unsigned unwind_task(struct cgw_scan *s, struct ustate *u, struct cgw_task *t,
                            unsigned *left, unsigned max, unsigned timeout_ms)
{
	char p[64], line[256];
	struct cgw_syscall sc;
	if (ucap_replay_task(u->caps, s, t, t->ustack_error, sizeof(t->ustack_error)))
		return 0;                      /* a replay: as captured */
	int h = held_of(t);
	if (h >= 0) {
		char when[32];
		iso_time(held[h].when, when, sizeof(when));
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not unwound: an "
		         "unwind of this process %s at %s; not tried again for %d s", held[h].what,
		         when, USTACK_HOLD_S);
		return 0;
	}
	/* a read of this process's memory already passed its deadline this scan (the path a
	 * thread's syscall names, source-waitfile.c): its mmap lock is held, and another try
	 * would cost another deadline and leave another thread waiting behind it */
	for (size_t k = 0; k < u->nslow; k++) {
		const struct cgw_task *o = &s->t[u->slow[k]];
		if (o->tgid == t->tgid) {
			snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: reading "
			         "%s %d's memory timed out this scan (its mmap lock is held or waited "
			         "for)", o->tid == o->tgid ? "PID" : "TID", o->tid);
			return 0;
		}
	}
	struct uproc *proc = NULL;
	for (size_t i = 0; i < u->nprocs && !proc; i++)
		if (u->procs[i] && u->procs[i]->tgid == t->tgid)
			proc = u->procs[i];
	/* the pc and sp the scan read a moment ago (source-waitfile.c): a thread blocked where
	 * an unwind of its process was done shares it without reading its syscall line again
	 * (a read through the deadline's worker per thread); one that does not is read again
	 * below, for its unwind starts from its registers as they are now */
	if (t->sys_regs && s->timeouts < SCAN_MAX_TIMEOUTS &&
	    share_unwind(s, u, t, proc, t->sys_pc, t->sys_sp))
		return 0;
	snprintf(p, sizeof(p), "/proc/%d/task/%d/syscall", t->tgid, t->tid);
	ssize_t r = scan_read(s, p, line, sizeof(line), timeout_ms);
	if (r == -ETIMEDOUT) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack unreadable: %s timed "
		         "out after %g s", p, timeout_ms / 1000.0);
		return 0;
	}
	if (r == -ETIME) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: the scan's "
		         "budget of timed-out reads is spent");
		return 0;
	}
	if (r <= 0 || parse_syscall_line(line, &sc) != 1) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not unwound: %s",
		         r < 0 ? strerror((int)-r) : "not blocked in a system call (no pc and sp "
		         "without stopping it)");
		return 0;
	}
	if (share_unwind(s, u, t, proc, sc.pc, sc.sp))
		return 0;
	if (flight_has(t->tgid)) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: an earlier "
		         "unwind of this process still waits for its memory (its mmap lock is held or "
		         "waited for)");
		return 0;
	}
	if (*left == 0) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not unwound: [scan] "
		         "ustack_max (%u) unwinds this scan", max);
		return 0;
	}
	(*left)--;
	if (s->timeouts >= SCAN_MAX_TIMEOUTS) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: the scan's "
		         "budget of timed-out reads is spent");
		return 0;
	}
	if (!proc && !(proc = proc_get(u, t->tgid))) {
		s->nomem = true;
		return 0;
	}
	struct ujob *j = calloc(1, sizeof(*j));
	if (!j) {
		s->nomem = true;
		return 0;
	}
	j->tgid = t->tgid;
	j->tid = t->tid;
	j->p = proc;
	j->regs.pc = sc.pc;
	j->regs.sp = sc.sp;
	memcpy(j->regs.arg, sc.arg, sizeof(sc.arg));
	j->regs.args = true;
	unsigned long pc0 = sc.pc, sp0 = sc.sp;
	if (!flight_set(t->tgid, true)) {  /* as many stuck as dl_call allows: none now */
		free(j);
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: too many "
		         "unwinds still wait for memory");
		return 0;
	}
	worker_tid = 0;
	int e = dl_call(job_fn, j, job_release, timeout_ms);   /* j released unless e == 0 */
	if (e == -ETIMEDOUT && worker_tid && worker_computes(worker_tid)) {
		snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not unwound: the "
		         "unwind was aborted after %u ms: its unwind info did not terminate (the "
		         "unwinder still computed on the CPU, reading nothing)", timeout_ms);
		proc_drop(u, proc);            /* j and the process's state are the worker's */
		return USTACK_LOOPED;          /* and only ending the process running it ends it */
	}
	if (e == 0) {
		flight_set(t->tgid, false);
		ucap_done(u->caps, t->tgid, t->tid, proc->cap);
	}
	void *nd = realloc(u->done, (u->ndone + 1) * sizeof(*u->done));
	if (nd) {
		u->done = nd;
		u->done[u->ndone].tgid = t->tgid;
		u->done[u->ndone].pc = pc0;
		u->done[u->ndone].task = (size_t)(t - s->t);
		u->done[u->ndone].timed_out = e == -ETIMEDOUT;
		u->done[u->ndone].size = e == 0 ? j->stack_size : 0;
		u->done[u->ndone].depth = e == 0 && j->stack_end ? j->stack_end - sp0 : ~0ul;
		u->ndone++;
	}
	if (e < 0) {                       /* j and the process's state are the worker's now */
		if (e == -ETIMEDOUT)
			s->timeouts++;
		proc_drop(u, proc);
		if (e == -ETIMEDOUT)
			snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack unreadable: timed "
			         "out after %g s (%s)", timeout_ms / 1000.0, s->live ? "its mmap lock is "
			         "held or waited for" : "a replay: reading the files it needs here");
		else
			snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack not read: %s",
			         strerror(-e));
		return e == -ETIMEDOUT ? USTACK_TIMED_OUT : 0;
	}
	/* named here, not in the unwind's deadline: each file's lookup has its own. A replay
	 * names from the files here that are the recorded builds (frame_place checked them: a
	 * stop at one that is not is its last frame) */
	size_t nn = j->n - (!s->live && j->n && j->key[j->n - 1].err);
	ustack_name_frames(s, s->live ? t->tgid : 0, proc->maps ? &proc->ix : NULL, j->f, nn,
	                   j->err, sizeof(j->err), timeout_ms);
	frames_set(t, j->f, j->n);
	snprintf(t->ustack_error, sizeof(t->ustack_error), "%s", j->err);
	unsigned how = j->looped ? USTACK_UNENDING : 0;
	free(j);
	return how;
}

/* Whether t is one of the tasks whose user stack a report unwinds and has no answer yet. */
static bool wanted(const struct cgw_task *t)
{
	return !t->uframes && !t->ustack_error[0] && !t->gone && !(t->flags & PF_KTHREAD) &&
	       t->state == 'D';
}

int ustack_unwind_all(struct cgw_report *r, unsigned max, unsigned *left, unsigned timeout_ms,
                      const struct ustack_hooks *h)
{
	struct cgw_scan *s = r->scan;
	if ((!s->live && !s->replay_root) || max == 0)
		return 0;                      /* a replay unwinds from what its capture kept */
	struct ustate u = { .caps = ucap_begin(s, timeout_ms) };
	if (!s->live && !u.caps)
		return 0;
	unsigned shared = 0;
	int rc = 0;
	if (r->conf)                        /* the frames' names: [scan] symbol_cache */
		elfsym_set_cache_bytes((size_t)r->conf->symbol_cache_mib << 20);
	double t0 = mono_ms();
	struct ehtab_stats e0, e1;
	ehtab_stats(&e0);
	size_t cap = 0;                     /* looked up per task: listed once, not scanned */
	for (size_t i = 0; i < s->n; i++) {
		if (s->t[i].wait_err != -ETIMEDOUT)
			continue;
		if (grow((void **)&u.slow, &cap, u.nslow, 4, sizeof(*u.slow)) < 0)
			s->nomem = true;
		else
			u.slow[u.nslow++] = i;
	}
	/* the findings' tasks, each once: chains first (their outermost waiter is what the
	 * report leads with), most severe finding first; in two rounds, of which a replay's
	 * first takes the threads its capture unwound (the others share them, as live) */
	for (int pass = 0; pass < 4; pass++)
		for (size_t k = 0; k < r->nf; k++) {
			const struct cgw_finding *f = &r->f[k];
			size_t n = pass % 2 == 0 ? f->nchain : f->ntasks;
			for (size_t i = 0; i < n; i++) {
				struct cgw_task *t = &s->t[pass % 2 == 0 ? f->chain[i] : f->tasks[i]];
				if (!wanted(t) || !ucap_in_round(u.caps, s, t, pass / 2))
					continue;
				if (cgw_stop_pending())
					goto out;
				if (h && h->begin)
					h->begin(h->ctx, t);
				unsigned how = unwind_task(s, &u, t, left, max, timeout_ms);
				ucap_note(u.caps, t);
				shared += t->ustack_same_as != 0;
				if (h && h->done)
					h->done(h->ctx, t, how);
				if (how & USTACK_LOOPED) {
					rc = 1;
					goto out;
				}
			}
		}
out:
	ehtab_stats(&e1);
	if (u.ndone || shared)
		log_debug("user stacks: %zu unwound (%zu processes), %u shared, in %.2f ms; unwind "
		          "tables: %llu files parsed, %llu found cached", u.ndone, u.nprocs, shared,
		          mono_ms() - t0, (unsigned long long)(e1.parses - e0.parses),
		          (unsigned long long)(e1.hits - e0.hits));
	for (size_t i = 0; i < u.nprocs; i++)
		uproc_free(u.procs[i]);
	free(u.procs);
	free(u.done);
	free(u.slow);
	ucap_end(u.caps);
	return rc;
}

bool ustack_any_wanted(const struct cgw_report *r)
{
	for (size_t k = 0; k < r->nf; k++) {
		const struct cgw_finding *f = &r->f[k];
		for (size_t i = 0; i < f->nchain; i++)
			if (wanted(&r->scan->t[f->chain[i]]))
				return true;
		for (size_t i = 0; i < f->ntasks; i++)
			if (wanted(&r->scan->t[f->tasks[i]]))
				return true;
	}
	return false;
}

void ustack_unanswered(struct cgw_report *r, const char *why)
{
	struct cgw_scan *s = r->scan;
	for (size_t k = 0; k < r->nf; k++) {
		const struct cgw_finding *f = &r->f[k];
		for (int pass = 0; pass < 2; pass++) {
			size_t n = pass == 0 ? f->nchain : f->ntasks;
			for (size_t i = 0; i < n; i++) {
				struct cgw_task *t = &s->t[pass == 0 ? f->chain[i] : f->tasks[i]];
				if (wanted(t))
					snprintf(t->ustack_error, sizeof(t->ustack_error), "%s", why);
			}
		}
	}
}
