/* conf.c: cgwatch.conf — a table of {section, key, range}, defaults, file:line errors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

enum conf_type { CT_SECONDS, CT_NUMBER, CT_PATH, CT_PATH_OR_EMPTY, CT_BOOL, CT_IOCLASS, CT_NAME,
                 CT_ENUM, CT_CPUS_AUTO, CT_PSI };

struct conf_key {
	const char *section, *key;
	enum conf_type type;
	size_t off;
	double min, max;                 /* for CT_SECONDS and CT_NUMBER */
	const char *const *names;        /* for CT_ENUM: the values, NULL-terminated; an int field
	                                    holds the index */
};

#define SEC(s, k, field, lo, hi) { s, k, CT_SECONDS, offsetof(struct cgw_conf, field), lo, hi, NULL }
#define NUM(s, k, field, lo, hi) { s, k, CT_NUMBER, offsetof(struct cgw_conf, field), lo, hi, NULL }
#define KEY(s, k, type, field) { s, k, type, offsetof(struct cgw_conf, field), 0, 0, NULL }
#define PATH(s, k, field) KEY(s, k, CT_PATH, field)
#define ENUM(s, k, field, tab) { s, k, CT_ENUM, offsetof(struct cgw_conf, field), 0, 0, tab }

static const char *const io_classes[] = { "none", "realtime", "best-effort", "idle" };
static const char *const scan_sources[] = { "auto", "proc", "walker", NULL }; /* cgw_scan_source */
static const char *const runq_modes[] = { "auto", "schedstat", "no", NULL };    /* RUNQ_MODE_* */
static const char *const tl_modes[] = { "auto", "always", "no", NULL };         /* TL_MODE_* */

static const struct conf_key conf_keys[] = {
	SEC("scan", "interval", scan_interval_s, 0.1, 3600),
	SEC("scan", "read_timeout", read_timeout_s, 0.05, 60),
	SEC("scan", "check_timeout", check_timeout_s, 1, 3600),
	NUM("scan", "ustack_max", ustack_max, 0, 1000),
	NUM("scan", "symbol_cache", symbol_cache_mib, 1, 1024),
	ENUM("scan", "source", scan_source, scan_sources),
	SEC("thresholds", "blocked_warning", blocked_warning_s, 0, 86400),
	SEC("thresholds", "blocked_critical", blocked_critical_s, 0, 86400),
	SEC("thresholds", "starved", starved_s, 0, 86400),
	KEY("signatures", "shipped", CT_PATH_OR_EMPTY, signatures_dir),
	KEY("signatures", "local", CT_PATH_OR_EMPTY, local_signatures_dir),
	KEY("hazards", "local", CT_PATH_OR_EMPTY, local_hazards_dir),
	SEC("incidents", "update_interval", update_interval_s, 1, 86400),
	SEC("audit", "interval", audit_interval_s, 0, 86400),
	PATH("reports", "dir", report_dir),
	NUM("reports", "keep", report_keep, 2, 100000),
	NUM("reports", "max_size", report_max_mib, 1, 1048576),
	PATH("run", "state_dir", state_dir),
	KEY("run", "metrics_file", CT_PATH_OR_EMPTY, metrics_file),
	NUM("run", "nice", nice, -20, 19),
	KEY("run", "io_class", CT_IOCLASS, io_class),
	KEY("run", "lock_memory", CT_BOOL, lock_memory),
	KEY("run", "pin_housekeeping", CT_BOOL, pin_housekeeping),
	NUM("bundle", "max_file_size", bundle_max_file_mib, 1, 4096),
	NUM("bundle", "max_size", bundle_max_mib, 1, 65536),
	NUM("bundle", "max_members", bundle_max_members, 1, BUNDLE_MAX_MEMBERS),
	KEY("bundle", "auto", CT_BOOL, bundle_auto),
	PATH("bundle", "dir", bundle_dir),
	NUM("bundle", "keep", bundle_keep, 1, 10000),
	SEC("bundle", "min_interval", bundle_min_interval_s, 0, 86400),
	KEY("bundle", "redact", CT_BOOL, bundle_redact),
	KEY("recorder", "enabled", CT_BOOL, recorder_enabled),
	NUM("recorder", "buffer_kb", recorder_buffer_kb, 4, 65536),
	SEC("recorder", "window", recorder_window_s, 1, 86400),
	KEY("recorder", "cpuset_opens", CT_BOOL, recorder_cpuset_opens),
	KEY("recorder", "instance", CT_NAME, recorder_instance),
	KEY("recorder", "sched_switch", CT_CPUS_AUTO, recorder_sched_switch),
	ENUM("latency", "runq", latency_runq, runq_modes),
	ENUM("latency", "timerlat", latency_timerlat, tl_modes),
	NUM("latency", "runq_p99_ms", latency_runq_p99_ms, 0, 60000),
	NUM("latency", "runq_scans", latency_runq_scans, 1, 1000),
	NUM("latency", "runq_resolve_scans", latency_runq_resolve_scans, 1, 1000),
	NUM("latency", "runq_min_waits", latency_runq_min_waits, 1, 1000000),
	SEC("latency", "page_after", latency_page_after_s, 0, 86400),
	KEY("pressure", "cpu", CT_PSI, pressure[0]),
	KEY("pressure", "memory", CT_PSI, pressure[1]),
	KEY("pressure", "io", CT_PSI, pressure[2]),
	SEC("pressure", "page_after", pressure_page_after_s, 0, 86400),
};

