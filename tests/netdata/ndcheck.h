/*
 * ndcheck.h - a strict checker of the netdata external plugin protocol, as
 * netdata 1.37 parses it (docs/design.md, "netdata's model"): words split
 * on spaces, tabs and '='; single or double quotes group; at most 20 words.
 *
 * Stricter than netdata on purpose: every line must be a keyword memz may
 * send, with exactly the fields memz sends; ids must be identifier-safe and
 * unique per chart; names unique per chart; SET only between BEGIN and END,
 * only for a declared, live dimension of that chart, at most once, with a
 * plain decimal integer (netdata reads "010" as octal); CLABEL only right
 * after CHART, with its source; no control bytes or backslashes anywhere;
 * FUNCTION_RESULT bodies end with FUNCTION_RESULT_END.
 *
 * It also knows the parts of netdata 2.x's grammar memz uses: keywords are
 * checked against the version set (PLUGIN_KEEPALIVE only from 2.7);
 * FUNCTION registrations must carry tags, access and priority; a JSON
 * result body must be valid JSON whose status is the result's, and a table
 * must follow the 2.x schema (column types, visualizations, transforms,
 * sorts, summaries and filters from the sets netdata's UI knows, unique
 * indexes, every row as long as the columns with a cell of the column's
 * type and a {severity} cell under a rowOptions column,
 * required_params as [{id, name, type: select, options: [{id, name}]}],
 * accepted_params as an array of ids holding every required param's);
 * an error body must carry errorMessage (2.x) and the same error_message
 * (1.x)).
 * BEGIN of a chart declared obsolete is refused; a chart keeps its
 * context. VARIABLE only as "VARIABLE CHART name = number" after a CHART.
 *
 * State carries across ndc_feed() calls, so a test can feed cycle after
 * cycle and query what netdata would now believe.
 */
#ifndef MEMZ_NDCHECK_H
#define MEMZ_NDCHECK_H

#include <stdbool.h>
#include <stddef.h>

struct ndc;

struct ndc_result { /* one FUNCTION_RESULT_BEGIN..END */
	char uuid[300];
	int status;
	char type[64];
	char *body; /* the lines between, joined with '\n' */
};

/* Checks as netdata 1.37 would, with table checks on. */
struct ndc *ndc_new(void);
void ndc_free(struct ndc *c);
void ndc_set_version(struct ndc *c, unsigned major, unsigned minor);
void ndc_check_tables(struct ndc *c, bool on);

/* Check text (whole lines). 0, or -1 with ndc_error() naming the line. */
int ndc_feed(struct ndc *c, const char *text, size_t len);
const char *ndc_error(const struct ndc *c);

/* What netdata would believe now. */
bool ndc_has_chart(const struct ndc *c, const char *chart);
/* The value of the chart's variable name (VARIABLE CHART); false if none. */
bool ndc_chart_var(const struct ndc *c, const char *chart, const char *name,
		   double *v);
/* The id of the dimension with display name `name`; NULL if none. */
const char *ndc_dim_id(const struct ndc *c, const char *chart,
		       const char *name);
bool ndc_dim_obsolete(const struct ndc *c, const char *chart, const char *id);
unsigned ndc_dim_count(const struct ndc *c, const char *chart, bool live);
/* The value last SET (raw, before multiplier/divisor); false if never. */
bool ndc_last(const struct ndc *c, const char *chart, const char *id,
	      long long *value);
/* Was id SET in the chart's most recent BEGIN..END? */
bool ndc_set_last_update(const struct ndc *c, const char *chart,
			 const char *id);
long ndc_dim_divisor(const struct ndc *c, const char *chart, const char *id);
unsigned ndc_count(const struct ndc *c, const char *keyword);
size_t ndc_n_results(const struct ndc *c);
const struct ndc_result *ndc_get_result(const struct ndc *c, size_t i);
bool ndc_disabled(const struct ndc *c);
bool ndc_chart_obsolete(const struct ndc *c, const char *chart);
/* The chart's last CLABEL value if its key is key, else NULL. */
const char *ndc_chart_label(const struct ndc *c, const char *chart,
			    const char *key);
const char *ndc_chart_context(const struct ndc *c, const char *chart);
size_t ndc_chart_count(const struct ndc *c, const char *context, bool live);

#endif
