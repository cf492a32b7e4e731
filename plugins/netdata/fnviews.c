#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memz/cgroup.h"
#include "memz/json.h"
#include "memz/report.h"
#include "memz/sampler.h"
#include "fnviews.h"
#include "ndtable.h"

#define MIB 1048576.0

/* A series' value as the JSON writes it: null where obj lacks it or it
 * has none (time to OOM while nothing grows). */
static void series_cell(yajl_gen g, const struct memz_series *s,
			const void *obj, double scale)
{
	if (!s || !obj || !memz_series_has(s, obj) || memz_series_none(s, obj))
		yajl_gen_null(g);
	else
		memz_json_double(g, memz_series_value(s, obj) / scale);
}

static void str_cell(yajl_gen g, const char *s)
{
	if (s)
		memz_json_string(g, s, strlen(s));
	else
		yajl_gen_null(g);
}

static void since_cell(yajl_gen g, const struct memz_verdict *v, double t)
{
	if (v->leak && v->since > 0 && t >= v->since)
		memz_json_double(g, round(t - v->since));
	else
		yajl_gen_null(g);
}

/* The cells of MEM_COLS, in its order. */
static void mem_cells(yajl_gen g, uint64_t pss, uint64_t uss, uint64_t swap,
		      const struct memz_verdict *v, double t)
{
	memz_json_double(g, (double)pss / MIB);
	memz_json_double(g, (double)uss / MIB);
	memz_json_double(g, (double)swap / MIB);
	memz_json_double(g, v->rate_bps / 1024.0);
	yajl_gen_bool(g, v->leak);
	yajl_gen_integer(g, v->confidence);
	since_cell(g, v, t);
}

void memz_nd_select_open(yajl_gen g, const char *id, const char *name,
			const char *help)
{
	memz_json_str(g, "required_params");
	yajl_gen_array_open(g);
	yajl_gen_map_open(g);
	memz_json_kv_str(g, "id", id);
	memz_json_kv_str(g, "name", name);
	memz_json_kv_str(g, "help", help);
	memz_json_kv_str(g, "type", "select");
	memz_json_str(g, "options");
	yajl_gen_array_open(g);
}

void memz_nd_select_close(yajl_gen g)
{
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_array_close(g);
}

/* The parameters each function takes, by id, in every answer (header and
 * data), as netdata 2.10.4's own tables list theirs (network-viewer.c,
 * function-metrics-cardinality.c): its UI sends a table only the
 * parameters listed there, so a required one missing from the list would
 * never reach memz. The words of parse_args() in functions.c; memz-inspect's
 * are fninspect.c's. */
static const char *const top_accepts[] = { "view", "group", NULL };
static const char *const oom_accepts[] = { NULL };

/* memz-top's view select, so 2.x's UI offers both tables. */
static void view_param(yajl_gen g, bool processes)
{
	static const char *const ids[] = { "groups", "processes" };
	static const char *const names[] = { "Process groups",
		"Processes (the largest by PSS)" };

	memz_nd_select_open(g, "view", "View",
			    "Process groups, or single processes");
	for (int i = 0; i < 2; i++) {
		yajl_gen_map_open(g);
		memz_json_kv_str(g, "id", ids[i]);
		memz_json_kv_str(g, "name", names[i]);
		if (i == (processes ? 1 : 0))
			memz_json_kv_bool(g, "defaultSelected", true);
		yajl_gen_map_close(g);
	}
	memz_nd_select_close(g);
}

/* The columns both memz-top views have, in this order: PSS to Since (of a
 * group or a process: who), and LeakParts. */
