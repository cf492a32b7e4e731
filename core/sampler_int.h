/*
 * sampler_int.h - the sampler's state, private to core/. sampler.c runs the
 * cycle (the system files, the probes, the table) and calls exact.c, which
 * does the exact reads the budget admits and moves the figures between
 * them; both read ProcRoot through pidfiles.h.
 */
#ifndef MEMZ_SAMPLER_INT_H
#define MEMZ_SAMPLER_INT_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memz/budget.h"
#include "memz/cgroup.h"
#include "memz/oom.h"
#include "memz/pagemap.h"
#include "memz/pidfiles.h"
#include "memz/pidwatch.h"
#include "memz/sampler.h"
#include "table_int.h"

struct memz_sampler {
	struct memz_settings s;
	const struct memz_allocator *a;
	struct memz_table *table;
	struct memz_cgroups *cgroups; /* GroupBy cgroup only */
	struct memz_leakparts *leakparts;
	struct memz_sysfiles sys;
	struct memz_pace pace;
	struct memz_pidwatch pids;
	struct memz_pidfiles files; /* ProcRoot, kept fds, what was read */
	DIR *dir;
	uint64_t page_size;
	unsigned cycle;
	bool may_rest; /* this cycle: quiet processes may go unprobed */
	bool restless; /* the OOM watch wants every exit this cycle */
	bool span_pid; /* the pid being visited was handed out this cycle */
	bool no_rollup; /* the kernel has no smaps_rollup: sum smaps */

	struct memz_budget budget; /* CPU time for the exact reads */
	double now;                /* this cycle's */
	/* ProcRoot/uptime, read at most once a cycle (the first process
	 * new that cycle asks): the boot clock start times are counted on;
	 * NAN when unreadable */
	double uptime;
	unsigned uptime_cycle;
	long clk_tck;

	struct memz_budget_cand *cand;
	size_t cap_cand;
	char failed[PATH_MAX + 128]; /* what stats.failed_path points at */
	struct memz_cycle_stats *st; /* this cycle's, in the snapshot */

	struct memz_oom oom; /* time to OOM, and the OOM kills named */

	/* The one pagemap walk in progress (exact.c), over fds kept in
	 * files, of the process with this pid and start time (no pointer to
	 * it is kept: it may be gone). */
	bool walking;
	int walk_pid;
	unsigned long long walk_start;
	char walk_why[96]; /* what stats.pagemap_refused points at */
	/* allocated at the first walk: 68 KiB no machine without a big
	 * process needs */
	struct memz_pagemap_walk *walk;
};

/* exact.c */

/* statm moved since the last exact read. */
bool mz_statm_changed(const struct memz_proc *p);
/* What an exact read of p will cost, in CPU seconds (an estimate from
 * status above ExactMaxRss costs next to nothing). */
double mz_est_cost(const struct memz_sampler *s, const struct memz_proc *p);
/* Let the budget pick among s->cand[0..n) and do the reads it admits. */
void mz_schedule_exact(struct memz_sampler *s, size_t n);
/* Move p's figures by what statm says changed since its exact read. */
void mz_estimate(struct memz_proc *p, double now, uint64_t page_size);
/* The fds a pagemap walk keeps (maps, pagemap): the last of the fd budget,
 * which statm's kept fds leave to it, so that a machine with more
 * processes than MaxOpenFiles still walks its big ones. */
#define MZ_WALK_FDS 2
/* End the walk, if one is open, and free its buffers. */
void mz_walk_free(struct memz_sampler *s);

#endif
