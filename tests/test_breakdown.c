/*
 * The breakdown's parts add up to MemTotal whatever the counters say, and
 * the estimated parts give way first when they overshoot.
 */
#include <string.h>

#include "check.h"
#include "memz/breakdown.h"

static uint64_t sum(const struct memz_breakdown *b)
{
	return b->free + b->buffers + b->cached + b->slab + b->page_tables +
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

	memz_breakdown_compute(&m, 400, &b);
	CHECK_U64(b.mem_total, 1000);
	CHECK_U64(b.process_anon, 400);
	CHECK_U64(b.hidden_anon, 50);
	CHECK_U64(b.kernel_residual, 85);
	CHECK_U64(sum(&b), 1000);
	CHECK_U64(b.kernel_stack, 7);
	CHECK_U64(b.vmalloc_used, 8);
	CHECK_U64(b.percpu, 9);

	/* the processes' sum overshoots what is left: it gives way, nothing
	 * is hidden and no residual remains */
	memz_breakdown_compute(&m, 600, &b);
	CHECK_U64(b.process_anon, 535);
	CHECK_U64(b.hidden_anon, 0);
	CHECK_U64(b.kernel_residual, 0);
	CHECK_U64(sum(&b), 1000);

	/* AnonPages beyond what is left: hidden takes the rest */
	m.anon_pages = 900;
	memz_breakdown_compute(&m, 400, &b);
	CHECK_U64(b.hidden_anon, 135);
	CHECK_U64(b.kernel_residual, 0);
	CHECK_U64(sum(&b), 1000);

	/* no AnonPages (old kernels): nothing is called hidden */
	m.has_anon_pages = false;
	memz_breakdown_compute(&m, 400, &b);
	CHECK_U64(b.hidden_anon, 0);
	CHECK_U64(b.kernel_residual, 135);

	/* meminfo alone overshoots: free is trimmed */
	m.mem_free = 700;
	memz_breakdown_compute(&m, 400, &b);
	CHECK_U64(b.free, 635);
	CHECK_U64(b.process_anon, 0);
	CHECK_U64(sum(&b), 1000);
	return check_status();
}