#define MEM_COLS(who, since_shown)                                          \
	{ "PSS", "Proportional set size", "bar-with-integer", "bar", "number", \
	  "MiB", 1, "descending", "sum", "range", true, false, false },      \
	{ "USS", "Unique set size (freed if the " who " exited)",             \
	  "bar-with-integer", "bar", "number", "MiB", 1, "descending", "sum", \
	  "range", true, false, false },                                     \
	{ "Swap", "Swap used", "bar-with-integer", "bar", "number", "MiB", 1, \
	  "descending", "sum", "range", true, false, false },                \
	{ "Growth", "PSS growth rate", "integer", "value", "number", "KiB/s", \
	  1, "descending", "sum", "range", true, false, false },             \
	{ "Leak", "Leak suspect", "boolean", "value", "none", "", 0,          \
	  "descending", "count", "facet", true, false, false },              \
	{ "Confidence", "Leak verdict confidence", "integer", "value",        \
	  "number", "%", 0, "descending", "max", "range", true, false,       \
	  false },                                                           \
	{ "Since", "Growing for", "duration", "value", "duration", "s", 0,    \
	  "descending", "max", "range", since_shown, false, false }
#define LEAKPARTS_COL                                                        \
	{ "LeakParts", "What the leak is made of (smaps categories that grew)", \
	  "string", "value", "none", "", 0, "ascending", "count", "none",     \
	  true, false, false }

enum { T_GROUP, T_PSS, T_USS, T_SWAP, T_GROWTH, T_LEAK, T_CONF, T_SINCE,
       T_PROCS, T_CGNAME, T_CGUSAGE, T_CGLIMIT, T_TTO, T_PARTS, T_N };

static const struct memz_nd_col top_cols[T_N + 1] = {
	{ "Group", "Process group", "string", "value", "none", "", 0,
	  "ascending", "count", "multiselect", true, true, true },
	MEM_COLS("group", true),
	{ "Processes", "Processes in the group", "integer", "value", "number",
	  "", 0, "descending", "sum", "range", true, false, false },
	/* shown under GroupBy cgroup only: no other group has a cgroup */
	{ "Cgroup", "What an operator calls the cgroup (unit, container, pod)",
	  "string", "value", "none", "", 0, "ascending", "count",
	  "multiselect", false, false, false },
	{ "CgroupUsage", "The cgroup's own memory usage (page cache included)",
	  "bar-with-integer", "bar", "number", "MiB", 1, "descending", "sum",
	  "range", false, false, false },
	{ "CgroupLimit", "The cgroup's memory limit", "integer", "value",
	  "number", "MiB", 1, "descending", "max", "range", false, false,
	  false },
	{ "TimeToOOM", "Time until the cgroup's memory runs out at the leaks' rate",
	  "duration", "value", "duration", "s", 0, "ascending", "min", "range",
	  false, false, false },
	LEAKPARTS_COL,
	MEMZ_ND_ROWOPT,
};

