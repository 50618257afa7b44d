/* test-parse-stat.c: parse_stat_buf on real /proc/TID/stat lines (Linux 6.18, this host). */
#include "unit.h"

/* Real lines. Fields after comm: 3 state, 4 ppid, 9 flags, 22 starttime, 39 processor,
 * 40 rt_priority, 41 policy. */

/* `taskset -c 1 chrt -f 50 sleep 5` */
static const char fifo_line[] =
	"5533 (sleep) S 5531 5531 4336 0 -1 4194560 284 0 1 0 0 0 0 0 -51 0 1 0 44898 2990080 420 "
	"18446744073709551615 94678130368512 94678130386441 140734514131344 0 0 0 0 6 0 1 0 0 17 1 "
	"50 1 0 0 0 94678130400528 94678130401792 94678452322304 140734514133648 140734514133656 "
	"140734514133656 140734514135017 0\n";
/* `taskset -c 0 chrt -r 7 sleep 5` */
static const char rr_line[] =
	"5610 (sleep) S 5608 5608 4336 0 -1 4194560 289 0 0 0 0 0 0 0 -8 0 1 0 45536 2990080 392 "
	"18446744073709551615 94694696341504 94694696359433 140725521409344 0 0 0 0 6 0 1 0 0 17 0 "
	"7 2 0 0 0 94694696373520 94694696374784 94695586811904 140725521410704 140725521410712 "
	"140725521410712 140725521412073 0\n";
/* a vfork parent waiting for its child: state D */
static const char vfork_line[] =
	"5501 (cgw_vf) D 5500 5492 4336 0 -1 4194304 105 0 0 0 0 0 0 0 20 0 1 0 44517 2400256 243 "
	"18446744073709551615 94162503979008 94162503979405 140725424975504 0 0 0 0 6 0 1 0 0 17 1 "
	"0 0 0 0 0 94162503990736 94162503991336 94162790576128 140725424982676 140725424982688 "
	"140725424982688 140725424984044 0\n";
/* a per-CPU kernel thread: SCHED_FIFO 99 on CPU 1 */
static const char migration_line[] =
	"21 (migration/1) S 2 0 0 0 -1 69238848 0 0 0 0 31 0 0 0 -100 0 1 0 30 0 0 "
	"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 1 99 1 0 0 0 0 0 0 0 0 0 0 0\n";
/* PID 1 of this sandbox */
static const char init_line[] =
	"1 (process_api) S 0 0 0 0 -1 4194560 37777 384631 0 200 64 243 1014 688 20 0 13 0 30 "
	"44859392 3484 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0\n";

struct stat_case {
	const char *what;
	const char *line;
	int tid, ppid;
	char state;
	const char *comm;
	size_t comm_len;
	unsigned long flags;
	unsigned long long start;
	int cpu;
	unsigned rt, policy;
};

static void check_case(const struct stat_case *c)
{
	struct cgw_stat st;
	print_message("# case: %s\n", c->what);
	assert_int_equal(parse_stat_buf(c->line, strlen(c->line), &st), 0);
	assert_int_equal(st.tid, c->tid);
	assert_int_equal(st.comm_len, c->comm_len);
	assert_bytes_equal(st.comm, c->comm, c->comm_len + 1);   /* with the NUL */
	assert_int_equal(st.state, c->state);
	assert_int_equal(st.ppid, c->ppid);
	assert_int_equal(st.flags, c->flags);
	assert_int_equal(st.start_ticks, c->start);
	assert_int_equal(st.cpu, c->cpu);
	assert_int_equal(st.rt_priority, c->rt);
	assert_int_equal(st.policy, c->policy);
}

static void test_stat_real_lines_fields(void **state)
{
	(void)state;
	static const struct stat_case cases[] = {
		{ "SCHED_FIFO 50 on CPU 1", fifo_line, 5533, 5531, 'S', "sleep", 5, 4194560, 44898, 1, 50, 1 },
		{ "SCHED_RR 7 on CPU 0", rr_line, 5610, 5608, 'S', "sleep", 5, 4194560, 45536, 0, 7, 2 },
		{ "vfork parent in D", vfork_line, 5501, 5500, 'D', "cgw_vf", 6, 4194304, 44517, 1, 0, 0 },
		{ "migration/1 kthread", migration_line, 21, 2, 'S', "migration/1", 11, 69238848, 30, 1, 99, 1 },
		{ "pid 1", init_line, 1, 0, 'S', "process_api", 11, 4194560, 30, 0, 0, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i]);
}

