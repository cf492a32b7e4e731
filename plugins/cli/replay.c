/*
 * memz replay: a trace through the very process table and detector the
 * plugins run; each leak/clear event as one JSON line (docs/trace-format.md).
 * Numbers are formatted here, not by yajl's %g, so the same trace and
 * settings give the same bytes on every machine.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "cli.h"
#include "memz/json.h"
#include "memz/table.h"
#include "memz/trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memz replay [--group=name] [--set NAME=VALUE ...] FILE\n"
		"Runs the leak detector over a trace (memz record) and prints\n"
		"one JSON line per leak or clear event. FILE '-' is stdin.\n"
		"Without --group, events are per process (GroupBy=none).\n");
}

static int print_event(const struct memz_event *e)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t len;
	int rc = 0;

	if (!g)
		return -ENOMEM;
	yajl_gen_map_open(g);
	memz_json_kv_fixed(g, "t", e->t, 3);
	memz_json_kv_str(g, "event", e->kind == MEMZ_EVENT_LEAK ? "leak" : "clear");
	if (e->is_group) {
		memz_json_kv_str(g, "group", e->name);
	} else {
		memz_json_kv_int(g, "pid", e->pid);
		memz_json_kv_int(g, "start", (long long)e->start);
		memz_json_kv_str(g, "name", e->name);
	}
	if (e->kind == MEMZ_EVENT_LEAK) {
		memz_json_kv_fixed(g, "rate_bps", e->verdict.rate_bps, 1);
		memz_json_kv_fixed(g, "r2", e->verdict.r2, 3);
		memz_json_kv_int(g, "samples", e->verdict.samples);
		memz_json_kv_int(g, "confidence", e->verdict.confidence);
		memz_json_kv_str(g, "horizon",
		    e->verdict.horizon == MEMZ_HORIZON_LONG ? "long" : "short");
	}
	yajl_gen_map_close(g);
	yajl_gen_get_buf(g, &buf, &len);
	if (fwrite(buf, 1, len, stdout) != len || putchar('\n') == EOF)
		rc = -EIO;
	yajl_gen_free(g);
	return rc;
}

static int end_cycle(struct memz_table *t, struct memz_table_view *v,
		     bool groups)
{
	int rc = memz_table_end(t, v);

	if (rc)
		return rc;
	for (size_t i = 0; i < v->n_events; i++)
		if (v->events[i].is_group == groups &&
		    (rc = print_event(&v->events[i])))
			return rc;
	return 0;
}

static int replay(FILE *f, const char *path, const struct memz_settings *s)
{
	struct memz_trace_reader *r = NULL;
	struct memz_trace_row *row = NULL;
	struct memz_table *t = NULL;
	struct memz_table_view v;
	bool in_cycle = false, groups = s->group_by != MEMZ_GROUP_NONE;
	double cur = 0, first_t = 0;
	int rc, status = 0;

	memz_table_view_init(&v);
	/* the reader keeps its buffers inline: too big for the stack */
	r = calloc(1, sizeof *r);
	row = calloc(1, sizeof *row);
	if (!r || !row || memz_table_new(&t, s, memz_allocator_libc())) {
		fprintf(stderr, "memz replay: out of memory\n");
		status = 1;
		goto out;
	}
	memz_trace_reader_init(r, f, path);
	while ((rc = memz_trace_next(r, row)) == 1) {
		struct memz_proc *p;
		bool is_new;

		if (!in_cycle || row->t != cur) {
			if (in_cycle && end_cycle(t, &v, groups))
				goto fail;
			memz_table_begin(t, row->t);
			if (!in_cycle)
				first_t = row->t;
			cur = row->t;
			in_cycle = true;
		}
		p = memz_table_get(t, row->pid, row->start, &is_new);
		if (!p)
			goto fail;
		/* a trace before version 3 has no age: a process that
		 * appears after the first cycle started about then, one in
		 * the first cycle was already running, for how long is not
		 * known (as when memz starts on a busy machine) */
		if (is_new)
			p->born = row->has_age ? row->t - row->age
				  : row->t > first_t ? row->t : -INFINITY;
		/* a process may exec and change its comm under the same pid */
		if ((is_new || !p->name || strcmp(p->name, row->name)) &&
		    memz_table_set_name(t, p, row->name, row->name_len))
			goto fail;
		memset(&p->mem, 0, sizeof p->mem);
		p->mem.pss = row->kb[MEMZ_TRACE_PSS] * 1024;
		p->mem.rss = row->kb[MEMZ_TRACE_RSS] * 1024;
		p->mem.anonymous = row->kb[MEMZ_TRACE_ANON] * 1024;
		p->mem.swap = row->kb[MEMZ_TRACE_SWAP] * 1024;
		/* version 1, or a kernel without the split: Anonymous stands
		 * in for Pss_Anon, as the live readers do */
		p->mem.has_pss_anon = row->has[MEMZ_TRACE_PSS_ANON];
		p->mem.pss_anon = p->mem.has_pss_anon
					  ? row->kb[MEMZ_TRACE_PSS_ANON] * 1024
					  : p->mem.anonymous;
		p->mem.pss_file = row->kb[MEMZ_TRACE_PSS_FILE] * 1024;
		p->mem.pss_shmem = row->kb[MEMZ_TRACE_PSS_SHMEM] * 1024;
		p->pss_age = 0;
		p->estimated = row->has_error;
		p->pss_error = row->error_kb * 1024;
		p->vm_size = row->has_vm ? row->vm_kb * 1024 : 0;
		p->has_sample = row->has[MEMZ_TRACE_PSS];
		p->denied = !row->has[MEMZ_TRACE_PSS];
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", r->err);
		status = 2;
		goto out;
	}
	if (in_cycle && end_cycle(t, &v, groups))
		goto fail;
	if (fflush(stdout))
		goto fail;
	goto out;
fail:
	fprintf(stderr, "memz replay: %s\n", strerror(errno ? errno : EIO));
	status = 1;
out:
	memz_table_free(&t);
	free(r);
	free(row);
	return status;
}

int cli_replay(int argc, char **argv)
{
	struct memz_settings s;
	const char *path = NULL, *group = NULL;
	FILE *f;
	int status;

	memz_settings_init(&s);
	s.group_by = MEMZ_GROUP_NONE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strncmp(a, "--group=", 8)) {
			group = a + 8;
		} else if (!strcmp(a, "--group") && i + 1 < argc) {
			group = argv[++i];
		} else if (!strncmp(a, "--set=", 6)) {
			if (cli_apply_set(&s, a + 6))
				return 2;
		} else if (!strcmp(a, "--set") && i + 1 < argc) {
			if (cli_apply_set(&s, argv[++i]))
				return 2;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "memz replay: unknown option \"%s\"\n", a);
			usage(stderr);
			return 2;
		} else if (path) {
			fprintf(stderr, "memz replay: one FILE only\n");
			return 2;
		} else {
			path = a;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	if (group && memz_settings_set(&s, "GroupBy", group, NULL, 0)) {
		fprintf(stderr,
			"memz replay: --group=%s: not a grouping (name, exe, cgroup, user, none)\n",
			group);
		return 2;
	}
	if (s.group_by != MEMZ_GROUP_NAME && s.group_by != MEMZ_GROUP_NONE) {
		fprintf(stderr,
			"memz replay: a trace has no exe, cgroup or user column; it can only be grouped by name\n");
		return 2;
	}
	if (!strcmp(path, "-")) {
		f = stdin;
	} else if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "memz replay: %s: %s\n", path, strerror(errno));
		return 2;
	}
	status = replay(f, path, &s);
	if (f != stdin)
		fclose(f);
	return status;
}
