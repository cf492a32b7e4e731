#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "ndcheck.h"

#define MAX_WORDS 20
#define MAX_CHARTS 8192
#define MAX_DIMS 4096
#define NAME_MAX_ 256
#define V(major, minor) ((major) * 1000u + (minor))

struct dimrec {
	char id[NAME_MAX_], name[NAME_MAX_];
	long mul, div;
	bool obsolete, has_value, set_now, set_last;
	long long value;
};

struct chartrec {
	char id[NAME_MAX_];
	char context[NAME_MAX_];
	char label_key[NAME_MAX_], label[NAME_MAX_]; /* the last CLABEL */
	char var[NAME_MAX_]; /* the chart's VARIABLE, if any */
	double var_value;
	bool obsolete;
	struct dimrec *d;
	size_t n;
};

struct ndc {
	unsigned version;
	bool check_tables;
	struct chartrec *charts;
	size_t n_charts;
	struct chartrec *cur;   /* last CHART, for DIMENSION and CLABEL */
	struct chartrec *begun; /* inside BEGIN..END */
	bool after_chart;       /* CLABEL allowed */
	bool labels_pending;
	bool in_result, disabled;
	struct ndc_result *results;
	size_t n_results;
	unsigned line;
	char err[512];
	struct { const char *kw; unsigned n; } counts[16];
};

static const char *const keywords[] = {
	"CHART", "DIMENSION", "BEGIN", "SET", "END", "CLABEL", "CLABEL_COMMIT",
	"FUNCTION", "FUNCTION_RESULT_BEGIN", "DISABLE", "FLUSH",
	"PLUGIN_KEEPALIVE", "VARIABLE", NULL
};

static int fail(struct ndc *c, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, sizeof c->err, "line %u: ", c->line);

	va_start(ap, fmt);
	vsnprintf(c->err + n, sizeof c->err - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* netdata's splitter: separators are space, tab and '='; a quote starts a
 * word that runs to the same quote. Words are copied into buf. */
static int split(struct ndc *c, const char *s, size_t len, char *buf,
		 char **w, int *nw)
{
	size_t i = 0;
	char *o = buf;

	*nw = 0;
	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '='))
			i++;
		if (i >= len)
			break;
		if (*nw == MAX_WORDS)
			return fail(c, "more than %d words", MAX_WORDS);
		w[(*nw)++] = o;
		if (s[i] == '"' || s[i] == '\'') {
			char q = s[i++];
			while (i < len && s[i] != q)
				*o++ = s[i++];
			if (i >= len)
				return fail(c, "unterminated quote");
			i++;
			if (i < len && s[i] != ' ' && s[i] != '\t' &&
			    s[i] != '=')
				return fail(c, "text glued after a quote");
		} else {
			while (i < len && s[i] != ' ' && s[i] != '\t' &&
			       s[i] != '=')
				*o++ = s[i++];
		}
		*o++ = '\0';
	}
	return 0;
}

static bool is_id(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
		      ch == '.'))
			return false;
	}
	return true;
}

/* A decimal integer netdata's strtoll(,,0) reads as the same number. */
static bool is_int(const char *s, long long *v)
{
	const char *p = s;
	char *end;

	if (*p == '-')
		p++;
	if (!*p || (*p == '0' && p[1]))
		return false;
	for (const char *q = p; *q; q++)
		if (*q < '0' || *q > '9')
			return false;
	*v = strtoll(s, &end, 10);
	return !*end;
}

static struct chartrec *chart_find(const struct ndc *c, const char *id)
{
	for (size_t i = 0; i < c->n_charts; i++)
		if (!strcmp(c->charts[i].id, id))
			return (struct chartrec *)&c->charts[i];
	return NULL;
}

static struct dimrec *dim_find(const struct chartrec *ch, const char *id)
{
	for (size_t i = 0; ch && i < ch->n; i++)
		if (!strcmp(ch->d[i].id, id))
			return &ch->d[i];
	return NULL;
}

static void count(struct ndc *c, const char *kw)
{
	size_t i;

	for (i = 0; i < 16 && c->counts[i].kw; i++)
		if (!strcmp(c->counts[i].kw, kw)) {
			c->counts[i].n++;
			return;
		}
	if (i < 16) {
		c->counts[i].kw = kw;
		c->counts[i].n = 1;
	}
}

