/*
 * json.h - a snapshot as JSON, through yajl (every string escaped by yajl,
 * whatever bytes a process name holds; invalid UTF-8 is replaced so the
 * output always parses).
 */
#ifndef MEMZ_JSON_H
#define MEMZ_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "memz/report.h"
#include "memz/sampler.h"

/* Write the snapshot object into g (breakdown, meminfo extras, psi, numa,
 * pace, stats, groups, users, processes, events). Each group and user
 * says whether hosts publish it ("published", report.h's rule). A figure that is not
 * finite is null. */
int memz_json_snapshot(yajl_gen g, const struct memz_snapshot *s);
/* The same, with the id every host publishes each published group under
 * ("id", null for the others). */
int memz_json_report(yajl_gen g, const struct memz_report_view *v);

/*
 * The helpers every JSON writer in memz uses. Strings (keys too) may hold
 * any bytes: invalid UTF-8 becomes U+FFFD, so the output always parses. A
 * NULL string is null; so is a double that is not finite (yajl would
 * refuse it and leave the document cut).
 */
int memz_json_string(yajl_gen g, const char *s, size_t len);
void memz_json_str(yajl_gen g, const char *s);
void memz_json_double(yajl_gen g, double v);
void memz_json_kv_str(yajl_gen g, const char *key, const char *v);
void memz_json_kv_int(yajl_gen g, const char *key, long long v);
void memz_json_kv_u64(yajl_gen g, const char *key, uint64_t v);
void memz_json_kv_double(yajl_gen g, const char *key, double v);
void memz_json_kv_bool(yajl_gen g, const char *key, bool v);
/* At most `decimals` decimals, trailing zeros dropped (1.50 -> 1.5), -0 as
 * 0: text that compares equal when the figure is equal. */
void memz_json_kv_fixed(yajl_gen g, const char *key, double v, int decimals);

/*
 * Reading JSON. yajl_tree builds and frees a tree recursively, a few
 * dozen bytes of stack per level: 256 KiB of '[' needs 4 MiB of stack to
 * free, more than a collectd or netdata thread has. Every reader first
 * refuses a text nested deeper than MEMZ_JSON_DEPTH_MAX; what memz writes
 * nests 5 deep, docker's config.v2.json about 6.
 */
#define MEMZ_JSON_DEPTH_MAX 64

/* Is buf[0, len) nested at most max arrays and objects deep (brackets
 * inside strings, escaped quotes honoured, are not counted)? It says
 * nothing of whether the text parses. */
bool memz_json_depth_within(const char *buf, size_t len, unsigned max);

/* One snapshot, or one report's view, as a line of JSON on f. */
int memz_json_print(FILE *f, const struct memz_snapshot *s);
int memz_json_print_report(FILE *f, const struct memz_report_view *v);

#endif
