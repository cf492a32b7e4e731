/*
 * memz.plugin's functions as netdata 2.x's UI and 1.37.1's parents call
 * them: every reply goes through the strict checker (which knows the 2.x
 * table schema) and its JSON is read back to check the values. The input
 * side is fed through a pipe: both call forms, cancels, payloads, QUIT,
 * hostile transaction ids and a flood that must be queued, answered 503
 * beyond the queue and served in budgeted slices.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "check.h"
#include "memz/budget.h"
#include "memz/sampler.h"
#include "sampler_util.h"
#include "memz/cgroup.h"
#include "netdata/ndcheck.h"
#include "../plugins/netdata/functions.h"

#define MIB 1048576ULL

struct world {
	struct memz_snapshot snap;
	struct memz_group g[3];
	const struct memz_group *gp[3];
	struct memz_proc p[4];
	const struct memz_proc *pp[4];
	struct memz_nd_fctx ctx;
};

static void world_init(struct world *w)
{
	static const char *const gnames[] = { "app", "leaky", "small" };
	static const char *const pnames[] = { "app", "leaky", "small", "app" };
	static const int pids[] = { 300, 200, 100, 301 };
	static const int pgroup[] = { 0, 1, 2, 0 };
	static const uint64_t ppss[] = { 30, 5, 1, 40 };
	/* the cli fixture's start times: 301 has no directory there */
	static const unsigned long long pstart[] = { 900000, 700000, 500000,
						     0 };

	memset(w, 0, sizeof *w);
	for (int i = 0; i < 3; i++) {
		w->g[i].name = gnames[i];
		w->gp[i] = &w->g[i];
	}
	w->g[0].pss = 70 * MIB;
	w->g[0].uss = 60 * MIB;
	w->g[0].members = 2;
	w->g[0].reported = true;
	w->g[1].pss = 5 * MIB;
	w->g[1].uss = 5 * MIB;
	w->g[1].members = 1;
	w->g[1].det.verdict.leak = true;
	w->g[1].det.verdict.rate_bps = 262144;
	w->g[1].det.verdict.confidence = 90;
	w->g[1].det.verdict.since = 100;
	w->g[2].pss = 1 * MIB;
	w->g[2].members = 1;
	for (int i = 0; i < 4; i++) {
		w->p[i].pid = pids[i];
		w->p[i].name = pnames[i];
		w->p[i].mem.pss = ppss[i] * MIB;
		w->p[i].start = pstart[i];
		w->p[i].group = &w->g[pgroup[i]];
		w->pp[i] = &w->p[i];
	}
	w->snap.t = 160;
	w->snap.view.groups = w->gp;
	w->snap.view.n_groups = 3;
	w->snap.view.procs = w->pp;
	w->snap.view.n_procs = 4;
	w->ctx.snap = &w->snap;
	w->ctx.proc_root = MEMZ_FIXTURES "/cli/proc";
	w->ctx.update_every = 1;
}

/* What the plugin wrote, checked, with each result's JSON parsed. */
struct out {
	char *buf;
	size_t len;
	FILE *f;
	struct ndc *chk;
};

static void out_open(struct out *o)
{
	memset(o, 0, sizeof *o);
	o->f = open_memstream(&o->buf, &o->len);
	o->chk = ndc_new();
	CHECK(o->f && o->chk);
}

static void out_check(struct out *o)
{
	fflush(o->f);
	if (ndc_feed(o->chk, o->buf, o->len) || ndc_error(o->chk)) {
		fprintf(stderr, "checker: %s\n--- output:\n%.2000s\n",
			ndc_error(o->chk), o->buf);
		CHECK(!"protocol error");
	}
}

static void out_close(struct out *o)
{
	fclose(o->f);
	free(o->buf);
	ndc_free(o->chk);
}

static const struct ndc_result *res(struct out *o, const char *tx)
{
	for (size_t i = 0; i < ndc_n_results(o->chk); i++)
		if (!strcmp(ndc_get_result(o->chk, i)->uuid, tx))
			return ndc_get_result(o->chk, i);
	return NULL;
}

static size_t count_status(struct out *o, int status)
{
	size_t n = 0;

	for (size_t i = 0; i < ndc_n_results(o->chk); i++)
		n += ndc_get_result(o->chk, i)->status == status;
	return n;
}

static yajl_val parse(const struct ndc_result *r)
{
	char err[128];
	yajl_val v = r && r->body ? yajl_tree_parse(r->body, err, sizeof err) : NULL;

	CHECK(v != NULL);
	return v;
}

static const char *sv(yajl_val v)
{
	return v && YAJL_IS_STRING(v) ? v->u.string : "";
}

static yajl_val at(yajl_val v, const char *a, const char *b)
{
	const char *path[] = { a, b, NULL };
	return v ? yajl_tree_get(v, path, yajl_t_any) : NULL;
}

static int col_index(yajl_val t, const char *col)
{
	yajl_val v = at(at(t, "columns", col), "index", NULL);
	return v && YAJL_IS_INTEGER(v) ? (int)YAJL_GET_INTEGER(v) : -1;
}

static const char *col_str(yajl_val t, const char *col, const char *field)
{
	yajl_val c = at(t, "columns", col);
	yajl_val v = at(c, field, NULL);
	return sv(v);
}

static yajl_val cell(yajl_val t, size_t row, int col)
{
	yajl_val d = at(t, "data", NULL), r;

	if (!d || !YAJL_IS_ARRAY(d) || row >= d->u.array.len || col < 0)
		return NULL;
	r = d->u.array.values[row];
	return (size_t)col < r->u.array.len ? r->u.array.values[col] : NULL;
}

static size_t n_rows(yajl_val t)
{
	yajl_val d = at(t, "data", NULL);
	return d && YAJL_IS_ARRAY(d) ? d->u.array.len : 0;
}

static double num(yajl_val v)
{
	return v && YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : -1e9;
}

/* An error body's message: 2.x reads errorMessage, 1.x error_message, and
 * both must say the same. */
static const char *err_msg(yajl_val t)
{
	yajl_val v2 = at(t, "errorMessage", NULL), v1 = at(t, "error_message", NULL);

	CHECK(v2 && YAJL_IS_STRING(v2));
	CHECK(v1 && YAJL_IS_STRING(v1));
	CHECK_STR(sv(v2), sv(v1));
	return sv(v2);
}

/* A row's severity, in the flat {"severity": ...} cell netdata 2.x's own
 * tables end a row with (its only key). */
static const char *severity(yajl_val t, size_t row)
{
	yajl_val c = cell(t, row, col_index(t, "rowOptions"));
	yajl_val v = at(c, "severity", NULL);

	CHECK(c && YAJL_IS_OBJECT(c) && c->u.object.len == 1);
	CHECK(v && YAJL_IS_STRING(v));
	return sv(v);
}

