/*
 * pagemap.h - counting a big process's resident and exclusively mapped
 * pages from /proc/PID/maps and /proc/PID/pagemap, in steps that never
 * hold its mmap lock for long.
 *
 * smaps_rollup makes the kernel hold the process's mmap lock for the whole
 * page-table walk (139-219 ms for 8 GiB, issue 16), so memz never reads it
 * above ExactMaxRss. pagemap takes the lock per 2 MiB of address space, and
 * maps per read() of its seq_file, so a walk in steps of a bounded number
 * of entries stalls the process no longer than one of those. Each entry is
 * a u64: bit 63 present, 62 swapped, 61 file page or shared anonymous, 56
 * exclusively mapped (mapcount 1, since Linux 4.2). The PFN bits are zero
 * without CAP_SYS_ADMIN and are not used.
 *
 * A walk keeps both files open between steps: an open pagemap refers to the
 * mm it was opened on, so a pid reused meanwhile cannot be mistaken for the
 * process, and maps' seq_file resumes where the last read stopped. A step
 * reads maps a buffer at a time, and for each mapping the pagemap entries
 * of its range in reads of at most MEMZ_PAGEMAP_CHUNK entries, until its
 * allowance is spent; the next step resumes at the same address.
 *
 * The kernel takes the lock for every 2 MiB of a pagemap read, back to back,
 * and a reader may take an rwsem again while a writer waits (until the
 * writer has waited a jiffy or more and asks for a handoff): a step of 256
 * MiB kept an 8 GiB process's mmap waiting 5 to 7.5 ms behind reads each
 * 0.05 ms long (issue 26; longer on a kernel of HZ 100). So with gap_ns set
 * a step pauses that long between two pagemap reads, and a waiting mmap,
 * munmap or page fault gets the lock then: it waits one read at most.
 * Mappings with no access at all ("---p": guard pages, reserved address
 * space of JVMs, Go, sanitizers) are skipped: they may span terabytes and
 * can hold almost nothing resident.
 *
 * Why that gives PSS within a bound: smaps counts a resident page whole in
 * PSS when it is mapped once, and PAGE_SIZE / mapcount when it is mapped
 * mapcount >= 2 times, so with USS the exclusive pages and S the others,
 * USS <= PSS <= USS + S / 2. memz_pagemap_estimate() reports the middle of
 * that range and half its width as the error.
 *
 * No allocation (the walk's buffers are in the struct), no globals. Every
 * function returns 0 or -errno; a malformed maps line is -EINVAL with the
 * reason in w->why; a process that exited is -ESRCH (or -ENOENT).
 */
#ifndef MEMZ_PAGEMAP_H
#define MEMZ_PAGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMZ_PAGEMAP_PRESENT (UINT64_C(1) << 63)
#define MEMZ_PAGEMAP_SWAPPED (UINT64_C(1) << 62)
#define MEMZ_PAGEMAP_FILE (UINT64_C(1) << 61)
#define MEMZ_PAGEMAP_EXCLUSIVE (UINT64_C(1) << 56)

/* Entries per pagemap read(): 32 KiB, 16 MiB of address space, about
 * 0.2 ms of the kernel's walk at 4 KiB pages. */
#define MEMZ_PAGEMAP_CHUNK 4096
/* What each read() costs of a step's allowance, however few entries it
 * returned, so a process of many small mappings is also walked in bounded
 * steps: one page table's worth. */
#define MEMZ_PAGEMAP_CALL_COST 512

/* In pages. */
struct memz_pagemap_counts {
	uint64_t present;   /* resident: bit 63 */
	uint64_t exclusive; /* resident and mapped once: 63 and 56 */
	uint64_t file;      /* resident file or shared anonymous: 63 and 61 */
	uint64_t swapped;   /* bit 62 */
};

struct memz_pagemap_walk {
	int maps_fd, pagemap_fd; /* the caller's; -1 when no walk is open */
	uint64_t page_size;
	uint64_t next;    /* the address the walk resumes at */
	uint64_t map_end; /* end of the mapping being read; 0 between them */
	struct memz_pagemap_counts c;
	uint64_t entries; /* read so far, resident or not */
	bool skip_line;   /* the rest of a maps line longer than lines[] */
	bool maps_eof;
	const char *why;  /* what was malformed, after -EINVAL */
	long gap_ns;      /* pause between two pagemap reads of a step; 0 by
			   * memz_pagemap_begin(), the caller sets it */
	unsigned pauses;  /* made so far */
	size_t pos, have; /* lines[pos..have) is read but not parsed yet */
	char lines[4096];
	uint64_t ent[MEMZ_PAGEMAP_CHUNK];
};

/* Start a walk over two open files: PID/maps (read from where it stands,
 * normally its start) and PID/pagemap (read with pread). The caller owns
 * and closes the fds. page_size: the kernel's page size. */
void memz_pagemap_begin(struct memz_pagemap_walk *w, int maps_fd,
			int pagemap_fd, uint64_t page_size);

/* Read at most about `allowance` entries (each read() counting at least
 * MEMZ_PAGEMAP_CALL_COST) into w->c. 1 when the walk is complete (w->c is
 * final and the process still existed at its end), 0 when more remains,
 * -errno. */
int memz_pagemap_step(struct memz_pagemap_walk *w, uint64_t allowance);

/* One cycle's PSS of a process walked whole: resident from status now, and
 * `shared` the bytes of its resident pages the last walk did not see mapped
 * exclusively (memz_pagemap_shared). Pages it gained since count as
 * exclusive: a leak's fresh anonymous pages are. */
struct memz_pss_estimate {
	uint64_t pss, uss;
	uint64_t error; /* |PSS - pss| <= error, as of the walk */
};
void memz_pagemap_estimate(uint64_t rss, uint64_t shared,
			   struct memz_pss_estimate *out);

/* The shared bytes a completed walk leaves: resident pages not mapped
 * exclusively. Both figures it has over-count: present pages may include
 * the shared zero page, which smaps and status do not count as resident, and
 * status's resident at the walk's end (rss_end) includes what the process
 * gained in ranges the walk had passed. The lesser of present - exclusive
 * and rss_end - exclusive is taken, which holds whether or not the kernel
 * maps the zero page on a read fault. */
uint64_t memz_pagemap_shared(const struct memz_pagemap_counts *c,
			     uint64_t page_size, uint64_t rss_end);

#endif
