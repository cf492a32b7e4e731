#include <string.h>

#include "memz/breakdown.h"

void memz_breakdown_compute(const struct memz_meminfo *m, uint64_t process_anon,
			    uint64_t unread_anon, struct memz_breakdown *b)
{
	uint64_t fixed, rest;

	memset(b, 0, sizeof *b);
	b->mem_total = m->mem_total;
	b->free = m->mem_free;
	b->buffers = m->buffers;
	b->cached = m->cached;
	b->slab = m->slab;
	b->page_tables = m->page_tables;
	b->kernel_stack = m->kernel_stack;
	b->vmalloc_used = m->vmalloc_used;
	b->percpu = m->percpu;

	/* The parts must add up to MemTotal exactly. The kernel's counters
	 * are read at slightly different moments, so in the rare case they
	 * overshoot, the anonymous parts give way first. */
	fixed = b->free + b->buffers + b->cached + b->slab + b->page_tables;
	rest = fixed < m->mem_total ? m->mem_total - fixed : 0;
	if (m->has_anon_pages) {
		/* The anonymous total is AnonPages, of the same read as the
		 * rest: the processes' figures are of different ages (most
		 * are moved by statm between exact reads, compilers come
		 * and go between the meminfo read and theirs), and a
		 * residual that took their sum would take their error too,
		 * hundreds of MiB under churn. They only split the total:
		 * hidden is what the read processes leave, but never more
		 * than the unread ones' RssAnon (an upper bound: pages a
		 * fork shares count whole in each), so the read ones' error
		 * stays out of it when little is unread (as root). */
		uint64_t anon = m->anon_pages < rest ? m->anon_pages : rest;
		uint64_t left = process_anon < anon ? anon - process_anon : 0;

		b->hidden_anon = unread_anon < left ? unread_anon : left;
		b->process_anon = anon - b->hidden_anon;
		rest -= anon;
	} else {
		b->process_anon = process_anon < rest ? process_anon : rest;
		rest -= b->process_anon;
	}
	/* Free pages on the per-CPU lists are free, but MemFree leaves them
	 * out: in the residual they moved it by tens of MiB a second under
	 * churn. zoneinfo is read just after meminfo, so they give way to
	 * meminfo's parts if the two reads disagree. */
	b->pcp_free = m->pcp_free < rest ? m->pcp_free : rest;
	rest -= b->pcp_free;
	b->kernel_residual = rest;
	if (fixed > m->mem_total) {
		/* meminfo itself overshoots: trim free, the most volatile */
		uint64_t over = fixed - m->mem_total;
		b->free = b->free > over ? b->free - over : 0;
	}
}
