/* sink-journal.c: one journal message per incident state change (never per task), with a
 * fixed MESSAGE_ID per signature and the CGWATCH_* fields of docs/daemon.md; stderr when there is
 * no journald. Also the journal catalog that explains each MESSAGE_ID. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "cgwatch.h"

/* What a message says of t's time: at the end only a lower bound, as the last scan that saw it
 * blocked measured it and the hang went on for part of an interval more. */
static struct cgw_dur message_dur(const struct inc_task *t, enum inc_state st)
{
	struct cgw_dur d = t ? inc_task_dur(t) : (struct cgw_dur){ 0, BOUND_EXACT };
	if (t && st == INC_RESOLVED && d.bound == BOUND_EXACT)
		d.bound = BOUND_LOWER;
	return d;
}

char *incident_message(const struct incident *i, enum inc_state st, char *out, size_t cap)
{
	const struct inc_task *t = incident_lead(i);
	char who[CGW_COMM_MAX * 4 + 64], comm[CGW_COMM_MAX * 4], more[64] = "";
	if (t) {
		cescape(t->comm, t->comm_len, comm, sizeof(comm));
		if (t->tid == t->tgid)
			snprintf(who, sizeof(who), "PID %d (%s)", t->tid, comm);
		else
			snprintf(who, sizeof(who), "TID %d of PID %d (%s)", t->tid, t->tgid, comm);
	} else {
		snprintf(who, sizeof(who), "a task");
	}
	/* open: the others stuck now; resolved: every other task it ever held */
	size_t others = st == INC_RESOLVED ? i->ntasks_total : incident_stuck(i);
	if (others > 1)
		snprintf(more, sizeof(more), " (and %zu more task%s)", others - 1,
		         others == 2 ? "" : "s");
	char b[48];
	dur_text(message_dur(t, st), b, sizeof(b));
	/* a latency incident (diagnose-latency.c) is a CPU or a resource, not a blocked task */
	bool latency = strncmp(i->cause, "cpu ", 4) == 0 || strncmp(i->cause, "pressure ", 9) == 0;
	if (latency) {
		char cause[CGW_CAUSE_MAX * 4];
		cescape(i->cause, strlen(i->cause), cause, sizeof(cause));
		if (st == INC_RESOLVED) {
			char hm[16], named[sizeof(who) + 64] = "";
			time_t r = (time_t)i->resolved_at;
			struct tm tm;
			localtime_r(&r, &tm);
			strftime(hm, sizeof(hm), "%H:%M:%S", &tm);
			if (t && others > 1)      /* a pressure incident may never have named one */
				snprintf(named, sizeof(named), ", which named %s and %zu more task%s", who,
				         others - 1, others == 2 ? "" : "s");
			else if (t)
				snprintf(named, sizeof(named), ", which named %s", who);
			snprintf(out, cap, "%s on %s%s; resolved at %s (incident %s)", i->sig, cause, named,
			         hm, i->id);
		} else if (!t) {                  /* pressure before any task was named */
			snprintf(out, cap, "%s on %s: incident %s %s, %s", i->sig, cause, i->id,
			         inc_state_name(st), sev_name(i->severity));
		} else {
			snprintf(out, cap, "%s on %s, naming %s%s: incident %s %s, %s", i->sig, cause, who,
			         more, i->id, inc_state_name(st), sev_name(i->severity));
		}
		return out;
	}
	if (st == INC_RESOLVED) {
		char hm[16];
		time_t r = (time_t)i->resolved_at;
		struct tm tm;
		localtime_r(&r, &tm);
		strftime(hm, sizeof(hm), "%H:%M:%S", &tm);
		snprintf(out, cap, "%s was blocked %s in %s%s; resolved at %s (incident %s)",
		         who, b, i->sig, more, hm, i->id);
	} else {
		snprintf(out, cap, "%s blocked %s in %s%s: incident %s %s, %s", who, b, i->sig,
		         more, i->id, inc_state_name(st), sev_name(i->severity));
	}
	return out;
}

/* FNV-1a, 64 bits, from a given basis: two runs give the 128 bits of a MESSAGE_ID that is the
 * same on every host and every release for the same signature id. */
static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

char *sig_message_id(const char *sig_id, char out[33])
{
	char key[128];
	snprintf(key, sizeof(key), "cgwatch/%s", sig_id);
	uint64_t a = fnv1a(key, 0xcbf29ce484222325ull), b = fnv1a(key, 0x84222325cbf29ce4ull);
	/* mark it as a random (v4, RFC 4122 variant) id, as systemd-id128 new would */
	a = (a & ~0xf000ull) | 0x4000ull;
	b = (b & ~(0xc0ull << 56)) | (0x80ull << 56);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
	return out;
}

static int priority_of(const struct incident *i, enum inc_state st)
{
	if (st == INC_RESOLVED)
		return 5;                                  /* LOG_NOTICE */
	return i->severity >= SEV_CRITICAL ? 2 : i->severity == SEV_WARNING ? 4 : 6;
}