static void test_top(void)
{
	struct world w;
	struct out o;
	yajl_val t;

	world_init(&w);
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "tx-top", "memz-top", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "tx-info", "memz-top info", &w.ctx), 0);
	out_check(&o);
	t = parse(res(&o, "tx-top"));
	CHECK_INT(res(&o, "tx-top")->status, 200);
	/* columns typed as the UI renders them, units in value_options */
	CHECK_STR(col_str(t, "PSS", "type"), "bar-with-integer");
	CHECK_STR(col_str(t, "Leak", "type"), "boolean");
	CHECK_STR(col_str(t, "Since", "type"), "duration");
	CHECK_STR(col_str(t, "Growth", "type"), "integer");
	CHECK_STR(col_str(t, "rowOptions", "visualization"), "rowOptions");
	CHECK_STR(col_str(t, "Group", "filter"), "multiselect");
	{
		yajl_val vo = at(at(t, "columns", "PSS"), "value_options", NULL);
		yajl_val u = at(vo, "units", NULL), d = at(vo, "decimal_points", NULL);
		CHECK(u && YAJL_IS_STRING(u) && !strcmp(sv(u), "MiB"));
		CHECK(d && YAJL_IS_INTEGER(d) && YAJL_GET_INTEGER(d) == 1);
	}
	CHECK_STR(sv(at(t, "default_sort_column", NULL)), "PSS");
	CHECK_INT(n_rows(t), 3);
	CHECK_STR(sv(cell(t, 0, col_index(t, "Group"))), "app");
	CHECK_NEAR(num(cell(t, 0, col_index(t, "PSS"))), 70.0, 1e-9);
	CHECK_NEAR(num(cell(t, 0, col_index(t, "USS"))), 60.0, 1e-9);
	CHECK_INT(num(cell(t, 0, col_index(t, "Processes"))), 2);
	CHECK(YAJL_IS_NULL(cell(t, 0, col_index(t, "Since"))));
	CHECK_STR(severity(t, 0), "normal");
	/* the leak: highlighted, with its rate and how long it has grown */
	CHECK_STR(sv(cell(t, 1, col_index(t, "Group"))), "leaky");
	CHECK(YAJL_IS_TRUE(cell(t, 1, col_index(t, "Leak"))));
	CHECK_NEAR(num(cell(t, 1, col_index(t, "Growth"))), 256.0, 1e-9);
	CHECK_INT(num(cell(t, 1, col_index(t, "Confidence"))), 90);
	CHECK_INT(num(cell(t, 1, col_index(t, "Since"))), 60);
	CHECK_STR(severity(t, 1), "warning");
	CHECK_NEAR(num(at(at(t, "columns", "PSS"), "max", NULL)), 70.0, 1e-9);
	yajl_tree_free(t);

	/* info: the header, no rows */
	t = parse(res(&o, "tx-info"));
	CHECK_INT(res(&o, "tx-info")->status, 200);
	CHECK_INT(n_rows(t), 0);
	CHECK_INT(col_index(t, "Leak"), 5);
	yajl_tree_free(t);
	out_close(&o);
}

