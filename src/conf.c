/* conf.c: cgwatch.conf — a table of {section, key, range}, defaults, file:line errors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

enum conf_type { CT_SECONDS, CT_PATH };

struct conf_key {
	const char *section, *key;
	enum conf_type type;
	size_t off;
	double min, max;                 /* for CT_SECONDS */
};

#define SEC(s, k, field, lo, hi) { s, k, CT_SECONDS, offsetof(struct cgw_conf, field), lo, hi }
#define PATH(s, k, field) { s, k, CT_PATH, offsetof(struct cgw_conf, field), 0, 0 }

static const struct conf_key conf_keys[] = {
	SEC("scan", "interval", scan_interval_s, 0.1, 3600),
	SEC("scan", "read_timeout", read_timeout_s, 0.05, 60),
	SEC("scan", "check_timeout", check_timeout_s, 1, 3600),
	SEC("thresholds", "blocked_warning", blocked_warning_s, 0, 86400),
	SEC("thresholds", "blocked_critical", blocked_critical_s, 0, 86400),
	SEC("thresholds", "starved", starved_s, 0, 86400),
	PATH("signatures", "shipped", signatures_dir),
	PATH("signatures", "local", local_signatures_dir),
};

void conf_defaults(struct cgw_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->scan_interval_s = 5;
	c->read_timeout_s = 2;
	c->check_timeout_s = 30;
	c->blocked_warning_s = 20;
	c->blocked_critical_s = 60;
	c->starved_s = 10;
	c->signatures_dir = xstrdup(CGW_SIGDIR);
	c->local_signatures_dir = xstrdup(CGW_LOCAL_SIGDIR);
}

void conf_free(struct cgw_conf *c)
{
	free(c->signatures_dir);
	free(c->local_signatures_dir);
	c->signatures_dir = c->local_signatures_dir = NULL;
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
		if (k->type == CT_SECONDS) {
			double v;
			if (parse_seconds(value, k->min, k->max, &v) < 0) {
				fprintf(x->err, "%s:%d: %s must be %g..%g seconds, ignoring: %s\n",
				        x->path, line, key, k->min, k->max, value);
				return 0;
			}
			*(double *)field = v;
			if (strncmp(key, "blocked_", 8) == 0)
				x->threshold_line = line;
		} else {
			if (value[0] != '/') {
				fprintf(x->err, "%s:%d: %s must be an absolute path, ignoring: %s\n",
				        x->path, line, key, value);
				return 0;
			}
			free(*(char **)field);
			*(char **)field = xstrdup(value);
		}
		return 1;
	}
	fprintf(x->err, "%s:%d: unknown key \"%s\" in section [%s], ignoring\n",
	        x->path, line, key, section);
	return 0;
}

int conf_load(struct cgw_conf *c, const char *path, FILE *err)
{
	struct conf_ctx x = { c, path, err, 0 };
	int r = ini_load(path, conf_handler, &x, err);
	if (r < 0)
		return r;
	if (c->blocked_critical_s < c->blocked_warning_s) {
		fprintf(err, "%s:%d: blocked_critical (%g s) is below blocked_warning (%g s)\n",
		        path, x.threshold_line, c->blocked_critical_s, c->blocked_warning_s);
		r++;
	}
	return r;
}
