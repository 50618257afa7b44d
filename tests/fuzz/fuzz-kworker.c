/* fuzz-kworker.c: a kworker's name (parse_kworker) as /proc/TID/comm gives it (len bytes,
 * at most a comm's), and matched against the name the kernel's reports print. */
#include "fuzz.h"
#include "kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= CGW_COMM_MAX)
		return 0;
	char *comm = fuzz_bytes(data, size);
	struct cgw_kworker k;
	if (parse_kworker(comm, size, &k) == 0) {
		FUZZ_CHECK(strlen(k.wq) < sizeof(k.wq));
		if (k.rescuer)
			FUZZ_CHECK(k.cpu == -1 && k.pool == -1 && !k.unbound);
		else if (k.unbound)
			FUZZ_CHECK(k.cpu == -1 && k.pool >= 0);
		else
			FUZZ_CHECK(k.cpu == k.pool && k.cpu >= 0);
		/* the kernel's reports name it without the "+wq" / "-wq" */
		size_t n = 8;
		while (n < size && comm[n] != '+' && comm[n] != '-')
			n++;
		char kcomm[KMSG_COMM];
		if (n < 16 && !memchr(comm, '\0', n)) {
			memcpy(kcomm, comm, n);
			kcomm[n] = '\0';
			FUZZ_CHECK(kmsg_comm_match(kcomm, comm, size));
		}
	}
	free(comm);
	return 0;
}