static void test_inspect(void)
{
	struct world w;
	struct out o;
	yajl_val t, opts;
	unsigned long long start300;

	world_init(&w);
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "i-info", "memz-inspect info", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-300", "memz-inspect pid:300", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-old", "memz-inspect 300", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-extra",
				 "memz-inspect after:-600 pid:300 before:0 timeout:10",
				 &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-bad", "memz-inspect pid:12ab", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-zero", "memz-inspect pid:0", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-gone", "memz-inspect pid:2147483647", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "i-none", "memz-inspect", &w.ctx), 0);
	out_check(&o);

	/* the pid select: published groups' processes (not "small"), largest
	 * first */
	t = parse(res(&o, "i-info"));
	CHECK_INT(res(&o, "i-info")->status, 200);
	CHECK_INT(n_rows(t), 0);
	{
		const char *path[] = { "required_params", NULL };
		yajl_val rp = yajl_tree_get(t, path, yajl_t_array);
		CHECK(rp && rp->u.array.len == 1);
		opts = rp ? at(rp->u.array.values[0], "options", NULL) : NULL;
		CHECK_STR(sv(at(rp->u.array.values[0], "id", NULL)), "pid");
		CHECK_STR(sv(at(rp->u.array.values[0], "type", NULL)), "select");
	}
	CHECK(opts && opts->u.array.len == 3);
	if (opts && opts->u.array.len == 3) {
		CHECK_STR(sv(at(opts->u.array.values[0], "id", NULL)), "301");
		CHECK_STR(sv(at(opts->u.array.values[1], "id", NULL)), "300");
		CHECK_STR(sv(at(opts->u.array.values[2], "id", NULL)), "200");
	}
	yajl_tree_free(t);

	/* the categories of the fixture's process 300, and their total */
	for (const char *const *tx = (const char *const[]){ "i-300", "i-old",
							  "i-extra", NULL };
	     *tx; tx++) {
		double rss_sum = 0;
		size_t total = 0, rows;

		t = parse(res(&o, *tx));
		CHECK_INT(res(&o, *tx)->status, 200);
		CHECK_INT(YAJL_GET_INTEGER(at(t, "process", "pid")), 300);
		CHECK_STR(sv(at(t, "process", "group")), "app");
		rows = n_rows(t);
		CHECK(rows >= 3);
		for (size_t r = 0; r < rows; r++) {
			const char *k = sv(cell(t, r, col_index(t, "Kind")));
			double rss = num(cell(t, r, col_index(t, "RSS")));
			if (!strcmp(k, "total")) {
				total = r;
				CHECK_STR(severity(t, r), "notice");
				continue;
			}
			rss_sum += rss;
			if (!strcmp(k, "exe"))
				CHECK_NEAR(rss, 8.0 / 1024, 1e-9);
			if (!strcmp(k, "heap"))
				CHECK_NEAR(rss, 200.0 / 1024, 1e-9);
		}
		CHECK_INT(total, rows - 1);
		CHECK_NEAR(num(cell(t, total, col_index(t, "RSS"))), rss_sum, 1e-6);
		yajl_tree_free(t);
	}

	CHECK_INT(res(&o, "i-bad")->status, 400);
	t = parse(res(&o, "i-bad"));
	CHECK(strstr(err_msg(t), "'12ab'") != NULL);
	yajl_tree_free(t);
	CHECK_INT(res(&o, "i-zero")->status, 400);
	CHECK_INT(res(&o, "i-gone")->status, 404);
	/* no pid: the largest published process, as the UI's first call */
	CHECK_INT(res(&o, "i-none")->status, 200);
	t = parse(res(&o, "i-none"));
	CHECK_INT(YAJL_GET_INTEGER(at(t, "process", "pid")), 301);
	CHECK_STR(sv(at(t, "message", NULL)), "process 301 exited");
	yajl_tree_free(t);
	out_close(&o);

	/* pid 300 since the snapshot is another process: said to have
	 * exited, and none of the other's mappings shown */
	start300 = w.p[0].start;
	w.p[0].start = 899999;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "i-reused", "memz-inspect pid:300",
				 &w.ctx), 0);
	out_check(&o);
	CHECK_INT(res(&o, "i-reused")->status, 200);
	t = parse(res(&o, "i-reused"));
	CHECK_INT(YAJL_GET_INTEGER(at(t, "process", "pid")), 300);
	CHECK_STR(sv(at(t, "message", NULL)), "process 300 exited");
	CHECK_INT(n_rows(t), 0);
	yajl_tree_free(t);
	out_close(&o);
	w.p[0].start = start300;

	/* above ExactMaxRss (300's VmRSS is 208 kB) no smaps is read: no
	 * rows, and the message says why */
	w.ctx.exact_max_rss = 200 * 1024;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "i-big", "memz-inspect pid:300", &w.ctx), 0);
	out_check(&o);
	CHECK_INT(res(&o, "i-big")->status, 200);
	t = parse(res(&o, "i-big"));
	CHECK_INT(YAJL_GET_INTEGER(at(t, "process", "pid")), 300);
	CHECK_INT(n_rows(t), 0);
	CHECK(sv(at(t, "message", NULL)) &&
	      strstr(sv(at(t, "message", NULL)), "above ExactMaxRss") != NULL);
	yajl_tree_free(t);
	out_close(&o);

	/* memz-inspect's CpuBudget (on memz_now()'s clock): overdrawn, smaps
	 * waits and the message says so; with room, it is read and what it
	 * took is charged */
	{
		struct memz_budget b;
		double room, now = memz_now();

		w.ctx.exact_max_rss = 0;
		memz_budget_init(&b, 1);
		memz_budget_refill(&b, now);
		memz_budget_charge(&b, 1, false);
		w.ctx.budget = &b;
		out_open(&o);
		CHECK_INT(memz_nd_answer(o.f, "i-spent", "memz-inspect pid:300", &w.ctx), 0);
		out_check(&o);
		t = parse(res(&o, "i-spent"));
		CHECK_INT(res(&o, "i-spent")->status, 200);
		CHECK_INT(n_rows(t), 0);
		CHECK(sv(at(t, "message", NULL)) &&
		      strstr(sv(at(t, "message", NULL)), "CpuBudget") != NULL);
		yajl_tree_free(t);
		out_close(&o);
		/* one too big to read is told so, whatever the budget holds */
		w.p[0].mem.rss = 208 * 1024;
		w.ctx.exact_max_rss = 200 * 1024;
		out_open(&o);
		CHECK_INT(memz_nd_answer(o.f, "i-spent-big", "memz-inspect pid:300", &w.ctx), 0);
		out_check(&o);
		t = parse(res(&o, "i-spent-big"));
		CHECK(sv(at(t, "message", NULL)) &&
		      strstr(sv(at(t, "message", NULL)), "above ExactMaxRss") != NULL);
		yajl_tree_free(t);
		out_close(&o);
		w.ctx.exact_max_rss = 0;

		memz_budget_init(&b, 1);
		memz_budget_refill(&b, now - 30);
		memz_budget_refill(&b, now); /* a full bucket: 0.2 s */
		room = memz_budget_room(&b);
		CHECK(room > 0.1);
		out_open(&o);
		CHECK_INT(memz_nd_answer(o.f, "i-room", "memz-inspect pid:300", &w.ctx), 0);
		out_check(&o);
		t = parse(res(&o, "i-room"));
		CHECK(n_rows(t) >= 3);
		CHECK(at(t, "message", NULL) == NULL);
		yajl_tree_free(t);
		out_close(&o);
		CHECK(memz_budget_room(&b) < room);
		w.ctx.budget = NULL;
	}
}

static void test_errors(void)
{
	struct world w;
	struct out o;
	yajl_val t;

	world_init(&w);
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "e-404", "memz-nothing", &w.ctx), 0);
	w.ctx.snap = NULL;
	CHECK_INT(memz_nd_answer(o.f, "e-503", "memz-top", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "e-info", "memz-inspect info", &w.ctx), 0);
	out_check(&o);
	CHECK_INT(res(&o, "e-404")->status, 404);
	t = parse(res(&o, "e-404"));
	CHECK(strstr(err_msg(t), "unknown function") != NULL);
	yajl_tree_free(t);
	CHECK_INT(res(&o, "e-503")->status, 503);
	t = parse(res(&o, "e-503"));
	CHECK_STR(err_msg(t), "memz has not sampled yet");
	yajl_tree_free(t);
	/* the header needs no sample: the UI may ask before the first one */
	CHECK_INT(res(&o, "e-info")->status, 200);
	out_close(&o);
}

/* accepted_params joined with ','; "?" when it is missing or holds
 * anything but strings. */
static const char *accepted(yajl_val t, char *buf, size_t len)
{
	yajl_val a = at(t, "accepted_params", NULL);
	size_t off = 0;

	if (!a || !YAJL_IS_ARRAY(a))
		return "?";
	buf[0] = '\0';
	for (size_t i = 0; i < a->u.array.len; i++) {
		if (!YAJL_IS_STRING(a->u.array.values[i]))
			return "?";
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "," : "", sv(a->u.array.values[i]));
		if (off >= len)
			return "?";
	}
	return buf;
}

/* 2.x's UI sends a table only the parameters its accepted_params lists:
 * every answer, header or data, lists what the function takes, the
 * required select among them. */
static void test_accepted_params(void)
{
	static const struct {
		const char *tx, *call, *want, *required;
	} cases[] = {
		{ "a-top", "memz-top", "view,group", "view" },
		{ "a-top-info", "memz-top info", "view,group", "view" },
		{ "a-procs", "memz-top view:processes", "view,group", "view" },
		{ "a-procs-info", "memz-top processes info", "view,group", "view" },
		{ "a-group", "memz-top group:app", "view,group", "view" },
		{ "a-ins", "memz-inspect pid:300", "pid", "pid" },
		{ "a-ins-info", "memz-inspect info", "pid", "pid" },
		{ "a-oom", "memz-oom", "", NULL },
		{ "a-oom-info", "memz-oom info", "", NULL },
	};
	struct world w;
	struct out o;
	char buf[128];

	world_init(&w);
	out_open(&o);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		CHECK_INT(memz_nd_answer(o.f, cases[i].tx, cases[i].call, &w.ctx), 0);
	out_check(&o);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		yajl_val t = parse(res(&o, cases[i].tx));
		const char *path[] = { "required_params", NULL };
		yajl_val rp = yajl_tree_get(t, path, yajl_t_array);

		CHECK_INT(res(&o, cases[i].tx)->status, 200);
		CHECK_STR(accepted(t, buf, sizeof buf), cases[i].want);
		if (cases[i].required) {
			CHECK(rp && rp->u.array.len == 1);
			if (rp && rp->u.array.len == 1)
				CHECK_STR(sv(at(rp->u.array.values[0], "id", NULL)),
					  cases[i].required);
		} else {
			CHECK(rp == NULL);
		}
		yajl_tree_free(t);
	}
	out_close(&o);
}

