#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memz/inspect.h"
#include "memz/json.h"
#include "memz/privilege.h"
#include "memz/sampler.h"
#include "memz/sanitize.h"
#include "memz/smapscat.h"
#include "fninspect.h"
#include "fnviews.h"
#include "ndtable.h"

#define MIB 1048576.0
#define PID_OPTIONS_MAX 200

/* The parameters memz-inspect takes, as fnviews.c's list theirs. */
static const char *const inspect_accepts[] = { "pid", NULL };

static const struct memz_nd_col inspect_cols[] = {
	{ "Kind", "Mapping kind", "string", "value", "none", "", 0,
	  "ascending", "count", "multiselect", true, true, true },
	{ "Mappings", "Mappings", "integer", "value", "number", "", 0,
	  "descending", "sum", "range", true, false, false },
	{ "RSS", "Resident", "bar-with-integer", "bar", "number", "MiB", 2,
	  "descending", "sum", "range", true, false, false },
	{ "PSS", "Proportional set size", "bar-with-integer", "bar", "number",
	  "MiB", 2, "descending", "sum", "range", true, false, false },
	{ "PrivateDirty", "Private dirty", "bar-with-integer", "bar", "number",
	  "MiB", 2, "descending", "sum", "range", true, false, false },
	{ "Swap", "Swapped out", "bar-with-integer", "bar", "number", "MiB", 2,
	  "descending", "sum", "range", true, false, false },
	MEMZ_ND_ROWOPT,
};
#define N_INSPECT (sizeof inspect_cols / sizeof *inspect_cols)

static bool published(const struct memz_proc *p, const char *unused)
{
	(void)unused;
	return p->group && (p->group->reported || p->group->det.verdict.leak);
}

static void required_pid(yajl_gen g, const struct memz_proc **v, size_t n)
{
	char id[16], name[160], label[96];

	memz_nd_select_open(g, "pid", "Process",
		    "The process to inspect (published groups' processes, largest PSS first)");
	for (size_t i = 0; i < n; i++) {
		const struct memz_proc *p = v[i];
		const char *pn = p->name ? p->name : "";

		memz_sanitize_label(pn, strlen(pn), label, sizeof label);
		snprintf(id, sizeof id, "%d", p->pid);
		snprintf(name, sizeof name, "%d %s (%.1f MiB)", p->pid, label,
			 (double)p->mem.pss / MIB);
		yajl_gen_map_open(g);
		memz_json_kv_str(g, "id", id);
		memz_json_kv_str(g, "name", name);
		yajl_gen_map_close(g);
	}
	memz_nd_select_close(g);
}

static void cat_row(yajl_gen g, const char *kind, const struct memz_catsum *c,
		    const char *severity)
{
	yajl_gen_array_open(g);
	memz_json_str(g, kind);
	yajl_gen_integer(g, c->count);
	memz_json_double(g, (double)c->rss / MIB);
	memz_json_double(g, (double)c->pss / MIB);
	memz_json_double(g, (double)c->private_dirty / MIB);
	memz_json_double(g, (double)c->swap / MIB);
	memz_nd_row_options(g, severity);
	yajl_gen_array_close(g);
}

