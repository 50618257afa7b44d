/* sink-bundle-check.c: the check a bundle carries, run in process on the captured tree by the
 * code of `check --root DIR` (check_once), both reports rendered into memory. */
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

int bundle_check_tree(const char *dir, const struct cgw_conf *conf,
                      const struct cgw_sigset *sigs, struct bundle_reports *out, char *msg,
                      size_t cap)
{
	memset(out, 0, sizeof(*out));
	out->exit = EXIT_UNREADABLE;
	FILE *text = open_memstream(&out->text, &out->text_len);
	FILE *json = text ? open_memstream(&out->json, &out->json_len) : NULL;
	if (!json) {
		if (text)
			fclose(text);
		bundle_reports_free(out);
		snprintf(msg, cap, "no memory for the reports");
		return EXIT_UNREADABLE;
	}
	struct check_spec s = { .root = dir, .text = text, .json = json };
	struct check_outcome o;
	int rc = check_once(conf, sigs, &s, &o, msg, cap);
	bool lost = fclose(text) != 0;
	lost |= fclose(json) != 0;
	out->entered = o.entered;
	if (rc == EXIT_UNREADABLE && !msg[0])
		snprintf(msg, cap, "the diagnosis ran out of memory");
	else if (rc != EXIT_UNREADABLE && lost) {
		snprintf(msg, cap, "no memory for the reports");
		rc = EXIT_UNREADABLE;
	}
	if (rc == EXIT_UNREADABLE) {
		bundle_reports_free(out);
		out->exit = EXIT_UNREADABLE;
		return rc;
	}
	out->exit = rc;
	snprintf(out->host, sizeof(out->host), "%s", o.host);
	snprintf(out->kernel, sizeof(out->kernel), "%s", o.kernel);
	return 0;
}

void bundle_reports_free(struct bundle_reports *r)
{
	free(r->text);
	free(r->json);
	r->text = r->json = NULL;
}