static int row_of(yajl_val t, const char *col, const char *value)
{
	for (size_t r = 0; r < n_rows(t); r++)
		if (!strcmp(sv(cell(t, r, col_index(t, col))), value))
			return (int)r;
	return -1;
}

static bool col_visible(yajl_val t, const char *col)
{
	return YAJL_IS_TRUE(at(at(t, "columns", col), "visible", NULL));
}

/* What the plugin does after each sample. */
static void keep(struct memz_leakparts_kept *k, const struct memz_snapshot *s)
{
	memz_leakparts_keep(k, &s->view, s->leak_parts, s->n_leak_parts);
}

/* GroupBy cgroup: "leaky" is nginx.service with its usage and limit, in a
 * watched slice and itself watched; the deepest scope's forecast is the
 * row's, and under OomWarn the row turns critical. Its finding, reported
 * once by the core, is still on the row a cycle later, and goes when the
 * verdict clears. */
static void test_top_cgroup_parts(void)
{
	struct world w;
	struct out o;
	struct memz_cgroup cg;
	struct memz_leakparts_kept parts;
	struct memz_leakpart lp;
	yajl_val t;
	int r;

	world_init(&w);
	memset(&cg, 0, sizeof cg);
	cg.path = "/system.slice/nginx.service";
	snprintf(cg.n.name, sizeof cg.n.name, "nginx.service");
	cg.has_mem = true;
	cg.mem.version = 2;
	cg.mem.limited = true;
	cg.mem.limit = 8 * MIB;
	cg.mem.usage = 6 * MIB;
	w.g[1].cgroup = &cg;
	w.snap.oom.n_scopes = 3;
	snprintf(w.snap.oom.scope[0].id, MEMZ_OOM_ID_MAX, "machine");
	w.snap.oom.scope[0].seconds = 9000;
	snprintf(w.snap.oom.scope[1].path, MEMZ_OOM_PATH_MAX, "/system.slice");
	w.snap.oom.scope[1].seconds = 600;
	snprintf(w.snap.oom.scope[2].path, MEMZ_OOM_PATH_MAX,
		 "/system.slice/nginx.service");
	w.snap.oom.scope[2].seconds = 8;
	w.snap.oom.scope[2].warn = true;

	memset(&parts, 0, sizeof parts);
	memset(&lp, 0, sizeof lp);
	snprintf(lp.name, sizeof lp.name, "leaky");
	lp.is_group = true;
	lp.pid = 200;
	lp.start = 700000;
	snprintf(lp.text, sizeof lp.text, "heap +12.0 MiB, other anonymous +3.5 MiB");
	w.snap.leak_parts = &lp;
	w.snap.n_leak_parts = 1;
	keep(&parts, &w.snap);
	/* the next cycle: the core reports nothing new */
	w.snap.leak_parts = NULL;
	w.snap.n_leak_parts = 0;
	keep(&parts, &w.snap);
	w.ctx.parts = &parts;

	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "c-top", "memz-top", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "c-inspect", "memz-inspect pid:200", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "c-inspect-other", "memz-inspect pid:300", &w.ctx), 0);
	out_check(&o);
	t = parse(res(&o, "c-top"));
	CHECK(col_visible(t, "CgroupUsage"));
	CHECK(col_visible(t, "TimeToOOM"));
	CHECK_STR(col_str(t, "TimeToOOM", "type"), "duration");
	r = row_of(t, "Group", "leaky");
	CHECK_INT(r, 1);
	CHECK(col_visible(t, "Cgroup"));
	CHECK_STR(sv(cell(t, r, col_index(t, "Cgroup"))), "nginx.service");
	CHECK_NEAR(num(cell(t, r, col_index(t, "CgroupUsage"))), 6.0, 1e-9);
	CHECK_NEAR(num(cell(t, r, col_index(t, "CgroupLimit"))), 8.0, 1e-9);
	CHECK_NEAR(num(cell(t, r, col_index(t, "TimeToOOM"))), 8.0, 1e-9);
	CHECK_STR(sv(cell(t, r, col_index(t, "LeakParts"))),
		  "heap +12.0 MiB, other anonymous +3.5 MiB");
	CHECK_STR(severity(t, r), "critical");
	yajl_tree_free(t);
	/* memz-inspect of the process read says it too */
	t = parse(res(&o, "c-inspect"));
	CHECK_INT(res(&o, "c-inspect")->status, 200);
	CHECK_STR(sv(at(t, "process", "leak_parts")),
		  "heap +12.0 MiB, other anonymous +3.5 MiB");
	yajl_tree_free(t);
	t = parse(res(&o, "c-inspect-other"));
	CHECK(at(t, "process", "leak_parts") == NULL);
	yajl_tree_free(t);
	t = parse(res(&o, "c-top"));
	/* a group without a cgroup has none of the three */
	r = row_of(t, "Group", "app");
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "CgroupUsage"))));
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "TimeToOOM"))));
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "LeakParts"))));
	yajl_tree_free(t);
	out_close(&o);

	/* the verdict clears: the finding goes with it */
	w.g[1].det.verdict.leak = false;
	keep(&parts, &w.snap);
	w.g[1].det.verdict.leak = true;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "c-2", "memz-top", &w.ctx), 0);
	out_check(&o);
	t = parse(res(&o, "c-2"));
	CHECK(YAJL_IS_NULL(cell(t, 1, col_index(t, "LeakParts"))));
	yajl_tree_free(t);
	out_close(&o);

	/* without GroupBy cgroup the cgroup columns are hidden */
	w.g[1].cgroup = NULL;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "c-3", "memz-top", &w.ctx), 0);
	out_check(&o);
	t = parse(res(&o, "c-3"));
	CHECK(!col_visible(t, "CgroupUsage"));
	CHECK(!col_visible(t, "Cgroup"));
	CHECK(!col_visible(t, "TimeToOOM"));
	CHECK(col_visible(t, "LeakParts"));
	CHECK(YAJL_IS_NULL(cell(t, 1, col_index(t, "TimeToOOM"))));
	CHECK_STR(severity(t, 1), "warning");
	yajl_tree_free(t);
	out_close(&o);
}

/* memz-top processes: every process by PSS with its group and the
 * Estimated flag; group:NAME keeps one group's; unknown words are 400. */
