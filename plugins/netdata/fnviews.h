/*
 * fnviews.h - memz's tables for netdata's functions: what each holds, from
 * the snapshot through the core's accessors (report.h's series, the OOM
 * view, the leak findings), written with ndtable.h. Which call gets which
 * table, and its parameters' checking, is functions.c's. memz-top's and
 * memz-oom's tables are here, memz-inspect's in fninspect.h, which this
 * header includes so that functions.c finds every view in one place.
 */
#ifndef MEMZ_ND_FNVIEWS_H
#define MEMZ_ND_FNVIEWS_H

#include <stdbool.h>
#include <yajl/yajl_gen.h>

#include "functions.h"
#include "fninspect.h"

/* A call's parameters, checked. */
struct memz_nd_args {
	bool info;        /* the header only */
	bool processes;   /* memz-top: processes, not groups */
	const char *group; /* memz-top processes: this group's only, or NULL */
	bool has_pid;
	int pid;
};

/* Each writes a whole body and returns its status: 200, or 404 (what was
 * asked for is not there) with an error body. ctx->snap may be NULL only
 * with args->info. */
int memz_nd_view_top(yajl_gen g, const struct memz_nd_fctx *ctx,
		     const struct memz_nd_args *a);
int memz_nd_view_oom(yajl_gen g, const struct memz_nd_fctx *ctx,
		     const struct memz_nd_args *a);

/* What the views share. */

/* A function's one required parameter, a select: its options follow,
 * one map each, then memz_nd_select_close(). */
void memz_nd_select_open(yajl_gen g, const char *id, const char *name,
			 const char *help);
void memz_nd_select_close(yajl_gen g);

/* s's processes that pass keep(), largest PSS first, at most max of them;
 * *n how many. NULL with *n = 0 when there are none or memory ran out;
 * the caller frees what is returned. */
const struct memz_proc **
memz_nd_sorted_procs(const struct memz_snapshot *s, size_t max,
		     bool (*keep)(const struct memz_proc *, const char *),
		     const char *arg, size_t *n);

#endif
