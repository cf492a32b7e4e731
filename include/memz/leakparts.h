/*
 * leakparts.h - what a leak is made of: a suspect's smaps read twice,
 * LeakPartsDelay seconds apart, and compared by mapping category
 * (smapscat.h), e.g. "heap +12.0 MiB, other anonymous +3.5 MiB, thread
 * stacks +0 B".
 *
 * A growth rate says that a process leaks; which of heap, thread stacks or
 * anonymous mmaps grew says where to look. The first read is taken in the
 * cycle a verdict starts: of the process, or for a group of its largest
 * member (by PSS). The second goes LeakPartsDelay later, if the same
 * process (pid and start time) is still there; the finding comes out in
 * that cycle, once.
 *
 * Cost: reading full smaps makes the kernel walk the process's page tables
 * with its memory lock held (about 12 ms per GiB resident), stalling a big
 * process's page faults meanwhile. So a process whose RSS is above
 * LeakPartsMaxRss is never read (counted in too_big; 0 turns the feature
 * off), at most MEMZ_LEAKPARTS_SLOTS reads are pending at once (further
 * suspects wait for a later verdict), and nothing is read between events:
 * two reads per verdict, none per cycle. With a budget (set_budget: the
 * sampler's CpuBudget), each read is one of its optional reads: it waits,
 * a cycle at a time, until the budget's room holds its estimated cost
 * (12 ms per GiB resident, as for an exact read; at most the bucket's
 * capacity), and its measured CPU time is charged. A first read that
 * waits is taken when it fits, the second LeakPartsDelay after that.
 */
#ifndef MEMZ_LEAKPARTS_H
#define MEMZ_LEAKPARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "memz/alloc.h"
#include "memz/budget.h"
#include "memz/smapscat.h"
#include "memz/table.h"

#define MEMZ_LEAKPARTS_SLOTS 4
#define MEMZ_LEAKPARTS_NAME_MAX 64

struct memz_leakpart {
	char name[MEMZ_LEAKPARTS_NAME_MAX]; /* the verdict's, raw bytes, cut */
	bool is_group;
	int pid; /* the process read */
	unsigned long long start;
	double over_s; /* between the two reads */
	struct memz_catdiff d[MEMZ_CAT_COUNT];
	size_t n;
	char text[256]; /* memz_smapscat_diff_format() of d */
};

struct memz_leakparts_stats {
	unsigned long reads;   /* smaps reads made */
	unsigned long too_big; /* suspects above max_rss, not read */
	unsigned long busy;    /* suspects with every slot taken */
	unsigned long deferred; /* reads put off a cycle for the budget */
	double spent_s;         /* CPU seconds the reads took */
};

struct memz_leakparts;

/* proc_root is copied. delay in s; max_rss in bytes (0: never read). */
int memz_leakparts_new(struct memz_leakparts **out, const char *proc_root,
		       double delay, double max_rss,
		       const struct memz_allocator *a);
void memz_leakparts_free(struct memz_leakparts **lp);

/* Charge the reads to b (kept, not owned; NULL: uncharged). */
void memz_leakparts_set_budget(struct memz_leakparts *lp,
			       struct memz_budget *b);

/*
 * One cycle at now, after the table's: start a read for each of v's leak
 * events, finish those due. *done gets this cycle's findings (valid until
 * the next call). A read that fails (the process gone or changed, out of
 * memory) gives no finding; returns 0.
 */
int memz_leakparts_cycle(struct memz_leakparts *lp,
			 const struct memz_table_view *v, double now,
			 const struct memz_leakpart **done, size_t *n_done);

const struct memz_leakparts_stats *
memz_leakparts_stats(const struct memz_leakparts *lp);

/*
 * ---- findings kept: what a table asked for later still shows ----
 *
 * memz_leakparts_cycle() gives a finding once, in the cycle of its second
 * read; a host that shows findings on request (netdata's memz-top and
 * memz-inspect) must still show it later. The rule of how long, in one
 * place: a finding is kept by the process that was read (pid and start),
 * for as long as that process lives and the verdict it was found for
 * stands (the group's for a group's finding, the process's own
 * otherwise). The same process found again replaces its entry; beyond
 * MEMZ_LEAKPARTS_KEPT findings, a new one replaces the oldest.
 *
 * The struct is the caller's, fixed-size, zeroed to start (memset), and
 * allocates nothing. Its texts are memz_smapscat_diff_format()'s, and
 * findings are told apart by the process, never by a name.
 */
#define MEMZ_LEAKPARTS_KEPT 32

struct memz_leakpart_kept {
	bool used, is_group;
	int pid;
	unsigned long long start;
	char text[256]; /* the finding's memz_smapscat_diff_format() */
};

struct memz_leakparts_kept {
	struct memz_leakpart_kept p[MEMZ_LEAKPARTS_KEPT];
	unsigned next; /* the oldest, replaced when all are used */
};

/* After each cycle, with its view v and its findings (done, n_done):
 * forgets what no longer stands, keeps the new findings. */
void memz_leakparts_keep(struct memz_leakparts_kept *k,
			 const struct memz_table_view *v,
			 const struct memz_leakpart *done, size_t n_done);

/* Which of v's processes each kept finding was read from, in one pass:
 * found[i] for k->p[i], NULL when unused or gone (k NULL or v NULL: all
 * NULL). */
void memz_leakparts_kept_procs(const struct memz_leakparts_kept *k,
			       const struct memz_table_view *v,
			       const struct memz_proc *found[MEMZ_LEAKPARTS_KEPT]);

/* The finding shown for a group: its own, else one of a member's; for a
 * process: the one read from it. NULL when none (k NULL: none). found is
 * memz_leakparts_kept_procs()'s. */
const char *memz_leakparts_kept_group(const struct memz_leakparts_kept *k,
				      const struct memz_proc *const *found,
				      const struct memz_group *g);
const char *memz_leakparts_kept_proc(const struct memz_leakparts_kept *k,
				     const struct memz_proc *const *found,
				     const struct memz_proc *p);

#endif
