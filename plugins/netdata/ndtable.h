/*
 * ndtable.h - netdata 2.x's table format, as its buffer_rrdf_table_*()
 * writers lay it out (apps.plugin's `processes` is the model): a head with
 * status, type and help, the columns, the rows (the caller's), and a tail
 * with the default sort column and when the data expires. 1.37.1's Cloud
 * and streaming parents pass the same JSON through untouched.
 *
 * It knows nothing of memz: which tables exist and what their cells hold
 * is functions.c's business. Every string goes through yajl.
 */
#ifndef MEMZ_ND_TABLE_H
#define MEMZ_ND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_gen.h>

/* One column, as buffer_rrdf_table_add_field() writes it. */
struct memz_nd_col {
	const char *key, *name, *type, *visual, *transform, *units;
	int decimals;
	const char *sort, *summary, *filter;
	bool visible, key_col, sticky;
};

/* The row options column every table ends with: a row's severity colours
 * it in the UI. */
#define MEMZ_ND_ROWOPT { "rowOptions", "rowOptions", "none", "rowOptions", \
		"none", "", 0, "ascending", "count", "none", false, false, false }

/* "status", "type": "table", ... "help"; the object stays open. */
void memz_nd_table_head(yajl_gen g, int status, int update_every,
			const char *help);
/* "accepted_params": [ ids... ] (NULL-ended): the parameters the function
 * takes, by id; 2.x's UI sends only these (and required_params' ids). */
void memz_nd_accepted_params(yajl_gen g, const char *const *ids);
/* "columns": { ... }; max[i], when max is given and finite, is column i's
 * bar scale. */
void memz_nd_table_columns(yajl_gen g, const struct memz_nd_col *c, size_t n,
			   const double *max);
/* A row's last cell, under MEMZ_ND_ROWOPT: {"severity": severity}, one of
 * normal, debug, notice, warning, critical. */
void memz_nd_row_options(yajl_gen g, const char *severity);
/* "default_sort_column", "expires"; closes the object. */
void memz_nd_table_tail(yajl_gen g, const char *sort_col, int update_every);
/* { "status": status, "errorMessage": msg, "error_message": msg }: what
 * netdata 2.x (errorMessage) and 1.x (error_message) show for a failed
 * call. */
void memz_nd_error_body(yajl_gen g, int status, const char *msg);

#endif
