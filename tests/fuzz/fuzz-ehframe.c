/* fuzz-ehframe.c: .eh_frame_hdr (parse-ehframe.c). The input as an ELF image: its
 * PT_GNU_EH_FRAME bytes parsed as the unwinder parses them, and the span of bytes it would
 * keep; then the input itself as a header. What is accepted is a table of fde_count pairs
 * wholly inside the header's bytes, and a span inside one loadable segment's file bytes that
 * starts at the header or at .eh_frame and holds both. */
#include <errno.h>

#include "fuzz.h"

static void hdr_check(const uint8_t *b, size_t n, uint64_t vaddr, struct eh_frame_hdr *h)
{
	int r = parse_eh_frame_hdr(b, n, vaddr, h);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOTSUP);
	if (r == 0) {
		FUZZ_CHECK(h->fde_count > 0 && h->table - vaddr >= 4);   /* addresses wrap */
		FUZZ_CHECK(h->table - vaddr <= n && (n - (h->table - vaddr)) / 8 >= h->fde_count);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *img = fuzz_bytes(data, size);
	struct elf_info e;
	struct eh_frame_hdr h;
	if (elf_parse_mem(img, size, 0, &e) == 0 && e.have_eh_hdr && e.eh_hdr.off <= size &&
	    e.eh_hdr.filesz <= size - e.eh_hdr.off) {
		hdr_check((const uint8_t *)img + e.eh_hdr.off, (size_t)e.eh_hdr.filesz,
		          e.eh_hdr.vaddr, &h);
		uint64_t off, va, len;
		if (h.fde_count && eh_frame_span(&e, &h, &off, &va, &len) == 0) {
			FUZZ_CHECK(va == e.eh_hdr.vaddr || va == h.eh_frame);
			FUZZ_CHECK(va <= e.eh_hdr.vaddr && va <= h.eh_frame);
			FUZZ_CHECK(e.eh_hdr.vaddr - va < len && h.eh_frame - va < len);
			bool in = false;
			for (size_t i = 0; i < e.nload && !in; i++)
				in = off >= e.load[i].off && len <= e.load[i].filesz &&
				     off - e.load[i].off <= e.load[i].filesz - len &&
				     off - e.load[i].off == va - e.load[i].vaddr;
			FUZZ_CHECK(in);
		}
	}
	elf_info_free(&e);
	uint64_t vaddr = size >= 8 ? *(const uint64_t *)(const void *)data : 0x1000;
	hdr_check(data, size, vaddr, &h);
	free(img);
	return 0;
}
