/*
 * fninspect.h - memz-inspect's table for netdata's functions: one process's
 * memory by mapping kind (smapscat.h's taxonomy, the CLI's inspect's), read
 * from its smaps on request only, since smaps is costly.
 *
 * The process is one the sampler found (a published group's, unless asked
 * by pid): the read stays in ProcRoot/PID/ and checks the process's start
 * time, so a pid handed to another process since is not read as it. The
 * capabilities ctx->held are in effect for that read alone, and the read
 * is paid from ctx->budget (CpuBudget): one the bucket cannot afford now
 * is not made, and the answer says so. A process resident above
 * ExactMaxRss is not walked, and the answer says why.
 *
 * Its parameter is the pid, offered as a select of the published groups'
 * processes, largest PSS first (at most 200).
 */
#ifndef MEMZ_ND_FNINSPECT_H
#define MEMZ_ND_FNINSPECT_H

#include <yajl/yajl_gen.h>

struct memz_nd_fctx; /* functions.h */
struct memz_nd_args; /* fnviews.h */

/* Writes a whole body and returns its status, as fnviews.h's views do:
 * 200, or 404 (no such process, or none to inspect yet) with an error
 * body. ctx->snap may be NULL only with args->info. */
int memz_nd_view_inspect(yajl_gen g, const struct memz_nd_fctx *ctx,
			 const struct memz_nd_args *a);

#endif
