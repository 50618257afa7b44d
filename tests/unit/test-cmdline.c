/* test-cmdline.c: cmdline_get and parse_isolcpus on real kernel command lines. */
#include "unit.h"

/* /proc/cmdline of this host: after the lone "--" come init's arguments */
static const char cmdline_host[] =
	"mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 "
	"nomodule random.trust_cpu=1 swiotlb=noforce psi=1 nvproxy.enable=1 "
	"page_reporting.page_reporting_order=11 deferred_init=lazy nested_pvm=1 "
	"cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=0 sched_vcpu_pack=15 "
	"rdinit=/process_api -- --firecracker-init --addr 0.0.0.0:2024 --max-ws-buffer-size 32768 "
	"--block-local-connections --log-vsock-port 5002 --control-vsock-port 5001 "
	"--listen-vsock-port 2024 --tcp-readiness-only --auth-required\n";

/* seed 004 */
static const char cmdline_seed004[] =
	"BOOT_IMAGE=/vmlinuz root=UUID=x ro isolcpus=nohz,18-95,108-178 nohz_full=18-95,108-178 "
	"rcu_nocbs=18-95,108-178 rcu_nocb_poll skew_tick=1 nosmt=force idle=poll\n";

struct get_case {
	const char *key;
	const char *want;        /* NULL: absent */
};

static void check_get(const char *cmdline, const struct get_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char out[256];
		memset(out, 'X', sizeof(out));
		print_message("# %s\n", c[i].key);
		const char *r = cmdline_get(cmdline, c[i].key, out, sizeof(out));
		if (!c[i].want) {
			if (r)
				print_error("%s: got \"%s\", want absent\n", c[i].key, r);
			assert_null(r);
		} else {
			assert_ptr_equal(r, out);
			assert_string_equal(out, c[i].want);
		}
	}
}

static void test_cmdline_host(void **state)
{
	(void)state;
	static const struct get_case cases[] = {
		{ "mitigations", "auto,no_guest_host,no_guest_guest" },
		{ "console", "ttyS0" },
		{ "quiet", "" },
		{ "nomodule", "" },
		{ "panic", "1" },
		{ "random.trust_cpu", "1" },
		{ "page_reporting.page_reporting_order", "11" },
		{ "rdinit", "/process_api" },
		{ "sched_vcpu_pack", "15" },
		/* prefixes of a key or of a dotted name are other keys */
		{ "mitigation", NULL },
		{ "page_reporting", NULL },
		{ "isolcpus", NULL },
		/* init's arguments, after " -- " */
		{ "--firecracker-init", NULL },
		{ "--addr", NULL },
		{ "--auth-required", NULL },
		{ "--", NULL },
	};
	check_get(cmdline_host, cases, ARRAY_SIZE(cases));
}

static void test_cmdline_seed004(void **state)
{
	(void)state;
	static const struct get_case cases[] = {
		{ "BOOT_IMAGE", "/vmlinuz" },
		{ "root", "UUID=x" },
		{ "ro", "" },
		{ "isolcpus", "nohz,18-95,108-178" },
		{ "nohz_full", "18-95,108-178" },
		{ "rcu_nocbs", "18-95,108-178" },
		{ "rcu_nocb_poll", "" },
		{ "skew_tick", "1" },
		{ "nosmt", "force" },
		{ "idle", "poll" },                  /* the last word, before the newline */
		{ "nohz", NULL },
		{ "rcu_nocb", NULL },
		{ "UUID", NULL },
	};
	check_get(cmdline_seed004, cases, ARRAY_SIZE(cases));
}

/* Parameters after a lone "--" belong to init, even when they look like the kernel's. */
static void test_cmdline_double_dash_ends(void **state)
{
	(void)state;
	static const struct get_case cases[] = {
		{ "quiet", "" },
		{ "isolcpus", "1-3" },
		{ "init", NULL },
		{ "single", NULL },
		{ "x--", "" },
	};
	check_get("quiet x-- isolcpus=1-3 -- isolcpus=4-5 init=/bin/sh single\n", cases,
	          ARRAY_SIZE(cases));
	/* "--x" and "---" are words, not the separator */
	static const struct get_case c2[] = { { "a", "3" } };
	check_get("a=1 --x a=2 --- a=3", c2, 1);
}

static void test_cmdline_last_wins(void **state)
{
	(void)state;
	static const struct get_case cases[] = {
		{ "console", "ttyS0,115200n8" },
		{ "isolcpus", "domain,4-5" },
		{ "quiet", "" },                    /* "quiet=1" then bare "quiet" */
		{ "loglevel", "7" },                /* bare then "=7" */
	};
	check_get("console=tty0 isolcpus=1-3 quiet=1 loglevel console=ttyS0,115200n8 quiet "
	          "isolcpus=domain,4-5 loglevel=7\n", cases, ARRAY_SIZE(cases));
}

