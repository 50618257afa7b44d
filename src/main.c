/* main.c: the command line — check, config --check, signatures, recorder start|stop. */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

static void usage(FILE *out)
{
	fputs("usage: cgwatch check [--root DIR|FILE | --capture DIR] [--config FILE]\n"
	      "                     [--format text|json|html] [--threshold SECONDS] [--all] [--rates]\n"
	      "                     [--verbose]\n"
	      "       cgwatch config --check [--config FILE]\n"
	      "       cgwatch run [--config FILE]\n"
	      "       cgwatch recorder start|stop [--config FILE]\n"
	      "       cgwatch signatures [--check DIR | --catalog | --show ID] [--config FILE]\n"
	      "       cgwatch bundle [--root DIR] [-o FILE] [--redact] | --verify FILE [--config FILE]\n"
	      "       cgwatch audit [--root DIR|FILE] [--format text|json|html] [--config FILE]\n"
	      "       cgwatch hazards [--check DIR | --show ID | --facts] [--config FILE]\n"
	      "       cgwatch runq [--interval SECONDS] [--config FILE]\n"
	      "exit codes of check: 0 nothing at or above the threshold, 1 findings,\n"
	      "2 usage or configuration error, 3 the system could not be read\n"
	      "exit codes of audit: 0 no hazard, 1 hazards, 2 and 3 as check\n", out);
}

static double watchdog_s;

/* `check` always returns: whatever hangs, this ends the process after check_timeout. */
static void *watchdog(void *arg)
{
	(void)arg;
	crash_thread_init();
	usleep((useconds_t)(watchdog_s * 1e6));
	log_warnx("check did not finish within %g s (check_timeout): a read is stuck on the "
	          "system being diagnosed; giving up", watchdog_s);
	_exit(EXIT_UNREADABLE);
}

/* What `cgwatch check` was asked for. format NULL: no report printed (a bundle's capture). */
struct check_args {
	const char *root, *config, *format, *capdir;
	double threshold;                 /* < 0: the configuration's */
	bool all, verbose, want_rates;
};