static int do_chart(struct ndc *c, char **w, int nw)
{
	static const char *const types[] = { "line", "area", "stacked", NULL };
	long long v;
	bool ok = false;
	struct chartrec *ch;

	if (nw != 13)
		return fail(c, "CHART with %d words, expected 13", nw);
	if (!is_id(w[1]) || !strchr(w[1], '.'))
		return fail(c, "bad chart id '%s'", w[1]);
	for (int i = 0; types[i]; i++)
		ok |= !strcmp(w[7], types[i]);
	if (!ok)
		return fail(c, "bad chart type '%s'", w[7]);
	if (!is_int(w[8], &v) || v <= 0)
		return fail(c, "bad priority '%s'", w[8]);
	if (!is_int(w[9], &v) || v <= 0)
		return fail(c, "bad update_every '%s'", w[9]);
	if (!*w[3] || !*w[4] || !*w[11] || !*w[12])
		return fail(c, "CHART without title, units, plugin or module");
	if (*w[10] && strcmp(w[10], "obsolete"))
		return fail(c, "unknown chart option '%s'", w[10]);
	ch = chart_find(c, w[1]);
	if (!ch) {
		if (c->n_charts == MAX_CHARTS)
			return fail(c, "too many charts");
		if (!c->charts &&
		    !(c->charts = calloc(MAX_CHARTS, sizeof *c->charts)))
			return fail(c, "out of memory");
		ch = &c->charts[c->n_charts++];
		snprintf(ch->id, sizeof ch->id, "%s", w[1]);
	} else if (strcmp(ch->context, w[6])) {
		return fail(c, "chart '%s' moves from context '%s' to '%s'",
			    w[1], ch->context, w[6]);
	}
	snprintf(ch->context, sizeof ch->context, "%s", w[6]);
	ch->obsolete = !strcmp(w[10], "obsolete");
	c->cur = ch;
	c->after_chart = true;
	return 0;
}