static void top_groups(yajl_gen g, const struct memz_nd_fctx *ctx, bool info)
{
	const struct memz_snapshot *s = ctx->snap;
	const struct memz_series *usage =
		memz_series_find(&memz_series_group, "cgroup_usage");
	const struct memz_series *limit =
		memz_series_find(&memz_series_group, "cgroup_limit");
	const struct memz_series *tto =
		memz_series_find(&memz_series_oom, "time_to_oom");
	const struct memz_proc *found[MEMZ_LEAKPARTS_KEPT];
	struct memz_nd_col cols[T_N + 1];
	double max[T_N + 1];
	bool by_cgroup = false;

	memcpy(cols, top_cols, sizeof cols);
	for (size_t i = 0; i <= T_N; i++)
		max[i] = NAN;
	max[T_PSS] = max[T_USS] = max[T_SWAP] = max[T_CGUSAGE] = 0;
	for (size_t i = 0; s && i < s->view.n_groups; i++) {
		const struct memz_group *gr = s->view.groups[i];
		max[T_PSS] = fmax(max[T_PSS], (double)gr->pss / MIB);
		max[T_USS] = fmax(max[T_USS], (double)gr->uss / MIB);
		max[T_SWAP] = fmax(max[T_SWAP], (double)gr->swap / MIB);
		max[T_CGUSAGE] = fmax(max[T_CGUSAGE],
				      memz_series_value(usage, gr) / MIB);
		by_cgroup |= gr->cgroup != NULL;
	}
	cols[T_CGNAME].visible = cols[T_CGUSAGE].visible =
		cols[T_CGLIMIT].visible = cols[T_TTO].visible = by_cgroup;
	memz_leakparts_kept_procs(ctx->parts, s ? &s->view : NULL, found);
	memz_nd_table_head(g, 200, ctx->update_every,
	     "Process groups by proportional set size, with memz's leak verdicts and what a leak is made of; a suspect's row is highlighted, one whose cgroup runs out of memory under OomWarn more so");
	memz_nd_accepted_params(g, top_accepts);
	view_param(g, false);
	memz_nd_table_columns(g, cols, T_N + 1, max);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	for (size_t i = 0; !info && s && i < s->view.n_groups; i++) {
		const struct memz_group *gr = s->view.groups[i];
		const struct memz_verdict *v = &gr->det.verdict;
		const struct memz_oom_scope *sc = memz_report_scope_of(&s->oom,
			gr->cgroup ? gr->cgroup->path : NULL);

		yajl_gen_array_open(g);
		str_cell(g, gr->name ? gr->name : "");
		mem_cells(g, gr->pss, gr->uss, gr->swap, v, s->t);
		yajl_gen_integer(g, gr->members);
		str_cell(g, gr->cgroup ? gr->cgroup->n.name : NULL);
		series_cell(g, usage, gr, MIB);
		series_cell(g, limit, gr, MIB);
		series_cell(g, tto, sc, 1);
		str_cell(g, v->leak ? memz_leakparts_kept_group(ctx->parts,
								found, gr)
				    : NULL);
		memz_nd_row_options(g, sc && sc->warn ? "critical"
				    : v->leak ? "warning" : "normal");
		yajl_gen_array_close(g);
	}
	yajl_gen_array_close(g);
	memz_nd_table_tail(g, "PSS", ctx->update_every);
}

enum { P_PID, P_NAME, P_GROUP, P_PSS, P_USS, P_SWAP, P_GROWTH, P_LEAK,
       P_CONF, P_SINCE, P_EST, P_ERR, P_TTO, P_PARTS, P_N };

static const struct memz_nd_col proc_cols[P_N + 1] = {
	{ "PID", "Process id", "integer", "value", "none", "", 0,
	  "ascending", "count", "none", true, true, true },
	{ "Name", "Process name", "string", "value", "none", "", 0,
	  "ascending", "count", "multiselect", true, false, true },
	{ "Group", "Process group", "string", "value", "none", "", 0,
	  "ascending", "uniqueCount", "multiselect", true, false, false },
	MEM_COLS("process", false),
	{ "Estimated", "PSS and USS estimated from status and a pagemap walk (resident above ExactMaxRss), not read by smaps_rollup",
	  "boolean", "value", "none", "", 0, "descending", "count", "facet",
	  true, false, false },
	{ "PSSError", "How far an estimated PSS may be from smaps_rollup's (plus or minus)",
	  "integer", "value", "number", "MiB", 1, "descending", "max", "range",
	  true, false, false },
	/* shown when a cgroup is watched: the machine's is memz-oom's */
	{ "TimeToOOM", "Time until its memory cgroup runs out at the leaks' rate",
	  "duration", "value", "duration", "s", 0, "ascending", "min", "range",
	  false, false, false },
	LEAKPARTS_COL,
	MEMZ_ND_ROWOPT,
};

static int by_pss(const void *a, const void *b)
{
	const struct memz_proc *x = *(const struct memz_proc *const *)a;
	const struct memz_proc *y = *(const struct memz_proc *const *)b;

	if (x->mem.pss != y->mem.pss)
		return x->mem.pss < y->mem.pss ? 1 : -1;
	return x->pid - y->pid;
}

static bool in_group(const struct memz_proc *p, const char *group)
{
	return !group || (p->group && p->group->name &&
			  !strcmp(p->group->name, group));
}