/* libsystemd drops a message silently when journald's socket does not exist (ENOENT):
 * look for the socket first, so that such a host gets the message on stderr instead. */
static bool journal_present(void)
{
	struct stat st;
	return stat("/run/systemd/journal/socket", &st) == 0 && S_ISSOCK(st.st_mode);
}

int sink_journal(const struct incident *i, enum inc_state st)
{
	char raw[1024], msgid[33], comm[CGW_COMM_MAX * 4], unit[512], blocked[32];
	char cause[CGW_CAUSE_MAX * 4], ustack[400 * 4];
	const struct inc_task *t = incident_lead(i);
	incident_message(i, st, raw, sizeof(raw));
	/* journalctl prints MESSAGE on a terminal: names are C-escaped already, and nothing
	 * else in it (an incident id, a file name) may move the cursor either */
	struct strbuf m = { 0 };
	sb_add_term(&m, raw, strlen(raw), false);
	const char *msg = m.s;
	sig_message_id(i->sig, msgid);
	cescape(t ? t->comm : "", t ? t->comm_len : 0, comm, sizeof(comm));
	cescape(t ? t->unit : "", t ? strlen(t->unit) : 0, unit, sizeof(unit));
	cescape(i->cause, strlen(i->cause), cause, sizeof(cause));
	cescape(t ? t->ustack_top : "", t ? strlen(t->ustack_top) : 0, ustack, sizeof(ustack));
	snprintf(blocked, sizeof(blocked), "%.1f", t ? t->blocked_s : 0.0);
	const char *bound = bound_name(t ? message_dur(t, st).bound : BOUND_UNKNOWN);
	int pid = t ? t->tgid : 0;             /* the process, as "pid" in the JSON report */
	int r = !journal_present() ? -ENOENT : sd_journal_send("MESSAGE=%s", msg,
	                        "MESSAGE_ID=%s", msgid,
	                        "PRIORITY=%d", priority_of(i, st),
	                        "SYSLOG_IDENTIFIER=cgwatch",
	                        "CGWATCH_INCIDENT=%s", i->id,
	                        "CGWATCH_STATE=%s", inc_state_name(st),
	                        "CGWATCH_SIGNATURE=%s", i->sig,
	                        "CGWATCH_SEVERITY=%s", sev_name(i->severity),
	                        "CGWATCH_PID=%d", pid,
	                        "CGWATCH_TID=%d", t ? t->tid : 0,
	                        "CGWATCH_COMM=%s", comm,
	                        "CGWATCH_UNIT=%s", unit,
	                        "CGWATCH_BLOCKED_SEC=%s", blocked,
	                        "CGWATCH_BLOCKED_BOUND=%s", bound,
	                        "CGWATCH_TASKS=%zu", i->ntasks_total,
	                        "CGWATCH_REPORT=%s", i->report,
	                        "CGWATCH_BUNDLE=%s", i->bundle,
	                        "CGWATCH_USTACK=%s", ustack,
	                        /* last: without a cause, the list ends one field earlier */
	                        i->cause[0] ? "CGWATCH_CAUSE=%s" : NULL, cause,
	                        NULL);
	if (r >= 0) {
		sb_free(&m);
		return 0;
	}
	/* no journald: the same message and fields, one line on stderr (escaped as MESSAGE) */
	struct strbuf line = { 0 };
	sb_printf(&line, "cgwatch: %s [CGWATCH_STATE=%s CGWATCH_INCIDENT=%s CGWATCH_SIGNATURE=%s "
	        "CGWATCH_SEVERITY=%s CGWATCH_PID=%d CGWATCH_COMM=%s CGWATCH_UNIT=%s "
	        "CGWATCH_BLOCKED_SEC=%s CGWATCH_BLOCKED_BOUND=%s CGWATCH_TASKS=%zu CGWATCH_REPORT=%s "
	        "CGWATCH_BUNDLE=%s CGWATCH_USTACK=%s ", msg, inc_state_name(st), i->id,
	        i->sig, sev_name(i->severity), pid, comm, unit, blocked, bound, i->ntasks_total,
	        i->report, i->bundle, ustack);
	if (i->cause[0])
		sb_printf(&line, "CGWATCH_CAUSE=%s ", cause);
	sb_printf(&line, "MESSAGE_ID=%s PRIORITY=%d]", msgid, priority_of(i, st));
	term_write(stderr, line.s, line.len, false);
	fputc('\n', stderr);
	fflush(stderr);
	sb_free(&line);
	sb_free(&m);
	return 1;
}

/* A hazard is a risk, not a hang: below an incident of its severity. Cleared: a notice. */
static int hazard_priority(const struct haz_event *e)
{
	if (e->what == HAZ_CLEARED)
		return 5;                                  /* LOG_NOTICE */
	return e->severity >= SEV_CRITICAL ? 3 : e->severity == SEV_WARNING ? 4 : 6;
}

