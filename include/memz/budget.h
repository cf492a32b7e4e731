/*
 * budget.h - which exact (smaps_rollup) reads a cycle may afford.
 *
 * An exact read makes the kernel walk the process's page tables (~12 ms per
 * GiB resident), so the sampler spends at most CpuBudget percent of one core
 * on them, averaged over a minute. Two limits do that together:
 *  - a token bucket paces the reads: it fills at the budget's rate and holds
 *    MEMZ_BUDGET_BURST seconds of it, so after a quiet spell the reads may
 *    catch up a little, but no more;
 *  - a window keeps what the reads cost in each second of the last minute,
 *    and admits an optional read only while that minute, with it, stays
 *    within a minute of budget. The bucket alone would let a minute that
 *    starts full spend its burst on top of the minute's budget; the window
 *    alone would let the reads come in bursts a minute apart.
 *
 * The decision is kept apart from /proc so it can be tested with fake costs
 * and no huge processes: the sampler fills one candidate record per process,
 * and memz_budget_schedule() orders them and calls back for each read it
 * admits, charging the cost the callback reports.
 *
 * Rules, in this order:
 *  - MUST (never read, or last read PssMaxAge old) is always read, whatever
 *    the bucket and the window hold: PssMaxAge bounds every process's age.
 *    The bucket may go into debt and the window over its minute; optional
 *    reads resume once the debt is paid and the excess has left the window.
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
 *    read about k times less often when the budget is tight. Among equal
 *    costs that is round robin, so no process starves behind others of its
 *    size.
 *  - An optional read happens only when the bucket and the window both have
 *    room for its whole estimated cost. The first one that does not fit
 *    stops the optional reads of the cycle, so the room that frees up goes
 *    to it instead of to cheaper ones behind it. A read costing more than
 *    the bucket can ever hold never blocks: it waits for PssMaxAge.
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
/* Seconds of budget the bucket holds: at 1%, 200 ms, a read of a process
 * of 16 GiB. Larger ones are read at PssMaxAge only. */
#define MEMZ_BUDGET_BURST 20.0
/* The window: the current second and the 60 before it, so that any 60 s
 * of real time, which overlaps at most 61 whole seconds, stays within a
 * minute of budget. */
#define MEMZ_BUDGET_SLOTS 61

struct memz_budget {
	double rate;     /* CPU seconds per second: CpuBudget / 100 */
	double cap;      /* most the bucket holds: MEMZ_BUDGET_BURST of rate */
	double minute;   /* most the window may spend */
	double tokens;   /* in the bucket; negative = debt */
	double refresh_tokens; /* the refreshes' share of them */
	double window_left;    /* minute minus what the window spent */
	/* CPU seconds spent in each second of the window, by second modulo
	 * MEMZ_BUDGET_SLOTS */
	double spent[MEMZ_BUDGET_SLOTS];
	double last_now;
	long long second; /* the one charges go to */
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

/* Add what the time since the last call earned to the bucket (up to its
 * cap) and move the window to now: the seconds that left it stop
 * counting. The first call only starts the clock; time going backwards is
 * ignored. */
void memz_budget_refill(struct memz_budget *b, double now);

/* Charge a read's measured cost; refresh says it was a refresh, which also
 * draws on the refreshes' share. */
void memz_budget_charge(struct memz_budget *b, double cost, bool refresh);

/* What an optional read may cost now: the lesser of the bucket and the
 * window's room (negative while either is overdrawn). */
double memz_budget_room(const struct memz_budget *b);

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