/* One duration of a trigger: a decimal number and its unit (us, ms, s), whole microseconds. */
static int psi_duration(const char *s, size_t n, unsigned *us)
{
	char num[32];
	size_t d = 0;
	while (d < n && ((s[d] >= '0' && s[d] <= '9') || s[d] == '.'))
		d++;
	const char *unit = s + d;
	size_t un = n - d;
	double mult = un == 2 && !strncmp(unit, "us", 2) ? 1 : un == 2 && !strncmp(unit, "ms", 2) ?
	              1e3 : un == 1 && unit[0] == 's' ? 1e6 : 0;
	double v;
	if (d == 0 || d >= sizeof(num) || mult == 0)
		return -EINVAL;
	memcpy(num, s, d);
	num[d] = '\0';
	if (parse_seconds(num, 0, 1e10, &v) < 0)
		return -EINVAL;
	v *= mult;
	if (v > 4e9 || v != (double)(unsigned long long)v)
		return -ERANGE;               /* more than the kernel's u32, or a fraction of a us */
	*us = (unsigned)v;
	return 0;
}

int psi_trigger_parse(const char *s, struct cgw_psi_trigger *t, char *err, size_t cap)
{
	if (strcmp(s, "no") == 0) {
		memset(t, 0, sizeof(*t));
		return 0;
	}
	const char *tok[4];
	size_t len[4], n = 0;
	for (const char *p = s; *p && n < 4;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		tok[n] = p;
		len[n] = strcspn(p, " \t");
		p += len[n++];
	}
	struct cgw_psi_trigger v = { .on = true };
	if (n != 3 || !((len[0] == 4 && !strncmp(tok[0], "some", 4)) ||
	                (len[0] == 4 && !strncmp(tok[0], "full", 4)))) {
		snprintf(err, cap, "want no, or some|full STALL WINDOW (e.g. some 500ms 2s)");
		return -EINVAL;
	}
	v.full = tok[0][0] == 'f';
	if (psi_duration(tok[1], len[1], &v.stall_us) < 0 ||
	    psi_duration(tok[2], len[2], &v.window_us) < 0) {
		snprintf(err, cap, "a duration is a number of us, ms or s, whole microseconds "
		         "(e.g. 500ms, 1.5s)");
		return -EINVAL;
	}
	if (v.window_us < PSI_WINDOW_MIN_US || v.window_us > PSI_WINDOW_MAX_US) {
		snprintf(err, cap, "the window must be 500ms..10s, as the kernel takes it");
		return -EINVAL;
	}
	if (v.stall_us == 0 || v.stall_us > v.window_us) {
		snprintf(err, cap, "the stall must be more than 0 and at most the window");
		return -EINVAL;
	}
	*t = v;
	return 0;
}

/* us as "Ns", "Nms" or "Nus", the largest unit that holds it whole. */
static const char *psi_dur_conf(unsigned us, char *buf, size_t cap)
{
	if (us % 1000000 == 0)
		snprintf(buf, cap, "%us", us / 1000000);
	else if (us % 1000 == 0)
		snprintf(buf, cap, "%ums", us / 1000);
	else
		snprintf(buf, cap, "%uus", us);
	return buf;
}

