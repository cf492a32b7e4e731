/*
 * emit.h - the netdata external plugin protocol writer.
 *
 * Turns snapshots into CHART/DIMENSION/BEGIN/SET/END lines on a FILE *. It
 * remembers which charts and group dimensions netdata already knows, so a
 * group that appears gets its DIMENSION (after a fresh CHART line) before its
 * first SET, and a group that goes away is declared obsolete once and never
 * SET again. A group that comes back gets its old id back.
 *
 * Which groups are charted, their ids and display names are the core's
 * report (report.h), the same every host publishes: ids are sanitised and
 * unique, display names label-safe inside double quotes, so no name can
 * split a line or inject a keyword. The charts are the report's tables: one
 * dimension per breakdown part on memz.ram, one chart per charted group
 * series.
 */
#ifndef MEMZ_ND_EMIT_H
#define MEMZ_ND_EMIT_H

#include <stdio.h>

#include "memz/report.h"
#include "memz/sampler.h"

#define MEMZ_ND_PLUGIN "memz.plugin"
#define MEMZ_ND_MODULE "memz"
#define MEMZ_ND_PRIORITY 140000

/* Bounded so that a flood of short-lived names cannot grow memory forever:
 * past it, the oldest obsolete dimensions are forgotten (the report's
 * bound). */
#define MEMZ_ND_MAX_KNOWN MEMZ_REPORT_MAX_KNOWN

struct memz_nd_emitter;

/* out is borrowed. update_every is the charts' update interval, s. */
int memz_nd_emitter_new(struct memz_nd_emitter **e, FILE *out,
			int update_every);
void memz_nd_emitter_free(struct memz_nd_emitter **e);

/*
 * Write one update of every chart from s. usec is the time since the
 * previous update (0 on the first, or when unknown: netdata then uses its
 * own clock). Returns 0, -ENOMEM, or -EIO when the stream failed (errno
 * tells why: EPIPE when netdata went away).
 */
int memz_nd_emit(struct memz_nd_emitter *e, const struct memz_snapshot *s,
		 unsigned long long usec);

/* Declare the plugin's functions (FUNCTION GLOBAL lines). */
int memz_nd_emit_functions(FILE *out, int timeout_s);

/* Look up the id the emitter gave a group name (raw bytes, NUL-ended);
 * NULL if the group was never charted. For tests and the functions. */
const char *memz_nd_group_id(const struct memz_nd_emitter *e,
			     const char *name);

#endif
