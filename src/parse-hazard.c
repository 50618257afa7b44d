/* parse-hazard.c: hazard rule files (conf/hazards.d, NAME.conf) — text in, rules out (pure). A
 * rule names facts of the host (the vocabulary below, gathered by source-audit.c) and the
 * conditions on them under which the host is set up for a hang. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* The facts a rule may test, in enum haz_fact order, each with what it means. */
static const struct { const char *name, *meaning; } facts[HF_NFACT] = {
	[HF_HUNG_TIMEOUT] = { "kernel.hung_task_timeout_secs",
	                      "seconds before the kernel reports a task blocked in D (0: never)" },
	[HF_HUNG_WARNINGS] = { "kernel.hung_task_warnings",
	                       "hung-task reports the kernel still prints (-1: no limit)" },
	[HF_HUNG_PANIC] = { "kernel.hung_task_panic", "1: the kernel panics on a hung task" },
	[HF_SOFTLOCKUP_PANIC] = { "kernel.softlockup_panic", "1: the kernel panics on a soft lockup" },
	[HF_WATCHDOG] = { "kernel.watchdog", "0: the soft and hard lockup detectors are off" },
	[HF_SOFT_WATCHDOG] = { "kernel.soft_watchdog", "0: the soft lockup detector is off" },
	[HF_WQ_WATCHDOG] = { "workqueue.watchdog_thresh",
	                     "seconds before the workqueue watchdog reports a stall (0: off)" },
	[HF_RT_RUNTIME] = { "kernel.sched_rt_runtime_us",
	                    "RT throttling: microseconds of each period RT tasks may use (-1: all)" },
	[HF_RT_SPINNERS] = { "rt.spinners",
	                     "SCHED_FIFO/RR threads that used half their CPU over the window "
	                     "(90 % since they started, in a snapshot)" },
	[HF_RT_SPINNERS_ISOLATED] = { "rt.spinners_isolated",
	                              "rt.spinners on isolated or nohz_full CPUs" },
	[HF_SELF_HOUSEKEEPING] = { "self.housekeeping_cpus",
	                           "housekeeping CPUs among the CPUs cgwatch may run on" },
	[HF_SELF_STACKS] = { "self.reads_stacks", "1: cgwatch can read kernel stacks (CAP_SYS_ADMIN)" },
	[HF_SELF_KMSG] = { "self.reads_kmsg", "1: cgwatch can read /dev/kmsg" },
	[HF_SELF_PERF] = { "self.perf_tracepoints",
	                   "1: cgwatch can count tracepoints system-wide (perf)" },
	[HF_V1_HIERARCHIES] = { "cgroup.v1_hierarchies", "cgroup v1 hierarchies mounted" },
	[HF_CGROUP_CHURN] = { "cgroup.churn_per_s",
	                      "cgroups created and removed per second over the window" },
	[HF_V1_PROCS_OPEN] = { "cgroup.v1_procs_readers",
	                       "processes holding a v1 cgroup.procs or tasks file open" },
	[HF_CPU_GROUPS] = { "cpu.task_groups", "cgroups with the cpu controller (task groups)" },
	[HF_POSSIBLE_CPUS] = { "cpu.possible", "possible CPUs" },
	[HF_GROUPS_X_CPUS] = { "cpu.task_groups_x_cpus",
	                       "cpu.task_groups times cpu.possible: per-CPU scheduler entities" },
	[HF_CPUS_OFFLINE] = { "cpu.offline", "possible CPUs that are offline (hotplug)" },
	[HF_PARTITIONS] = { "cpuset.partitions", "cgroup v2 cpuset partitions (root or isolated)" },
	[HF_RSTAT_READERS] = { "cgroup.memory_stat_readers",
	                       "processes holding a memory.stat open (periodic readers)" },
	[HF_SELF_UNSPUN] = { "self.cpus_without_spinner",
	                     "CPUs cgwatch may run on where no real-time spinner runs" },
	[HF_FAIR_SERVER] = { "kernel.fair_server",
	                     "1: a fair server (runtime > 0) on every spinner's CPU, from debugfs, "
	                     "else the kernel release (6.12 or later); 0: none (an older kernel, "
	                     "or runtime 0)" },
	[HF_RSTAT_CONTENDED] = { "cgroup.rstat_contended_per_s",
	                         "rstat lock contentions per second over the window (flushes "
	                         "meeting flushes)" },
};

const char *hazard_fact_name(enum haz_fact f)
{
	return (unsigned)f < HF_NFACT ? facts[f].name : "?";
}

const char *hazard_fact_meaning(enum haz_fact f)
{
	return (unsigned)f < HF_NFACT ? facts[f].meaning : "?";
}

int hazard_fact_index(const char *name, size_t n)
{
	for (int i = 0; i < HF_NFACT; i++)
		if (strlen(facts[i].name) == n && memcmp(facts[i].name, name, n) == 0)
			return i;
	return -1;
}

static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">" };

const char *hazard_op_name(enum haz_op op)
{
	return (unsigned)op < sizeof(ops) / sizeof(*ops) ? ops[op] : "?";
}

