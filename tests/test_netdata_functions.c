/* memz-inspect's argument, which whoever may call netdata functions
 * controls: only a decimal pid the sampler found is read, below ProcRoot,
 * so no argument makes memz.plugin open a path outside ProcRoot/PID/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sampler_util.h"
#include "../plugins/netdata/functions.h"

/* the status memz.plugin answered with, and whether smaps was read */
static int call(const struct memz_nd_fctx *ctx, const char *args,
		int *read_smaps)
{
	char line[256], *out = NULL;
	size_t len = 0;
	int status = -1;
	FILE *f = open_memstream(&out, &len);

	snprintf(line, sizeof line, "FUNCTION tx1 10 \"%s\"", args);
	CHECK(f != NULL);
	CHECK_INT(memz_nd_function_line(f, line, ctx), 0);
	fclose(f);
	if (sscanf(out, "FUNCTION_RESULT_BEGIN tx1 %d ", &status) != 1)
		status = -1;
	*read_smaps = strstr(out, "_mappings") != NULL;
	free(out);
	return status;
}

int main(void)
{
	static const char *hostile[] = {
		"memz-inspect ../../../etc/passwd",
		"memz-inspect 100/../../..",
		"memz-inspect /etc/shadow",
		"memz-inspect 100/smaps",
		"memz-inspect -100",
		"memz-inspect 0x64",
		"memz-inspect 100x",
		"memz-inspect 1e2",
		"memz-inspect 0",
		"memz-inspect 2147483648",
		"memz-inspect 99999999999999999999",
		"memz-inspect",
		"memz-inspect pid:100",
		"memz-inspect 'self'",
		"memz-inspect 9999", /* a pid, but not one the sampler found */
	};
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	struct memz_nd_fctx ctx;
	int smaps, status;

	settings_for(&set, "cli");
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_sampler_run(s, 10.0, &snap), 0);
	ctx = (struct memz_nd_fctx){ &snap, set.proc_root, 1, 0 };

	/* the one way in: a pid of the snapshot, read below ProcRoot */
	CHECK_INT(call(&ctx, "memz-inspect 100", &smaps), 200);
	CHECK_INT(smaps, 1);
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		status = call(&ctx, hostile[i], &smaps);
		if (status != 400 && status != 404)
			fprintf(stderr, "%s: status %d\n", hostile[i], status);
		CHECK(status == 400 || status == 404);
		CHECK_INT(smaps, 0);
	}
	CHECK_INT(call(&ctx, "memz-inspect 9999", &smaps), 404);
	CHECK_INT(call(&ctx, "memz-inspect ../1", &smaps), 400);

	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
	return check_status();
}