static int check_run(const struct check_args *a);

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "capture", required_argument, NULL, 'K' },
		{ "config", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "threshold", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "rates", no_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *root = NULL, *config = NULL, *format = "text", *capdir = NULL;
	double threshold = -1;
	bool all = false, verbose = false, want_rates = false;
	int o;
	while ((o = getopt_long(argc, argv, "r:c:f:t:avh", opts, NULL)) != -1) {
		switch (o) {
		case 'r': root = optarg; break;
		case 'K': capdir = optarg; break;
		case 'c': config = optarg; break;
		case 'f': format = optarg; break;
		case 't':
			if (parse_seconds(optarg, 0, 86400, &threshold) < 0) {
				log_warnx("--threshold: expected seconds (0..86400), got \"%s\"",
				          cesc(optarg));
				return EXIT_USAGE;
			}
			break;
		case 'a': all = true; break;
		case 'R': want_rates = true; break;
		case 'v': log_verbose = 1; verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc || (strcmp(format, "text") && strcmp(format, "json") &&
	                      strcmp(format, "html"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (root && capdir) {
		log_warnx("--capture records a live check: it cannot be used with --root");
		return EXIT_USAGE;
	}
	struct check_args a = { root, config, format, capdir, threshold, all, verbose, want_rates };
	return check_run(&a);
}

/* check: the configuration (with --threshold), the library and the watchdog, then
 * check_once, the one sequence a bundle's check of its tree runs too. */
static int check_run(const struct check_args *a)
{
	struct cgw_conf conf;
	int rc = config_load(&conf, a->config);
	if (rc) {
		conf_free(&conf);
		return rc;
	}
	if (a->threshold >= 0) {
		conf.blocked_warning_s = a->threshold;
		if (conf.blocked_critical_s < a->threshold)
			conf.blocked_critical_s = a->threshold;
	}
	struct cgw_sigset sigs = { 0 };
	if ((rc = signatures_load(&sigs, &conf)))
		goto out;

	watchdog_s = conf.check_timeout_s;
	pthread_t wd;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_create(&wd, &attr, watchdog, NULL);
	pthread_attr_destroy(&attr);

	if (a->root)                      /* a bundle file is read within them */
		archive_read_caps = bundle_replay_caps(&conf);
	struct check_spec s = { .root = a->root, .capdir = a->capdir, .all = a->all,
	                        .verbose = a->verbose, .rates = a->want_rates };
	if (a->format && strcmp(a->format, "json") == 0)
		s.json = stdout;
	else if (a->format && strcmp(a->format, "html") == 0)
		s.html = stdout;
	else if (a->format)
		s.text = stdout;
	struct check_outcome o;
	char msg[8192];
	if ((rc = check_once(&conf, &sigs, &s, &o, msg, sizeof(msg))) && msg[0])
		log_warnx("%s", msg);
out:
	sig_free(&sigs);
	conf_free(&conf);
	return rc;
}

/* cgwatch bundle of this host: a live check that writes what it read into dir, its report
 * not printed. Returns 0 (with or without findings), or check's exit code. */
static int capture_host(const char *dir, const char *config)
{
	struct check_args a = { .config = config, .capdir = dir, .threshold = -1 };
	int rc = check_run(&a);
	return rc == EXIT_FINDINGS ? 0 : rc;
}

static int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'k' },
		{ "config", required_argument, NULL, 'c' },
		{ 0 }
	};
	const char *config = NULL;
	bool check = false;
	int o;
	while ((o = getopt_long(argc, argv, "kc:", opts, NULL)) != -1) {
		if (o == 'k')
			check = true;
		else if (o == 'c')
			config = optarg;
		else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!check || optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	struct cgw_conf conf;
	int rc = config_load(&conf, config);
	conf_free(&conf);
	if (rc == 0)
		printf("configuration OK\n");
	return rc;
}

/* One line of `cgwatch signatures`: its source last, "built in" or the file that added or
 * replaced it (file names C-escaped: a directory can hold any name). */
static void signature_print(const struct cgw_sig *s)
{
	struct strbuf b = { 0 };
	sb_printf(&b, "%-22s %-9s %4d  %s (%s", s->id, sev_name(s->severity), s->priority,
	          s->title, s->builtin ? "built in" : cesc(s->file));
	if (s->replaced)
		sb_printf(&b, ", replacing %s", strcmp(s->replaced, "built in") ? cesc(s->replaced) :
		                                                                 "built in");
	sb_add(&b, ")\n", 2);
	term_write(stdout, b.s, b.len, true);
	sb_free(&b);
}

/* Print a rule's file as it is: the built-in text b when not NULL, else the file. Returns 0,
 * or EXIT_USAGE when the file cannot be read (said). */
static int rule_file_show(const struct cgw_sigfile *b, const char *file)
{
	if (b) {
		fwrite(b->text, 1, b->len, stdout);
		return 0;
	}
	int e;
	FILE *f = fopen_regular(file, &e);
	if (!f) {
		log_warnx("%s: %s", cesc(file), cgw_strerror(e));
		return EXIT_USAGE;
	}
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

/* `cgwatch signatures --show ID`: the text of the file that defines ID, as it is. */
static int signature_show(const struct cgw_sigset *set, const char *id)
{
	const struct cgw_sig *s = sig_find(set, id);
	if (!s) {
		log_warnx("no signature \"%s\" (`cgwatch signatures` lists them)", cesc(id));
		return EXIT_USAGE;
	}
	return rule_file_show(s->builtin ? sig_builtin_file(s->file) : NULL, s->file);
}

/* The options `signatures` and `hazards` share: --check DIR, --config FILE, --show ID and one
 * flag of the command's own (flag_name: "catalog", "facts"). */
struct rules_args {
	const char *dir, *config, *show;
	bool flag;
};

/* Parse them into *a. Returns 0, or EXIT_USAGE (usage printed). */
static int rules_args_parse(int argc, char **argv, const char *flag_name, struct rules_args *a)
{
	const struct option opts[] = {
		{ "check", required_argument, NULL, 'k' },
		{ "config", required_argument, NULL, 'c' },
		{ "show", required_argument, NULL, 's' },
		{ flag_name, no_argument, NULL, 'F' },
		{ 0 }
	};
	*a = (struct rules_args){ 0 };
	int o;
	while ((o = getopt_long(argc, argv, "k:c:", opts, NULL)) != -1) {
		if (o == 'k')
			a->dir = optarg;
		else if (o == 'c')
			a->config = optarg;
		else if (o == 's')
			a->show = optarg;
		else if (o == 'F')
			a->flag = true;
		else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

/* The verdict of `--check DIR`: r is the loader's result (< 0 -errno, > 0 errors), n the
 * rules it read, what their name ("signatures"). Returns 0 or EXIT_USAGE. */
static int rules_check_verdict(const char *dir, int r, size_t n, const char *what)
{
	if (r < 0) {
		log_warnx("%s: %s", cesc(dir), strerror(-r));
		return EXIT_USAGE;
	}
	if (r > 0) {
		log_warnx("%s: %d error%s", cesc(dir), r, r == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	printf("%s: %zu %s OK\n", cesc(dir), n, what);
	return 0;
}

static int cmd_signatures(int argc, char **argv)
{
	struct rules_args a;
	int rc = rules_args_parse(argc, argv, "catalog", &a);
	if (rc)
		return rc;
	struct cgw_sigset set = { 0 };
	if (a.dir) {
		int r = sig_load_dir(&set, a.dir, stderr);
		rc = rules_check_verdict(a.dir, r, set.n, "signatures");
		sig_free(&set);
		return rc;
	}
	struct cgw_conf conf;
	if ((rc = config_load(&conf, a.config)) == 0 && (rc = signatures_load(&set, &conf)) == 0 &&
	    a.flag) {
		catalog_print(&set, stdout);
	} else if (rc == 0 && a.show) {
		rc = signature_show(&set, a.show);
	} else if (rc == 0) {
		printf("%-22s %-9s %4s  %s\n", "ID", "SEVERITY", "PRIO", "TITLE (SOURCE)");
		for (size_t i = 0; i < set.n; i++)
			signature_print(&set.v[i]);
	}
	sig_free(&set);
	conf_free(&conf);
	return rc;
}

/* `cgwatch audit`: the facts of this host (or of a replayed tree or bundle), the hazard rules
 * evaluated on them, the report. Read-only; one pass; exit 0 no hazard, 1 hazards. */
static int cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *root = NULL, *config = NULL, *format = "text";
	const double window = 0.25;       /* the RT threads' sampling window (README 6a) */
	int o;
	while ((o = getopt_long(argc, argv, "r:c:f:h", opts, NULL)) != -1) {
		switch (o) {
		case 'r': root = optarg; break;
		case 'c': config = optarg; break;
		case 'f': format = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc || (strcmp(format, "text") && strcmp(format, "json") &&
	                      strcmp(format, "html"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	struct cgw_conf conf;
	int rc = config_load(&conf, config);
	if (rc) {
		conf_free(&conf);
		return rc;
	}
	struct cgw_hazset set = { 0 };
	hazards_load(&set, &conf);
	watchdog_s = conf.check_timeout_s;
	pthread_t wd;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_create(&wd, &attr, watchdog, NULL);
	pthread_attr_destroy(&attr);
	unsigned timeout_ms = (unsigned)(conf.read_timeout_s * 1000);
	char msg[8192];
	if (root) {
		archive_read_caps = bundle_replay_caps(&conf);
		if (root_enter(root, timeout_ms, msg, sizeof(msg)) < 0) {
			log_warnx("%s", msg);
			rc = EXIT_UNREADABLE;
			goto out;
		}
	}
	struct audit_opts ao = { .window_ms = (unsigned)(window * 1000), .timeout_ms = timeout_ms,
	                         .tree = root ? root_tree(root) : NULL,
	                         .pin_housekeeping = conf.pin_housekeeping };
	struct cgw_facts *f = try_calloc(1, sizeof(*f));
	int r = f ? audit_gather(f, &ao) : -ENOMEM;
	if (r < 0) {
		log_warnx("cannot read %s/proc: %s", root ? cesc(root) : "", strerror(-r));
		free(f);
		rc = EXIT_UNREADABLE;
		goto out;
	}
	struct cgw_audit a;
	if (hazard_eval(&set, f, &a) < 0) {
		log_warnx("no memory for the audit");
		rc = EXIT_UNREADABLE;
	} else {
		if (strcmp(format, "json") == 0)
			audit_json(&a, stdout);
		else if (strcmp(format, "html") == 0)
			audit_html(&a, stdout);
		else
			audit_text(&a, stdout);
		fflush(stdout);
		rc = audit_max_severity(&a) >= SEV_WARNING ? EXIT_FINDINGS : EXIT_NOTHING;
		audit_free(&a);
	}
	facts_free(f);
	free(f);
out:
	hazset_free(&set);
	conf_free(&conf);
	return rc;
}

/* `cgwatch hazards`: list the rules, --show ID one rule's file, --check DIR validate a
 * directory ("file:line:" errors, exit 2), --facts the facts rules may test. */
static int cmd_hazards(int argc, char **argv)
{
	struct rules_args a;
	int rc = rules_args_parse(argc, argv, "facts", &a);
	if (rc)
		return rc;
	if (a.flag) {
		for (int k = 0; k < HF_NFACT; k++)
			printf("%-30s %s\n", hazard_fact_name((enum haz_fact)k),
			       hazard_fact_meaning((enum haz_fact)k));
		return 0;
	}
	struct cgw_hazset set = { 0 };
	if (a.dir) {
		int r = hazard_load_dir(&set, a.dir, stderr);
		rc = rules_check_verdict(a.dir, r, set.n, "hazard rules");
		hazset_free(&set);
		return rc;
	}
	struct cgw_conf conf;
	if ((rc = config_load(&conf, a.config)) == 0 && (rc = hazards_load(&set, &conf)) == 0) {
		if (a.show) {
			const struct cgw_hazard *h = hazard_find(&set, a.show);
			if (!h) {
				log_warnx("no hazard \"%s\" (`cgwatch hazards` lists them)", cesc(a.show));
				rc = EXIT_USAGE;
			} else {
				rc = rule_file_show(h->builtin ? hazard_builtin_file(h->file) : NULL, h->file);
			}
		} else {
			printf("%-30s %-9s %-22s %s\n", "ID", "SEVERITY", "SIGNATURE", "TITLE (SOURCE)");
			for (size_t i = 0; i < set.n; i++) {
				const struct cgw_hazard *h = &set.v[i];
				struct strbuf b = { 0 };
				sb_printf(&b, "%-30s %-9s %-22s %s (%s", h->id, sev_name(h->severity),
				          h->signature ? h->signature : "-", h->title,
				          h->builtin ? "built in" : cesc(h->file));
				if (h->replaced)
					sb_printf(&b, ", replacing %s", h->replaced);
				sb_add(&b, ")\n", 2);
				term_write(stdout, b.s, b.len, true);
				sb_free(&b);
			}
		}
	}
	hazset_free(&set);
	conf_free(&conf);
	return rc;
}

/* The options of `run` and `recorder`: --config FILE into *config, --help. Returns -1 to go
 * on, else the exit code (0 after --help, EXIT_USAGE after a bad option: usage printed). */
static int config_args_parse(int argc, char **argv, const char **config)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	*config = NULL;
	int o;
	while ((o = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		if (o == 'c')
			*config = optarg;
		else if (o == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	return -1;
}

static int cmd_run(int argc, char **argv)
{
	const char *config;
	int rc = config_args_parse(argc, argv, &config);
	if (rc >= 0)
		return rc;
	if (optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return daemon_run(config);
}

/* `cgwatch recorder start|stop`: make (or remove) the daemon's flight recorder instance as
 * [recorder] says, for a daemon that may not make it itself (the unit's ExecStartPre=+ and
 * ExecStopPost=+, run as root); never one another live cgwatch owns. Exit 0 done (or nothing
 * to do), 2 usage, 3 could not. */
static int cmd_recorder(int argc, char **argv)
{
	const char *config;
	int rc = config_args_parse(argc, argv, &config);
	if (rc >= 0)
		return rc;
	if (optind + 1 != argc || (strcmp(argv[optind], "start") && strcmp(argv[optind], "stop"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	bool start = strcmp(argv[optind], "start") == 0;
	struct cgw_conf c;
	if (config_load(&c, config) != 0) {
		conf_free(&c);
		return EXIT_USAGE;
	}
	struct recorder_opts ro = recorder_opts_of(&c);
	struct cgw_recorder r;
	int e;
	rc = 0;
	if (start && c.recorder_enabled) {
		e = recorder_start(&ro, &r);
		if (e == 0) {
			log_warnx("flight recorder instance %s made, %u KiB per CPU; recording %s%s%s%s%s%s%s%s",
			          r.dir, r.buffer_kb, r.enabled, r.sw_dir[0] ? " (sched_switch on CPUs " : "",
			          r.sw_cpus, r.sw_dir[0] ? ", in " : "", r.sw_dir[0] ? r.sw_dir : "",
			          r.sw_dir[0] ? ")" : "", r.missing[0] ? "; not recording " : "",
			          r.missing);
			recorder_disown(&r);      /* for the daemon that comes next to own */
		} else if (r.own.why[0]) {
			log_warnx("tracefs instances/%s not made: %s", c.recorder_instance, r.own.why);
			rc = EXIT_UNREADABLE;
		} else {
			log_warnx("cannot make the flight recorder's tracefs instances/%s: %s%s",
			          c.recorder_instance, strerror(-e), e == -ENOENT ? " (no tracefs at "
			          "/sys/kernel/tracing: the daemon runs without the recorder)" : "");
			rc = EXIT_UNREADABLE;
		}
	} else if ((e = recorder_own(&ro, &r)) < 0) {
		/* an instance another live cgwatch owns is not removed */
		log_warnx("tracefs instances/%s not removed: %s", c.recorder_instance, r.own.why);
		rc = EXIT_UNREADABLE;
	} else {
		/* stop, or start with the recorder off: an instance of that name is removed */
		struct stat st;
		if (stat(r.dir, &st) == 0) {
			char dir[sizeof(r.dir)];
			memcpy(dir, r.dir, sizeof(dir));
			if ((e = recorder_stop(&r)) < 0) {
				log_warnx("cannot remove %s: %s", dir, strerror(-e));
				rc = EXIT_UNREADABLE;
			} else {
				log_warnx("flight recorder instance %s removed", dir);
			}
		}
		recorder_disown(&r);
		if (start)
			log_warnx("the flight recorder is off ([recorder] enabled = no)");
	}
	conf_free(&c);
	return rc;
}

/* `cgwatch runq`: run-queue latency over one interval, as the daemon measures it between two
 * scans ([latency] runq), printed as the report's JSON runq object. Exit 0, 2 usage or
 * configuration, 3 not measured (off, or the host could not be read). */
static int cmd_runq(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *config = NULL;
	double interval = 1;
	int o;
	while ((o = getopt_long(argc, argv, "i:c:h", opts, NULL)) != -1) {
		switch (o) {
		case 'i':
			if (parse_seconds(optarg, 0.01, 3600, &interval) < 0) {
				log_warnx("--interval must be 0.01..3600 seconds: %s", cesc(optarg));
				return EXIT_USAGE;
			}
			break;
		case 'c': config = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	struct cgw_conf conf;
	int rc = config_load(&conf, config);
	if (rc) {
		conf_free(&conf);
		return rc;
	}
	if (conf.latency_runq == RUNQ_MODE_OFF) {
		struct json_object *j = runq_json(NULL, "[latency] runq = no");
		json_write(j, stdout);
		json_object_put(j);
		conf_free(&conf);
		return EXIT_UNREADABLE;
	}
	char why[400], swhy[320];
	struct cgw_runq_src *src = runq_open(conf.latency_runq, NULL, why, sizeof(why));
	/* the scans as the daemon's: through the task iterator where it loads (schedstat then
	 * takes run_delay and pcount from its records) */
	struct cgw_bpfscan *bpf = conf.scan_source != SCAN_SOURCE_PROC ?
	                          bpfscan_open(getpid(), false, NULL, swhy, sizeof(swhy)) : NULL;
	struct cgw_scan_opts so = { .blocked_s = conf.blocked_warning_s, .starved_s = conf.starved_s,
	                            .read_timeout_ms = (unsigned)(conf.read_timeout_s * 1000),
	                            .self_tgid = getpid(), .bpf = bpf, .source_why = "" };
	struct cgw_scan a = { 0 }, b = { 0 };
	struct cgw_runq rq = { 0 };
	rc = EXIT_UNREADABLE;
	if (src && scan_run(&a, &so) == 0 && runq_sample(src, &a, &rq) == 0) {
		if (conf.latency_timerlat != TL_MODE_NO) {   /* asked for: every CPU, this once */
			struct cgw_conf all = conf;
			all.latency_timerlat = TL_MODE_ALWAYS;
			struct cgw_cpus tl;
			latency_timerlat_cpus(&rq, &all, &tl);
			runq_timerlat(src, &tl, so.read_timeout_ms);
		}
		runq_free(&rq);
		usleep((useconds_t)(interval * 1e6));
		if (scan_run(&b, &so) == 0 && runq_sample(src, &b, &rq) == 0) {
			struct json_object *j = runq_json(&rq, why);
			rc = json_write(j, stdout) < 0 ? EXIT_UNREADABLE : 0;
			json_object_put(j);
			runq_free(&rq);
		}
	}
	if (rc)
		log_warnx("run-queue latency could not be measured (%s)", src ? why : "out of memory");
	scan_free(&a);
	scan_free(&b);
	bpfscan_free(bpf);
	runq_src_free(src);
	conf_free(&conf);
	return rc;
}

int main(int argc, char **argv)
{
	crash_install();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	argv[1] = argv[0];
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(cmd, "config") == 0)
		return cmd_config(argc - 1, argv + 1);
	if (strcmp(cmd, "signatures") == 0)
		return cmd_signatures(argc - 1, argv + 1);
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(cmd, "recorder") == 0)
		return cmd_recorder(argc - 1, argv + 1);
	if (strcmp(cmd, "audit") == 0)
		return cmd_audit(argc - 1, argv + 1);
	if (strcmp(cmd, "hazards") == 0)
		return cmd_hazards(argc - 1, argv + 1);
	if (strcmp(cmd, "runq") == 0)
		return cmd_runq(argc - 1, argv + 1);
	if (strcmp(cmd, "bundle") == 0)
		return cmd_bundle(argc - 1, argv + 1, capture_host);
	log_warnx("unknown command \"%s\"", cesc(cmd));
	usage(stderr);
	return EXIT_USAGE;
}
