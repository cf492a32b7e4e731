/* The trace reader (replay's input): rows until the end or an error, which
 * must come with a reason. */
#include "fuzz_util.h"
#include "memz/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memz_trace_reader r;
	struct memz_trace_row row;
	FILE *f;
	int rc;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	memz_trace_reader_init(&r, f, "fuzz");
	while ((rc = memz_trace_next(&r, &row)) == 1)
		;
	if (rc < 0 && !r.err[0])
		abort();
	fclose(f);
	return 0;
}
