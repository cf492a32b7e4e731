#include <math.h>
#include <string.h>
#include <time.h>

#include "memz/json.h"
#include "ndtable.h"

static void column(yajl_gen g, int index, const struct memz_nd_col *c,
		   double max)
{
	bool dummy = !strcmp(c->visual, "rowOptions");

	memz_json_str(g, c->key);
	yajl_gen_map_open(g);
	memz_json_str(g, "index");
	yajl_gen_integer(g, index);
	memz_json_kv_bool(g, "unique_key", c->key_col);
	memz_json_kv_str(g, "name", c->name);
	memz_json_kv_bool(g, "visible", c->visible);
	memz_json_kv_str(g, "type", c->type);
	if (*c->units)
		memz_json_kv_str(g, "units", c->units);
	memz_json_kv_str(g, "visualization", c->visual);
	memz_json_str(g, "value_options");
	yajl_gen_map_open(g);
	if (*c->units)
		memz_json_kv_str(g, "units", c->units);
	memz_json_kv_str(g, "transform", c->transform);
	memz_json_str(g, "decimal_points");
	yajl_gen_integer(g, c->decimals);
	memz_json_kv_str(g, "default_value", "");
	yajl_gen_map_close(g);
	if (isfinite(max)) {
		memz_json_str(g, "max");
		yajl_gen_double(g, max);
	}
	memz_json_kv_str(g, "sort", c->sort);
	memz_json_kv_bool(g, "sortable", !dummy);
	memz_json_kv_bool(g, "sticky", c->sticky);
	memz_json_kv_str(g, "summary", c->summary);
	memz_json_kv_str(g, "filter", c->filter);
	memz_json_kv_bool(g, "full_width", false);
	memz_json_kv_bool(g, "wrap", false);
	memz_json_kv_bool(g, "default_expanded_filter", false);
	if (dummy)
		memz_json_kv_bool(g, "dummy", true);
	yajl_gen_map_close(g);
}

void memz_nd_table_columns(yajl_gen g, const struct memz_nd_col *c, size_t n,
			   const double *max)
{
	memz_json_str(g, "columns");
	yajl_gen_map_open(g);
	for (size_t i = 0; i < n; i++)
		column(g, (int)i, &c[i], max ? max[i] : NAN);
	yajl_gen_map_close(g);
}

void memz_nd_accepted_params(yajl_gen g, const char *const *ids)
{
	memz_json_str(g, "accepted_params");
	yajl_gen_array_open(g);
	for (; *ids; ids++)
		memz_json_str(g, *ids);
	yajl_gen_array_close(g);
}

/* The flat {"severity": ...} cell, the form every table netdata 2.10.4
 * produces itself writes under its rowOptions column: proc_net_dev.c
 * (src/collectors/proc.plugin/), freeipmi_plugin.c, plugin_systemd_units.c,
 * function-streaming.c (src/web/api/functions/) and the facets library
 * (src/libnetdata/facets/facets.c, every journal and log table). Only its
 * FUNCTION_UI_REFERENCE.md and FUNCTION_UI_DEVELOPER_GUIDE.md show a nested
 * {"rowOptions": {"severity": ...}}, and the reference itself shows the
 * flat form in its facets example; the UI is built against netdata's own
 * producers, so memz writes what they write. */
void memz_nd_row_options(yajl_gen g, const char *severity)
{
	yajl_gen_map_open(g);
	memz_json_kv_str(g, "severity", severity);
	yajl_gen_map_close(g);
}

void memz_nd_table_head(yajl_gen g, int status, int update_every,
			const char *help)
{
	yajl_gen_map_open(g);
	memz_json_str(g, "status");
	yajl_gen_integer(g, status);
	memz_json_kv_str(g, "type", "table");
	memz_json_kv_bool(g, "has_history", false);
	memz_json_str(g, "update_every");
	yajl_gen_integer(g, update_every);
	memz_json_kv_str(g, "help", help);
}

void memz_nd_table_tail(yajl_gen g, const char *sort_col, int update_every)
{
	memz_json_kv_str(g, "default_sort_column", sort_col);
	memz_json_str(g, "expires");
	yajl_gen_integer(g, (long long)time(NULL) + update_every);
	yajl_gen_map_close(g);
}

void memz_nd_error_body(yajl_gen g, int status, const char *msg)
{
	yajl_gen_map_open(g);
	memz_json_str(g, "status");
	yajl_gen_integer(g, status);
	/* 2.x and its UI read errorMessage (rrd_call_function_error() in
	 * 2.10.4's src/libnetdata/json/json-c-parser-inline.c); 1.x's clients
	 * and the plugin helpers of both (pluginsd_function_json_error_to_stdout)
	 * write error_message */
	memz_json_str(g, "errorMessage");
	memz_json_string(g, msg, strlen(msg));
	memz_json_str(g, "error_message");
	memz_json_string(g, msg, strlen(msg));
	yajl_gen_map_close(g);
}