/* comm is whatever the task set with prctl(PR_SET_NAME) or /proc/self/comm: these lines were
 * read back from real tasks that named themselves so. */
static void test_stat_hostile_comm(void **state)
{
	(void)state;
	static const struct stat_case cases[] = {
		{ "spaces", "4996 (a b c) S 4994 4994 4336 0 -1 4194304 210 0 0 0 0 0 0 0 20 0 1 0 38875 "
		  "4464640 772 18446744073709551615 94905997459456 94905998248861 140724875712000 0 0 0 "
		  "65536 4 65538 1 0 0 17 0 0 0 0 0 0 94905998482160 94905998530404 94906832986112 "
		  "140724875713106 140724875713177 140724875713177 140724875714538 0\n",
		  4996, 4994, 'S', "a b c", 5, 4194304, 38875, 0, 0, 0 },
		{ "') R 1 2' inside", "4999 (x) R 1 2) S 4994 4994 4336 0 -1 4194304 210 0 0 0 0 0 0 0 20 0 "
		  "1 0 38876 4464640 693 18446744073709551615 94810937241600 94810938031005 "
		  "140734611734400 0 0 0 65536 4 65538 1 0 0 17 1 0 0 0 0 0 94810938264304 "
		  "94810938312548 94811409469440 140734611737167 140734611737241 140734611737241 "
		  "140734611738602 0\n",
		  4999, 4994, 'S', "x) R 1 2", 8, 4194304, 38876, 1, 0, 0 },
		{ "') R 1 2 (' inside", "5002 () R 1 2 () S 4994 4994 4336 0 -1 4194304 214 0 0 0 0 0 0 0 "
		  "20 0 1 0 38877 4464640 780 18446744073709551615 93847150907392 93847151696797 "
		  "140720479216640 0 0 0 65536 4 65538 1 0 0 17 0 0 0 0 0 0 93847151930096 "
		  "93847151978340 93847949869056 140720479218254 140720479218329 140720479218329 "
		  "140720479219690 0\n",
		  5002, 4994, 'S', ") R 1 2 (", 9, 4194304, 38877, 0, 0, 0 },
		{ "just ')'", "5011 ()) S 4994 4994 4336 0 -1 4194304 212 0 0 0 0 0 0 0 20 0 1 0 38878 "
		  "4464640 747 18446744073709551615 93845493956608 93845494746013 140728081056272 0 0 0 "
		  "65536 4 65538 1 0 0 17 1 0 0 0 0 0 93845494979312 93845495027556 93845537816576 "
		  "140728081062486 140728081062553 140728081062553 140728081063914 0\n",
		  5011, 4994, 'S', ")", 1, 4194304, 38878, 1, 0, 0 },
		{ "newline", "5035 (new\nline) R 5026 5026 4336 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 "
		  "39332 2400256 237 18446744073709551615 94665844596736 94665844597261 140729465752400 "
		  "0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 94665844608464 94665844609072 94666733985792 "
		  "140729465756290 140729465756313 140729465756313 140729465757674 0\n",
		  5035, 5026, 'R', "new\nline", 8, 4194304, 39332, 0, 0, 0 },
		{ "newline then ') R 1 2'", "5037 (nl\n) R 1 2) R 5026 5026 4336 0 -1 4194304 99 0 0 0 0 "
		  "0 0 0 20 0 1 0 39332 2400256 243 18446744073709551615 94236358180864 94236358181389 "
		  "140725979366064 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 94236358192592 94236358193200 "
		  "94236372639744 140725979368064 140725979368089 140725979368089 140725979369450 0\n",
		  5037, 5026, 'R', "nl\n) R 1 2", 10, 4194304, 39332, 0, 0, 0 },
		{ "15 bytes (set as 21, kernel truncated)", "5008 (abcdefghijklmno) S 4994 4994 4336 0 -1 "
		  "4194304 211 0 0 0 0 0 0 0 20 0 1 0 38878 4464640 720 18446744073709551615 "
		  "94209565519872 94209566309277 140720922758416 0 0 0 65536 4 65538 1 0 0 17 1 0 0 0 0 "
		  "0 94209566542576 94209566590820 94210124705792 140720922765890 140720922765977 "
		  "140720922765977 140720922767338 0\n",
		  5008, 4994, 'S', "abcdefghijklmno", 15, 4194304, 38878, 1, 0, 0 },
		{ "ESC sequence", "5041 (\x1b[31mred) R 5026 5026 4336 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 "
		  "0 39333 2400256 237 18446744073709551615 94408785412096 94408785412621 "
		  "140726520572208 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 94408785423824 94408785424432 "
		  "94409474867200 140726520580738 140726520580761 140726520580761 140726520582122 0\n",
		  5041, 5026, 'R', "\x1b[31mred", 8, 4194304, 39333, 0, 0, 0 },
		{ "UTF-8", "5043 (\xc3\xa9t\xc3\xa9) R 5026 5026 4336 0 -1 4194304 103 0 0 0 0 0 0 0 20 0 1 "
		  "0 39333 2400256 213 18446744073709551615 94021578850304 94021578850829 "
		  "140731580104192 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 94021578862032 94021578862640 "
		  "94022067662848 140731580111493 140731580111513 140731580111513 140731580112874 0\n",
		  5043, 5026, 'R', "\xc3\xa9t\xc3\xa9", 5, 4194304, 39333, 0, 0, 0 },
		{ "empty comm", "7 () S 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 30 0 0 "
		  "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		  7, 2, 'S', "", 0, 69238880, 30, 1, 0, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i]);
}

/* Kworker names carry the workqueue: "+" running it now, "-" ran it last. The first two are
 * from this host; the third is seed 004's stuck worker (tid, name, state D) on this host's
 * kworker line, with utime, starttime and CPU set to distinct values (9, 7731, 42). */
static void test_stat_kworker_full_names(void **state)
{
	(void)state;
	static const struct stat_case cases[] = {
		{ "kworker/u8:1-ext4-rsv-conversion", "32 (kworker/u8:1-ext4-rsv-conversion) I 2 0 0 0 -1 "
		  "69239136 0 0 0 0 0 15 0 0 20 0 1 0 32 0 0 18446744073709551615 0 0 0 0 0 0 0 "
		  "2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		  32, 2, 'I', "kworker/u8:1-ext4-rsv-conversion", 32, 69239136, 32, 0, 0, 0 },
		{ "kworker/0:0H-events_highpri", "10 (kworker/0:0H-events_highpri) I 2 0 0 0 -1 69238880 0 "
		  "0 0 0 0 0 0 0 0 -20 1 0 30 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 "
		  "17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		  10, 2, 'I', "kworker/0:0H-events_highpri", 27, 69238880, 30, 0, 0, 0 },
		{ "seed 004 worker", "1765 (kworker/u768:1+cpuset_migrate_mm) D 2 0 0 0 -1 69238880 0 0 0 "
		  "0 0 9 0 0 20 0 1 0 7731 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 "
		  "42 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		  1765, 2, 'D', "kworker/u768:1+cpuset_migrate_mm", 32, 69238880, 7731, 42, 0, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i]);
}

/* A comm longer than the buffer (not something the kernel makes) is cut, never overflows. */
static void test_stat_overlong_comm_truncated(void **state)
{
	(void)state;
	char line[512], name[100];
	memset(name, 'k', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(line, sizeof(line), "9 (%s) S 2 0 0 0 -1 1 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 0 0 0 0 "
	         "0 0 0 0 0 0 0 0 0 17 3 4 5 0 0 0 0 0 0 0 0 0 0 0\n", name);
	struct cgw_stat st;
	assert_int_equal(parse_stat_buf(line, strlen(line), &st), 0);
	assert_int_equal(st.comm_len, CGW_COMM_MAX - 1);
	assert_int_equal(strlen(st.comm), CGW_COMM_MAX - 1);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.start_ticks, 5);
	assert_int_equal(st.cpu, 3);
	assert_int_equal(st.rt_priority, 4);
	assert_int_equal(st.policy, 5);
}

/* The line cut anywhere before field 41 (policy) is not a stat line. */
static void test_stat_truncated_einval(void **state)
{
	(void)state;
	const char *line = fifo_line;
	/* offsets: inside the comm, right after ')', after the state, in the middle, just before
	 * the policy field */
	const char *p40 = strstr(line, " 17 1 50 1 ");
	assert_non_null(p40);
	size_t cuts[] = { 0, 1, 6, 12, 14, 16, 40, (size_t)(p40 - line) + 8 /* "... 17 1 50" */ };
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
		struct cgw_stat st;
		print_message("# cut at %zu\n", cuts[i]);
		assert_int_equal(parse_stat_buf(line, cuts[i], &st), -EINVAL);
	}
	/* with the policy field it parses */
	struct cgw_stat st;
	assert_int_equal(parse_stat_buf(line, (size_t)(p40 - line) + 10, &st), 0);
	assert_int_equal(st.policy, 1);
	assert_int_equal(st.rt_priority, 50);
}

/* len bounds the parse: a ')' after len (next line of a bigger buffer) is not the comm end. */
static void test_stat_len_bounds_last_paren(void **state)
{
	(void)state;
	char buf[1024];
	size_t n = strlen(rr_line);
	memcpy(buf, rr_line, n);
	memcpy(buf + n, "99 (evil) X 1 2 3)", 19);
	struct cgw_stat st;
	assert_int_equal(parse_stat_buf(buf, n, &st), 0);
	assert_string_equal(st.comm, "sleep");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.policy, 2);

	/* a hostile name truncated before its real ')' */
	const char *hostile = "4999 (x) R 1 2) S 4994 4994 4336 0 -1 4194304";
	assert_int_equal(parse_stat_buf(hostile, strlen("4999 (x) R 1 2"), &st), -EINVAL);
}

/* The fields of a SCHED_FIFO 50 task after its state (fifo_line's, addresses made 1). */
#define FIFO_REST " 5531 5531 4336 0 -1 4194560 284 0 1 0 0 0 0 0 -51 0 1 0 44898 2990080 420 " \
	"18446744073709551615 1 1 1 0 0 0 0 6 0 1 0 0 17 1 50 1 0 0 0 1 1 1 1 1 1 1 0\n"

static void test_stat_malformed_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		"\n",
		"5533 (sleep S" FIFO_REST,               /* missing ')' */
		"5533 sleep) S" FIFO_REST,               /* missing '(' */
		"5533 )sleep( S" FIFO_REST,              /* ')' before '(' */
		"(sleep) S" FIFO_REST,                   /* no tid */
		"0 (sleep) S" FIFO_REST,                 /* tid 0 */
		"5533 (sleep) SR" FIFO_REST,             /* state is not one letter */
		/* only the head */
		"5533 (sleep) S\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_stat st;
		print_message("# bad[%zu]\n", i);
		assert_int_equal(parse_stat_buf(bad[i], strlen(bad[i]), &st), -EINVAL);
	}
}

/* The fields are split by hand: a NUL ends the line as len does, runs of blanks are one
 * separator, and a number is read within its own field (never into the next). */
static void test_stat_split_edges(void **state)
{
	(void)state;
	char buf[1024];
	size_t n = strlen(fifo_line);
	memcpy(buf, fifo_line, n + 1);
	char *p40 = strstr(buf, " 17 1 50 1 ");
	assert_non_null(p40);
	struct cgw_stat st;
	p40[9] = '\0';                      /* "... 17 1 50\0 ...": the policy is cut off */
	assert_int_equal(parse_stat_buf(buf, n, &st), -EINVAL);

	const char *spaced = "7 (a b) R  \n 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 "
	                     "55 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17  2 0 0";
	assert_int_equal(parse_stat_buf(spaced, strlen(spaced), &st), 0);
	assert_string_equal(st.comm, "a b");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 3);
	assert_int_equal(st.flags, 8);
	assert_int_equal(st.start_ticks, 55);
	assert_int_equal(st.cpu, 2);
	assert_int_equal(st.policy, 0);

	/* len cuts a number: it is read as cut, not from the bytes after len */
	const char *cut = "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 "
	                  "55 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 2 0 123456";
	assert_int_equal(parse_stat_buf(cut, strlen(cut) - 3, &st), 0);
	assert_int_equal(st.policy, 123);
}

/* The numeric fields cgwatch reads (1 tid, 4 ppid, 9 flags, 22 starttime, 39 processor,
 * 40 rt_priority, 41 policy), each replaced in a real line by a number /proc never writes:
 * the line does not parse. Before, strtoull took "-5" as 2^64-5, atoi "nan" as 0 and
 * "0x10" as 0, and a 2^64 start time as ULLONG_MAX. */
static void test_stat_hostile_numbers(void **state)
{
	(void)state;
	static const int fields[] = { 1, 4, 9, 22, 39, 40, 41 };
	for (size_t f = 0; f < ARRAY_SIZE(fields); f++)
		for (size_t h = 0; h < ARRAY_SIZE(hostile_nums); h++) {
			/* fifo_line with field fields[f] replaced: split on ' ' after the comm */
			char line[1024], out[1200];
			snprintf(line, sizeof(line), "%s", fifo_line);
			line[strcspn(line, "\n")] = '\0';
			size_t o = 0;
			int field = 1;
			for (char *save, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
				const char *v = field == fields[f] ? hostile_nums[h] : t;
				o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", o ? " " : "", v);
				field++;
			}
			struct cgw_stat st;
			print_message("# field %d = \"%s\"\n", fields[f], hostile_nums[h]);
			assert_true(parse_stat_buf(out, o, &st) < 0);
		}
}

/* Fields 23 to 37 of a line, none of which cgwatch reads. */
#define Z15 " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"

/* Fields in range only: a CPU cgwatch cannot represent, an RT priority past 99, a tid past
 * INT_MAX, a start time past 2^53 ticks (no double holds it exactly) do not parse; "-0" is 0
 * and the largest values in range do. */
static void test_stat_ranges(void **state)
{
	(void)state;
	static const struct { const char *line; int rc; } cases[] = {
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 8192 0 0", -1 },
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 8191 0 0", 0 },
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 0 100 1", -1 },
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 0 99 1", 0 },
		{ "2147483648 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 0 0 0", -1 },
		{ "2147483647 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 0 0 0", 0 },
		{ "7 (a) S 2147483648 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 0 0 0", -1 },
		{ "7 (a) S 3 0 0 0 -1 4294967296 0 0 0 0 0 0 0 0 20 0 1 0 55" Z15 " 17 0 0 0", -1 },
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 9007199254740993" Z15 " 17 0 0 0", -1 },
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 0 0 0 0 20 0 1 0 9007199254740992" Z15 " 17 0 0 0", 0 },
		{ "7 (a) S -0 0 0 0 -1 -0 0 0 0 0 0 0 0 0 20 0 1 0 -0" Z15 " 17 -0 -0 -0", 0 },
		/* the fields cgwatch does not read may hold what they like (-1 tty_pgrp, -100 prio) */
		{ "7 (a) S 3 0 0 0 -1 8 0 0 0 0 nan 0 0 0 -100 0 1 0 55" Z15 " 17 0 0 0", 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cgw_stat st;
		print_message("# case %zu\n", i);
		int rc = parse_stat_buf(cases[i].line, strlen(cases[i].line), &st);
		if (cases[i].rc < 0)
			assert_true(rc < 0);
		else
			assert_int_equal(rc, 0);
	}
	struct cgw_stat st;
	assert_int_equal(parse_stat_buf(cases[10].line, strlen(cases[10].line), &st), 0);
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.flags, 0);
	assert_int_equal(st.start_ticks, 0);
	assert_int_equal(st.cpu, 0);
	assert_int_equal(st.rt_priority, 0);
	assert_int_equal(st.policy, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_real_lines_fields),
		cmocka_unit_test(test_stat_hostile_comm),
		cmocka_unit_test(test_stat_kworker_full_names),
		cmocka_unit_test(test_stat_overlong_comm_truncated),
		cmocka_unit_test(test_stat_truncated_einval),
		cmocka_unit_test(test_stat_len_bounds_last_paren),
		cmocka_unit_test(test_stat_malformed_einval),
		cmocka_unit_test(test_stat_split_edges),
		cmocka_unit_test(test_stat_hostile_numbers),
		cmocka_unit_test(test_stat_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