const struct memz_proc **
memz_nd_sorted_procs(const struct memz_snapshot *s, size_t max,
	     bool (*keep)(const struct memz_proc *, const char *),
	     const char *arg, size_t *n)
{
	const struct memz_proc **v;
	size_t k = 0;

	*n = 0;
	if (!s || !s->view.n_procs)
		return NULL;
	v = malloc(s->view.n_procs * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->view.n_procs; i++)
		if (keep(s->view.procs[i], arg))
			v[k++] = s->view.procs[i];
	qsort(v, k, sizeof *v, by_pss);
	*n = k < max ? k : max;
	return v;
}

static int top_procs(yajl_gen g, const struct memz_nd_fctx *ctx,
		     const struct memz_nd_args *a)
{
	const struct memz_snapshot *s = ctx->snap;
	const struct memz_proc *found[MEMZ_LEAKPARTS_KEPT];
	const struct memz_proc **v = NULL;
	const struct memz_series *tto =
		memz_series_find(&memz_series_oom, "time_to_oom");
	struct memz_nd_col cols[P_N + 1];
	double max[P_N + 1];
	size_t n = 0;
	char help[192];

	if (!a->info)
		v = memz_nd_sorted_procs(s, MEMZ_ND_PROCS_MAX, in_group, a->group, &n);
	if (!a->info && a->group && !n) {
		free(v);
		memz_nd_error_body(g, 404, "no process in that group");
		return 404;
	}
	for (size_t i = 0; i <= P_N; i++)
		max[i] = NAN;
	max[P_PSS] = max[P_USS] = max[P_SWAP] = 0;
	for (size_t i = 0; i < n; i++) {
		max[P_PSS] = fmax(max[P_PSS], (double)v[i]->mem.pss / MIB);
		max[P_USS] = fmax(max[P_USS],
				  (double)memz_rollup_uss(&v[i]->mem) / MIB);
		max[P_SWAP] = fmax(max[P_SWAP], (double)v[i]->mem.swap / MIB);
	}
	memz_leakparts_kept_procs(ctx->parts, s ? &s->view : NULL, found);
	snprintf(help, sizeof help,
		 "Processes by proportional set size (the largest %d), with memz's leak verdicts; Estimated: PSS from status and a pagemap walk, within PSSError of smaps_rollup's",
		 MEMZ_ND_PROCS_MAX);
	memcpy(cols, proc_cols, sizeof cols);
	cols[P_TTO].visible = s && s->oom.n_scopes > 1;
	memz_nd_table_head(g, 200, ctx->update_every, help);
	memz_nd_accepted_params(g, top_accepts);
	view_param(g, true);
	memz_nd_table_columns(g, cols, P_N + 1, max);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++) {
		const struct memz_proc *p = v[i];
		const struct memz_verdict *vd = &p->det.verdict;

		yajl_gen_array_open(g);
		yajl_gen_integer(g, p->pid);
		str_cell(g, p->name ? p->name : "");
		str_cell(g, p->group ? p->group->name : NULL);
		mem_cells(g, p->mem.pss, memz_rollup_uss(&p->mem), p->mem.swap, vd,
			  s->t);
		yajl_gen_bool(g, p->estimated);
		if (p->estimated)
			memz_json_double(g, (double)p->pss_error / MIB);
		else
			yajl_gen_null(g);
		series_cell(g, tto, memz_report_scope_of(&s->oom, p->memcg), 1);
		str_cell(g, memz_leakparts_kept_proc(ctx->parts, found, p));
		memz_nd_row_options(g, vd->leak ? "warning" : "normal");
		yajl_gen_array_close(g);
	}
	yajl_gen_array_close(g);
	memz_nd_table_tail(g, "PSS", ctx->update_every);
	free(v);
	return 200;
}