static int do_dimension(struct ndc *c, char **w, int nw)
{
	static const char *const algs[] = { "absolute", "incremental",
		"percentage-of-absolute-row", "percentage-of-incremental-row",
		NULL };
	struct dimrec *d;
	long long mul, div;
	bool ok = false;
	char opts[NAME_MAX_], *tok, *save;

	if (!c->cur)
		return fail(c, "DIMENSION before any CHART");
	if (nw != 7)
		return fail(c, "DIMENSION with %d words, expected 7", nw);
	if (!is_id(w[1]))
		return fail(c, "bad dimension id '%s'", w[1]);
	if (!*w[2])
		return fail(c, "dimension '%s' without a name", w[1]);
	for (int i = 0; algs[i]; i++)
		ok |= !strcmp(w[3], algs[i]);
	if (!ok)
		return fail(c, "bad algorithm '%s'", w[3]);
	if (!is_int(w[4], &mul) || !mul || !is_int(w[5], &div) || !div)
		return fail(c, "bad multiplier/divisor '%s' '%s'", w[4], w[5]);
	snprintf(opts, sizeof opts, "%s", w[6]);
	for (tok = strtok_r(opts, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (strcmp(tok, "obsolete") && strcmp(tok, "hidden") &&
		    strcmp(tok, "noreset") && strcmp(tok, "nooverflow"))
			return fail(c, "unknown dimension option '%s'", tok);
	for (size_t i = 0; i < c->cur->n; i++)
		if (strcmp(c->cur->d[i].id, w[1]) &&
		    !strcmp(c->cur->d[i].name, w[2]))
			return fail(c, "name '%s' of '%s' already names '%s' in %s",
				    w[2], w[1], c->cur->d[i].id, c->cur->id);
	d = dim_find(c->cur, w[1]);
	if (!d) {
		if (c->cur->n == MAX_DIMS)
			return fail(c, "too many dimensions");
		if (!c->cur->d &&
		    !(c->cur->d = calloc(MAX_DIMS, sizeof *c->cur->d)))
			return fail(c, "out of memory");
		d = &c->cur->d[c->cur->n++];
		snprintf(d->id, sizeof d->id, "%s", w[1]);
	} else if (!d->obsolete && strcmp(d->name, w[2])) {
		return fail(c, "live id '%s' re-declared as '%s' (was '%s')",
			    w[1], w[2], d->name);
	}
	snprintf(d->name, sizeof d->name, "%s", w[2]);
	d->mul = (long)mul;
	d->div = (long)div;
	d->obsolete = strstr(w[6], "obsolete") != NULL;
	return 0;
}

static int do_begin(struct ndc *c, char **w, int nw)
{
	long long v;

	if (c->begun)
		return fail(c, "BEGIN inside BEGIN");
	if (nw != 2 && nw != 3)
		return fail(c, "BEGIN with %d words", nw);
	if (!(c->begun = chart_find(c, w[1])))
		return fail(c, "BEGIN of undeclared chart '%s'", w[1]);
	if (c->begun->obsolete)
		return fail(c, "BEGIN of obsolete chart '%s'", w[1]);
	if (nw == 3 && (!is_int(w[2], &v) || v <= 0))
		return fail(c, "bad BEGIN microseconds '%s'", w[2]);
	for (size_t i = 0; i < c->begun->n; i++)
		c->begun->d[i].set_now = false;
	return 0;
}

static int do_set(struct ndc *c, char **w, int nw)
{
	struct dimrec *d;
	long long v;

	if (!c->begun)
		return fail(c, "SET outside BEGIN..END");
	if (nw != 3)
		return fail(c, "SET with %d words", nw);
	if (!(d = dim_find(c->begun, w[1])))
		return fail(c, "SET of undeclared dimension '%s' in %s", w[1],
			    c->begun->id);
	if (d->obsolete)
		return fail(c, "SET of obsolete dimension '%s' in %s", w[1],
			    c->begun->id);
	if (d->set_now)
		return fail(c, "dimension '%s' SET twice", w[1]);
	if (!is_int(w[2], &v))
		return fail(c, "SET value '%s' is not a plain integer", w[2]);
	d->set_now = d->has_value = true;
	d->value = v;
	return 0;
}

static int do_end(struct ndc *c, int nw)
{
	if (!c->begun)
		return fail(c, "END without BEGIN");
	if (nw != 1)
		return fail(c, "END with arguments");
	for (size_t i = 0; i < c->begun->n; i++)
		c->begun->d[i].set_last = c->begun->d[i].set_now;
	c->begun = NULL;
	return 0;
}

static int do_result_begin(struct ndc *c, char **w, int nw)
{
	long long st, exp;
	struct ndc_result *r;

	if (nw != 5)
		return fail(c, "FUNCTION_RESULT_BEGIN with %d words", nw);
	if (!is_int(w[2], &st) || !is_int(w[4], &exp))
		return fail(c, "bad FUNCTION_RESULT_BEGIN status/expires");
	r = realloc(c->results, (c->n_results + 1) * sizeof *r);
	if (!r)
		return fail(c, "out of memory");
	c->results = r;
	r = &r[c->n_results++];
	memset(r, 0, sizeof *r);
	if (strlen(w[1]) >= sizeof r->uuid)
		return fail(c, "FUNCTION_RESULT_BEGIN transaction of %zu bytes",
			    strlen(w[1]));
	snprintf(r->uuid, sizeof r->uuid, "%s", w[1]);
	snprintf(r->type, sizeof r->type, "%s", w[3]);
	r->status = (int)st;
	c->in_result = true;
	return 0;
}

static int check_result(struct ndc *c, const struct ndc_result *r);

static int result_line(struct ndc *c, const char *s, size_t len)
{
	struct ndc_result *r = &c->results[c->n_results - 1];
	size_t old = r->body ? strlen(r->body) : 0;
	char *b;

	if (len == 19 && !memcmp(s, "FUNCTION_RESULT_END", 19)) {
		c->in_result = false;
		return c->check_tables ? check_result(c, r) : 0;
	}
	if (!(b = realloc(r->body, old + len + 2)))
		return fail(c, "out of memory");
	if (old)
		b[old++] = '\n';
	memcpy(b + old, s, len);
	b[old + len] = '\0';
	r->body = b;
	return 0;
}

/* The registration 1.45+ reads (GLOBAL "name" timeout "help" "tags"
 * access priority); 1.37.1 reads the first four words, so the same line
 * serves both. memz always sends tags and access: a function that names
 * processes must say who may call it. */
static int do_function(struct ndc *c, char **w, int nw)
{
	long long t, prio;
	char *end;
	unsigned long access;

	if (nw != 8 || strcmp(w[1], "GLOBAL") || !is_int(w[3], &t) || t <= 0)
		return fail(c, "FUNCTION needs GLOBAL name timeout help tags access priority");
	if (!*w[2] || !*w[4] || !is_id(w[5]))
		return fail(c, "FUNCTION without name, help or tags");
	if (strncmp(w[6], "0x", 2) || !w[6][2])
		return fail(c, "FUNCTION access '%s' is not 0x..", w[6]);
	access = strtoul(w[6] + 2, &end, 16);
	if (*end || !access)
		return fail(c, "FUNCTION access '%s': none or unreadable", w[6]);
	if (!is_int(w[7], &prio) || prio < 0)
		return fail(c, "FUNCTION priority '%s'", w[7]);
	return 0;
}

static yajl_val get(yajl_val o, const char *key)
{
	const char *path[] = { key, NULL };
	return yajl_tree_get(o, path, yajl_t_any);
}

static const char *sval(yajl_val v)
{
	return v && YAJL_IS_STRING(v) ? v->u.string : "";
}

static bool is_bool(yajl_val v)
{
	return v && (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v));
}

static bool one_of(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

static const char *const col_types[] = { "string", "integer",
	"bar-with-integer", "duration", "timestamp", "boolean", "array",
	"detail-string", "none", NULL };
static const char *const col_visuals[] = { "value", "bar", "pill",
	"richValue", "rowOptions", NULL };
static const char *const col_transforms[] = { "none", "number", "duration",
	"datetime", "datetime_usec", "xml", NULL };
static const char *const col_sorts[] = { "ascending", "descending", NULL };
static const char *const col_summaries[] = { "count", "uniqueCount", "sum",
	"min", "max", "mean", "median", NULL };
static const char *const col_filters[] = { "none", "range", "multiselect",
	"facet", NULL };
static const char *const severities[] = { "normal", "debug", "notice",
	"warning", "critical", NULL };

static int check_column(struct ndc *c, const char *key, yajl_val col,
			size_t ncols, const char **types, bool *seen)
{
	static const char *const bools[] = { "unique_key", "visible",
		"sortable", "sticky", "full_width", "wrap", NULL };
	yajl_val v, vo;
	long long idx;

	if (!YAJL_IS_OBJECT(col))
		return fail(c, "column '%s' is not an object", key);
	v = get(col, "index");
	if (!v || !YAJL_IS_INTEGER(v) || (idx = YAJL_GET_INTEGER(v)) < 0 ||
	    (size_t)idx >= ncols || seen[idx])
		return fail(c, "column '%s': index missing, out of range or repeated", key);
	seen[idx] = true;
	if (!(v = get(col, "name")) || !YAJL_IS_STRING(v))
		return fail(c, "column '%s' without a name", key);
	v = get(col, "type");
	if (!v || !one_of(sval(v), col_types))
		return fail(c, "column '%s': type '%s' is not one the UI renders",
			    key, v && YAJL_IS_STRING(v) ? sval(v) : "?");
	types[idx] = sval(v);
	for (int i = 0; bools[i]; i++)
		if (!is_bool(v = get(col, bools[i])))
			return fail(c, "column '%s': %s is not a boolean", key,
				    bools[i]);
	if (!(v = get(col, "visualization")) ||
	    !one_of(sval(v), col_visuals))
		return fail(c, "column '%s': bad visualization", key);
	if (!strcmp(sval(v), "rowOptions") &&
	    strcmp(types[idx], "none"))
		return fail(c, "column '%s': rowOptions column of type %s", key,
			    types[idx]);
	if (!(v = get(col, "sort")) || !one_of(sval(v), col_sorts))
		return fail(c, "column '%s': bad sort", key);
	if (!(v = get(col, "summary")) ||
	    !one_of(sval(v), col_summaries))
		return fail(c, "column '%s': bad summary", key);
	if (!(v = get(col, "filter")) ||
	    !one_of(sval(v), col_filters))
		return fail(c, "column '%s': bad filter", key);
	vo = get(col, "value_options");
	if (!vo || !YAJL_IS_OBJECT(vo))
		return fail(c, "column '%s' without value_options", key);
	if (!(v = get(vo, "transform")) ||
	    !one_of(sval(v), col_transforms))
		return fail(c, "column '%s': bad transform", key);
	if (!(v = get(vo, "decimal_points")) || !YAJL_IS_INTEGER(v) ||
	    YAJL_GET_INTEGER(v) < 0)
		return fail(c, "column '%s': bad decimal_points", key);
	if ((v = get(vo, "units")) && !YAJL_IS_STRING(v))
		return fail(c, "column '%s': units not a string", key);
	return 0;
}

static int check_cell(struct ndc *c, size_t r, size_t i, const char *type,
		      yajl_val cell)
{
	if (YAJL_IS_NULL(cell))
		return 0;
	if (!strcmp(type, "none")) {
		/* flat, as netdata 2.x's own tables write it */
		yajl_val sev = YAJL_IS_OBJECT(cell) && cell->u.object.len == 1
			? get(cell, "severity") : NULL;
		if (!sev || !one_of(sval(sev), severities))
			return fail(c, "row %zu: cell %zu is not {severity}", r, i);
		return 0;
	}
	if (!strcmp(type, "string") || !strcmp(type, "detail-string"))
		return YAJL_IS_STRING(cell) ? 0
			: fail(c, "row %zu: cell %zu is not a string", r, i);
	if (!strcmp(type, "boolean"))
		return is_bool(cell) ? 0
			: fail(c, "row %zu: cell %zu is not a boolean", r, i);
	if (!strcmp(type, "array"))
		return YAJL_IS_ARRAY(cell) ? 0
			: fail(c, "row %zu: cell %zu is not an array", r, i);
	return YAJL_IS_NUMBER(cell) ? 0
		: fail(c, "row %zu: cell %zu (%s) is not a number", r, i, type);
}

static int check_params(struct ndc *c, yajl_val rp)
{
	if (!YAJL_IS_ARRAY(rp))
		return fail(c, "required_params is not an array");
	for (size_t i = 0; i < rp->u.array.len; i++) {
		yajl_val p = rp->u.array.values[i], v, opts;

		if (!YAJL_IS_OBJECT(p) || !(v = get(p, "id")) ||
		    !YAJL_IS_STRING(v) || !(v = get(p, "name")) ||
		    !YAJL_IS_STRING(v))
			return fail(c, "required_params[%zu] without id and name", i);
		if (!(v = get(p, "type")) || !YAJL_IS_STRING(v) ||
		    (strcmp(sval(v), "select") &&
		     strcmp(sval(v), "multiselect")))
			return fail(c, "required_params[%zu]: type not select", i);
		opts = get(p, "options");
		if (!opts || !YAJL_IS_ARRAY(opts))
			return fail(c, "required_params[%zu] without options", i);
		for (size_t j = 0; j < opts->u.array.len; j++) {
			yajl_val o = opts->u.array.values[j];
			if (!YAJL_IS_OBJECT(o) || !(v = get(o, "id")) ||
			    !YAJL_IS_STRING(v) || !(v = get(o, "name")) ||
			    !YAJL_IS_STRING(v))
				return fail(c, "required_params[%zu] option %zu without id and name", i, j);
		}
	}
	return 0;
}

/* 2.x's UI sends only the parameters accepted_params names: a table lists
 * it, strings only, with every required parameter's id among them. */
static int check_accepted(struct ndc *c, yajl_val t)
{
	yajl_val ap = get(t, "accepted_params"), rp = get(t, "required_params");

	if (!ap || !YAJL_IS_ARRAY(ap))
		return fail(c, "table without an accepted_params array");
	for (size_t i = 0; i < ap->u.array.len; i++)
		if (!YAJL_IS_STRING(ap->u.array.values[i]))
			return fail(c, "accepted_params[%zu] is not a string", i);
	for (size_t i = 0; rp && YAJL_IS_ARRAY(rp) && i < rp->u.array.len; i++) {
		const char *id = sval(get(rp->u.array.values[i], "id"));
		size_t j = 0;

		while (j < ap->u.array.len &&
		       strcmp(sval(ap->u.array.values[j]), id))
			j++;
		if (j == ap->u.array.len)
			return fail(c, "required param '%s' not in accepted_params", id);
	}
	return 0;
}

static bool same_cell(yajl_val a, yajl_val b)
{
	if (YAJL_IS_STRING(a) && YAJL_IS_STRING(b))
		return !strcmp(sval(a), sval(b));
	if (YAJL_IS_NUMBER(a) && YAJL_IS_NUMBER(b))
		return YAJL_GET_DOUBLE(a) == YAJL_GET_DOUBLE(b);
	return false;
}

/* 2.x's UI tells rows apart by the one unique_key column: two rows with
 * the same key, or a row without one, are one row to it. */
static int check_unique_key(struct ndc *c, yajl_val cols, yajl_val data)
{
	long long key = -1;

	for (size_t i = 0; i < cols->u.object.len; i++) {
		yajl_val col = cols->u.object.values[i];

		if (!YAJL_IS_TRUE(get(col, "unique_key")))
			continue;
		if (key >= 0)
			return fail(c, "table with two unique_key columns");
		key = YAJL_GET_INTEGER(get(col, "index"));
	}
	if (key < 0)
		return fail(c, "table without a unique_key column");
	for (size_t r = 0; r < data->u.array.len; r++) {
		yajl_val a = data->u.array.values[r]->u.array.values[key];

		if (YAJL_IS_NULL(a))
			return fail(c, "row %zu without its unique key", r);
		for (size_t q = 0; q < r; q++)
			if (same_cell(a, data->u.array.values[q]->u.array.values[key]))
				return fail(c, "rows %zu and %zu share their unique key", q, r);
	}
	return 0;
}

/* netdata 2.x's table format (apps.plugin's processes is the model). */
static int check_table(struct ndc *c, yajl_val t, int status)
{
	static const char *const keys[] = { "has_history", "update_every",
		"help", NULL };
	yajl_val cols = get(t, "columns"), data = get(t, "data"), v;
	const char **types;
	bool *seen;
	size_t n;
	int rc = 0;

	(void)status;
	for (int i = 0; keys[i]; i++)
		if (!get(t, keys[i]))
			return fail(c, "table without %s", keys[i]);
	if (!cols || !YAJL_IS_OBJECT(cols) || !(n = cols->u.object.len))
		return fail(c, "table without columns");
	if (!data || !YAJL_IS_ARRAY(data))
		return fail(c, "table without data");
	if ((v = get(t, "default_sort_column")) &&
	    (!YAJL_IS_STRING(v) || !get(cols, sval(v))))
		return fail(c, "default_sort_column names no column");
	if ((v = get(t, "required_params")) && check_params(c, v))
		return -1;
	if (check_accepted(c, t))
		return -1;
	types = calloc(n, sizeof *types);
	seen = calloc(n, sizeof *seen);
	if (!types || !seen) {
		free(types);
		free(seen);
		return fail(c, "out of memory");
	}
	for (size_t i = 0; !rc && i < n; i++)
		rc = check_column(c, cols->u.object.keys[i],
				  cols->u.object.values[i], n, types, seen);
	for (size_t r = 0; !rc && r < data->u.array.len; r++) {
		yajl_val row = data->u.array.values[r];

		if (!YAJL_IS_ARRAY(row) || row->u.array.len != n) {
			rc = fail(c, "row %zu has %zu cells for %zu columns", r,
				  YAJL_IS_ARRAY(row) ? row->u.array.len : 0, n);
			break;
		}
		for (size_t i = 0; !rc && i < n; i++)
			rc = check_cell(c, r, i, types[i],
					row->u.array.values[i]);
	}
	if (!rc)
		rc = check_unique_key(c, cols, data);
	free(types);
	free(seen);
	return rc;
}

/* 2.x's UI reads errorMessage, 1.x's clients error_message: both, the
 * same. */
static int check_error(struct ndc *c, const struct ndc_result *r, yajl_val t)
{
	yajl_val v2 = get(t, "errorMessage"), v1 = get(t, "error_message");

	if (!v2 || !YAJL_IS_STRING(v2))
		return fail(c, "result %s: status %d without errorMessage",
			    r->uuid, r->status);
	if (!v1 || !YAJL_IS_STRING(v1) || strcmp(sval(v1), sval(v2)))
		return fail(c, "result %s: error_message is not errorMessage",
			    r->uuid);
	return 0;
}

static int check_result(struct ndc *c, const struct ndc_result *r)
{
	char err[256];
	yajl_val t, v;
	int rc = 0;

	if (strcmp(r->type, "application/json"))
		return 0;
	if (!(t = yajl_tree_parse(r->body ? r->body : "", err, sizeof err)))
		return fail(c, "result %s: not JSON: %s", r->uuid, err);
	v = get(t, "status");
	if (!YAJL_IS_OBJECT(t) || !v || !YAJL_IS_INTEGER(v) ||
	    YAJL_GET_INTEGER(v) != r->status)
		rc = fail(c, "result %s: body status is not %d", r->uuid,
			  r->status);
	else if ((v = get(t, "type")) && YAJL_IS_STRING(v) &&
		 !strcmp(sval(v), "table"))
		rc = check_table(c, t, r->status);
	else if (r->status != 200)
		rc = check_error(c, r, t);
	yajl_tree_free(t);
	return rc;
}

static int one_line(struct ndc *c, const char *s, size_t len)
{
	char buf[4096];
	char *w[MAX_WORDS];
	int nw, known = -1;

	c->line++;
	if (c->in_result)
		return result_line(c, s, len);
	if (c->disabled)
		return fail(c, "output after DISABLE");
	if (len >= sizeof buf)
		return fail(c, "line of %zu bytes", len);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')
			return fail(c, "control byte or backslash 0x%02x at %zu",
				    (unsigned char)s[i], i);
	if (split(c, s, len, buf, w, &nw))
		return -1;
	if (!nw)
		return fail(c, "empty line");
	for (int i = 0; keywords[i]; i++)
		if (!strcmp(w[0], keywords[i]))
			known = i;
	if (known < 0)
		return fail(c, "unknown keyword '%s'", w[0]);
	count(c, keywords[known]);
	if (strcmp(w[0], "CLABEL") && strcmp(w[0], "CLABEL_COMMIT") &&
	    strcmp(w[0], "DIMENSION")) {
		if (c->labels_pending)
			return fail(c, "CLABEL without CLABEL_COMMIT");
		c->after_chart = false;
	}
	if (!strcmp(w[0], "CHART"))
		return do_chart(c, w, nw);
	if (!strcmp(w[0], "DIMENSION")) {
		if (c->begun)
			return fail(c, "DIMENSION inside BEGIN..END");
		c->after_chart = false;
		return do_dimension(c, w, nw);
	}
	if (!strcmp(w[0], "BEGIN"))
		return do_begin(c, w, nw);
	if (!strcmp(w[0], "SET"))
		return do_set(c, w, nw);
	if (!strcmp(w[0], "END"))
		return do_end(c, nw);
	if (!strcmp(w[0], "CLABEL")) {
		long long src;
		if (!c->after_chart)
			return fail(c, "CLABEL not right after CHART");
		if (nw != 4 || !is_int(w[3], &src))
			return fail(c, "CLABEL needs name, value and source");
		if (!is_id(w[1]) || !*w[2])
			return fail(c, "bad CLABEL '%s' '%s'", w[1], w[2]);
		snprintf(c->cur->label_key, sizeof c->cur->label_key, "%s",
			 w[1]);
		snprintf(c->cur->label, sizeof c->cur->label, "%s", w[2]);
		c->labels_pending = true;
		return 0;
	}
	if (!strcmp(w[0], "CLABEL_COMMIT")) {
		if (!c->labels_pending)
			return fail(c, "CLABEL_COMMIT without CLABEL");
		c->labels_pending = c->after_chart = false;
		return 0;
	}
	if (c->begun)
		return fail(c, "%s inside BEGIN..END", w[0]);
	if (!strcmp(w[0], "VARIABLE")) {
		char *end;
		double v;

		/* memz sends chart variables only, after the chart's CHART:
		 * netdata sets them on the chart last named */
		if (nw != 4 || strcmp(w[1], "CHART") || !is_id(w[2]))
			return fail(c, "VARIABLE needs CHART, a name and a value");
		if (!c->cur)
			return fail(c, "VARIABLE CHART before any CHART");
		v = strtod(w[3], &end);
		if (!*w[3] || *end || v != v)
			return fail(c, "VARIABLE %s: '%s' is not a number", w[2],
				    w[3]);
		snprintf(c->cur->var, sizeof c->cur->var, "%s", w[2]);
		c->cur->var_value = v;
		return 0;
	}
	if (!strcmp(w[0], "FUNCTION"))
		return do_function(c, w, nw);
	if (!strcmp(w[0], "PLUGIN_KEEPALIVE")) {
		if (c->version < V(2, 7))
			return fail(c, "PLUGIN_KEEPALIVE is unknown before netdata 2.7");
		if (nw != 1)
			return fail(c, "PLUGIN_KEEPALIVE with arguments");
		return 0;
	}
	if (!strcmp(w[0], "FUNCTION_RESULT_BEGIN"))
		return do_result_begin(c, w, nw);
	if (!strcmp(w[0], "DISABLE"))
		c->disabled = true;
	return 0;
}

int ndc_feed(struct ndc *c, const char *text, size_t len)
{
	size_t start = 0;

	if (c->err[0])
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\n')
			continue;
		if (one_line(c, text + start, i - start))
			return -1;
		start = i + 1;
	}
	if (start < len) {
		c->line++;
		return fail(c, "text after the last newline");
	}
	return 0;
}

struct ndc *ndc_new(void)
{
	struct ndc *c = calloc(1, sizeof(struct ndc));

	if (c) {
		c->version = V(1, 37);
		c->check_tables = true;
	}
	return c;
}

void ndc_set_version(struct ndc *c, unsigned major, unsigned minor)
{
	c->version = V(major, minor);
}

void ndc_check_tables(struct ndc *c, bool on)
{
	c->check_tables = on;
}

bool ndc_chart_obsolete(const struct ndc *c, const char *chart)
{
	const struct chartrec *ch = chart_find(c, chart);
	return ch && ch->obsolete;
}

const char *ndc_chart_label(const struct ndc *c, const char *chart,
			    const char *key)
{
	const struct chartrec *ch = chart_find(c, chart);
	return ch && !strcmp(ch->label_key, key) ? ch->label : NULL;
}

const char *ndc_chart_context(const struct ndc *c, const char *chart)
{
	const struct chartrec *ch = chart_find(c, chart);
	return ch ? ch->context : NULL;
}

size_t ndc_chart_count(const struct ndc *c, const char *context, bool live)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_charts; i++)
		n += !strcmp(c->charts[i].context, context) &&
		     (!live || !c->charts[i].obsolete);
	return n;
}

