/* smaps and its taxonomy: every mapping parsed, classified against its
 * neighbours and summed; a filter from the first byte. */
#include "fuzz_util.h"
#include "memz/smapscat.h"

struct acc {
	struct memz_smapscat sum;
	struct memz_mapfilter f;
	unsigned matched;
};

static int add(const struct memz_mapping *m, enum memz_mapcat c, void *ctx)
{
	struct acc *a = ctx;

	if ((unsigned)c >= MEMZ_CAT_COUNT)
		abort();
	memz_smapscat_add(&a->sum, m, c);
	if (memz_mapfilter_match(&a->f, m, c))
		a->matched++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acc a;
	char *buf;

	if (size < 1)
		return 0;
	buf = fuzz_cstr(data + 1, size - 1);
	memz_smapscat_init(&a.sum);
	a.f.cats = data[0] & 0x1f;
	a.f.perms = data[0] >> 4;
	a.matched = 0;
	memz_smapscat_walk(buf, size - 1, data[0] & 1 ? "/usr/bin/x" : NULL,
			   add, &a);
	if (a.sum.total.count < a.matched)
		abort();
	free(buf);
	return 0;
}