int memz_nd_view_top(yajl_gen g, const struct memz_nd_fctx *ctx,
		     const struct memz_nd_args *a)
{
	if (a->processes)
		return top_procs(g, ctx, a);
	top_groups(g, ctx, a->info);
	return 200;
}

enum { O_ROW, O_KIND, O_SCOPE, O_TTO, O_AVAIL, O_LIMIT, O_GROWTH, O_CONF,
       O_DRIVERS, O_KILLS, O_AGO, O_VICTIM, O_PID, O_PSS, O_VERDICT,
       O_SURE, O_N };

static const struct memz_nd_col oom_cols[O_N + 1] = {
	{ "Row", "Row", "string", "value", "none", "", 0, "ascending",
	  "count", "none", false, true, false },
	{ "Kind", "Forecast (per scope) or OOM kill", "string", "value",
	  "none", "", 0, "ascending", "count", "facet", true, false, true },
	{ "Scope", "The machine, or a memory-limited cgroup", "string",
	  "value", "none", "", 0, "ascending", "uniqueCount", "multiselect",
	  true, false, true },
	{ "TimeToOOM", "Time until memory runs out at the leaks' rate",
	  "duration", "value", "duration", "s", 0, "ascending", "min", "range",
	  true, false, false },
	{ "Available", "What may still grow before the OOM killer acts",
	  "bar-with-integer", "bar", "number", "MiB", 1, "ascending", "min",
	  "range", true, false, false },
	{ "Limit", "The scope's limit (machine: RAM and swap)", "integer",
	  "value", "number", "MiB", 1, "descending", "max", "range", false,
	  false, false },
	{ "Growth", "Growth of the leak suspects in the scope", "integer",
	  "value", "number", "KiB/s", 1, "descending", "sum", "range", true,
	  false, false },
	{ "Confidence", "Forecast confidence", "integer", "value", "number",
	  "%", 0, "descending", "max", "range", true, false, false },
	{ "Drivers", "What grows, with its share of the growth", "string",
	  "value", "none", "", 0, "ascending", "count", "none", true, false,
	  false },
	{ "Kills", "OOM kills counted since memz started", "integer", "value",
	  "number", "", 0, "descending", "sum", "range", true, false, false },
	{ "Ago", "How long before the last sample the kill was seen",
	  "duration", "value", "duration", "s", 0, "ascending", "min", "range",
	  true, false, false },
	{ "Victim", "The process killed (unknown: none fitted)", "string",
	  "value", "none", "", 0, "ascending", "count", "multiselect", true,
	  false, false },
	{ "PID", "The victim's pid", "integer", "value", "none", "", 0,
	  "ascending", "count", "none", true, false, false },
	{ "LastPSS", "The victim's PSS as last sampled", "bar-with-integer",
	  "bar", "number", "MiB", 1, "descending", "sum", "range", true, false,
	  false },
	{ "Verdict", "Whether memz had flagged the victim as leaking",
	  "string", "value", "none", "", 0, "ascending", "count", "facet",
	  true, false, false },
	{ "Sure", "How sure memz is of the victim", "integer", "value",
	  "number", "%", 0, "descending", "max", "range", true, false, false },
	MEMZ_ND_ROWOPT,
};

/* "name[pid] 92%, group 8%": the names are raw bytes, the JSON writer
 * makes them safe. */