const char *psi_trigger_format(const struct cgw_psi_trigger *t, char *buf, size_t cap)
{
	char a[24], b[24];
	if (!t->on)
		snprintf(buf, cap, "no");
	else
		snprintf(buf, cap, "%s %s %s", t->full ? "full" : "some",
		         psi_dur_conf(t->stall_us, a, sizeof(a)), psi_dur_conf(t->window_us, b, sizeof(b)));
	return buf;
}

const char *psi_us_text(unsigned us, char *buf, size_t cap)
{
	if (us >= 1000000)
		snprintf(buf, cap, "%g s", us / 1e6);
	else if (us >= 1000)
		snprintf(buf, cap, "%g ms", us / 1e3);
	else
		snprintf(buf, cap, "%u us", us);
	return buf;
}

void conf_defaults(struct cgw_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->scan_interval_s = 5;
	c->read_timeout_s = 2;
	c->check_timeout_s = 30;
	c->ustack_max = 8;
	c->symbol_cache_mib = ELFSYM_CACHE_BYTES >> 20;
	c->blocked_warning_s = 20;
	c->blocked_critical_s = 60;
	c->starved_s = 10;
	c->update_interval_s = 300;
	c->audit_interval_s = 600;
	c->signatures_dir = xstrdup("");    /* the library is built in; this adds to it */
	c->local_signatures_dir = xstrdup(CGW_LOCAL_SIGDIR);
	c->local_hazards_dir = xstrdup(CGW_LOCAL_HAZDIR);
	c->state_dir = xstrdup(CGW_STATEDIR);
	c->report_dir = xstrdup(CGW_REPORTDIR);
	c->report_keep = 200;
	c->report_max_mib = 64;
	c->metrics_file = xstrdup("");
	c->nice = 10;
	c->io_class = 3;                 /* idle */
	c->lock_memory = true;
	c->pin_housekeeping = true;
	c->bundle_max_file_mib = 16;
	c->bundle_max_mib = 256;
	c->bundle_max_members = BUNDLE_MAX_MEMBERS;
	c->bundle_auto = true;
	c->bundle_dir = xstrdup(CGW_STATEDIR "/bundles");
	c->bundle_keep = 10;
	c->bundle_min_interval_s = 600;
	c->recorder_enabled = true;
	c->recorder_buffer_kb = 256;
	c->recorder_window_s = 300;
	c->recorder_cpuset_opens = false;
	c->recorder_instance = xstrdup(CGW_RECORDER_NAME);
	c->recorder_sched_switch = xstrdup("auto");
	c->latency_runq_p99_ms = 50;
	c->latency_runq_scans = 2;
	c->latency_runq_resolve_scans = 3;
	c->latency_runq_min_waits = 20;
	c->latency_page_after_s = 60;
	/* [pressure]: 2 s windows, which the kernel also takes from a process without
	 * CAP_SYS_RESOURCE (the unit's); see cgwatch.conf for why these stalls */
	c->pressure[0] = (struct cgw_psi_trigger){ true, false, 1500000, 2000000 };
	c->pressure[1] = (struct cgw_psi_trigger){ true, false, 200000, 2000000 };
	c->pressure[2] = (struct cgw_psi_trigger){ true, true, 500000, 2000000 };
	c->pressure_page_after_s = 60;
}

char *conf_dump(const struct cgw_conf *c, size_t *len)
{
	struct strbuf b = { 0 };
	const char *section = "";
	sb_printf(&b, "# the effective configuration: every key, as cgwatch used it\n");
	for (size_t i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++) {
		const struct conf_key *k = &conf_keys[i];
		const void *field = (const char *)c + k->off;
		if (strcmp(section, k->section))
			sb_printf(&b, "\n[%s]\n", section = k->section);
		sb_printf(&b, "%s = ", k->key);
		switch (k->type) {
		case CT_SECONDS:
		case CT_NUMBER:
			sb_printf(&b, "%.10g\n", *(const double *)field);
			break;
		case CT_PATH:
		case CT_PATH_OR_EMPTY:
		case CT_CPUS_AUTO:
		case CT_NAME: {
			const char *v = *(char *const *)field;
			sb_printf(&b, "%s\n", v ? v : "");
			break;
		}
		case CT_BOOL:
			sb_printf(&b, "%s\n", *(const bool *)field ? "yes" : "no");
			break;
		case CT_IOCLASS:
			sb_printf(&b, "%s\n", io_classes[*(const int *)field & 3]);
			break;
		case CT_ENUM:
			sb_printf(&b, "%s\n", k->names[*(const int *)field]);
			break;
		case CT_PSI: {
			char v[64];
			sb_printf(&b, "%s\n", psi_trigger_format(field, v, sizeof(v)));
			break;
		}
		}
	}
	if (b.lost) {
		sb_free(&b);
		return NULL;
	}
	*len = b.len;
	return b.s;
}

