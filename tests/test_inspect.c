/*
 * The one-process reader behind `memz inspect` and memz-inspect, on the cli
 * fixture: every file it promises, the mappings classified and summed, the
 * errors named, its buffers reused, and a reused pid told from the process
 * the sampler saw.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/inspect.h"

#define ROOT MEMZ_FIXTURES "/cli/proc"

static int by_rss(const struct memz_inspect_map *a,
		  const struct memz_inspect_map *b)
{
	if (a->m.rss != b->m.rss)
		return a->m.rss < b->m.rss ? 1 : -1;
	return (a->m.start > b->m.start) - (a->m.start < b->m.start);
}

/* inspect keeps only what it is asked to show, but counts all it passed. */
static void test_inspect_keep(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_inspect all, top, anon;
	const char *what;

	memz_inspect_init(&all);
	CHECK_INT(memz_inspect_read(&all, ROOT, 100, a,
				    &what), 0);
	CHECK(all.n_maps > 3);
	CHECK_INT(all.selected.count, all.n_maps);
	CHECK_INT(all.selected.count, all.cats.total.count);
	for (size_t i = 1; i < all.n_maps; i++)
		CHECK(all.maps[i - 1].m.start < all.maps[i].m.start);

	memz_inspect_init(&top);
	top.keep_max = 2;
	top.keep_cmp = by_rss;
	CHECK_INT(memz_inspect_read(&top, ROOT, 100, a,
				    &what), 0);
	CHECK_INT(top.n_maps, 2);
	CHECK_INT(top.selected.count, all.n_maps);
	CHECK_U64(top.selected.rss, all.cats.total.rss);
	for (size_t i = 0; i < all.n_maps; i++)
		CHECK(all.maps[i].m.rss <= top.maps[1].m.rss ||
		      all.maps[i].m.start == top.maps[0].m.start ||
		      all.maps[i].m.start == top.maps[1].m.start);
	CHECK(top.maps[0].m.rss >= top.maps[1].m.rss);

	memz_inspect_init(&anon);
	anon.keep_filter.cats = 1u << MEMZ_CAT_HEAP;
	CHECK_INT(memz_inspect_read(&anon, ROOT, 100, a,
				    &what), 0);
	CHECK_INT(anon.selected.count, all.cats.cat[MEMZ_CAT_HEAP].count);
	CHECK_INT(anon.n_maps, anon.selected.count);
	CHECK_U64(anon.selected.rss, all.cats.cat[MEMZ_CAT_HEAP].rss);
	memz_inspect_release(&all, a);
	memz_inspect_release(&top, a);
	memz_inspect_release(&anon, a);
}

/* memz-inspect finds a pid in the last snapshot; by the read the pid may
 * be another process's. Its start time tells, and nothing past its stat
 * is read. */
static void test_inspect_reused(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_inspect ins;
	const char *what = NULL;

	memz_inspect_init(&ins);
	CHECK_INT(memz_inspect_read_proc(&ins, ROOT, 100, 500000, a, &what),
		  0);
	CHECK(what == NULL);
	CHECK_INT(ins.n_maps, 12);
	CHECK_INT(memz_inspect_read_proc(&ins, ROOT, 100, 499999, a, &what),
		  -ESRCH);
	CHECK_STR(what, "process");
	CHECK_INT(ins.n_maps, 0);
	CHECK_INT(ins.cats.total.count, 0);
	CHECK(!ins.has_rollup);
	CHECK_STR(ins.exe, "");
	/* tree1's worker 201 (start 5200) is cron by tree1-reused */
	CHECK_INT(memz_inspect_read_proc(&ins, MEMZ_FIXTURES "/tree1/proc", 201,
					 5200, a, &what), 0);
	CHECK_STR(ins.stat.comm, "worker");
	CHECK_INT(memz_inspect_read_proc(&ins,
					 MEMZ_FIXTURES "/tree1-reused/proc",
					 201, 5200, a, &what), -ESRCH);
	CHECK_INT(memz_inspect_read_proc(&ins, ROOT, 4242, 1, a, &what),
		  -ENOENT);
	memz_inspect_release(&ins, a);
}

/* Above max_rss neither smaps file is read (each would hold a big
 * process's mmap lock for its whole page-table walk); status still is. */
static void test_inspect_too_big(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_inspect ins;
	const char *what = "unset";

	memz_inspect_init(&ins);
	/* VmRSS 54952 kB: a bound just under it */
	ins.max_rss = 54951.0 * 1024;
	CHECK_INT(memz_inspect_read(&ins, ROOT, 100, a, &what), 0);
	CHECK(what == NULL);
	CHECK(ins.too_big);
	CHECK(!ins.has_rollup);
	CHECK_INT(ins.n_maps, 0);
	CHECK_INT(ins.cats.total.count, 0);
	CHECK_U64(ins.status.vm_rss, 54952ull * 1024);
	CHECK_STR(ins.exe, "/opt/app/bin/app");
	CHECK(ins.uptime_s == 10000.0);

	/* at the bound: read whole, and the flag of the last read is gone */
	ins.max_rss = 54952.0 * 1024;
	CHECK_INT(memz_inspect_read(&ins, ROOT, 100, a, &what), 0);
	CHECK(!ins.too_big);
	CHECK(ins.has_rollup);
	CHECK_INT(ins.n_maps, 12);
	memz_inspect_release(&ins, a);
}

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
	test_inspect_keep();
	test_inspect_reused();
	test_inspect_too_big();
	return check_status();
}