static void drivers_text(const struct memz_oom_scope *sc, char *buf,
			 size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sc->n_drivers && off < len; i++) {
		const struct memz_oom_driver *d = &sc->drivers[i];
		char pid[24] = "";
		int n;

		if (d->pid)
			snprintf(pid, sizeof pid, "[%d]", d->pid);
		n = snprintf(buf + off, len - off, "%s%s%s %.0f%%",
			     i ? ", " : "", d->name, pid, d->share * 100);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static void nulls(yajl_gen g, int n)
{
	while (n-- > 0)
		yajl_gen_null(g);
}

static void oom_scope_row(yajl_gen g, const struct memz_oom_scope *sc)
{
	char drivers[MEMZ_OOM_MAX_DRIVERS * (MEMZ_OOM_NAME_MAX + 32)];
	const struct memz_series_table *t = &memz_series_oom;

	drivers_text(sc, drivers, sizeof drivers);
	yajl_gen_array_open(g);
	str_cell(g, sc->id);
	str_cell(g, "forecast");
	str_cell(g, sc->path[0] ? sc->path : "machine");
	series_cell(g, memz_series_find(t, "time_to_oom"), sc, 1);
	series_cell(g, memz_series_find(t, "available"), sc, MIB);
	series_cell(g, memz_series_find(t, "limit"), sc, MIB);
	series_cell(g, memz_series_find(t, "oom_growth"), sc, 1024);
	series_cell(g, memz_series_find(t, "oom_confidence"), sc, 1);
	str_cell(g, sc->n_drivers ? drivers : NULL);
	if (sc->has_kills)
		series_cell(g, memz_series_find(t, "oom_kills"), sc, 1);
	else
		yajl_gen_null(g);
	nulls(g, O_N - O_AGO);
	memz_nd_row_options(g, sc->warn ? "critical"
			    : isfinite(sc->seconds) ? "warning" : "normal");
	yajl_gen_array_close(g);
}

static void oom_kill_row(yajl_gen g, const struct memz_oom_kill *k,
			 size_t i, double t)
{
	char row[32], verdict[48];

	snprintf(row, sizeof row, "kill-%zu", i + 1);
	if (k->leak)
		snprintf(verdict, sizeof verdict, "leak suspect (%d%%)",
			 k->leak_confidence);
	else
		snprintf(verdict, sizeof verdict, "no leak verdict");
	yajl_gen_array_open(g);
	str_cell(g, row);
	str_cell(g, "kill");
	str_cell(g, k->scope[0] ? k->scope : "machine");
	nulls(g, O_AGO - O_TTO);
	if (t >= k->t)
		memz_json_double(g, round(t - k->t));
	else
		yajl_gen_null(g);
	str_cell(g, k->known ? k->name : "unknown");
	if (k->known) {
		yajl_gen_integer(g, k->pid);
		memz_json_double(g, (double)k->pss / MIB);
		str_cell(g, verdict);
	} else {
		nulls(g, 3);
	}
	yajl_gen_integer(g, k->sure);
	memz_nd_row_options(g, "critical");
	yajl_gen_array_close(g);
}

int memz_nd_view_oom(yajl_gen g, const struct memz_nd_fctx *ctx,
		     const struct memz_nd_args *a)
{
	const struct memz_snapshot *s = ctx->snap;
	const struct memz_oom_view *o = s ? &s->oom : NULL;
	double max[O_N + 1];

	for (size_t i = 0; i <= O_N; i++)
		max[i] = NAN;
	max[O_AVAIL] = max[O_PSS] = 0;
	for (size_t i = 0; o && i < o->n_scopes; i++)
		max[O_AVAIL] = fmax(max[O_AVAIL],
				    (double)o->scope[i].available / MIB);
	for (size_t i = 0; o && i < o->n_kills; i++)
		max[O_PSS] = fmax(max[O_PSS], (double)o->kill[i].pss / MIB);
	memz_nd_table_head(g, 200, ctx->update_every,
	     "Time to OOM per scope (the machine and each memory-limited cgroup), from the leak suspects' growth, and the last OOM kills with the process each took");
	memz_nd_accepted_params(g, oom_accepts);
	memz_nd_table_columns(g, oom_cols, O_N + 1, max);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	for (size_t i = 0; !a->info && o && i < o->n_scopes; i++)
		oom_scope_row(g, &o->scope[i]);
	for (size_t i = 0; !a->info && o && i < o->n_kills; i++)
		oom_kill_row(g, &o->kill[i], i, s->t);
	yajl_gen_array_close(g);
	memz_nd_table_tail(g, "TimeToOOM", ctx->update_every);
	return 200;
}