static void test_processes(void)
{
	struct world w;
	struct out o;
	yajl_val t;

	world_init(&w);
	w.snap.oom.n_scopes = 2;
	snprintf(w.snap.oom.scope[1].path, MEMZ_OOM_PATH_MAX, "/box");
	w.snap.oom.scope[1].seconds = 42;
	w.p[1].memcg = "/box/leaky";
	w.p[3].estimated = true;
	w.p[3].pss_error = 3 * MIB / 2;
	w.p[3].mem.swap = 2 * MIB;
	w.p[1].det.verdict.leak = true;
	w.p[1].det.verdict.rate_bps = 2048;
	w.p[1].det.verdict.confidence = 75;
	w.p[1].det.verdict.since = 130;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "p-all", "memz-top processes", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-view", "memz-top after:-600 view:processes before:0", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-app", "memz-top group:app", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-none", "memz-top group:nope", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-badview", "memz-top view:tree", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-bad", "memz-top bogus", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-pid", "memz-top pid:300", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-groups", "memz-top view:groups", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "p-info", "memz-top processes info", &w.ctx), 0);
	out_check(&o);
	for (const char *const *tx = (const char *const[]){ "p-all", "p-view",
							  NULL }; *tx; tx++) {
		t = parse(res(&o, *tx));
		CHECK_INT(res(&o, *tx)->status, 200);
		CHECK_INT(n_rows(t), 4);
		CHECK_INT(num(cell(t, 0, col_index(t, "PID"))), 301);
		CHECK_INT(num(cell(t, 1, col_index(t, "PID"))), 300);
		CHECK_INT(num(cell(t, 2, col_index(t, "PID"))), 200);
		CHECK_INT(num(cell(t, 3, col_index(t, "PID"))), 100);
		CHECK_STR(col_str(t, "PID", "type"), "integer");
		CHECK(YAJL_IS_TRUE(at(at(t, "columns", "PID"), "unique_key", NULL)));
		CHECK_STR(sv(cell(t, 0, col_index(t, "Group"))), "app");
		CHECK_NEAR(num(cell(t, 0, col_index(t, "PSS"))), 40.0, 1e-9);
		CHECK_NEAR(num(cell(t, 0, col_index(t, "Swap"))), 2.0, 1e-9);
		CHECK(YAJL_IS_TRUE(cell(t, 0, col_index(t, "Estimated"))));
		CHECK(YAJL_IS_FALSE(cell(t, 1, col_index(t, "Estimated"))));
		CHECK_NEAR(num(cell(t, 0, col_index(t, "PSSError"))), 1.5, 1e-9);
		CHECK(YAJL_IS_NULL(cell(t, 1, col_index(t, "PSSError"))));
		CHECK_STR(sv(cell(t, 2, col_index(t, "Name"))), "leaky");
		CHECK(YAJL_IS_TRUE(cell(t, 2, col_index(t, "Leak"))));
		CHECK_NEAR(num(cell(t, 2, col_index(t, "Growth"))), 2.0, 1e-9);
		CHECK_INT(num(cell(t, 2, col_index(t, "Confidence"))), 75);
		CHECK_INT(num(cell(t, 2, col_index(t, "Since"))), 30);
		CHECK_STR(severity(t, 2), "warning");
		CHECK_STR(severity(t, 0), "normal");
		/* its memory cgroup's forecast; none outside a watched one */
		CHECK(col_visible(t, "TimeToOOM"));
		CHECK_NEAR(num(cell(t, 2, col_index(t, "TimeToOOM"))), 42.0, 1e-9);
		CHECK(YAJL_IS_NULL(cell(t, 0, col_index(t, "TimeToOOM"))));
		yajl_tree_free(t);
	}
	t = parse(res(&o, "p-app"));
	CHECK_INT(n_rows(t), 2);
	CHECK_INT(num(cell(t, 0, col_index(t, "PID"))), 301);
	CHECK_INT(num(cell(t, 1, col_index(t, "PID"))), 300);
	yajl_tree_free(t);
	CHECK_INT(res(&o, "p-none")->status, 404);
	CHECK_INT(res(&o, "p-badview")->status, 400);
	t = parse(res(&o, "p-badview"));
	CHECK(strstr(err_msg(t), "'tree'") != NULL);
	yajl_tree_free(t);
	CHECK_INT(res(&o, "p-bad")->status, 400);
	t = parse(res(&o, "p-bad"));
	CHECK(strstr(err_msg(t), "'bogus'") != NULL);
	yajl_tree_free(t);
	CHECK_INT(res(&o, "p-pid")->status, 400);
	t = parse(res(&o, "p-groups"));
	CHECK_INT(n_rows(t), 3);
	CHECK_INT(col_index(t, "PID"), -1);
	yajl_tree_free(t);
	/* the header offers the view select, processes chosen */
	t = parse(res(&o, "p-info"));
	CHECK_INT(n_rows(t), 0);
	{
		const char *path[] = { "required_params", NULL };
		yajl_val rp = yajl_tree_get(t, path, yajl_t_array);
		yajl_val opts = rp && rp->u.array.len == 1
			? at(rp->u.array.values[0], "options", NULL) : NULL;
		CHECK(opts && opts->u.array.len == 2);
		if (opts && opts->u.array.len == 2) {
			CHECK_STR(sv(at(rp->u.array.values[0], "id", NULL)), "view");
			CHECK_STR(sv(at(opts->u.array.values[1], "id", NULL)),
				  "processes");
			CHECK(YAJL_IS_TRUE(at(opts->u.array.values[1],
					      "defaultSelected", NULL)));
		}
	}
	yajl_tree_free(t);
	out_close(&o);
}

/* At most MEMZ_ND_PROCS_MAX rows, the largest. */
static void test_processes_cap(void)
{
	size_t n = MEMZ_ND_PROCS_MAX + 100;
	struct memz_proc *p = calloc(n, sizeof *p);
	const struct memz_proc **pp = calloc(n, sizeof *pp);
	struct world w;
	struct out o;
	yajl_val t;

	CHECK(p && pp);
	world_init(&w);
	for (size_t i = 0; i < n; i++) {
		p[i].pid = (int)i + 1;
		p[i].name = "many";
		p[i].mem.pss = (uint64_t)(i + 1) * 4096;
		pp[i] = &p[i];
	}
	w.snap.view.procs = pp;
	w.snap.view.n_procs = n;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "cap", "memz-top processes", &w.ctx), 0);
	out_check(&o);
	t = parse(res(&o, "cap"));
	CHECK_INT(n_rows(t), MEMZ_ND_PROCS_MAX);
	CHECK_INT(num(cell(t, 0, col_index(t, "PID"))), (double)n);
	CHECK_INT(num(cell(t, MEMZ_ND_PROCS_MAX - 1, col_index(t, "PID"))),
		  (double)(n - MEMZ_ND_PROCS_MAX + 1));
	yajl_tree_free(t);
	out_close(&o);
	free(p);
	free(pp);
}

/* memz-oom: a row per scope with its forecast and drivers, a row per
 * kill with its victim; names go out as JSON strings whatever they hold. */