bool hazard_cond_holds(const struct haz_cond *c, double v)
{
	switch (c->op) {
	case HOP_EQ: return v == c->value;
	case HOP_NE: return v != c->value;
	case HOP_LE: return v <= c->value;
	case HOP_GE: return v >= c->value;
	case HOP_LT: return v < c->value;
	case HOP_GT: return v > c->value;
	}
	return false;
}

/* "FACT OP NUMBER" into c; 0, or -EINVAL with why in bad. */
static int cond_parse(const char *s, struct haz_cond *c, char *bad, size_t cap)
{
	while (isspace((unsigned char)*s))
		s++;
	const char *name = s;
	while (*s && (isalnum((unsigned char)*s) || *s == '.' || *s == '_'))
		s++;
	int f = hazard_fact_index(name, (size_t)(s - name));
	if (s == name) {
		snprintf(bad, cap, "when: expected \"FACT OP NUMBER\" (e.g. rt.spinners >= 1)");
		return -EINVAL;
	}
	if (f < 0) {
		char n[80];
		snprintf(n, sizeof(n), "%.*s", (int)(s - name > 64 ? 64 : s - name), name);
		snprintf(bad, cap, "when: unknown fact \"%s\" (`cgwatch hazards --facts` lists them)",
		         cesc(n));
		return -EINVAL;
	}
	while (isspace((unsigned char)*s))
		s++;
	int op = -1;
	for (int i = 0; i < (int)(sizeof(ops) / sizeof(*ops)) && op < 0; i++)
		if (strncmp(s, ops[i], strlen(ops[i])) == 0)
			op = i;
	if (op < 0) {
		snprintf(bad, cap, "when: expected one of == != <= >= < > after %s", facts[f].name);
		return -EINVAL;
	}
	s += strlen(ops[op]);
	while (isspace((unsigned char)*s))
		s++;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	const char *p = end;
	while (isspace((unsigned char)*p))
		p++;
	if (end == s || *p || errno || !isfinite(v) || isalpha((unsigned char)*s) ||
	    fabs(v) > 1e15) {
		snprintf(bad, cap, "when: \"%s\" is not a number (decimal, at most 1e15)", cesc(s));
		return -EINVAL;
	}
	c->fact = (enum haz_fact)f;
	c->op = (enum haz_op)op;
	c->value = v;
	return 0;
}

void hazard_clear(struct cgw_hazard *h)
{
	free(h->id);
	free(h->title);
	free(h->summary);
	free(h->explanation);
	free(h->signature);
	free(h->seed);
	free(h->file);
	free(h->replaced);
	free(h->when);
	free(h->evidence);
	ini_strv_free(h->remedies, h->nremedies);
	ini_strv_free(h->references, h->nreferences);
	memset(h, 0, sizeof(*h));
}

