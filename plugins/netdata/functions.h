/*
 * functions.h - netdata functions of memz.plugin, and the stdin reader that
 * delivers their calls.
 *
 * netdata writes calls on the plugin's stdin, in either form:
 *
 *   FUNCTION <tx> <timeout> "<name params>"                       (1.37)
 *   FUNCTION <tx> <timeout> "<name params>" "0x<access>" "<source>" (2.x)
 *
 * and each gets one FUNCTION_RESULT_BEGIN .. FUNCTION_RESULT_END reply on
 * stdout with a JSON body built by yajl (one line, so no body line can look
 * like FUNCTION_RESULT_END), in netdata 2.x's table format, which 1.37.1's
 * Cloud and streaming parents pass through as JSON:
 *
 *   memz-top               process groups by PSS, with their cgroup's
 *                          usage and limit, its time to OOM and what a
 *                          suspect's leak is made of; a leak row is
 *                          highlighted
 *   memz-top processes     processes by PSS (at most MEMZ_ND_PROCS_MAX),
 *                          each with its group and whether its PSS is an
 *                          estimate; `view:processes` (the select the
 *                          header offers 2.x's UI) is the same, and
 *                          `group:NAME` keeps one group's processes
 *   memz-inspect pid:N     one process's memory by mapping kind, with the
 *                          totals (`memz-inspect N` works too; without a pid
 *                          the largest published process)
 *   memz-oom               time to OOM per scope (the machine, each watched
 *                          cgroup) with its confidence and drivers, and the
 *                          last OOM kills with their victims
 *   <any> info             the table's header only, with memz-top's view
 *                          select or memz-inspect's required pid parameter
 *                          (a select of the published groups' processes,
 *                          largest first)
 *   anything else          404
 *
 * Parameters are `id:value` words. The ones netdata's UIs add on their own
 * (after:, before:, last:, timeout: and the other query words of 2.x's
 * table functions) are ignored; any other word a function does not take,
 * and a malformed value of one it takes, is answered 400 with the reason. FUNCTION_CANCEL <tx> answers a
 * queued call 499; a FUNCTION_PAYLOAD call (2.x's POST) is answered as the
 * same FUNCTION call without a body, and its body is skipped unread up to
 * its FUNCTION_PAYLOAD_END line; QUIT ends the plugin.
 *
 * Function callers are remote users of the agent and collection must never
 * wait on them: the reader takes at most MEMZ_ND_READ_BUDGET bytes a call,
 * queues calls (MEMZ_ND_QUEUE of them) and answers 503 at once when the
 * queue is full; memz_nd_serve() answers queued calls within a time and an
 * output budget, so the main loop interleaves them with its cycles. A call
 * whose timeout passed while queued is dropped: netdata stopped waiting.
 * A transaction id is echoed verbatim; one that cannot be (longer than
 * MEMZ_ND_TX_MAX, or with bytes netdata's parser would split on) is not
 * answered and is counted, since no reply could reach its caller.
 */
#ifndef MEMZ_ND_FUNCTIONS_H
#define MEMZ_ND_FUNCTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "memz/sampler.h"

#define MEMZ_ND_LINE_MAX 4096
#define MEMZ_ND_TX_MAX 256
#define MEMZ_ND_QUEUE 64
#define MEMZ_ND_READ_BUDGET (256 * 1024)

struct memz_nd_call {
	char tx[MEMZ_ND_TX_MAX];
	char fn[MEMZ_ND_LINE_MAX]; /* name and parameters */
	double deadline;           /* memz_now() seconds */
};

struct memz_nd_input {
	char buf[MEMZ_ND_LINE_MAX];
	size_t len;
	bool discarding; /* inside a line that did not fit */
	bool in_payload; /* skipping a FUNCTION_PAYLOAD body */
	bool eof;
	bool quit;       /* netdata said QUIT */
	struct memz_nd_call *q; /* ring of MEMZ_ND_QUEUE */
	size_t head, count;
	unsigned long busy;       /* answered 503: queue full */
	unsigned long bad_tx;     /* not answerable: tx id unusable */
	unsigned long expired;    /* dropped: timeout passed in the queue */
	unsigned long cancelled;
};

#define MEMZ_ND_PROCS_MAX 500 /* rows of memz-top processes, largest PSS */
/* What a function call may look at: the latest snapshot (NULL until the
 * first sample) and where /proc is, for memz-inspect's full smaps read,
 * with the capabilities raised for that read alone (memz/privilege.h);
 * the leak findings kept, as memz_leakparts_keep() keeps them after each
 * sample (NULL: none). */
struct memz_nd_fctx {
	const struct memz_snapshot *snap;
	const char *proc_root;
	int update_every;
	uint64_t held;
	const struct memz_leakparts_kept *parts;
	/* ExactMaxRss: memz-inspect reads no smaps of a process resident
	 * above it (0: no bound) */
	double exact_max_rss;
	/* memz-inspect's CpuBudget (its own, at the sampler's rate): smaps
	 * is read only when it has room for the read's estimated cost, and
	 * what it took is charged (NULL: unbounded) */
	struct memz_budget *budget;
};

/* Allocates the queue once. 0 or -ENOMEM. */
int memz_nd_input_init(struct memz_nd_input *in);
void memz_nd_input_release(struct memz_nd_input *in);

/* Answer one call now: fn is "<name params>", tx the transaction id.
 * Returns 0, or -EIO when out failed. */
int memz_nd_answer(FILE *out, const char *tx, const char *fn,
		   const struct memz_nd_fctx *ctx);

/* Act on one line from netdata (NUL-ended, no newline; it is modified):
 * queue a call, skip a payload's body, answer a cancel or overflow, note
 * QUIT. What memz_nd_input_read() does with each complete line. 0 or
 * -EIO. */
int memz_nd_input_line(struct memz_nd_input *in, FILE *out, char *line,
		       const struct memz_nd_fctx *ctx, double now);

/*
 * Read what fd (non-blocking) has now, up to MEMZ_ND_READ_BUDGET bytes, and
 * act on every complete line: queue calls, answer cancels and overflow.
 * now is memz_now(). Returns 0 (sets in->eof at end of input, in->quit on
 * QUIT), or -EIO when out failed.
 */
int memz_nd_input_read(struct memz_nd_input *in, int fd, FILE *out,
		       const struct memz_nd_fctx *ctx, double now);

/* Answer queued calls, oldest first, until the queue is empty or one of
 * the budgets (seconds of memz_now(), bytes written) is spent; at least one
 * call is answered. Returns 0 or -EIO. */
int memz_nd_serve(struct memz_nd_input *in, FILE *out,
		  const struct memz_nd_fctx *ctx, double now,
		  double time_budget, size_t byte_budget);

static inline bool memz_nd_pending(const struct memz_nd_input *in)
{
	return in->count > 0;
}

#endif
