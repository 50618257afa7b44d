/* unwind-prog.c: the program whose stacks seed fuzz-unwind (tests/fuzz/seeds.py builds it
 * and runs it). Freestanding (no libc) and static-pie, so that every frame is in its one
 * small file, mapped at a random base. It reads one byte that names the way to its last
 * read(0, buf, 7), where it blocks, and where seeds.py takes its registers, mappings and
 * stack:
 *   a  through C functions that save registers (their CFI: rules for rbx, r12..)
 *   b  into a syscall stub with no unwind info (a leaf: its return address at sp)
 *   c  through functions that keep a frame pointer (CFA = rbp + 16: a stack scan)
 *   d  through a function whose CFA and saved rbx are DWARF expressions
 *   e  through one whose CFA expression never ends (DW_OP_skip -3: libunwind loops) */

long sys3(long nr, long a, long b, long c);
long raw_read(long fd, char *buf, long n);
long expr_fn(long x);
long loop_fn(long x);
void start_c(void);

__asm__(".text\n"
        ".globl _start\n_start:\n"
        "\t.cfi_startproc\n"
        "\t.cfi_undefined rip\n"             /* the outermost frame, as glibc's _start */
        "\txorl %ebp, %ebp\n"
        "\tandq $-16, %rsp\n"
        "\tcall start_c\n"
        "\tmovl $60, %eax\n"
        "\txorl %edi, %edi\n"
        "\tsyscall\n"
        "\t.cfi_endproc\n"
        /* no .cfi_startproc: no FDE */
        ".globl raw_read\nraw_read:\n"
        "\txorl %eax, %eax\n"
        "\tsyscall\n"
        "\tret\n"
        /* CFA = rsp + 8 + 8 as an expression (breg7 0; lit8; dup; plus; plus), rbx saved at
         * CFA - 16 (lit16; minus, from the CFA pushed first) */
        ".globl expr_fn\nexpr_fn:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbx\n"
        "\t.cfi_escape 0x0f, 0x06, 0x77, 0x00, 0x38, 0x12, 0x22, 0x22\n"
        "\t.cfi_escape 0x10, 0x03, 0x02, 0x40, 0x1c\n"
        "\tmovq %rdi, %rbx\n"
        "\tcall leaf_read\n"
        "\taddq %rbx, %rax\n"
        "\tpopq %rbx\n"
        "\t.cfi_def_cfa rsp, 8\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        /* the loop: DW_CFA_def_cfa_expression { DW_OP_skip -3 } */
        ".globl loop_fn\nloop_fn:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbx\n"
        "\t.cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n"
        "\tmovq %rdi, %rbx\n"
        "\tcall leaf_read\n"
        "\taddq %rbx, %rax\n"
        "\tpopq %rbx\n"
        "\t.cfi_def_cfa rsp, 8\n"
        "\tret\n"
        "\t.cfi_endproc\n");

__attribute__((noinline)) long sys3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
	                 : "rcx", "r11", "memory");
	return r;
}

__attribute__((noinline, used)) long leaf_read(void)
{
	char buf[8];
	return sys3(0, 0, (long)buf, 7);
}

/* a variable-length array: the frame needs rbp at -O2 too */
__attribute__((noinline)) static long fp_fn(long n)
{
	volatile char buf[n + 16];
	buf[0] = (char)n;
	long r = leaf_read();
	return r + buf[0];
}

/* its callers keep frame pointers too: a chain of records the stack scan can follow (rbp
 * is a scratch register of the functions above them) */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) static long fp_b(long n)
{
	return fp_fn(n + 1) * 3;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static long fp_a(long n)
{
	return fp_b(n + 2) * 5;
}

__attribute__((noinline)) static long last(long x, int how)
{
	char buf[8];
	switch (how) {
	case 'b': return raw_read(0, buf, 7) + x;
	case 'c': return fp_a(x & 7) + x;
	case 'd': return expr_fn(x);
	case 'e': return loop_fn(x);
	default: return leaf_read() + x;
	}
}

__attribute__((noinline)) static long f3(long x, long y, int how)
{
	long r = last(x * 3, how);
	return r * y + x;
}

__attribute__((noinline)) static long f2(long x, long y, int how)
{
	long r = f3(x + y, y - 1, how);
	return r ^ (x + y);
}

__attribute__((noinline)) static long f1(long x, int how)
{
	long r = f2(x, x * 5, how);
	return r + x;
}

void start_c(void)
{
	char how = 'a';
	sys3(0, 0, (long)&how, 1);
	long r = f1(how, how);
	sys3(60, r & 1, 0, 0);
}
