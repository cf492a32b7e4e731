#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "memz/json.h"
#include "memz/privilege.h"
#include "memz/procfs.h"
#include "memz/sanitize.h"
#include "memz/inspect.h"
#include "functions.h"

#define MAX_WORDS 8
#define MIB 1048576.0

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

static void column(yajl_gen g, int index, const char *name, const char *type,
		   const char *units, bool key)
{
	memz_json_str(g, name);
	yajl_gen_map_open(g);
	memz_json_str(g, "index");
	yajl_gen_integer(g, index);
	memz_json_str(g, "name");
	memz_json_str(g, name);
	memz_json_str(g, "type");
	memz_json_str(g, type);
	memz_json_str(g, "units");
	memz_json_str(g, units);
	memz_json_str(g, "visible");
	yajl_gen_bool(g, 1);
	memz_json_str(g, "unique_key");
	yajl_gen_bool(g, key);
	memz_json_str(g, "sortable");
	yajl_gen_bool(g, 1);
	yajl_gen_map_close(g);
}

static void head(yajl_gen g, int status, int update_every, const char *help)
{
	yajl_gen_map_open(g);
	memz_json_str(g, "status");
	yajl_gen_integer(g, status);
	memz_json_str(g, "type");
	memz_json_str(g, "table");
	memz_json_str(g, "has_history");
	yajl_gen_bool(g, 0);
	memz_json_str(g, "update_every");
	yajl_gen_integer(g, update_every);
	memz_json_str(g, "help");
	memz_json_str(g, help);
}

static void top(yajl_gen g, const struct memz_snapshot *s, int update_every)
{
	static const struct {
		const char *name, *type, *units;
	} cols[] = {
		{ "Group", "string", "" },   { "PSS", "number", "MiB" },
		{ "USS", "number", "MiB" },  { "Swap", "number", "MiB" },
		{ "Growth", "number", "KiB/s" },
		{ "Leak", "boolean", "" },   { "Confidence", "number", "%" },
		{ "Processes", "number", "" },
	};

	head(g, 200, update_every,
	     "Process groups by proportional set size, with memz leak verdicts");
	memz_json_str(g, "columns");
	yajl_gen_map_open(g);
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		column(g, (int)i, cols[i].name, cols[i].type, cols[i].units,
		       i == 0);
	yajl_gen_map_close(g);
	memz_json_str(g, "default_sort_column");
	memz_json_str(g, "PSS");
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->view.n_groups; i++) {
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
		yajl_gen_integer(g, gr->members);
		yajl_gen_array_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

static void row(yajl_gen g, const char *field, double v, const char *units)
{
	yajl_gen_array_open(g);
	memz_json_str(g, field);
	memz_json_double(g, v);
	memz_json_str(g, units);
	yajl_gen_array_close(g);
}

/* The smaps taxonomy the CLI's inspect shows, from the core, so both name
 * the same bytes the same way. Read on request only: smaps is costly. */
static void inspect_categories(yajl_gen g, const struct memz_proc *p,
			       const struct memz_nd_fctx *ctx)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_inspect ins;
	const char *what = NULL;
	char key[64];

	int rc;

	memz_inspect_init(&ins);
	/* the pid is one the sampler found, so the read stays in
	 * ProcRoot/PID/; privilege is in effect for that read alone */
	rc = memz_priv_raise(ctx->held);
	if (!rc)
		rc = memz_inspect_read(&ins, ctx->proc_root, p->pid, a, &what);
	/* lowering to a subset of what is held cannot fail but by a bug;
	 * going on with privilege in effect would be worse than stopping */
	if (memz_priv_lower(ctx->held))
		abort();
	if (!rc) {
		for (int c = 0; c < MEMZ_CAT_COUNT; c++) {
			const struct memz_catsum *s = &ins.cats.cat[c];
			const char *n = memz_mapcat_name((enum memz_mapcat)c);

			if (!s->count)
				continue;
			snprintf(key, sizeof key, "%s_mappings", n);
			row(g, key, s->count, "");
			snprintf(key, sizeof key, "%s_rss", n);
			row(g, key, (double)s->rss, "B");
			snprintf(key, sizeof key, "%s_pss", n);
			row(g, key, (double)s->pss, "B");
			snprintf(key, sizeof key, "%s_private_dirty", n);
			row(g, key, (double)s->private_dirty, "B");
			snprintf(key, sizeof key, "%s_swap", n);
			row(g, key, (double)s->swap, "B");
		}
	}
	memz_inspect_release(&ins, a);
}