/* The kernel lets a value hold spaces in double quotes; the quotes are not the value. */
static void test_cmdline_quoted(void **state)
{
	(void)state;
	static const struct get_case cases[] = {
		{ "dyndbg", "file drivers/usb/* +p" },
		{ "acpi_osi", "Windows 2009" },
		{ "empty", "" },
		{ "quiet", "" },
		{ "+p", NULL },
		{ "2009", NULL },
		{ "ro", "" },
	};
	check_get("dyndbg=\"file drivers/usb/* +p\" acpi_osi=\"Windows 2009\" empty=\"\" quiet\tro\n",
	          cases, ARRAY_SIZE(cases));
}

static void test_cmdline_empty_and_truncated(void **state)
{
	(void)state;
	char out[8];
	assert_null(cmdline_get("", "quiet", out, sizeof(out)));
	assert_null(cmdline_get("\n", "quiet", out, sizeof(out)));
	memset(out, 'X', sizeof(out));
	assert_ptr_equal(cmdline_get(cmdline_host, "console", out, 4), out);
	assert_string_equal(out, "tty");
	assert_int_equal(out[4], 'X');
	assert_ptr_equal(cmdline_get(cmdline_seed004, "isolcpus", out, 1), out);
	assert_string_equal(out, "");
}

static void test_isolcpus(void **state)
{
	(void)state;
	static const struct {
		const char *val;
		unsigned flags;
		const char *cpus;
	} cases[] = {
		/* the kernel: no flag means "domain"; any flag turns that default off */
		{ "nohz,18-95,108-178", ISOL_NOHZ, "18-95,108-178" },
		{ "domain,managed_irq,2-3", ISOL_DOMAIN | ISOL_MANAGED_IRQ, "2-3" },
		{ "1-3", ISOL_DOMAIN, "1-3" },
		{ "managed_irq,4", ISOL_MANAGED_IRQ, "4" },
		{ "nohz,domain,18-95", ISOL_NOHZ | ISOL_DOMAIN, "18-95" },
		{ "nohz,managed_irq,domain,0-15:2/4", ISOL_NOHZ | ISOL_DOMAIN | ISOL_MANAGED_IRQ,
		  "0-1,4-5,8-9,12-13" },
		{ "domain,1,3,5", ISOL_DOMAIN, "1,3,5" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned flags = 0xdead;
		struct cgw_cpus c;
		char out[128];
		print_message("# %s\n", cases[i].val);
		assert_int_equal(parse_isolcpus(cases[i].val, &flags, &c), 0);
		assert_int_equal(flags, cases[i].flags);
		assert_string_equal(cpulist_format(&c, out, sizeof(out)), cases[i].cpus);
	}
}

/* the value taken from seed 004's command line, end to end */
static void test_isolcpus_from_cmdline(void **state)
{
	(void)state;
	char val[128], out[128];
	unsigned flags;
	struct cgw_cpus iso, nohz;
	assert_non_null(cmdline_get(cmdline_seed004, "isolcpus", val, sizeof(val)));
	assert_int_equal(parse_isolcpus(val, &flags, &iso), 0);
	assert_int_equal(flags, ISOL_NOHZ);
	assert_non_null(cmdline_get(cmdline_seed004, "nohz_full", val, sizeof(val)));
	assert_int_equal(cpulist_parse(val, &nohz), 0);
	assert_memory_equal(&iso, &nohz, sizeof(iso));
	assert_string_equal(cpulist_format(&iso, out, sizeof(out)), "18-95,108-178");
}

static void test_isolcpus_bad_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"nohz_full,1-3", "foo,1", "nohz", "domain", "nohz;1-3", "Nohz,1", "nohz,3-1",
		"nohz,1-", "managed_irq,,1", "domain,1,,2", ",1-3",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned flags;
		struct cgw_cpus c;
		print_message("# %s\n", bad[i]);
		assert_int_equal(parse_isolcpus(bad[i], &flags, &c), -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_host),
		cmocka_unit_test(test_cmdline_seed004),
		cmocka_unit_test(test_cmdline_double_dash_ends),
		cmocka_unit_test(test_cmdline_last_wins),
		cmocka_unit_test(test_cmdline_quoted),
		cmocka_unit_test(test_cmdline_empty_and_truncated),
		cmocka_unit_test(test_isolcpus),
		cmocka_unit_test(test_isolcpus_from_cmdline),
		cmocka_unit_test(test_isolcpus_bad_einval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
