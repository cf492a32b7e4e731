/*
 * fnviews.h - memz's tables for netdata's functions: what each holds, from
 * the snapshot through the core's accessors (report.h's series, the OOM
 * view, the leak findings), written with ndtable.h. Which call gets which
 * table, and its parameters' checking, is functions.c's.
 */
#ifndef MEMZ_ND_FNVIEWS_H
#define MEMZ_ND_FNVIEWS_H

#include <stdbool.h>
#include <yajl/yajl_gen.h>

#include "functions.h"

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
int memz_nd_view_inspect(yajl_gen g, const struct memz_nd_fctx *ctx,
			 const struct memz_nd_args *a);
int memz_nd_view_oom(yajl_gen g, const struct memz_nd_fctx *ctx,
		     const struct memz_nd_args *a);

#endif