static void inspect(yajl_gen g, const struct memz_proc *p, int update_every,
		    const struct memz_nd_fctx *ctx)
{
	const struct memz_rollup *m = &p->mem;
	const struct memz_verdict *v = &p->det.verdict;
	const char *gname = p->group && p->group->name ? p->group->name : "";

	head(g, 200, update_every, "One process as memz sees it");
	memz_json_str(g, "pid");
	yajl_gen_integer(g, p->pid);
	memz_json_str(g, "name");
	memz_json_string(g, p->name ? p->name : "", p->name ? strlen(p->name) : 0);
	memz_json_str(g, "group");
	memz_json_string(g, gname, strlen(gname));
	memz_json_str(g, "columns");
	yajl_gen_map_open(g);
	column(g, 0, "Field", "string", "", true);
	column(g, 1, "Value", "number", "", false);
	column(g, 2, "Units", "string", "", false);
	yajl_gen_map_close(g);
	memz_json_str(g, "data");
	yajl_gen_array_open(g);
	row(g, "ppid", p->ppid, "");
	row(g, "threads", (double)p->threads, "");
	row(g, "pss", (double)m->pss, "B");
	row(g, "pss_anon", (double)m->pss_anon, "B");
	row(g, "pss_file", (double)m->pss_file, "B");
	row(g, "pss_shmem", (double)m->pss_shmem, "B");
	row(g, "uss", (double)memz_rollup_uss(m), "B");
	row(g, "rss", (double)m->rss, "B");
	row(g, "swap", (double)m->swap, "B");
	row(g, "swap_pss", (double)m->swap_pss, "B");
	row(g, "vm_hwm", (double)p->vm_hwm, "B");
	row(g, "pss_age", p->pss_age, "s");
	row(g, "oom_score_adj", p->oom_score_adj, "");
	row(g, "growth_rate", v->rate_bps, "B/s");
	row(g, "leak", v->leak, "");
	row(g, "leak_r2", v->r2, "");
	row(g, "leak_confidence", v->confidence, "%");
	inspect_categories(g, p, ctx);
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

static void error_body(yajl_gen g, int status, const char *msg)
{
	yajl_gen_map_open(g);
	memz_json_str(g, "status");
	yajl_gen_integer(g, status);
	memz_json_str(g, "error_message");
	memz_json_string(g, msg, strlen(msg));
	yajl_gen_map_close(g);
}

static const struct memz_proc *find_proc(const struct memz_snapshot *s,
					 const char *arg, int *status)
{
	int pid;

	if (!arg || memz_parse_pid(arg, strlen(arg), &pid)) {
		*status = 400;
		return NULL;
	}
	for (size_t i = 0; s && i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i];
	*status = 404;
	return NULL;
}

int memz_nd_function_line(FILE *out, const char *line,
			  const struct memz_nd_fctx *ctx)
{
	const struct memz_snapshot *snap = ctx->snap;
	int update_every = ctx->update_every;
	char copy[MEMZ_ND_LINE_MAX], uuid[64], fn[MEMZ_ND_LINE_MAX];
	char *w[MAX_WORDS], *a[MAX_WORDS];
	int nw, na, status = 200;
	yajl_gen g;
	const unsigned char *body;
	size_t blen;

	snprintf(copy, sizeof copy, "%s", line);
	nw = split(copy, w, MAX_WORDS);
	if (nw < 4 || strcmp(w[0], "FUNCTION"))
		return 0;
	/* the uuid comes back verbatim on our stdout: keep it one word */
	memz_sanitize_id(w[1], strlen(w[1]), uuid, sizeof uuid);
	snprintf(fn, sizeof fn, "%s", w[3]);
	na = split(fn, a, MAX_WORDS);

	if (!(g = yajl_gen_alloc(NULL)))
		return -ENOMEM;
	if (na >= 1 && !strcmp(a[0], "memz-top") && snap) {
		top(g, snap, update_every);
	} else if (na >= 1 && !strcmp(a[0], "memz-inspect") && snap) {
		const struct memz_proc *p = find_proc(snap, na > 1 ? a[1] : NULL,
						      &status);
		if (p)
			inspect(g, p, update_every, ctx);
		else
			error_body(g, status, status == 400
				   ? "usage: memz-inspect PID"
				   : "no such process");
	} else if (na >= 1 && (!strcmp(a[0], "memz-top") ||
			       !strcmp(a[0], "memz-inspect"))) {
		status = 503;
		error_body(g, status, "memz has not sampled yet");
	} else {
		status = 404;
		error_body(g, status, "unknown function");
	}
	yajl_gen_get_buf(g, &body, &blen);
	fprintf(out, "FUNCTION_RESULT_BEGIN %s %d application/json %lld\n",
		uuid, status, (long long)time(NULL) + update_every);
	fwrite(body, 1, blen, out);
	fputs("\nFUNCTION_RESULT_END\n", out);
	yajl_gen_free(g);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int memz_nd_input_read(struct memz_nd_input *in, int fd, FILE *out,
		       const struct memz_nd_fctx *ctx)
{
	for (;;) {
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
		in->len += (size_t)n;
		for (size_t i = 0; i < in->len; i++) {
			if (in->buf[i] != '\n')
				continue;
			in->buf[i] = '\0';
			if (!in->discarding &&
			    memz_nd_function_line(out, in->buf + start, ctx))
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
}
