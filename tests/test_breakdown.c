/*
 * The breakdown's parts add up to MemTotal whatever the counters say, the
 * residual is meminfo's alone less the per-CPU lists' free pages, and the
 * anonymous parts and those pages give way first when they overshoot.
 */
#include <string.h>

#include "check.h"
#include "memz/breakdown.h"

static uint64_t sum(const struct memz_breakdown *b)
{
	return b->free + b->pcp_free + b->buffers + b->cached + b->slab +
	       b->page_tables +
	       b->process_anon + b->hidden_anon + b->kernel_residual;
}

int main(void)
{
	struct memz_meminfo m;
	struct memz_breakdown b;

	memset(&m, 0, sizeof m);
	m.mem_total = 1000;
	m.mem_free = 100;
	m.buffers = 10;
	m.cached = 300;
	m.slab = 50;
	m.page_tables = 5;
	m.anon_pages = 450;
	m.has_anon_pages = true;
	m.kernel_stack = 7;
	m.vmalloc_used = 8;
	m.percpu = 9;

	/* AnonPages splits into what the processes memz may not read hold
	 * (their RssAnon) and the rest; the residual is meminfo's alone */
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.mem_total, 1000);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.kernel_residual, 85);
	CHECK_U64(sum(&b), 1000);
	CHECK_U64(b.kernel_stack, 7);
	CHECK_U64(b.vmalloc_used, 8);
	CHECK_U64(b.percpu, 9);

	/* the processes' figures, of other ages than the meminfo read,
	 * overshoot AnonPages: the residual does not move (before, it took
	 * the overshoot: 0); nothing is left to hide */
	memz_breakdown_compute(&m, 600, 50, &b);
	CHECK_U64(b.process_anon, 450);
	CHECK_U64(b.hidden_anon, 0);
	CHECK_U64(b.kernel_residual, 85);
	CHECK_U64(sum(&b), 1000);
	/* or fall short of it: hidden takes no more than the unread
	 * processes hold */
	memz_breakdown_compute(&m, 100, 50, &b);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.kernel_residual, 85);

	/* nothing unread (root): all of AnonPages is the processes',
	 * whatever their sum (before, 150 was called hidden) */
	memz_breakdown_compute(&m, 300, 0, &b);
	CHECK_U64(b.process_anon, 450);
	CHECK_U64(b.hidden_anon, 0);
	CHECK_U64(b.kernel_residual, 85);

	/* the unread processes' RssAnon (an upper bound: fork-shared pages
	 * count whole in each) beyond what the read ones leave: hidden is
	 * what they leave, the read ones keep theirs */
	memz_breakdown_compute(&m, 400, 900, &b);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.kernel_residual, 85);
	CHECK_U64(sum(&b), 1000);

	/* free pages on the per-CPU lists, which MemFree leaves out, are
	 * their own part, out of the residual (85 without them) */
	m.pcp_free = 60;
	m.has_pcp_free = true;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.pcp_free, 60);
	CHECK_U64(b.free, 100);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.kernel_residual, 25);
	CHECK_U64(sum(&b), 1000);
	/* under churn the lists hand pages back and forth with MemFree: the
	 * residual stays where it was */
	m.mem_free = 140;
	m.pcp_free = 20;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.pcp_free, 20);
	CHECK_U64(b.kernel_residual, 25);
	CHECK_U64(sum(&b), 1000);
	m.mem_free = 80;
	m.pcp_free = 80;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.kernel_residual, 25);
	CHECK_U64(sum(&b), 1000);
	/* zoneinfo is read after meminfo: when the two disagree by more
	 * than the residual holds, the lists give way, never meminfo */
	m.mem_free = 100;
	m.pcp_free = 90;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.pcp_free, 85);
	CHECK_U64(b.free, 100);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.kernel_residual, 0);
	CHECK_U64(sum(&b), 1000);
	m.pcp_free = 0;
	m.has_pcp_free = false;

	/* AnonPages beyond what meminfo's parts leave: it takes the rest */
	m.anon_pages = 900;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.process_anon, 485);
	CHECK_U64(b.kernel_residual, 0);
	CHECK_U64(sum(&b), 1000);

	/* no AnonPages (old kernels): the processes' sum, nothing hidden */
	m.has_anon_pages = false;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 0);
	CHECK_U64(b.kernel_residual, 135);

	/* meminfo alone overshoots: free is trimmed, nothing is left for
	 * the per-CPU lists */
	m.mem_free = 700;
	m.pcp_free = 30;
	m.has_pcp_free = true;
	memz_breakdown_compute(&m, 400, 50, &b);
	CHECK_U64(b.free, 635);
	CHECK_U64(b.process_anon, 0);
	CHECK_U64(b.pcp_free, 0);
	CHECK_U64(sum(&b), 1000);
	return check_status();
}