int conf_copy(struct cgw_conf *dst, const struct cgw_conf *src)
{
	*dst = *src;
	dst->signatures_dir = try_strdup(src->signatures_dir);
	dst->local_signatures_dir = try_strdup(src->local_signatures_dir);
	dst->local_hazards_dir = try_strdup(src->local_hazards_dir);
	dst->state_dir = try_strdup(src->state_dir);
	dst->report_dir = try_strdup(src->report_dir);
	dst->metrics_file = try_strdup(src->metrics_file);
	dst->bundle_dir = try_strdup(src->bundle_dir);
	dst->recorder_instance = try_strdup(src->recorder_instance);
	dst->recorder_sched_switch = try_strdup(src->recorder_sched_switch);
	if (!dst->recorder_instance || !dst->recorder_sched_switch ||!dst->signatures_dir || !dst->local_signatures_dir || !dst->local_hazards_dir ||
	    !dst->state_dir ||
	    !dst->report_dir || !dst->metrics_file || !dst->bundle_dir) {
		conf_free(dst);
		return -ENOMEM;
	}
	return 0;
}

void conf_free(struct cgw_conf *c)
{
	free(c->signatures_dir);
	free(c->local_signatures_dir);
	free(c->local_hazards_dir);
	c->local_hazards_dir = NULL;
	free(c->state_dir);
	free(c->report_dir);
	free(c->metrics_file);
	free(c->bundle_dir);
	c->bundle_dir = NULL;
	free(c->recorder_instance);
	c->recorder_instance = NULL;
	free(c->recorder_sched_switch);
	c->recorder_sched_switch = NULL;
	c->signatures_dir = c->local_signatures_dir = NULL;
	c->state_dir = c->report_dir = c->metrics_file = NULL;
}

struct conf_ctx {
	struct cgw_conf *c;
	const char *path;
	FILE *err;
	int threshold_line;            /* last line setting either blocked_*, for the cross-check */
};