static void test_oom(void)
{
	struct world w;
	struct out o;
	struct memz_oom_view *v;
	yajl_val t;
	int r;

	world_init(&w);
	v = &w.snap.oom;
	v->n_scopes = 2;
	snprintf(v->scope[0].id, MEMZ_OOM_ID_MAX, "machine");
	v->scope[0].seconds = NAN;
	v->scope[0].available = 1000 * MIB;
	v->scope[0].limit = 2000 * MIB;
	v->scope[0].has_kills = true;
	v->scope[0].kills = 3;
	snprintf(v->scope[1].id, MEMZ_OOM_ID_MAX, "cg_demo");
	snprintf(v->scope[1].path, MEMZ_OOM_PATH_MAX, "/memz/demo");
	v->scope[1].seconds = 1500;
	v->scope[1].available = 375 * MIB;
	v->scope[1].growth_bps = 262144;
	v->scope[1].confidence = 80;
	v->scope[1].warn = true;
	v->scope[1].n_drivers = 2;
	snprintf(v->scope[1].drivers[0].name, MEMZ_OOM_NAME_MAX, "le\"aky\n");
	v->scope[1].drivers[0].pid = 200;
	v->scope[1].drivers[0].share = 0.92;
	snprintf(v->scope[1].drivers[1].name, MEMZ_OOM_NAME_MAX, "app");
	v->scope[1].drivers[1].share = 0.08;
	v->n_kills = 2;
	v->kill[0].t = 150;
	snprintf(v->kill[0].scope, MEMZ_OOM_PATH_MAX, "/memz/demo");
	v->kill[0].known = true;
	snprintf(v->kill[0].name, MEMZ_OOM_NAME_MAX, "leaky");
	v->kill[0].pid = 201;
	v->kill[0].pss = 300 * MIB;
	v->kill[0].leak = true;
	v->kill[0].leak_confidence = 90;
	v->kill[0].sure = 90;
	v->kill[1].t = 100;
	out_open(&o);
	CHECK_INT(memz_nd_answer(o.f, "o", "memz-oom", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "o-info", "memz-oom info after:-60", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "o-bad", "memz-oom pid:1", &w.ctx), 0);
	w.ctx.snap = NULL;
	CHECK_INT(memz_nd_answer(o.f, "o-early", "memz-oom", &w.ctx), 0);
	CHECK_INT(memz_nd_answer(o.f, "o-early-info", "memz-oom info", &w.ctx), 0);
	out_check(&o);
	t = parse(res(&o, "o"));
	CHECK_INT(res(&o, "o")->status, 200);
	CHECK_INT(n_rows(t), 4);
	r = row_of(t, "Row", "machine");
	CHECK_INT(r, 0);
	CHECK_STR(sv(cell(t, r, col_index(t, "Scope"))), "machine");
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "TimeToOOM"))));
	CHECK_NEAR(num(cell(t, r, col_index(t, "Available"))), 1000.0, 1e-9);
	CHECK_NEAR(num(cell(t, r, col_index(t, "Limit"))), 2000.0, 1e-9);
	CHECK_INT(num(cell(t, r, col_index(t, "Kills"))), 3);
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "Drivers"))));
	CHECK_STR(severity(t, r), "normal");
	r = row_of(t, "Row", "cg_demo");
	CHECK_INT(r, 1);
	CHECK_STR(sv(cell(t, r, col_index(t, "Kind"))), "forecast");
	CHECK_STR(sv(cell(t, r, col_index(t, "Scope"))), "/memz/demo");
	CHECK_NEAR(num(cell(t, r, col_index(t, "TimeToOOM"))), 1500.0, 1e-9);
	CHECK_NEAR(num(cell(t, r, col_index(t, "Growth"))), 256.0, 1e-9);
	CHECK_INT(num(cell(t, r, col_index(t, "Confidence"))), 80);
	CHECK_STR(sv(cell(t, r, col_index(t, "Drivers"))),
		  "le\"aky\n[200] 92%, app 8%");
	/* no kill counter readable: no count, not 0 */
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "Kills"))));
	CHECK_STR(severity(t, r), "critical");
	r = row_of(t, "Row", "kill-1");
	CHECK_INT(r, 2);
	CHECK_STR(sv(cell(t, r, col_index(t, "Kind"))), "kill");
	CHECK_STR(sv(cell(t, r, col_index(t, "Victim"))), "leaky");
	CHECK_INT(num(cell(t, r, col_index(t, "PID"))), 201);
	CHECK_NEAR(num(cell(t, r, col_index(t, "LastPSS"))), 300.0, 1e-9);
	CHECK_STR(sv(cell(t, r, col_index(t, "Verdict"))), "leak suspect (90%)");
	CHECK_INT(num(cell(t, r, col_index(t, "Sure"))), 90);
	CHECK_INT(num(cell(t, r, col_index(t, "Ago"))), 10);
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "TimeToOOM"))));
	r = row_of(t, "Row", "kill-2");
	CHECK_STR(sv(cell(t, r, col_index(t, "Victim"))), "unknown");
	CHECK_STR(sv(cell(t, r, col_index(t, "Scope"))), "machine");
	CHECK(YAJL_IS_NULL(cell(t, r, col_index(t, "PID"))));
	CHECK_INT(num(cell(t, r, col_index(t, "Sure"))), 0);
	CHECK_INT(num(cell(t, r, col_index(t, "Ago"))), 60);
	CHECK_STR(sv(at(t, "default_sort_column", NULL)), "TimeToOOM");
	yajl_tree_free(t);
	t = parse(res(&o, "o-info"));
	CHECK_INT(res(&o, "o-info")->status, 200);
	CHECK_INT(n_rows(t), 0);
	yajl_tree_free(t);
	CHECK_INT(res(&o, "o-bad")->status, 400);
	CHECK_INT(res(&o, "o-early")->status, 503);
	CHECK_INT(res(&o, "o-early-info")->status, 200);
	out_close(&o);
}

/* The checker holds the tables to 2.x's row identity: two groups of one
 * name would be one row to the UI, so such output is refused. */
static void test_checker_unique_key(void)
{
	struct world w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct ndc *c = ndc_new();

	world_init(&w);
	w.g[2].name = "app";
	f = open_memstream(&buf, &len);
	CHECK(f && c);
	CHECK_INT(memz_nd_answer(f, "dup", "memz-top", &w.ctx), 0);
	fclose(f);
	CHECK(ndc_feed(c, buf, len) || ndc_error(c));
	CHECK(ndc_error(c) && strstr(ndc_error(c), "unique key") != NULL);
	ndc_free(c);
	free(buf);
}

