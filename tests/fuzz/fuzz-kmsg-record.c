/* fuzz-kmsg-record.c: one /dev/kmsg record (kmsg_parse_record, len bytes, not NUL-terminated,
 * as kmsg_feed_buf hands it over), then its message through every kernel-line parser. */
#include "fuzz.h"
#include "kmsg.h"

#define TERMINATED(a) FUZZ_CHECK(strnlen((a), sizeof(a)) < sizeof(a))

static void lines(const char *msg)
{
	struct kmsg_task t;
	long blocked;
	if (kmsg_parse_hung(msg, &t, &blocked) == 0) {
		TERMINATED(t.comm);
		FUZZ_CHECK(t.pid >= 0 && blocked >= 0);
	}
	struct kmsg_blocker b;
	if (kmsg_parse_blocker(msg, &b) == 0) {
		TERMINATED(b.task.comm);
		TERMINATED(b.owner.comm);
		TERMINATED(b.task_as);
		TERMINATED(b.owner_as);
		FUZZ_CHECK(b.lock != KMSG_LOCK_NONE);
	}
	struct kmsg_header h;
	for (int legacy = 0; legacy < 2; legacy++)
		if (kmsg_parse_task_header(msg, legacy, &h) == 0)
			TERMINATED(h.comm);
	struct kmsg_poolinfo pi;
	unsigned stuck;
	if (kmsg_parse_wq_lockup(msg, &pi, &stuck) == 0) {
		TERMINATED(pi.cpus);
		struct cgw_cpus c;
		(void)cpulist_parse(pi.cpus, &c);
	}
	struct kmsg_pwq *pw = xcalloc(1, sizeof(*pw));
	if (kmsg_parse_pwq(msg, pw) == 0)
		TERMINATED(pw->info.cpus);
	for (int i = 0; i < 3; i++)             /* lines add up, within their bounds */
		if (kmsg_parse_works(msg, pw) == 0) {
			TERMINATED(pw->in_flight);
			TERMINATED(pw->pending);
			TERMINATED(pw->inactive);
			FUZZ_CHECK(pw->nworkers <= KMSG_MAX_PIDS && pw->nbars <= KMSG_MAX_PIDS);
		}
	free(pw);
	struct kmsg_pool pl;
	if (kmsg_parse_pool(msg, &pl) == 0)
		TERMINATED(pl.info.cpus);
	int cpu;
	if (kmsg_parse_soft_lockup(msg, &cpu, &stuck, &t) == 0)
		TERMINATED(t.comm);
	enum kmsg_rcu_kind kind;
	char flavor[32];
	long jiffies;
	if (kmsg_parse_rcu(msg, &kind, flavor, sizeof(flavor), &jiffies) == 0)
		TERMINATED(flavor);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	struct kmsg_record *r = xmalloc(sizeof(*r));
	if (kmsg_parse_record(buf, size, r) == 0) {
		FUZZ_CHECK(r->msg_len < sizeof(r->msg) && r->msg[r->msg_len] == '\0');
		TERMINATED(r->caller);
		FUZZ_CHECK(r->facility < 128 && r->level < 8);
		lines(r->msg);
	}
	free(r);
	free(buf);
	return 0;
}