void ndc_free(struct ndc *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_charts; i++)
		free(c->charts[i].d);
	free(c->charts);
	for (size_t i = 0; i < c->n_results; i++)
		free(c->results[i].body);
	free(c->results);
	free(c);
}

const char *ndc_error(const struct ndc *c)
{
	if (c->err[0])
		return c->err;
	if (c->begun)
		return "stream ends inside BEGIN..END";
	if (c->in_result)
		return "stream ends inside a FUNCTION_RESULT";
	return NULL;
}

bool ndc_has_chart(const struct ndc *c, const char *chart)
{
	return chart_find(c, chart) != NULL;
}

bool ndc_chart_var(const struct ndc *c, const char *chart, const char *name,
		   double *v)
{
	const struct chartrec *ch = chart_find(c, chart);

	if (!ch || strcmp(ch->var, name))
		return false;
	*v = ch->var_value;
	return true;
}

const char *ndc_dim_id(const struct ndc *c, const char *chart,
		       const char *name)
{
	const struct chartrec *ch = chart_find(c, chart);

	for (size_t i = 0; ch && i < ch->n; i++)
		if (!strcmp(ch->d[i].name, name))
			return ch->d[i].id;
	return NULL;
}

bool ndc_dim_obsolete(const struct ndc *c, const char *chart, const char *id)
{
	const struct dimrec *d = dim_find(chart_find(c, chart), id);
	return d && d->obsolete;
}

