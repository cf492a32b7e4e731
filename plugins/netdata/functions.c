#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "memz/inspect.h"
#include "memz/json.h"
#include "memz/privilege.h"
#include "memz/procfs.h"
#include "memz/sanitize.h"
#include "memz/smapscat.h"
#include "functions.h"
#include "ndtable.h"

#define MAX_WORDS 20
#define MIB 1048576.0
#define PID_OPTIONS_MAX 200

/* The same splitting netdata applies to what it reads, so a call is seen
 * the way netdata meant it. */
static int split(char *s, char **w, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t' || *s == '=')
			s++;
		if (!*s)
			break;
		if (*s == '"' || *s == '\'') {
			char q = *s++;
			w[n++] = s;
			while (*s && *s != q)
				s++;
		} else {
			w[n++] = s;
			while (*s && *s != ' ' && *s != '\t' && *s != '=')
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static const struct memz_nd_col top_cols[] = {
	{ "Group", "Process group", "string", "value", "none", "", 0,
	  "ascending", "count", "multiselect", true, true, true },
	{ "PSS", "Proportional set size", "bar-with-integer", "bar", "number",
	  "MiB", 1, "descending", "sum", "range", true, false, false },
	{ "USS", "Unique set size (freed if the group exited)",
	  "bar-with-integer", "bar", "number", "MiB", 1, "descending", "sum",
	  "range", true, false, false },
	{ "Swap", "Swap used", "bar-with-integer", "bar", "number", "MiB", 1,
	  "descending", "sum", "range", true, false, false },
	{ "Growth", "PSS growth rate", "integer", "value", "number", "KiB/s", 1,
	  "descending", "sum", "range", true, false, false },
	{ "Leak", "Leak suspect", "boolean", "value", "none", "", 0,
	  "descending", "count", "facet", true, false, false },
	{ "Confidence", "Leak verdict confidence", "integer", "value", "number",
	  "%", 0, "descending", "max", "range", true, false, false },
	{ "Since", "Growing for", "duration", "value", "duration", "s", 0,
	  "descending", "max", "range", true, false, false },
	{ "Processes", "Processes in the group", "integer", "value", "number",
	  "", 0, "descending", "sum", "range", true, false, false },
	MEMZ_ND_ROWOPT,
};
#define N_TOP (sizeof top_cols / sizeof *top_cols)

static void top(yajl_gen g, const struct memz_snapshot *s, int update_every,
		bool info)
{
	double max[N_TOP];

	for (size_t i = 0; i < N_TOP; i++)
		max[i] = NAN;
	max[1] = max[2] = max[3] = 0;
	for (size_t i = 0; s && i < s->view.n_groups; i++) {
		const struct memz_group *gr = s->view.groups[i];
		max[1] = fmax(max[1], (double)gr->pss / MIB);
		max[2] = fmax(max[2], (double)gr->uss / MIB);
		max[3] = fmax(max[3], (double)gr->swap / MIB);
	}
	memz_nd_table_head(g, 200, update_every,
	     "Process groups by proportional set size, with memz's leak verdicts; a suspect's row is highlighted");
	memz_nd_table_columns(g, top_cols, N_TOP, max);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	for (size_t i = 0; !info && s && i < s->view.n_groups; i++) {
		const struct memz_group *gr = s->view.groups[i];
		const struct memz_verdict *v = &gr->det.verdict;
		const char *name = gr->name ? gr->name : "";

		yajl_gen_array_open(g);
		memz_json_string(g, name, strlen(name));
		memz_json_double(g, (double)gr->pss / MIB);
		memz_json_double(g, (double)gr->uss / MIB);
		memz_json_double(g, (double)gr->swap / MIB);
		memz_json_double(g, v->rate_bps / 1024.0);
		yajl_gen_bool(g, v->leak);
		yajl_gen_integer(g, v->confidence);
		if (v->leak && v->since > 0 && s->t >= v->since)
			memz_json_double(g, round(s->t - v->since));
		else
			yajl_gen_null(g);
		yajl_gen_integer(g, gr->members);
		memz_nd_row_options(g, v->leak ? "warning" : "normal");
		yajl_gen_array_close(g);
	}
	yajl_gen_array_close(g);
	memz_nd_table_tail(g, "PSS", update_every);
}

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

static int by_pss(const void *a, const void *b)
{
	const struct memz_proc *x = *(const struct memz_proc *const *)a;
	const struct memz_proc *y = *(const struct memz_proc *const *)b;

	if (x->mem.pss != y->mem.pss)
		return x->mem.pss < y->mem.pss ? 1 : -1;
	return x->pid - y->pid;
}

static bool published(const struct memz_proc *p)
{
	return p->group && (p->group->reported || p->group->det.verdict.leak);
}

/* The published groups' processes, largest first, at most max of them;
 * *n how many. NULL with *n = 0 when there are none or memory ran out. */
static const struct memz_proc **pid_choices(const struct memz_snapshot *s,
					    size_t max, size_t *n)
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
		if (published(s->view.procs[i]))
			v[k++] = s->view.procs[i];
	qsort(v, k, sizeof *v, by_pss);
	*n = k < max ? k : max;
	return v;
}

static void required_pid(yajl_gen g, const struct memz_proc **v, size_t n)
{
	char id[16], name[160], label[96];

	memz_json_str(g, "required_params");
	yajl_gen_array_open(g);
	yajl_gen_map_open(g);
	memz_json_kv_str(g, "id", "pid");
	memz_json_kv_str(g, "name", "Process");
	memz_json_kv_str(g, "help", "The process to inspect (published groups' processes, largest PSS first)");
	memz_json_kv_str(g, "type", "select");
	memz_json_str(g, "options");
	yajl_gen_array_open(g);
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
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_array_close(g);
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

static void process_facts(yajl_gen g, const struct memz_proc *p)
{
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
	yajl_gen_map_close(g);
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

	memz_sanitize_label(pn, strlen(pn), label, sizeof label);
	snprintf(help, sizeof help,
		 "Memory of process %d (%s) by mapping kind, from its smaps",
		 p ? p->pid : 0, label);
	memz_inspect_init(&ins);
	/* the pid is one the sampler found, so the read stays in
	 * ProcRoot/PID/; privilege is in effect for that read alone */
	if (p && !(rc = memz_priv_raise(ctx->held)))
		rc = memz_inspect_read(&ins, ctx->proc_root, p->pid, a, &what);
	/* lowering to a subset of what is held cannot fail but by a bug;
	 * going on with privilege in effect would be worse than stopping */
	if (p && memz_priv_lower(ctx->held))
		abort();
	memz_nd_table_head(g, 200, ctx->update_every, p ? help :
	     "Memory of one process by mapping kind, from its smaps");
	required_pid(g, choices, n_choices);
	if (p)
		process_facts(g, p);
	if (p && rc) {
		char why[160];
		snprintf(why, sizeof why, "cannot read %s of %d: %s",
			 what ? what : "smaps", p->pid, strerror(-rc));
		memz_json_kv_str(g, "message", why);
	}
	memz_nd_table_columns(g, inspect_cols, N_INSPECT, NULL);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	if (p && !rc) {
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

struct params {
	bool info;
	bool has_pid;
	int pid;
	char bad[160]; /* set: answer 400 with this */
};

static void parse_params(char **a, int na, struct params *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 1; i < na; i++) {
		if (!strcmp(a[i], "info")) {
			p->info = true;
		} else if (!strncmp(a[i], "pid:", 4) ||
			   (a[i][0] >= '0' && a[i][0] <= '9')) {
			const char *v = a[i][0] == 'p' ? a[i] + 4 : a[i];
			if (memz_parse_pid(v, strlen(v), &p->pid)) {
				char shown[64];
				memz_sanitize_label(v, strlen(v), shown,
						    sizeof shown);
				snprintf(p->bad, sizeof p->bad,
					 "pid must be a process id (1 to 2147483647), not '%s'",
					 shown);
				return;
			}
			p->has_pid = true;
		}
		/* anything else: a parameter a newer UI sends (after:,
		 * before:, timeout:...), none of memz's business */
	}
}

static const struct memz_proc *find_proc(const struct memz_snapshot *s,
					 int pid)
{
	for (size_t i = 0; s && i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i];
	return NULL;
}

static int function_body(yajl_gen g, char *fn, const struct memz_nd_fctx *ctx)
{
	const struct memz_snapshot *snap = ctx->snap;
	char *a[MAX_WORDS];
	int na = split(fn, a, MAX_WORDS);
	bool is_top = na >= 1 && !strcmp(a[0], "memz-top");
	bool is_inspect = na >= 1 && !strcmp(a[0], "memz-inspect");
	struct params prm;

	if (!is_top && !is_inspect) {
		memz_nd_error_body(g, 404, "unknown function (memz has memz-top and memz-inspect)");
		return 404;
	}
	parse_params(a, na, &prm);
	if (*prm.bad) {
		memz_nd_error_body(g, 400, prm.bad);
		return 400;
	}
	if (!snap && !prm.info) {
		memz_nd_error_body(g, 503, "memz has not sampled yet");
		return 503;
	}
	if (is_top) {
		top(g, snap, ctx->update_every, prm.info);
		return 200;
	}
	{
		size_t n;
		const struct memz_proc **v = pid_choices(snap, PID_OPTIONS_MAX, &n);
		const struct memz_proc *p = NULL;
		int status = 200;

		if (prm.info)
			p = NULL;
		else if (prm.has_pid && !(p = find_proc(snap, prm.pid)))
			status = 404;
		else if (!prm.has_pid && !(p = n ? v[0] : NULL))
			status = 404;
		if (status == 200)
			inspect(g, p, v, n, ctx);
		else
			memz_nd_error_body(g, status, prm.has_pid
				   ? "no such process (it may have exited)"
				   : "no process to inspect yet");
		free(v);
		return status;
	}
}

static int result(FILE *out, const char *tx, int status, int update_every,
		  const unsigned char *body, size_t blen, size_t *bytes)
{
	if (bytes)
		*bytes += blen;
	fprintf(out, "FUNCTION_RESULT_BEGIN %s %d application/json %lld\n",
		tx, status, (long long)time(NULL) + update_every);
	fwrite(body, 1, blen, out);
	fputs("\nFUNCTION_RESULT_END\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

static int answer_error(FILE *out, const char *tx, int status,
			const char *msg, int update_every)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *body;
	size_t blen;
	int rc;

	if (!g)
		return -ENOMEM;
	memz_nd_error_body(g, status, msg);
	yajl_gen_get_buf(g, &body, &blen);
	rc = result(out, tx, status, update_every, body, blen, NULL);
	yajl_gen_free(g);
	return rc;
}

static int answer(FILE *out, const char *tx, const char *fn,
		  const struct memz_nd_fctx *ctx, size_t *bytes)
{
	char copy[MEMZ_ND_LINE_MAX];
	const unsigned char *body;
	size_t blen;
	yajl_gen g;
	int status, rc;

	snprintf(copy, sizeof copy, "%s", fn);
	if (!(g = yajl_gen_alloc(NULL)))
		return -ENOMEM;
	status = function_body(g, copy, ctx);
	yajl_gen_get_buf(g, &body, &blen);
	rc = result(out, tx, status, ctx->update_every, body, blen, bytes);
	yajl_gen_free(g);
	return rc;
}

int memz_nd_answer(FILE *out, const char *tx, const char *fn,
		   const struct memz_nd_fctx *ctx)
{
	return answer(out, tx, fn, ctx, NULL);
}

/* A transaction id goes back on our stdout as one word: it must be one
 * netdata splits as one word and that fits. */
static bool usable_tx(const char *tx)
{
	size_t n = strlen(tx);

	if (!n || n >= MEMZ_ND_TX_MAX)
		return false;
	for (const char *p = tx; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return false;
	}
	return true;
}

static struct memz_nd_call *slot(struct memz_nd_input *in, size_t i)
{
	return &in->q[(in->head + i) % MEMZ_ND_QUEUE];
}

static int cancel(struct memz_nd_input *in, FILE *out, const char *tx,
		  int update_every)
{
	for (size_t i = 0; i < in->count; i++) {
		if (strcmp(slot(in, i)->tx, tx))
			continue;
		/* close the gap, keeping the order of the others */
		for (size_t j = i; j + 1 < in->count; j++)
			*slot(in, j) = *slot(in, j + 1);
		in->count--;
		in->cancelled++;
		return answer_error(out, tx, 499, "cancelled", update_every);
	}
	return 0; /* answered already, or never ours */
}

int memz_nd_input_line(struct memz_nd_input *in, FILE *out, char *s,
		       const struct memz_nd_fctx *ctx, double now)
{
	char *w[MAX_WORDS];
	int nw;

	if (in->in_payload) {
		if (!strcmp(s, "FUNCTION_PAYLOAD_END"))
			in->in_payload = false;
		return 0;
	}
	nw = split(s, w, MAX_WORDS);
	if (nw == 1 && !strcmp(w[0], "QUIT")) {
		in->quit = true;
		return 0;
	}
	if (nw >= 2 && !strcmp(w[0], "FUNCTION_CANCEL"))
		return usable_tx(w[1]) ? cancel(in, out, w[1], ctx->update_every)
				       : 0;
	if (nw >= 1 && !strcmp(w[0], "FUNCTION_PAYLOAD")) {
		in->in_payload = true;
		if (nw < 2 || !usable_tx(w[1])) {
			in->bad_tx++;
			return 0;
		}
		return answer_error(out, w[1], 400,
				    "memz functions take no payload",
				    ctx->update_every);
	}
	if (nw < 4 || strcmp(w[0], "FUNCTION"))
		return 0; /* FUNCTION_PROGRESS and the like need no answer */
	if (!usable_tx(w[1])) {
		in->bad_tx++;
		return 0;
	}
	if (in->count == MEMZ_ND_QUEUE) {
		in->busy++;
		return answer_error(out, w[1], 503,
				    "memz.plugin is busy: too many function calls queued, retry later",
				    ctx->update_every);
	}
	{
		struct memz_nd_call *c = slot(in, in->count);
		char *end;
		long t = strtol(w[2], &end, 10);

		snprintf(c->tx, sizeof c->tx, "%s", w[1]);
		snprintf(c->fn, sizeof c->fn, "%s", w[3]);
		c->deadline = now + (*end || t <= 0 || t > 3600 ? 10 : t);
		in->count++;
	}
	return 0;
}

int memz_nd_input_init(struct memz_nd_input *in)
{
	memset(in, 0, sizeof *in);
	in->q = calloc(MEMZ_ND_QUEUE, sizeof *in->q);
	return in->q ? 0 : -ENOMEM;
}

void memz_nd_input_release(struct memz_nd_input *in)
{
	free(in->q);
	in->q = NULL;
	in->count = 0;
}

int memz_nd_input_read(struct memz_nd_input *in, int fd, FILE *out,
		       const struct memz_nd_fctx *ctx, double now)
{
	size_t taken = 0;

	while (taken < MEMZ_ND_READ_BUDGET && !in->quit) {
		ssize_t n = read(fd, in->buf + in->len, sizeof in->buf - 1 - in->len);
		size_t start = 0;

		if (n < 0) {
			/* EINTR: back to the loop, which may have a signal to
			 * act on; any other error ends input like EOF would */
			if (errno != EINTR && errno != EAGAIN &&
			    errno != EWOULDBLOCK)
				in->eof = true;
			return 0;
		}
		if (n == 0) {
			in->eof = true;
			return 0;
		}
		taken += (size_t)n;
		in->len += (size_t)n;
		for (size_t i = 0; i < in->len && !in->quit; i++) {
			if (in->buf[i] != '\n')
				continue;
			in->buf[i] = '\0';
			if (!in->discarding &&
			    memz_nd_input_line(in, out, in->buf + start, ctx,
					       now))
				return -EIO;
			in->discarding = false;
			start = i + 1;
		}
		memmove(in->buf, in->buf + start, in->len - start);
		in->len -= start;
		if (in->len == sizeof in->buf - 1) {
			in->discarding = true;
			in->len = 0;
		}
	}
	return 0;
}

int memz_nd_serve(struct memz_nd_input *in, FILE *out,
		  const struct memz_nd_fctx *ctx, double now,
		  double time_budget, size_t byte_budget)
{
	size_t bytes = 0;
	bool served = false;

	while (in->count) {
		struct memz_nd_call *c = slot(in, 0);

		if (served && (memz_now() - now >= time_budget ||
			       bytes >= byte_budget))
			break;
		in->head = (in->head + 1) % MEMZ_ND_QUEUE;
		in->count--;
		if (memz_now() > c->deadline) {
			in->expired++;
			continue;
		}
		if (answer(out, c->tx, c->fn, ctx, &bytes))
			return -EIO;
		served = true;
	}
	return 0;
}