void hazset_free(struct cgw_hazset *set)
{
	for (size_t i = 0; i < set->n; i++)
		hazard_clear(&set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

struct haz_ctx {
	const char *path;
	FILE *err;
	struct cgw_hazset *out;
	char **last;                   /* the text field a continuation line extends */
};

#define HAZERR(fmt, ...) \
	(errorf(x->err, "%s:%d: " fmt, cesc(x->path), line, __VA_ARGS__), 0)

static int haz_handler(void *user, const char *section, const char *key, const char *value,
                       int line, bool cont)
{
	struct haz_ctx *x = user;
	if (cont && x->last) {
		ini_text_append(x->last, value);
		return 1;
	}
	x->last = NULL;
	struct cgw_hazset *set = x->out;
	if (strcmp(section, "hazard") == 0 && strcmp(key, "id") == 0) {
		if (!ini_id_ok(value, x->path, line, x->err))
			return 0;
		for (size_t i = 0; i < set->n; i++)
			if (strcmp(set->v[i].id, value) == 0)
				return HAZERR("duplicate id %s (also at line %d)", value, set->v[i].line);
		set->v = xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
		struct cgw_hazard *h = &set->v[set->n++];
		memset(h, 0, sizeof(*h));
		h->id = xstrdup(value);
		h->file = xstrdup(x->path);
		h->line = line;
		return 1;
	}
	if (set->n == 0)
		return HAZERR("\"%s\" before \"id\": a file starts with [hazard] and id = ...",
		              cesc(key));
	struct cgw_hazard *h = &set->v[set->n - 1];
	char bad[200];
	if (strcmp(section, "hazard") == 0) {
		static const char *const names[] = { "title", "summary", "explanation", "seed", NULL };
		char **const fields[] = { &h->title, &h->summary, &h->explanation, &h->seed };
		if ((x->last = ini_text_set(key, value, names, fields)))
			return 1;
		if (strcmp(key, "severity") == 0) {
			int sev = sev_parse(value);
			if (sev < 0)
				return HAZERR("severity must be info, warning or critical, not \"%s\"",
				              cesc(value));
			h->severity = (enum cgw_sev)sev;
			return 1;
		}
		if (strcmp(key, "signature") == 0) {
			for (const char *p = value; *p; p++)
				if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
					return HAZERR("signature \"%s\" is not a signature id", cesc(value));
			if (!isalpha((unsigned char)*value) || strlen(value) > 64)
				return HAZERR("signature \"%s\" is not a signature id", cesc(value));
			free(h->signature);
			h->signature = xstrdup(value);
			return 1;
		}
		if (strcmp(key, "when") == 0) {
			struct haz_cond c;
			if (cond_parse(value, &c, bad, sizeof(bad)) < 0)
				return HAZERR("%s", bad);
			if (h->nwhen >= HAZ_MAX_WHEN)
				return HAZERR("more than %d \"when\" lines", HAZ_MAX_WHEN);
			h->when = xrealloc(h->when, (h->nwhen + 1) * sizeof(*h->when));
			h->when[h->nwhen++] = c;
			return 1;
		}
		if (strcmp(key, "evidence") == 0) {
			/* facts whose evidence lines the hazard shows, comma-separated */
			const char *p = value;
			while (*p) {
				while (*p == ' ' || *p == '\t' || *p == ',')
					p++;
				const char *b = p;
				while (*p && *p != ',' && *p != ' ' && *p != '\t')
					p++;
				if (p == b)
					break;
				int f = hazard_fact_index(b, (size_t)(p - b));
				if (f < 0) {
					char n[80];
					snprintf(n, sizeof(n), "%.*s", (int)(p - b > 64 ? 64 : p - b), b);
					return HAZERR("evidence: unknown fact \"%s\"", cesc(n));
				}
				if (h->nevidence >= HF_NFACT)
					return HAZERR("%s", "evidence: a fact named twice");
				for (size_t i = 0; i < h->nevidence; i++)
					if (h->evidence[i] == (enum haz_fact)f)
						return HAZERR("evidence: %s named twice", facts[f].name);
				h->evidence = xrealloc(h->evidence, (h->nevidence + 1) * sizeof(*h->evidence));
				h->evidence[h->nevidence++] = (enum haz_fact)f;
			}
			return 1;
		}
	} else if (strcmp(section, "remedies") == 0 && strcmp(key, "remedy") == 0) {
		ini_strv_push(&h->remedies, &h->nremedies, value);
		x->last = &h->remedies[h->nremedies - 1];
		return 1;
	} else if (strcmp(section, "references") == 0 && strcmp(key, "reference") == 0) {
		ini_strv_push(&h->references, &h->nreferences, value);
		x->last = &h->references[h->nreferences - 1];
		return 1;
	} else if (strcmp(section, "remedies") && strcmp(section, "references")) {
		return HAZERR("unknown section [%s]", cesc(section));
	}
	return HAZERR("unknown key \"%s\" in [%s]", cesc(key), cesc(section));
}

/* Whole-rule checks once its file is read. Returns the number of errors. */
static int hazard_validate(const struct cgw_hazard *h, FILE *err)
{
	int e = 0;
#define NEED(cond, what) \
	do { if (!(cond)) { errorf(err, "%s:%d: hazard %s: %s", cesc(h->file), h->line, h->id, what); e++; } } while (0)
	NEED(h->title && *h->title, "missing title");
	NEED(h->summary && *h->summary, "missing summary");
	NEED(h->severity != SEV_NONE, "missing severity");
	NEED(h->nwhen > 0, "no \"when\": it would always hold");
	NEED(h->nremedies > 0, "no [remedies] remedy: say what to change, safest first");
	NEED(h->seed && *h->seed, "missing seed (the hang it leads to, where it was seen)");
#undef NEED
	return e;
}

int hazard_parse(struct cgw_hazset *out, const char *name, const char *text, size_t len,
                 FILE *err)
{
	struct cgw_hazset mine = { 0 };
	struct haz_ctx x = { .path = name, .err = err, .out = &mine };
	int r = ini_load_text(name, text, len, haz_handler, &x, err);
	if (r < 0) {
		errorf(err, "%s: %s", cesc(name), cgw_strerror(-r));
		r = 1;
	}
	if (r == 0 && mine.n == 0) {
		errorf(err, "%s:1: no [hazard] with an id", cesc(name));
		r = 1;
	}
	for (size_t i = 0; r == 0 && i < mine.n; i++)
		r += hazard_validate(&mine.v[i], err);
	if (r) {                          /* a bad file adds nothing */
		hazset_free(&mine);
		return r;
	}
	for (size_t i = 0; i < mine.n; i++) {
		struct cgw_hazard *h = &mine.v[i];
		if (h->nevidence == 0)        /* default: the facts its conditions test */
			for (size_t j = 0; j < h->nwhen; j++) {
				bool seen = false;
				for (size_t k = 0; k < h->nevidence; k++)
					seen |= h->evidence[k] == h->when[j].fact;
				if (!seen) {
					h->evidence = xrealloc(h->evidence,
					                       (h->nevidence + 1) * sizeof(*h->evidence));
					h->evidence[h->nevidence++] = h->when[j].fact;
				}
			}
	}
	out->v = xrealloc(out->v, (out->n + mine.n + 1) * sizeof(*out->v));
	memcpy(out->v + out->n, mine.v, mine.n * sizeof(*mine.v));
	out->n += mine.n;
	free(mine.v);
	return 0;
}
