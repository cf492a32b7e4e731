/*
 * json.h - a snapshot as JSON, through yajl (every string escaped by yajl,
 * whatever bytes a process name holds; invalid UTF-8 is replaced so the
 * output always parses).
 */
#ifndef MEMZ_JSON_H
#define MEMZ_JSON_H

#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "memz/report.h"
#include "memz/sampler.h"

/* Write the snapshot object into g (breakdown, meminfo extras, psi, numa,
 * pace, stats, groups, processes, events). Each group says whether hosts
 * publish it ("published", report.h's rule). Numbers are finite: a NaN or
 * an infinity is written as 0. */
int memz_json_snapshot(yajl_gen g, const struct memz_snapshot *s);
/* The same, with the id every host publishes each published group under
 * ("id", null for the others). */
int memz_json_report(yajl_gen g, const struct memz_report_view *v);

/* Add a string that may hold any bytes: invalid UTF-8 becomes U+FFFD. */
int memz_json_string(yajl_gen g, const char *s, size_t len);

/* One snapshot, or one report's view, as a line of JSON on f. */
int memz_json_print(FILE *f, const struct memz_snapshot *s);
int memz_json_print_report(FILE *f, const struct memz_report_view *v);

#endif