/* Feed text to the reader through a non-blocking pipe. */
static int feed(struct memz_nd_input *in, struct out *o,
		const struct memz_nd_fctx *ctx, const char *text, double now)
{
	int fds[2], rc;
	size_t len = strlen(text), off = 0;

	CHECK_INT(pipe(fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	rc = 0;
	while (off < len && !rc) {
		ssize_t n = write(fds[1], text + off, len - off);
		if (n > 0)
			off += (size_t)n;
		rc = memz_nd_input_read(in, fds[0], o->f, ctx, now);
	}
	close(fds[1]);
	while (!rc && !in->eof && !in->quit)
		rc = memz_nd_input_read(in, fds[0], o->f, ctx, now);
	close(fds[0]);
	in->eof = false;
	return rc;
}

static void test_input_forms(void)
{
	struct world w;
	struct out o;
	struct memz_nd_input in;
	char tx100[101], tx300[301], text[2048];

	world_init(&w);
	out_open(&o);
	CHECK_INT(memz_nd_input_init(&in), 0);
	memset(tx100, 'a', 100);
	tx100[100] = '\0';
	memset(tx300, 'b', 300);
	tx300[300] = '\0';
	snprintf(text, sizeof text,
		 "FUNCTION f-three 10 \"memz-top\"\n"
		 "FUNCTION f-five 10 \"memz-top info\" \"0x13\" \"method=api,role=admin\"\n"
		 "FUNCTION %s 10 \"memz-top info\"\n"
		 "FUNCTION %s 10 \"memz-top info\"\n"
		 "FUNCTION 'bad tx' 10 \"memz-top info\"\n"
		 "FUNCTION_PAYLOAD f-pay 10 \"memz-top\" \"0x13\" \"src\" \"application/json\"\n"
		 "FUNCTION f-inside 10 \"memz-top\"\n"
		 "FUNCTION_PAYLOAD_END\n"
		 "FUNCTION_PROGRESS f-three\n"
		 "FUNCTION f-cancel 10 \"memz-top\"\n"
		 "FUNCTION_CANCEL f-cancel\n"
		 "FUNCTION_CANCEL f-never-seen\n"
		 "FUNCTION f-last 10 \"memz-top info\"\n",
		 tx100, tx300);
	CHECK_INT(feed(&in, &o, &w.ctx, text, memz_now()), 0);
	/* queued, not answered yet: the reader never serves */
	CHECK_INT(in.count, 5);
	CHECK_INT(in.bad_tx, 2);
	CHECK_INT(in.cancelled, 1);
	CHECK_INT(memz_nd_serve(&in, o.f, &w.ctx, memz_now(), 10, 1 << 30), 0);
	CHECK_INT(in.count, 0);
	out_check(&o);
	CHECK(res(&o, "f-three") && res(&o, "f-three")->status == 200);
	CHECK(res(&o, "f-five") && res(&o, "f-five")->status == 200);
	/* a long transaction id comes back whole (it was cut at 63) */
	CHECK(res(&o, tx100) && res(&o, tx100)->status == 200);
	CHECK(strstr(o.buf, tx300) == NULL);
	/* a call with a body is answered as without it, the body unread */
	CHECK(res(&o, "f-pay") && res(&o, "f-pay")->status == 200);
	CHECK(res(&o, "f-inside") == NULL);
	CHECK(res(&o, "f-cancel") && res(&o, "f-cancel")->status == 499);
	CHECK_INT(ndc_n_results(o.chk), 6);
	CHECK(res(&o, "f-last") != NULL);

	CHECK_INT(feed(&in, &o, &w.ctx, "QUIT\nFUNCTION f-after 10 \"memz-top\"\n",
		       memz_now()), 0);
	CHECK(in.quit);
	CHECK_INT(in.count, 0);
	memz_nd_input_release(&in);
	out_close(&o);
}

/* 2.x's POST: FUNCTION_PAYLOAD, the caller's body, FUNCTION_PAYLOAD_END.
 * The call is answered as the same call without a body (apps.plugin
 * ignores the body too); nothing in the body is a command, however it is
 * dressed, however long its lines, however much of it there is; the line
 * after the body is read again. */
static void test_payload(void)
{
	struct world w;
	struct out o;
	struct memz_nd_input in;
	size_t big = 3 * MEMZ_ND_READ_BUDGET, len = 0, cap = big + 64 * 1024;
	char *text = malloc(cap);
	yajl_val t, plain;

	CHECK(text != NULL);
	world_init(&w);
	out_open(&o);
	CHECK_INT(memz_nd_input_init(&in), 0);
	len += (size_t)snprintf(text + len, cap - len,
		"FUNCTION_PAYLOAD y-json 10 \"memz-inspect pid:300\" \"0x13\" \"method=api,role=admin\" \"application/json\"\n"
		"{\"selections\": {\"Group\": [\"app\"]},\n"
		"FUNCTION y-inj1 10 \"memz-top\"\n"
		"  FUNCTION y-inj2 10 \"memz-top\"\n"
		"FUNCTION_CANCEL y-json\n"
		"QUIT\n"
		"xFUNCTION_PAYLOAD_END\n"
		"FUNCTION_PAYLOAD_END trailing\n"
		"FUNCTION_PAYLOAD y-nested 10 \"memz-top\"\n");
	/* a line longer than the reader's buffer, ending in what looks like
	 * the end of the body */
	memset(text + len, 'z', 2 * MEMZ_ND_LINE_MAX);
	len += 2 * MEMZ_ND_LINE_MAX;
	len += (size_t)snprintf(text + len, cap - len,
		"FUNCTION_PAYLOAD_END\n"); /* its tail, not the body's end */
	/* and megabytes of body over many reads */
	while (len < big) {
		len += (size_t)snprintf(text + len, cap - len,
			"FUNCTION y-many-%zu 10 \"memz-top\"\n", len);
	}
	len += (size_t)snprintf(text + len, cap - len,
		"}\n"
		"\n"
		"FUNCTION_PAYLOAD_END\n"
		"FUNCTION y-after 10 \"memz-top info\"\n"
		/* one too long to take: its body is skipped all the same */
		"FUNCTION_PAYLOAD y-long 10 \"memz-top ");
	memset(text + len, 'q', MEMZ_ND_LINE_MAX);
	len += MEMZ_ND_LINE_MAX;
	len += (size_t)snprintf(text + len, cap - len,
		"\" \"0x13\" \"src\" \"text/plain\"\n"
		"FUNCTION y-inj3 10 \"memz-top\"\n"
		"FUNCTION_PAYLOAD_END\n"
		"FUNCTION_PAYLOAD y-empty 10 \"memz-oom\" \"0x13\" \"src\" \"application/json\"\n"
		"\n"
		"FUNCTION_PAYLOAD_END\n"
		"FUNCTION y-last 10 \"memz-top info\"\n");
	CHECK(len < cap);
	CHECK_INT(feed(&in, &o, &w.ctx, text, memz_now()), 0);
	CHECK(!in.quit && !in.in_payload);
	CHECK_INT(in.cancelled, 0);
	CHECK_INT(in.count, 4);
	CHECK_INT(memz_nd_serve(&in, o.f, &w.ctx, memz_now(), 10, 1 << 30), 0);
	out_check(&o);
	CHECK_INT(ndc_n_results(o.chk), 4);
	CHECK(res(&o, "y-after") && res(&o, "y-after")->status == 200);
	CHECK(res(&o, "y-last") && res(&o, "y-last")->status == 200);
	CHECK(res(&o, "y-long") == NULL);
	CHECK(!res(&o, "y-inj1") && !res(&o, "y-inj2") && !res(&o, "y-inj3"));
	CHECK(res(&o, "y-nested") == NULL);
	for (size_t i = 0; i < ndc_n_results(o.chk); i++)
		CHECK(strncmp(ndc_get_result(o.chk, i)->uuid, "y-many-", 7));
	CHECK(res(&o, "y-empty") && res(&o, "y-empty")->status == 200);
	/* the body changed nothing: the answer is the call's without one */
	CHECK(res(&o, "y-json") && res(&o, "y-json")->status == 200);
	t = parse(res(&o, "y-json"));
	CHECK_INT(YAJL_GET_INTEGER(at(t, "process", "pid")), 300);
	{
		struct out o2;

		out_open(&o2);
		CHECK_INT(memz_nd_answer(o2.f, "y-plain", "memz-inspect pid:300",
					 &w.ctx), 0);
		out_check(&o2);
		plain = parse(res(&o2, "y-plain"));
		CHECK(n_rows(t) >= 3);
		CHECK_INT(n_rows(t), n_rows(plain));
		CHECK_STR(sv(at(t, "help", NULL)), sv(at(plain, "help", NULL)));
		yajl_tree_free(plain);
		out_close(&o2);
	}
	yajl_tree_free(t);
	memz_nd_input_release(&in);
	out_close(&o);
	free(text);
}

/* 1000 calls at once: the queue takes MEMZ_ND_QUEUE, the rest get 503 at
 * once; serving stops at its budgets (one call at least); a call that
 * waited past its timeout is dropped. */
static void test_flood(void)
{
	struct world w;
	struct out o;
	struct memz_nd_input in;
	size_t n = 1000, len = 0;
	char *text = malloc(n * 64);

	world_init(&w);
	out_open(&o);
	CHECK_INT(memz_nd_input_init(&in), 0);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "FUNCTION fl-%zu 10 \"memz-%s\"\n",
				       i, i % 2 ? "top" : "inspect pid:300");
	CHECK_INT(feed(&in, &o, &w.ctx, text, memz_now()), 0);
	CHECK_INT(in.count, MEMZ_ND_QUEUE);
	CHECK_INT(in.busy, n - MEMZ_ND_QUEUE);
	fflush(o.f);
	CHECK_INT(count_status(&o, 503), 0); /* not checked yet: see below */
	CHECK_INT(memz_nd_serve(&in, o.f, &w.ctx, memz_now(), 0, 1 << 30), 0);
	CHECK_INT(in.count, MEMZ_ND_QUEUE - 1);
	CHECK_INT(memz_nd_serve(&in, o.f, &w.ctx, memz_now(), 10, 1), 0);
	CHECK_INT(in.count, MEMZ_ND_QUEUE - 2);
	CHECK_INT(memz_nd_serve(&in, o.f, &w.ctx, memz_now(), 10, 1 << 30), 0);
	CHECK_INT(in.count, 0);
	out_check(&o);
	CHECK_INT(count_status(&o, 503), n - MEMZ_ND_QUEUE);
	CHECK_INT(count_status(&o, 200), MEMZ_ND_QUEUE);
	CHECK(res(&o, "fl-0") && res(&o, "fl-0")->status == 200);
	CHECK(res(&o, "fl-999") && res(&o, "fl-999")->status == 503);

	/* queued 20 s ago with a 10 s timeout: netdata stopped waiting */
	CHECK_INT(feed(&in, &o, &w.ctx, "FUNCTION old 10 \"memz-top\"\n",
		       memz_now() - 20), 0);
	CHECK_INT(memz_nd_serve(&in, o.f, &w.ctx, memz_now(), 10, 1 << 30), 0);
	CHECK_INT(in.expired, 1);
	fflush(o.f);
	CHECK(strstr(o.buf, "FUNCTION_RESULT_BEGIN old ") == NULL);
	memz_nd_input_release(&in);
	out_close(&o);
	free(text);
}

/* memz-inspect's argument is controlled by whoever may call netdata
 * functions: only a decimal pid the sampler found is read, below ProcRoot,
 * so no argument makes memz.plugin open a path outside ProcRoot/PID/. A
 * word that is no pid is ignored (as 2.x's UI adds its own) and the
 * largest sampled process is shown; the cli fixture's smaps name pid 100. */
static void test_paths(void)
{
	static const char *hostile[] = {
		"memz-inspect ../../../etc/passwd",
		"memz-inspect 100/../../..",
		"memz-inspect /etc/shadow",
		"memz-inspect 100/smaps",
		"memz-inspect -100",
		"memz-inspect 0x64",
		"memz-inspect 100x",
		"memz-inspect 1e2",
		"memz-inspect 0",
		"memz-inspect 2147483648",
		"memz-inspect 99999999999999999999",
		"memz-inspect pid:../1",
		"memz-inspect pid:/etc/passwd",
		"memz-inspect 'self'",
		"memz-inspect pid:9999", /* a pid, but not one the sampler found */
	};
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	struct memz_nd_fctx ctx;

	settings_for(&set, "cli");
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_sampler_run(s, 10.0, &snap), 0);
	ctx = (struct memz_nd_fctx){ &snap, set.proc_root, 1, 0, NULL, 0, NULL };
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		char *out = NULL;
		size_t len = 0;
		int status = -1;
		FILE *f = open_memstream(&out, &len);

		CHECK(f != NULL);
		CHECK_INT(memz_nd_answer(f, "tx1", hostile[i], &ctx), 0);
		fclose(f);
		if (sscanf(out, "FUNCTION_RESULT_BEGIN tx1 %d ", &status) != 1)
			status = -1;
		if (status == 200) {
			/* the one way in: a pid of the snapshot */
			CHECK(strstr(out, "\"pid\":100,") != NULL);
		} else {
			if (status != 400 && status != 404)
				fprintf(stderr, "%s: status %d\n", hostile[i], status);
			CHECK(status == 400 || status == 404);
		}
		free(out);
	}
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
}

int main(void)
{
	test_top();
	test_inspect();
	test_errors();
	test_accepted_params();
	test_top_cgroup_parts();
	test_processes();
	test_processes_cap();
	test_oom();
	test_checker_unique_key();
	test_input_forms();
	test_payload();
	test_flood();
	test_paths();
	return check_status();
}
