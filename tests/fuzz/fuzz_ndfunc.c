/* memz.plugin's function calls: what netdata (for a remote user) writes on
 * its stdin, each line taken as the reader takes it (queued, cancelled,
 * refused) and the queue served against a small live-looking snapshot. */
#include "fuzz_util.h"
#include "functions.h"
#include "memz/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct memz_table *t;
	static struct memz_snapshot snap;
	static struct memz_nd_input in;
	struct memz_nd_fctx ctx;
	char *buf = fuzz_cstr(data, size), *line, *next;

	if (!t) {
		struct memz_settings s;
		bool is_new;

		memz_settings_init(&s);
		if (memz_table_new(&t, &s, memz_allocator_libc()))
			abort();
		memz_snapshot_init(&snap);
		if (memz_nd_input_init(&in))
			abort();
		for (double now = 0; now < 3; now++) {
			memz_table_begin(t, now);
			for (int pid = 1; pid < 5; pid++) {
				struct memz_proc *p =
					memz_table_get(t, pid, 100, &is_new);

				memz_table_set_name(t, p, "x\n\"y", 4);
				p->mem.pss = (uint64_t)(pid * 4096 * (now + 1));
				p->has_sample = true;
			}
			memz_table_end(t, &snap.view);
		}
	}
	/* every field a host does not set is zero (no budget, no bound) */
	memset(&ctx, 0, sizeof ctx);
	ctx.snap = size && data[0] & 1 ? &snap : NULL;
	ctx.proc_root = "/nonexistent/memz-fuzz";
	ctx.update_every = 1;
	/* none held, as memz.plugin started without capabilities */
	ctx.held = 0;
	ctx.parts = NULL;
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		memz_nd_input_line(&in, fuzz_sink(), line, &ctx, memz_now());
	}
	memz_nd_serve(&in, fuzz_sink(), &ctx, memz_now(), 1e9, (size_t)-1);
	in.quit = in.in_payload = false;
	free(buf);
	return 0;
}
