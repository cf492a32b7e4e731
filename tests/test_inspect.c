/*
 * The one-process reader behind `memz inspect` and memz-inspect, on the cli
 * fixture: every file it promises, the mappings classified and summed, the
 * errors named, and its buffers reused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/inspect.h"

#define ROOT MEMZ_FIXTURES "/cli/proc"

int main(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	struct memz_inspect ins;
	const char *what = "unset";
	uint64_t pss = 0;
	unsigned long allocs;

	memz_inspect_init(&ins);
	CHECK_INT(memz_inspect_read(&ins, ROOT, 100, &a, &what), 0);
	CHECK(what == NULL);
	CHECK_INT(ins.pid, 100);
	CHECK_STR(ins.stat.comm, "app");
	CHECK_INT(ins.oom_score_adj, 300);
	CHECK_STR(ins.exe, "/opt/app/bin/app");
	CHECK(ins.has_rollup);
	CHECK_U64(ins.rollup.pss, 53536ull * 1024);
	CHECK_INT(ins.n_maps, 12);
	CHECK_INT(ins.cats.total.count, 12);
	for (size_t i = 0; i < ins.n_maps; i++)
		pss += ins.maps[i].m.pss;
	CHECK_U64(pss, 53536ull * 1024);
	CHECK_U64(ins.cats.total.pss, pss);
	CHECK(ins.uptime_s == 10000.0);
	CHECK_INT(ins.boot_time, 1700000000);
	/* started 500000 ticks after boot: 5000 s at 100 Hz */
	if (ins.clk_tck == 100)
		CHECK(memz_inspect_age(&ins) == 5000.0);

	/* the same process again: its buffers are big enough already */
	allocs = c.allocs;
	CHECK_INT(memz_inspect_read(&ins, ROOT, 100, &a, &what), 0);
	CHECK_INT(c.allocs, allocs);
	CHECK_INT(ins.n_maps, 12);

	/* what failed is named */
	CHECK_INT(memz_inspect_read(&ins, ROOT, 4242, &a, &what), -ENOENT);
	CHECK_STR(what, "process");
	CHECK_INT(memz_inspect_read(&ins, MEMZ_FIXTURES "/nothere", 100, &a,
				    &what), -ENOENT);
	CHECK_STR(what, "proc root");

	memz_inspect_release(&ins, &a);
	CHECK_INT(c.live, 0);
	return check_status();
}
