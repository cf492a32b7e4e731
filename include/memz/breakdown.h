/*
 * breakdown.h - MemTotal split into parts that add up to it exactly.
 *
 *   free + pcp_free + buffers + cached + slab + page_tables
 *        + process_anon + hidden_anon + kernel_residual = MemTotal
 *
 * Everything but pcp_free and the last three is meminfo's. pcp_free is
 * zoneinfo's: free pages on the kernel's per-CPU lists, which MemFree
 * leaves out and which would otherwise swing the residual by tens of MiB
 * under churn. process_anon + hidden_anon is AnonPages, of the same meminfo
 * read (the processes' file and shmem pages are in cached already);
 * hidden_anon is the part the processes memz may not read hold,
 * process_anon the rest. kernel_residual is what no counter names (vmalloc,
 * driver and DMA buffers, socket queues); KernelStack, VmallocUsed and
 * Percpu are reported beside it, not inside the sum, because they overlap
 * what the kernel counts elsewhere. docs/design.md tells why each part is
 * what it is.
 */
#ifndef MEMZ_BREAKDOWN_H
#define MEMZ_BREAKDOWN_H

#include <stdint.h>

#include "memz/sysinfo.h"

struct memz_breakdown {
	uint64_t mem_total;
	uint64_t free, pcp_free, buffers, cached, slab, page_tables;
	uint64_t process_anon, hidden_anon, kernel_residual;
	/* named pieces of the kernel's share, reported beside the residual */
	uint64_t kernel_stack, vmalloc_used, percpu;
};

/*
 * The breakdown of m, given the read processes' Pss_Anon sum (process_anon)
 * and the RssAnon of the processes memz may not read (unread_anon, an upper
 * bound of their Pss_Anon). With AnonPages, kernel_residual is meminfo's
 * alone and the processes' figures, of different ages, only split
 * AnonPages: hidden_anon is what the read processes leave of it, at most
 * unread_anon (so as root, nothing unread, it is 0 whatever their ages),
 * process_anon the rest. pcp_free is m's, taken from what the other parts
 * leave, before the residual. The kernel's counters are read at slightly
 * different moments, so the parts may overshoot MemTotal: then pcp_free
 * and the anonymous parts give way, and if meminfo alone overshoots, free.
 */
void memz_breakdown_compute(const struct memz_meminfo *m, uint64_t process_anon,
			    uint64_t unread_anon, struct memz_breakdown *out);

#endif
