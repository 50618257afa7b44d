/* parse-ehframe.c: .eh_frame_hdr, the index of a binary's unwind info (pure). Its layout (the
 * LSB's "Exception Frame Header"): version 1, three encoding bytes (of eh_frame_ptr, of
 * fde_count, of the table), eh_frame_ptr, fde_count, then fde_count pairs (initial location,
 * FDE address) sorted by location. libunwind searches only a table of (datarel, sdata4)
 * pairs, which every linker writes; anything else is refused, never guessed. */
#include <errno.h>
#include <string.h>

#include "cgwatch.h"

#define PE_DATAREL_SDATA4 0x3b

/* One encoded value at b[*p] (n bytes in all), the header at vaddr: into *v, *p moved on. */
static int pe_read(const uint8_t *b, size_t n, size_t *p, uint8_t enc, uint64_t vaddr,
                   uint64_t *v)
{
	size_t len;
	bool sign = false;
	switch (enc & 0x0f) {
	case 0x00: len = 8; break;                   /* absptr: a pointer of the target */
	case 0x02: len = 2; break;
	case 0x03: len = 4; break;
	case 0x04: len = 8; break;
	case 0x0a: len = 2; sign = true; break;
	case 0x0b: len = 4; sign = true; break;
	case 0x0c: len = 8; sign = true; break;
	default: return -ENOTSUP;                    /* leb128s, omit (0xff) */
	}
	if (*p > n || n - *p < len)
		return -EINVAL;
	uint64_t x = 0;
	for (size_t i = 0; i < len; i++)
		x |= (uint64_t)b[*p + i] << (8 * i);
	if (sign && len < 8 && (x >> (8 * len - 1)) & 1)
		x |= ~0ull << (8 * len);
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: x += vaddr + *p; break;           /* pcrel: from the field itself */
	case 0x30: x += vaddr; break;                /* datarel: from the header */
	default: return -ENOTSUP;                    /* textrel, funcrel, aligned */
	}
	if (enc & 0x80)
		return -ENOTSUP;                         /* indirect */
	*p += len;
	*v = x;
	return 0;
}

int parse_eh_frame_hdr(const uint8_t *b, size_t n, uint64_t vaddr, struct eh_frame_hdr *out)
{
	memset(out, 0, sizeof(*out));
	if (n < 4)
		return -EINVAL;
	if (b[0] != 1)
		return -ENOTSUP;
	size_t p = 4;
	uint64_t count;
	int r = pe_read(b, n, &p, b[1], vaddr, &out->eh_frame);
	if (r == 0)
		r = pe_read(b, n, &p, b[2], vaddr, &count);
	if (r < 0)
		return r;
	if (b[3] != PE_DATAREL_SDATA4 || count == 0)
		return -ENOTSUP;
	if (count > (n - p) / 8)
		return -EINVAL;                          /* the table runs past the section */
	out->table = vaddr + p;
	out->fde_count = count;
	return 0;
}

int eh_frame_span(const struct elf_info *e, const struct eh_frame_hdr *h, uint64_t *off,
                  uint64_t *vaddr, uint64_t *len)
{
	const struct elf_load *hl = &e->eh_hdr;
	for (size_t i = 0; i < e->nload; i++) {
		const struct elf_load *l = &e->load[i];
		if (hl->vaddr < l->vaddr || hl->vaddr - l->vaddr >= l->filesz ||
		    hl->filesz > l->filesz - (hl->vaddr - l->vaddr) ||
		    hl->off != l->off + (hl->vaddr - l->vaddr))
			continue;
		uint64_t lo = hl->vaddr;
		if (h->eh_frame >= l->vaddr && h->eh_frame < lo)
			lo = h->eh_frame;                    /* .eh_frame first: take it too */
		else if (h->eh_frame < lo || h->eh_frame - l->vaddr >= l->filesz)
			return -ERANGE;                      /* not in the header's segment */
		*vaddr = lo;
		*off = l->off + (lo - l->vaddr);
		*len = l->filesz - (lo - l->vaddr);
		return 0;
	}
	return -ERANGE;
}
