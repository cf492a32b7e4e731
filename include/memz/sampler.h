/*
 * sampler.h - one cycle of the live system into a snapshot.
 *
 * Ownership
 * ---------
 * The sampler owns everything: the process table with its entries, groups,
 * interned names and events, the kept file descriptors, the system files,
 * and the arrays a snapshot's view points into (they grow to their
 * high-water mark and are reused, so steady-state cycles allocate
 * nothing). A struct memz_snapshot is the caller's, usually on its stack,
 * and owns no memory of its own: it holds figures by value and borrows the
 * rest. So
 *
 *   - memz_snapshot_init() makes it empty; memz_sampler_run() fills it;
 *   - everything it points at (processes, groups, names, events) stays
 *     valid until the next memz_sampler_run() on the same sampler, or
 *     memz_sampler_free(); keep a name past that and you must copy it;
 *   - memz_snapshot_release() only forgets what it borrowed (it frees
 *     nothing and may be skipped); the snapshot may be run again after it;
 *   - a snapshot may be copied by value; the copy borrows the same arrays,
 *     for the same time;
 *   - one snapshot goes with one sampler: running it through a second
 *     sampler makes it borrow from that one instead.
 *
 * Cost
 * ----
 * Every cycle reads statm of every process through a kept fd (the
 * cheap probe), but one whose statm has not moved for a while only every
 * other or every fourth cycle while every task that exited since the last
 * cycle is accounted for. /proc is listed once in 16 cycles, or when more
 * than 128 pids were handed out since the last cycle; otherwise each of
 * those pids is looked up by name (pidwatch.h). So fork churn of
 * short-lived processes, which start and exit between two cycles, costs a
 * failed lookup each and wakes no one; the exit of a process the table
 * holds has every process probed on that cycle (one that exits while
 * young, probed every cycle anyway, is explained by its own probe).
 * smaps_rollup (the kernel walks page tables, ~12 ms per GiB resident) is
 * read only when the probe saw a change, when the last exact read is
 * PssRefreshCycles cycles old, or when it is PssMaxAge old, within a
 * CpuBudget of CPU time (budget.h). Between exact reads a process's figures
 * move with what statm says changed.
 */
#ifndef MEMZ_SAMPLER_H
#define MEMZ_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "memz/alloc.h"
#include "memz/breakdown.h"
#include "memz/leakparts.h"
#include "memz/oom.h"
#include "memz/pace.h"
#include "memz/settings.h"
#include "memz/sysinfo.h"
#include "memz/table.h"

struct memz_cycle_stats {
	unsigned seen;          /* processes with a sample this cycle */
	unsigned new_procs;
	unsigned vanished;
	unsigned denied;        /* smaps_rollup unreadable (EACCES) */
	unsigned kernel_threads;
	unsigned files_read;    /* reads of /proc and /sys files */
	unsigned files_opened;
	unsigned rollup_reads;  /* exact reads this cycle */
	unsigned estimated;     /* status read instead: above ExactMaxRss */
	unsigned pagemap_steps; /* steps of pagemap walks (above ExactMaxRss) */
	unsigned pagemap_walks; /* walks that completed */
	/* walks given up: past 4 x resident + 1 GiB of address space */
	unsigned pagemap_given_up;
	/* "PID/maps: why" when a walk was refused as malformed this cycle,
	 * else NULL; valid until the next run */
	const char *pagemap_refused;
	unsigned rollup_skipped; /* processes whose exact read was not needed */
	unsigned rollup_deferred; /* needed, but put off by the CPU budget */
	unsigned open_fds;      /* kept across cycles */
	unsigned fd_budget;     /* most it may keep: MaxOpenFiles within the fd limit */
	double rollup_cpu_s;    /* CPU time the exact reads cost this cycle */
	bool listed;            /* /proc was listed (else the table was walked) */
	bool rested;            /* quiet processes were let rest (a walk that
				 * accounted for every task that exited) */
	unsigned span_lookups;  /* new pids looked up by name, not listed */
	double budget_left_s;   /* CPU time the budget still holds */
	/* Short of file descriptors: files that could not be opened this
	 * cycle (EMFILE, ENFILE), and whether the sampler has given up its
	 * kept optional fds to read with open/read/close instead. */
	unsigned fd_short;
	bool fd_degraded;
	/* The file a failed cycle is about (meminfo unreadable), else the
	 * first file that fd_short counts; NULL when neither. Valid until the
	 * next run. */
	const char *failed_path;
};

struct memz_snapshot {
	double t;
	struct memz_meminfo mem;
	struct memz_psi psi;
	struct memz_numa numa;
	struct memz_vmstat vm;
	struct memz_breakdown br;
	struct memz_table_view view; /* processes, groups, events, suspects */
	/* what suspects' leaks are made of, found this cycle (leakparts.h) */
	const struct memz_leakpart *leak_parts;
	size_t n_leak_parts;
	struct memz_cycle_stats stats;
	struct memz_oom_view oom; /* time to OOM per scope, the last OOM kills */
	enum memz_pace_mode pace;
	unsigned interval_ms;  /* what the pace policy asks for next */
	bool rollup_fallback;  /* no smaps_rollup: smaps was summed */
	bool pss_anon_fallback; /* no Pss_Anon: Anonymous was used */
};

void memz_snapshot_init(struct memz_snapshot *s);
void memz_snapshot_release(struct memz_snapshot *s);

struct memz_sampler;

/* Copies the settings. Opens the system files. -errno on failure. */
int memz_sampler_new(struct memz_sampler **out, const struct memz_settings *s,
		     const struct memz_allocator *a);
/* memz_sampler_new, and on failure the path of the file or directory it is
 * about in failed[failed_len] ("" when it is about none, e.g. ENOMEM). */
int memz_sampler_open(struct memz_sampler **out, const struct memz_settings *s,
		      const struct memz_allocator *a, char *failed,
		      size_t failed_len);
void memz_sampler_free(struct memz_sampler **s);

/*
 * Run one cycle at time now (seconds, CLOCK_MONOTONIC or any monotonic
 * scale). Returns 0, or -errno when a system file failed (meminfo
 * malformed); a vanished process is never an error.
 */
int memz_sampler_run(struct memz_sampler *s, double now,
		     struct memz_snapshot *snap);

const struct memz_settings *memz_sampler_settings(const struct memz_sampler *s);
const struct memz_allocator *memz_sampler_allocator(const struct memz_sampler *s);

/* Seconds on CLOCK_MONOTONIC, for callers that drive the sampler live. */
double memz_now(void);

#endif
