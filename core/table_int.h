/*
 * table_int.h - what the table keeps about a process and a group beyond
 * their public records (table.h), for itself, the sampler and the exact
 * reads. Private to core/.
 *
 * Each entry is allocated as one of these, its public record first, so the
 * table hands out &e->pub and gets the entry back with mz_pe() / mz_ge().
 */
#ifndef MEMZ_TABLE_INT_H
#define MEMZ_TABLE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "memz/table.h"

/* statm in pages, only what change detection and the estimate use */
struct memz_statm_pages {
	uint32_t resident, shared, data;
	uint32_t text; /* changes only with an exec (sampler.c, probe_statm) */
};

/* the figures of the last exact read that the estimate moves, in KiB (smaps
 * counts in kB); the others stay in mem as that read left them */
struct memz_exact_base {
	uint32_t rss, pss, pss_anon, anonymous, private_dirty;
};

/* 1000 processes keep these, so they are kept small and ordered to leave
 * no padding. */
#define MZ_FLOOR_WINDOWS 3
struct mz_proc_entry {
	struct memz_proc pub; /* first */
	double first_seen;
	double exact_t;
	double joined_t; /* when it joined its group; -1: founded it */
	double prev_pss;
	double prev_anon; /* Anonymous, as prev_pss */
	double walk_t;    /* when its last pagemap walk completed */
	/* settling (table.c, warming): since when its PSS has held within
	 * SETTLE_ABS or SETTLE_REL of settle_ref (bytes) */
	double settle_t;
	double exec_t; /* when its name last changed (an exec), or -INFINITY */
	/* its floor (table.c, floor_held): floor[0] is the least it owned
	 * (bytes) in the window of LeakSettle begun at floor_t, floor[1..]
	 * in the floor_n windows before it, newest first; floor_t 0: none
	 * begun */
	double floor_t;
	/* vm_size when first known (table.c, owned): shared memory counts as
	 * its own only as far as its address space grew since */
	uint64_t vm_first;
	float settle_ref; /* owned bytes */
	float floor[MZ_FLOOR_WINDOWS];
	struct memz_group *prev_group; /* group last cycle, for membership */
	int statm_fd, rollup_fd;
	struct memz_statm_pages statm_at_exact, statm_last;
	struct memz_exact_base exact;
	float cost_s;    /* CPU seconds of an exact read, smoothed */
	/* KiB of its resident pages that walk did not see mapped
	 * exclusively (pagemap.h), valid with has_walk */
	uint32_t walk_shared;
	unsigned cycles_since_exact;
	unsigned quiet_probes; /* consecutive statm probes that saw no change */
	uint8_t floor_n;
	bool seen;
	bool has_exact;  /* an exact read happened at least once */
	bool has_walk;   /* a pagemap walk of it completed */
	bool no_access;  /* smaps_rollup refused once: not retried */
	bool announced;  /* a leak event went out for it, a clear has not */
	bool rechecked;  /* name and cgroup re-read since it was flagged */
	bool young_seen; /* first seen within YOUNG_S of its fork: its name
			  * and cgroup are read again at its next probe */
	bool settled;    /* its PSS held still for LeakSettle once */
	bool ignored;    /* LeakIgnore, or one of memz's own: never judged */
	bool founds;     /* it founded its group alone while warming: the
			  * group's series is its own (table.c, sum_groups) */
	struct memz_proc *hnext, *lnext;
};

struct mz_group_entry {
	struct memz_group pub; /* first */
	bool seen;
	bool fresh;        /* created this cycle */
	int solo_pid;      /* its only member's, or 0 */
	unsigned long long solo_start;
	double join_delta; /* PSS that joined minus PSS that left this cycle */
	double join_anon;  /* the same for Anonymous */
	double owned; /* the members' owned figures summed (table.c, owned) */
	bool ignored; /* LeakIgnore, or one of memz's own */
	/* its series is its founder's, judged as the founder is: withheld
	 * while it warms, the long horizon restarted when it settles, the
	 * history dropped when it leaves (table.c, sum_groups); this cycle,
	 * whether the founder was among the members, and settled */
	bool founder_mode, founder_seen, founder_settled;
	/* publication (table.c, publish): since when the group has existed,
	 * as old as its oldest member when it came to be; when it was last
	 * published as one of the TopGroups largest */
	double since, top_last;
	bool listed; /* reported before the cap on what is published */
	/* the sampler's scratch for the group's alarm, this cycle: the
	 * verdict it is about and the room it has (alarm.h) */
	const struct memz_verdict *alarm_v;
	uint64_t alarm_room;
	uint32_t hash;
	struct memz_group *hnext, *lnext;
};

#define mz_pe(p)                                                              \
	_Generic((p),                                                         \
		const struct memz_proc *: (const struct mz_proc_entry *)(const void *)(p), \
		struct memz_proc *: (struct mz_proc_entry *)(void *)(p))
#define mz_ge(g)                                                              \
	_Generic((g),                                                         \
		const struct memz_group *: (const struct mz_group_entry *)(const void *)(g), \
		struct memz_group *: (struct mz_group_entry *)(void *)(g))

#endif