unsigned ndc_dim_count(const struct ndc *c, const char *chart, bool live)
{
	const struct chartrec *ch = chart_find(c, chart);
	unsigned n = 0;

	for (size_t i = 0; ch && i < ch->n; i++)
		n += !live || !ch->d[i].obsolete;
	return n;
}

bool ndc_last(const struct ndc *c, const char *chart, const char *id,
	      long long *value)
{
	const struct dimrec *d = dim_find(chart_find(c, chart), id);

	if (!d || !d->has_value)
		return false;
	*value = d->value;
	return true;
}

bool ndc_set_last_update(const struct ndc *c, const char *chart,
			 const char *id)
{
	const struct dimrec *d = dim_find(chart_find(c, chart), id);
	return d && d->set_last;
}

long ndc_dim_divisor(const struct ndc *c, const char *chart, const char *id)
{
	const struct dimrec *d = dim_find(chart_find(c, chart), id);
	return d ? d->div : 0;
}

unsigned ndc_count(const struct ndc *c, const char *keyword)
{
	for (size_t i = 0; i < 16 && c->counts[i].kw; i++)
		if (!strcmp(c->counts[i].kw, keyword))
			return c->counts[i].n;
	return 0;
}

size_t ndc_n_results(const struct ndc *c)
{
	return c->n_results;
}

const struct ndc_result *ndc_get_result(const struct ndc *c, size_t i)
{
	return i < c->n_results ? &c->results[i] : NULL;
}

bool ndc_disabled(const struct ndc *c)
{
	return c->disabled;
}
