/* taskiter.bpf.c: the scan inside the kernel, as an iter/task program (kernels before the
 * open-coded task iterator of taskwalk.bpf.c, 6.7). Reading its iterator walks every thread
 * once and writes a struct taskrec (taskrec.h) for each D or R thread (with the kernel stack
 * of those off their CPU), for each process's main thread in another state (the process
 * list), and one TASKREC_END record last with the count. With emit_all set, every thread gets
 * a record. What is read of a thread: taskfill.h. (The walk's cost is mostly the kernel's own
 * pid lookups, per thread: find_ge_pid, get_pid_task, pid_nr_ns.) */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "taskrec.h"
#include "taskfill.h"

char LICENSE[] SEC("license") = "GPL";   /* bpf_get_task_stack is GPL-only */

struct seq_file;
struct bpf_iter_meta { struct seq_file *seq; __u64 session_id, seq_num; }
	__attribute__((preserve_access_index));
struct bpf_iter__task { struct bpf_iter_meta *meta; struct task_struct *task; }
	__attribute__((preserve_access_index));

/* set by the reader: a record for every thread; the reader's own process, left out (neither
 * counted nor written, as the /proc walk skips it) */
__u32 emit_all = 0;
__s32 skip_tgid = 0;

/* threads walked, per read session (two readers may walk at once) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} walked SEC(".maps");

SEC("iter/task")
int cgw_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	__u32 zero = 0;
	__u64 session = ctx->meta->session_id, one = 1;
	struct scratch *s = bpf_map_lookup_elem(&buf, &zero);
	if (!s)
		return 0;
	__u64 *n = bpf_map_lookup_elem(&walked, &session);
	if (!t) {                             /* the end of the walk */
		end_fill(&s->r, n ? (__u32)*n : 0);
		bpf_seq_write(seq, &s->r, sizeof(s->r));
		bpf_map_delete_elem(&walked, &session);
		return 0;
	}
	if (skip_tgid && t->tgid == skip_tgid)
		return 0;
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&walked, &session, &one, BPF_NOEXIST);
	if (!task_fill(t, s, emit_all, -1, true))
		return 0;
	bpf_seq_write(seq, &s->r, sizeof(s->r));
	if (s->r.nframes) {
		__u32 len = (__u32)s->r.nframes * 8;
		if (len > sizeof(s->frames))
			len = sizeof(s->frames);
		bpf_seq_write(seq, s->frames, len);
	}
	return 0;
}