static void process_facts(yajl_gen g, const struct memz_proc *p,
			  const struct memz_nd_fctx *ctx)
{
	const struct memz_proc *found[MEMZ_LEAKPARTS_KEPT];
	const char *parts;

	const struct memz_rollup *m = &p->mem;
	const struct memz_verdict *v = &p->det.verdict;
	const char *gname = p->group && p->group->name ? p->group->name : "";

	memz_json_str(g, "process");
	yajl_gen_map_open(g);
	memz_json_str(g, "pid");
	yajl_gen_integer(g, p->pid);
	memz_json_str(g, "name");
	memz_json_string(g, p->name ? p->name : "", p->name ? strlen(p->name) : 0);
	memz_json_str(g, "group");
	memz_json_string(g, gname, strlen(gname));
	memz_json_str(g, "ppid");
	yajl_gen_integer(g, p->ppid);
	memz_json_str(g, "threads");
	yajl_gen_integer(g, p->threads);
	memz_json_str(g, "pss");
	yajl_gen_integer(g, (long long)m->pss);
	memz_json_str(g, "uss");
	yajl_gen_integer(g, (long long)memz_rollup_uss(m));
	memz_json_str(g, "rss");
	yajl_gen_integer(g, (long long)m->rss);
	memz_json_str(g, "swap");
	yajl_gen_integer(g, (long long)m->swap);
	memz_json_str(g, "growth_bps");
	memz_json_double(g, v->rate_bps);
	memz_json_kv_bool(g, "leak", v->leak);
	memz_json_str(g, "confidence");
	yajl_gen_integer(g, v->confidence);
	/* the finding the verdict it was read for still stands on */
	memz_leakparts_kept_procs(ctx->parts,
				  ctx->snap ? &ctx->snap->view : NULL, found);
	if ((parts = memz_leakparts_kept_proc(ctx->parts, found, p)))
		memz_json_kv_str(g, "leak_parts", parts);
	yajl_gen_map_close(g);
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Room in memz-inspect's budget for reading p's smaps, estimated as the
 * sampler does (the kernel's walk, about 17 ms per GiB resident; a read
 * dearer than the bucket holds waits for a full one). */
static bool inspect_affordable(const struct memz_nd_fctx *ctx,
			       const struct memz_proc *p)
{
	double est = 20e-6 + (double)p->mem.rss * (17e-3 / 1073741824.0);

	/* above ExactMaxRss only status is read: no walk to pay for */
	if (!ctx->budget || (ctx->exact_max_rss > 0 &&
			     (double)p->mem.rss > ctx->exact_max_rss))
		return true;
	memz_budget_refill(ctx->budget, memz_now());
	if (est > ctx->budget->cap)
		est = ctx->budget->cap;
	return memz_budget_room(ctx->budget) >= est;
}

/* The smaps taxonomy the CLI's inspect shows, from the core, so both name
 * the same bytes the same way. Read on request only: smaps is costly. */
static void inspect(yajl_gen g, const struct memz_proc *p,
		    const struct memz_proc **choices, size_t n_choices,
		    const struct memz_nd_fctx *ctx)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_inspect ins;
	const char *what = NULL;
	char help[256], label[96];
	const char *pn = p && p->name ? p->name : "";
	int rc = -ENOENT;
	bool afford = !p || inspect_affordable(ctx, p);
	double c0 = thread_cpu();

	memz_sanitize_label(pn, strlen(pn), label, sizeof label);
	snprintf(help, sizeof help,
		 "Memory of process %d (%s) by mapping kind, from its smaps",
		 p ? p->pid : 0, label);
	memz_inspect_init(&ins);
	ins.max_rss = ctx->exact_max_rss;
	/* the pid is one the sampler found, so the read stays in
	 * ProcRoot/PID/, and of the process found: the pid may be another's
	 * since; privilege is in effect for that read alone */
	if (p && afford && !(rc = memz_priv_raise(ctx->held)))
		rc = memz_inspect_read_proc(&ins, ctx->proc_root, p->pid,
					    p->start, a, &what);
	/* lowering to a subset of what is held cannot fail but by a bug;
	 * going on with privilege in effect would be worse than stopping */
	if (p && afford && memz_priv_lower(ctx->held))
		abort();
	if (p && afford && ctx->budget)
		memz_budget_charge(ctx->budget, thread_cpu() - c0, false);
	memz_nd_table_head(g, 200, ctx->update_every, p ? help :
	     "Memory of one process by mapping kind, from its smaps");
	memz_nd_accepted_params(g, inspect_accepts);
	required_pid(g, choices, n_choices);
	if (p)
		process_facts(g, p, ctx);
	if (p && !afford) {
		memz_json_kv_str(g, "message",
				 "smaps not read now: memz-inspect has spent its CPU budget (CpuBudget); ask again in a few seconds");
	} else if (p && rc) {
		char why[160];

		if (rc == -ESRCH || (rc == -ENOENT && what &&
				     !strcmp(what, "process")))
			snprintf(why, sizeof why, "process %d exited", p->pid);
		else
			snprintf(why, sizeof why, "cannot read %s of %d: %s",
				 what ? what : "smaps", p->pid, strerror(-rc));
		memz_json_kv_str(g, "message", why);
	} else if (p && ins.too_big) {
		char why[256];
		snprintf(why, sizeof why,
			 "smaps of %d not read: resident %.0f MiB, above ExactMaxRss (%.0f MiB); "
			 "the kernel would hold its mmap lock for the whole walk (about 17 ms per GiB) and stall it",
			 p->pid, (double)ins.status.vm_rss / 1048576.0,
			 ctx->exact_max_rss / 1048576.0);
		memz_json_kv_str(g, "message", why);
	}
	memz_nd_table_columns(g, inspect_cols, N_INSPECT, NULL);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	if (p && afford && !rc && !ins.too_big) {
		for (int c = 0; c < MEMZ_CAT_COUNT; c++)
			if (ins.cats.cat[c].count)
				cat_row(g, memz_mapcat_name((enum memz_mapcat)c),
					&ins.cats.cat[c], "normal");
		cat_row(g, "total", &ins.cats.total, "notice");
	}
	yajl_gen_array_close(g);
	memz_nd_table_tail(g, "PSS", ctx->update_every);
	memz_inspect_release(&ins, a);
}

static const struct memz_proc *find_proc(const struct memz_snapshot *s,
					 int pid)
{
	for (size_t i = 0; s && i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i];
	return NULL;
}

int memz_nd_view_inspect(yajl_gen g, const struct memz_nd_fctx *ctx,
			 const struct memz_nd_args *a)
{
	const struct memz_snapshot *snap = ctx->snap;
	size_t n;
	const struct memz_proc **v =
		memz_nd_sorted_procs(snap, PID_OPTIONS_MAX, published, NULL, &n);
	const struct memz_proc *p = NULL;
	int status = 200;

	if (a->info)
		p = NULL;
	else if (a->has_pid && !(p = find_proc(snap, a->pid)))
		status = 404;
	else if (!a->has_pid && !(p = n ? v[0] : NULL))
		status = 404;
	if (status == 200)
		inspect(g, p, v, n, ctx);
	else
		memz_nd_error_body(g, status, a->has_pid
				   ? "no such process (it may have exited)"
				   : "no process to inspect yet");
	free(v);
	return status;
}