int sink_journal_hazard(const struct haz_event *e)
{
	bool found = e->what == HAZ_FOUND;
	const char *state = found ? "found" : "cleared";
	char raw[1024];
	if (found)
		snprintf(raw, sizeof(raw), "hazard %s found (%s): %s%s%s; `cgwatch audit` says what "
		         "to change", e->id, sev_name(e->severity), e->title,
		         e->signature[0] ? ", which leads to " : "", e->signature);
	else
		snprintf(raw, sizeof(raw), "hazard %s cleared: %s no longer holds", e->id, e->title);
	struct strbuf m = { 0 }, ev = { 0 };
	sb_add_term(&m, raw, strlen(raw), false);
	/* evidence lines come from the host (names of processes, paths): escaped, lines kept */
	sb_add_term(&ev, e->evidence, strlen(e->evidence), true);
	const char *msg = m.s ? m.s : "", *evs = ev.s ? ev.s : "";
	int r = !journal_present() ? -ENOENT : sd_journal_send("MESSAGE=%s", msg,
	                        "MESSAGE_ID=%s", HAZARD_MESSAGE_ID,
	                        "PRIORITY=%d", hazard_priority(e),
	                        "SYSLOG_IDENTIFIER=cgwatch",
	                        "CGWATCH_HAZARD=%s", e->id,
	                        "CGWATCH_HAZARD_STATE=%s", state,
	                        "CGWATCH_SEVERITY=%s", sev_name(e->severity),
	                        "CGWATCH_SIGNATURE=%s", e->signature,
	                        "CGWATCH_EVIDENCE=%s", evs,
	                        NULL);
	if (r >= 0) {
		sb_free(&m);
		sb_free(&ev);
		return 0;
	}
	/* no journald: one line on stderr, as sink_journal's, the evidence lines joined by "; " */
	for (size_t k = 0; k < ev.len; k++)
		if (ev.s[k] == '\n')
			ev.s[k] = k + 1 == ev.len ? ' ' : ';';
	struct strbuf line = { 0 };
	sb_printf(&line, "cgwatch: %s [CGWATCH_HAZARD_STATE=%s CGWATCH_HAZARD=%s CGWATCH_SEVERITY=%s "
	          "CGWATCH_SIGNATURE=%s CGWATCH_EVIDENCE=%s MESSAGE_ID=%s PRIORITY=%d]", msg, state,
	          e->id, sev_name(e->severity), e->signature, evs, HAZARD_MESSAGE_ID,
	          hazard_priority(e));
	term_write(stderr, line.s, line.len, false);
	fputc('\n', stderr);
	fflush(stderr);
	sb_free(&line);
	sb_free(&m);
	sb_free(&ev);
	return 1;
}

void catalog_print(const struct cgw_sigset *set, FILE *out)
{
	fputs("# cgwatch journal catalog: what each cgwatch incident message means.\n"
	      "# Generated by `cgwatch signatures --catalog` from the signature library.\n\n", out);
	for (size_t k = 0; k < set->n; k++) {
		const struct cgw_sig *s = &set->v[k];
		char id[33];
		fprintf(out, "-- %s\nSubject: cgwatch incident @CGWATCH_STATE@: %s\n"
		        "Defined-By: cgwatch\nSupport: man:cgwatch(8)\n\n", sig_message_id(s->id, id),
		        s->title);
		/* the message's severity, not the signature's: an incident escalates past it */
		fprintf(out, "Signature %s (severity @CGWATCH_SEVERITY@). @MESSAGE@\n\n%s\n\n", s->id,
		        s->summary);
		if (s->explanation)
			fprintf(out, "%s\n\n", s->explanation);
		if (s->nremedies) {
			fputs("What to do, safest first:\n", out);
			for (size_t r = 0; r < s->nremedies; r++)
				fprintf(out, "  %zu. %s\n", r + 1, s->remedies[r]);
			fputc('\n', out);
		}
		fputs("The report: @CGWATCH_REPORT@\n\n", out);
	}
	/* the daemon's audits (docs/daemon.md): one id for every hazard, found and cleared */
	fprintf(out, "-- %s\nSubject: cgwatch hazard @CGWATCH_HAZARD@ @CGWATCH_HAZARD_STATE@\n"
	        "Defined-By: cgwatch\nSupport: man:cgwatch(8)\n\n", HAZARD_MESSAGE_ID);
	fputs("@MESSAGE@\n\n"
	      "cgwatch audits this host at start, every [audit] interval and when its CPU layout "
	      "changes, as `cgwatch audit` does: the hazard rules test settings and activity that "
	      "set up a kind of hang before it happens (severity @CGWATCH_SEVERITY@; the hang "
	      "would match signature @CGWATCH_SIGNATURE@). A hazard is said once when it starts "
	      "to hold (found) and once when it stops (cleared), never while it stays.\n\n"
	      "Evidence:\n@CGWATCH_EVIDENCE@\n\n"
	      "What to do: run `cgwatch audit` for the remedies of each hazard, safest first, and "
	      "the case it comes from; `cgwatch hazards --show @CGWATCH_HAZARD@` shows the rule.\n\n",
	      out);
}
