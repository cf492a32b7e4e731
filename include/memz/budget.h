/*
 * budget.h - which exact (smaps_rollup) reads a cycle may afford.
 *
 * An exact read makes the kernel walk the process's page tables (~12 ms per
 * GiB resident), so the sampler spends at most CpuBudget percent of one core
 * on them, averaged over a minute, through a token bucket of CPU seconds.
 * The decision is kept apart from /proc so it can be tested with fake costs
 * and no huge processes: the sampler fills one candidate record per process,
 * and memz_budget_schedule() orders them and calls back for each read it
 * admits, charging the cost the callback reports.
 *
 * Rules, in this order:
 *  - MUST (never read, or last read PssMaxAge old) is always read, whatever
 *    the bucket holds: PssMaxAge bounds every process's age. The bucket may
 *    go into debt; the debt is paid back before optional reads resume.
 *  - STALE (last read MEMZ_BUDGET_STALE_AGE of PssMaxAge ago) before
 *    CHANGED, oldest first: forced reads all land at once when processes
 *    read together (all idle ones started together, or a busy phase kept
 *    the budget on changed ones) reach PssMaxAge together, and that burst
 *    breaks the budget. Read within the budget in the last quarter of
 *    their allowed age instead, they spread out, and only stragglers the
 *    budget could not reach in that quarter are forced.
 *  - CHANGED (statm moved since the last exact read) before REFRESH (due
 *    after PssRefreshCycles); NONE is never read.
 *  - Within CHANGED and REFRESH, the most urgent first: age / cost, so
 *    cheap and old ones go first and a process costing k times more is
 *    read about k times less often when the budget is tight. Among equal costs that is
 *    round robin, so no process starves behind others of its size.
 *  - An optional read happens only when the bucket holds its whole estimated
 *    cost. The first one that does not fit stops the optional reads of the
 *    cycle, so the refill accumulates for it instead of being eaten by
 *    cheaper ones behind it. A read costing more than the bucket can ever
 *    hold (a minute of budget) never blocks: it waits for PssMaxAge.
 *  - REFRESH reads (PSS drifts as sharers come and go, nothing changed)
 *    spend at most MEMZ_BUDGET_REFRESH_SHARE of the budget, so an idle
 *    machine with many processes costs little more than the statm probe,
 *    and the rest stays for processes that change. A refresh that does not
 *    fit its share waits without blocking the others.
 *
 * Pure: no clock, no I/O, no allocation, no globals.
 */
#ifndef MEMZ_BUDGET_H
#define MEMZ_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

enum memz_need {
	MEMZ_NEED_MUST,
	MEMZ_NEED_STALE,
	MEMZ_NEED_CHANGED,
	MEMZ_NEED_REFRESH,
	MEMZ_NEED_NONE,
};

#define MEMZ_BUDGET_REFRESH_SHARE 0.1
/* From this fraction of PssMaxAge on, a process is STALE. */
#define MEMZ_BUDGET_STALE_AGE 0.75

struct memz_budget {
	double rate;     /* CPU seconds per second: CpuBudget / 100 */
	double cap;      /* most the bucket holds: a minute of budget */
	double tokens;   /* CPU seconds available; negative = debt */
	double refresh_tokens; /* the refreshes' share of them */
	double last_now;
	bool started;
};

struct memz_budget_cand {
	void *ref;          /* the caller's record */
	enum memz_need need;
	double cost;        /* estimated CPU seconds of one read */
	double age;         /* seconds since the last exact read */
	int key;            /* tie-break for a stable order (the pid) */
};

/* What one cycle's scheduling did. */
struct memz_budget_result {
	unsigned reads, skipped, deferred;
	double spent; /* CPU seconds charged */
};

void memz_budget_init(struct memz_budget *b, double cpu_budget_percent);

/* Add what the time since the last call earned (capped at a minute's
 * budget). The first call only starts the clock. */
void memz_budget_refill(struct memz_budget *b, double now);

/* Charge a read's measured cost. */
void memz_budget_charge(struct memz_budget *b, double cost);

/* The class of a process: never read or PssMaxAge old is MUST; from
 * MEMZ_BUDGET_STALE_AGE of it on, STALE. */
enum memz_need memz_budget_need(bool has_exact, double age, double max_age,
				bool changed, unsigned cycles_since_exact,
				unsigned refresh_cycles);

/*
 * Consider c[] most urgent first and call read(ctx, &c[i], &cost) for
 * every admitted candidate. c[] is permuted on return, in no promised order.
 * read returns 0 when it read (cost is charged), or -errno when it could not
 * (cost, if set, is charged too: a refused read costs little, but not
 * nothing). Candidates not admitted are counted as skipped (NONE) or
 * deferred (needed, but put off by the budget).
 */
void memz_budget_schedule(struct memz_budget *b, struct memz_budget_cand *c,
			  size_t n,
			  int (*read)(void *ctx, struct memz_budget_cand *c,
				      double *cost),
			  void *ctx, struct memz_budget_result *res);

#endif
