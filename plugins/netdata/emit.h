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
 *
 * Each published group also gets its own chart instances (contexts
 * memz.group_mem, memz.group_growth_rate, memz.group_leak) labelled
 * memz_group, so that one health template raises one alarm per group and
 * names it, as apps.plugin does with app_group. A group that vanishes has
 * its instances re-declared obsolete once; one that returns has them
 * declared live again.
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

/* netdata's version from NETDATA_VERSION ("v1.37.1", "2.8.1-nightly"), as
 * major * 1000 + minor; 1037 (the oldest memz supports, whose keywords
 * every later version accepts) when absent or unreadable. */
unsigned memz_nd_version(const char *s);
#define MEMZ_ND_V(major, minor) ((unsigned)(major) * 1000u + (unsigned)(minor))

struct memz_nd_emitter;

/* out is borrowed. update_every is the charts' update interval, s; version
 * what memz_nd_version() read, which gates newer keywords. */
int memz_nd_emitter_new(struct memz_nd_emitter **e, FILE *out,
			int update_every, unsigned version);
void memz_nd_emitter_free(struct memz_nd_emitter **e);

/*
 * Write one update of every chart from s. usec is the time since the
 * previous update (0 on the first, or when unknown: netdata then uses its
 * own clock). Returns 0, -ENOMEM, or -EIO when the stream failed (errno
 * tells why: EPIPE when netdata went away).
 */
int memz_nd_emit(struct memz_nd_emitter *e, const struct memz_snapshot *s,
		 unsigned long long usec);

/*
 * Tell netdata the plugin is alive without new data: PLUGIN_KEEPALIVE where
 * netdata knows it (2.7 on); below that, repeat the last update of every
 * chart from s (usec as for memz_nd_emit). Returns 0 (keyword), 1 (data:
 * the next update's usec counts from now), or as memz_nd_emit.
 */
int memz_nd_emit_keepalive(struct memz_nd_emitter *e,
			   const struct memz_snapshot *s,
			   unsigned long long usec);

/*
 * Declare the plugin's functions in the form netdata 1.45+ reads
 * (FUNCTION GLOBAL "name" timeout "help" "tags" access priority); 1.37.1
 * reads the first four words and ignores the rest.
 */
int memz_nd_emit_functions(FILE *out, int timeout_s);

/* Access a caller needs: signed in, same space, may see sensitive data
 * (process names and their memory), as netdata's own `processes`. */
#define MEMZ_ND_FUNCTION_ACCESS 0x13

/* Look up the id the emitter gave a group name (raw bytes, NUL-ended);
 * NULL if the group was never charted. For tests and the functions. */
const char *memz_nd_group_id(const struct memz_nd_emitter *e,
			     const char *name);

#endif
