/*
 * functions.h - netdata functions of memz.plugin, and the stdin reader that
 * delivers their calls.
 *
 * netdata writes `FUNCTION <uuid> <timeout> "<name args>"` lines on the
 * plugin's stdin; each gets one FUNCTION_RESULT_BEGIN .. FUNCTION_RESULT_END
 * reply on stdout with a JSON body built by yajl (one line, so no body line
 * can look like FUNCTION_RESULT_END):
 *
 *   memz-top          every group by PSS, netdata's table format
 *   memz-inspect PID  one process's figures and verdict
 *   anything else     status 404
 *
 * The reader never blocks: it takes what read() has, keeps an incomplete
 * line for later, and drops lines longer than its buffer whole.
 */
#ifndef MEMZ_ND_FUNCTIONS_H
#define MEMZ_ND_FUNCTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "memz/sampler.h"

#define MEMZ_ND_LINE_MAX 4096

struct memz_nd_input {
	char buf[MEMZ_ND_LINE_MAX];
	size_t len;
	bool discarding; /* inside a line that did not fit */
	bool eof;
};

/* What a function call may look at: the latest snapshot (NULL until the
 * first sample) and where /proc is, for memz-inspect's full smaps read,
 * with the capabilities raised for that read alone (memz/privilege.h). */
struct memz_nd_fctx {
	const struct memz_snapshot *snap;
	const char *proc_root;
	int update_every;
	uint64_t held;
};

/* Answer one line from netdata. Returns 0, or -EIO when out failed. Lines
 * that are not FUNCTION calls are ignored. */
int memz_nd_function_line(FILE *out, const char *line,
			  const struct memz_nd_fctx *ctx);

/*
 * Read what fd (non-blocking) has now and answer every complete line.
 * Returns 0 (sets in->eof at end of input), or -EIO when out failed.
 */
int memz_nd_input_read(struct memz_nd_input *in, int fd, FILE *out,
		       const struct memz_nd_fctx *ctx);

#endif
