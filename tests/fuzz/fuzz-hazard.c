/* fuzz-hazard.c: a hazard rule file (hazard_parse, as the built-in rules and [hazards] local
 * are read), then every rule evaluated on facts made from the input's bytes, as an audit
 * does. Guarantees: a file with errors adds no rule; every rule that parsed has an id, a title,
 * a summary, a seed, a severity, conditions on known facts and remedies; every hit holds on
 * every condition of its rule, and every undecided rule names a fact that is unknown. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	char *text = fuzz_bytes(data, size);
	struct cgw_hazset set = { 0 };
	int r = hazard_parse(&set, "fuzz.conf", text, size, devnull);
	FUZZ_CHECK(r >= 0);
	FUZZ_CHECK(r == 0 || set.n == 0);
	for (size_t i = 0; i < set.n; i++) {
		const struct cgw_hazard *h = &set.v[i];
		FUZZ_CHECK(h->id && *h->id && h->title && h->summary && h->seed);
		FUZZ_CHECK(h->severity != SEV_NONE && h->nwhen > 0 && h->nremedies > 0);
		for (size_t j = 0; j < h->nwhen; j++)
			FUZZ_CHECK((unsigned)h->when[j].fact < HF_NFACT);
		for (size_t j = 0; j < h->nevidence; j++)
			FUZZ_CHECK((unsigned)h->evidence[j] < HF_NFACT);
	}
	struct cgw_facts *f = xcalloc(1, sizeof(*f));
	for (int k = 0; k < HF_NFACT; k++) {
		uint8_t b = size ? data[(size_t)k % size] : 0;
		f->known[k] = b & 1;
		f->v[k] = (double)(b >> 1) - 8;
	}
	struct cgw_audit a;
	if (hazard_eval(&set, f, &a) == 0) {
		for (size_t i = 0; i < a.nhits; i++)
			for (size_t j = 0; j < a.hits[i].h->nwhen; j++) {
				const struct haz_cond *c = &a.hits[i].h->when[j];
				FUZZ_CHECK(f->known[c->fact] && hazard_cond_holds(c, f->v[c->fact]));
			}
		for (size_t i = 0; i < a.nopen; i++)
			FUZZ_CHECK(!f->known[a.open[i].fact]);
		audit_free(&a);
	}
	free(f);
	hazset_free(&set);
	free(text);
	return 0;
}