static int conf_handler(void *user, const char *section, const char *key, const char *value,
                        int line, bool cont)
{
	(void)cont;                    /* a continued value is parsed as a whole new value */
	struct conf_ctx *x = user;
	for (size_t i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++) {
		const struct conf_key *k = &conf_keys[i];
		if (strcmp(k->section, section) || strcmp(k->key, key))
			continue;
		void *field = (char *)x->c + k->off;
		double v;
		switch (k->type) {
		case CT_SECONDS:
		case CT_NUMBER:
			if (parse_seconds(value, k->min, k->max, &v) < 0 ||
			    (k->type == CT_NUMBER && v != (double)(long)v)) {
				errorf(x->err, "%s:%d: %s must be %s%.10g..%.10g%s, ignoring: %s", cesc(x->path),
				       line, key, k->type == CT_SECONDS ? "" : "a whole number ", k->min,
				       k->max, k->type == CT_SECONDS ? " seconds" : "", cesc(value));
				return 0;
			}
			*(double *)field = v;
			if (strncmp(key, "blocked_", 8) == 0)
				x->threshold_line = line;
			break;
		case CT_PATH:
		case CT_PATH_OR_EMPTY:
			if (value[0] != '/' && !(k->type == CT_PATH_OR_EMPTY && value[0] == '\0')) {
				errorf(x->err, "%s:%d: %s must be an absolute path%s, ignoring: %s",
				       cesc(x->path), line, key, k->type == CT_PATH ? "" : " (or empty: off)",
				       cesc(value));
				return 0;
			}
			free(*(char **)field);
			*(char **)field = xstrdup(value);
			break;
		case CT_NAME: {
			size_t n = strlen(value), ok = strspn(value, "abcdefghijklmnopqrstuvwxyz"
			                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
			if (n == 0 || n > 63 || ok != n || value[0] == '.') {
				errorf(x->err, "%s:%d: %s must be 1..63 letters, digits, '_', '-' or '.' "
				       "(not first), ignoring: %s", cesc(x->path), line, key, cesc(value));
				return 0;
			}
			free(*(char **)field);
			*(char **)field = xstrdup(value);
			break;
		}
		case CT_CPUS_AUTO: {
			struct cgw_cpus cpus;
			if (strcmp(value, "auto") != 0 && strcmp(value, "no") != 0 &&
			    (cpulist_parse(value, &cpus) < 0 || cpus_empty(&cpus))) {
				errorf(x->err, "%s:%d: %s must be auto, no or a CPU list, ignoring: %s",
				       cesc(x->path), line, key, cesc(value));
				return 0;
			}
			free(*(char **)field);
			*(char **)field = xstrdup(value);
			break;
		}
		case CT_BOOL:
			if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
				*(bool *)field = true;
			else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0)
				*(bool *)field = false;
			else {
				errorf(x->err, "%s:%d: %s must be yes or no, ignoring: %s", cesc(x->path),
				       line, key, cesc(value));
				return 0;
			}
			break;
		case CT_IOCLASS: {
			int c;
			for (c = 0; c < 4 && strcmp(value, io_classes[c]); c++)
				;
			if (c == 4 || c == 1) {     /* realtime I/O for a watchdog: never */
				errorf(x->err, "%s:%d: %s must be idle, best-effort or none, ignoring: "
				       "%s", cesc(x->path), line, key, cesc(value));
				return 0;
			}
			*(int *)field = c;
			break;
		}
		case CT_ENUM: {
			int c;
			for (c = 0; k->names[c] && strcmp(value, k->names[c]); c++)
				;
			if (!k->names[c]) {
				struct strbuf alt = { 0 };
				for (int a = 0; k->names[a]; a++)
					sb_printf(&alt, "%s%s", a == 0 ? "" : k->names[a + 1] ? ", " : " or ",
					          k->names[a]);
				errorf(x->err, "%s:%d: %s must be %s, ignoring: %s", cesc(x->path), line, key,
				       alt.s ? alt.s : "?", cesc(value));
				sb_free(&alt);
				return 0;
			}
			*(int *)field = c;
			break;
		}
		case CT_PSI: {
			char why[128];
			if (psi_trigger_parse(value, field, why, sizeof(why)) < 0) {
				errorf(x->err, "%s:%d: %s: %s, ignoring: %s", cesc(x->path), line, key, why,
				       cesc(value));
				return 0;
			}
			break;
		}
		}
		return 1;
	}
	errorf(x->err, "%s:%d: unknown key \"%s\" in section [%s], ignoring",
	       cesc(x->path), line, cesc(key), cesc(section));
	return 0;
}

int conf_read_file(struct cgw_conf *c, const char *path, FILE *err)
{
	struct conf_ctx x = { c, path, err, 0 };
	int r = ini_load(path, conf_handler, &x, err);
	if (r < 0)
		return r;
	if (c->blocked_critical_s < c->blocked_warning_s) {
		errorf(err, "%s:%d: blocked_critical (%g s) is below blocked_warning (%g s)",
		       cesc(path), x.threshold_line, c->blocked_critical_s, c->blocked_warning_s);
		r++;
	}
	return r;
}

/* Load the config: an explicit --config must exist; the default one may be missing.
 * Returns 0, or EXIT_USAGE after printing the errors. */
int config_load(struct cgw_conf *c, const char *path)
{
	conf_defaults(c);
	const char *p = path ? path : CGW_CONFFILE;
	int r = conf_read_file(c, p, stderr);
	if (r == -ENOENT && !path)
		r = 0;
	else if (r < 0) {
		log_warnx("%s: %s", cesc(p), cgw_strerror(-r));
		return EXIT_USAGE;
	}
	if (r > 0) {
		log_warnx("%s: %d error%s", cesc(p), r, r == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	const char *env = getenv("CGWATCH_SIGNATURES_DIR");
	if (env && *env) {
		free(c->signatures_dir);
		c->signatures_dir = xstrdup(env);
	}
	return 0;
}
