/* The emitters fed arbitrary snapshots: processes whose names, figures and
 * arrivals come from the input, through the table for a few cycles, then
 * netdata's protocol, the core's JSON and the report every host formats.
 * Names are hostile bytes. */
#include "emit.h"
#include "fuzz_util.h"
#include "memz/json.h"
#include "memz/report.h"
#include "memz/table.h"

static uint64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
	uint64_t v = 0;

	while (n-- && *p < end)
		v = v << 8 | *(*p)++;
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct memz_settings s;
	struct memz_table *t;
	struct memz_snapshot snap;
	struct memz_nd_emitter *e = NULL;
	struct memz_report *r = NULL;
	const struct memz_report_view *view;
	double now = 0;

	memz_settings_init(&s);
	s.top_groups = (int)take(&p, end, 1) % 40;
	s.group_by = (enum memz_group_by)(take(&p, end, 1) % 5);
	if (memz_table_new(&t, &s, memz_allocator_libc()))
		abort();
	memz_snapshot_init(&snap);
	if (memz_nd_emitter_new(&e, fuzz_sink(), 1,
				size && data[0] & 2 ? MEMZ_ND_V(2, 8) : MEMZ_ND_V(1, 37)) ||
	    memz_report_new(&r, memz_allocator_libc()))
		abort();
	while (p < end) {
		unsigned n = (unsigned)take(&p, end, 1) % 16;
		bool is_new;

		memz_table_begin(t, now);
		for (unsigned i = 0; i < n && p < end; i++) {
			int pid = (int)take(&p, end, 1) + 1;
			size_t len = (size_t)take(&p, end, 1) % 24;
			struct memz_proc *q;
			char name[24];

			q = memz_table_get(t, pid, take(&p, end, 1), &is_new);
			if (!q)
				abort();
			memset(name, 0, sizeof name);
			for (size_t k = 0; k < len && p < end; k++)
				name[k] = (char)*p++;
			memz_table_set_name(t, q, name, len);
			q->ppid = (int)take(&p, end, 1);
			q->mem.pss = take(&p, end, 4) << 12;
			q->mem.rss = q->mem.pss + (take(&p, end, 2) << 12);
			q->mem.swap = take(&p, end, 2) << 12;
			q->threads = (long)take(&p, end, 1);
			q->has_sample = true;
		}
		if (memz_table_end(t, &snap.view))
			break;
		snap.t = now;
		memz_nd_emit(e, &snap, (unsigned long long)(now * 1e6));
		memz_json_print(fuzz_sink(), &snap);
		if (!memz_report_update(r, &snap, &view))
			memz_json_print_report(fuzz_sink(), view);
		now += 1 + (double)take(&p, end, 1);
	}
	memz_nd_emitter_free(&e);
	memz_snapshot_release(&snap);
	memz_report_free(&r);
	memz_table_free(&t);
	return 0;
}
