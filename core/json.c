#include <string.h>

#include "memz/json.h"
#include "memz/pace.h"
#include "memz/report.h"

#define STR(g, s) yajl_gen_string((g), (const unsigned char *)(s), strlen(s))

/* Valid UTF-8 kept, anything else becomes U+FFFD, so the output always
 * parses whatever bytes a process put in its name. */
int memz_json_string(yajl_gen g, const char *s, size_t len)
{
	unsigned char out[2048];
	const unsigned char *in = (const unsigned char *)s;
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < sizeof out;) {
		unsigned c = in[i];
		size_t k = 0;
		unsigned cp = 0;

		if (c < 0x80)
			k = 1, cp = c;
		else if (c >= 0xc2 && c <= 0xdf)
			k = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			k = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 4, cp = c & 0x07;
		for (size_t j = 1; k && j < k; j++) {
			if (i + j >= len || (in[i + j] & 0xc0) != 0x80)
				k = 0;
			else
				cp = (cp << 6) | (in[i + j] & 0x3f);
		}
		if (k && ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
			  (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
			k = 0;
		if (!k) {
			out[o++] = 0xef, out[o++] = 0xbf, out[o++] = 0xbd;
			i++;
			continue;
		}
		memcpy(out + o, in + i, k);
		o += k;
		i += k;
	}
	return yajl_gen_string(g, out, o) == yajl_gen_status_ok ? 0 : -1;
}

static void key_u64(yajl_gen g, const char *k, uint64_t v)
{
	STR(g, k);
	yajl_gen_integer(g, (long long)v);
}

static void key_int(yajl_gen g, const char *k, long long v)
{
	STR(g, k);
	yajl_gen_integer(g, v);
}

/* yajl refuses NaN and infinities, and would leave the document cut. */
static void key_dbl(yajl_gen g, const char *k, double v)
{
	STR(g, k);
	yajl_gen_double(g, memz_finite(v));
}

/* A table's series as keys: whole units as integers. */
static void series_keys(yajl_gen g, const struct memz_series_table *t,
			const void *obj, unsigned skip)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct memz_series *se = &t->s[i];
		double v = memz_series_value(se, obj);

		if (se->flags & skip)
			continue;
		if (se->unit == MEMZ_UNIT_BYTES_PER_S ||
		    se->unit == MEMZ_UNIT_PERCENT || se->unit == MEMZ_UNIT_SECONDS)
			key_dbl(g, se->name, v);
		else
			key_int(g, se->name, (long long)v);
	}
}

static void key_str(yajl_gen g, const char *k, const char *v)
{
	STR(g, k);
	if (v)
		memz_json_string(g, v, strlen(v));
	else
		yajl_gen_null(g);
}

static void verdict(yajl_gen g, const struct memz_verdict *v)
{
	STR(g, "verdict");
	yajl_gen_map_open(g);
	STR(g, "leak");
	yajl_gen_bool(g, v->leak);
	key_dbl(g, "rate_bps", v->rate_bps);
	key_dbl(g, "r2", v->r2);
	key_int(g, "samples", v->samples);
	key_str(g, "horizon", v->horizon == MEMZ_HORIZON_LONG ? "long" : "short");
	key_int(g, "confidence", v->confidence);
	if (v->leak)
		key_dbl(g, "since", v->since);
	yajl_gen_map_close(g);
}

static void breakdown(yajl_gen g, const struct memz_breakdown *b)
{
	STR(g, "breakdown");
	yajl_gen_map_open(g);
	key_u64(g, "mem_total", b->mem_total);
	series_keys(g, &memz_series_breakdown, b, 0);
	/* the kernel's pieces beside the residual, which is a part already */
	for (size_t i = 0; i < memz_series_kernel.n; i++) {
		const struct memz_series *se = &memz_series_kernel.s[i];
		bool part = false;

		for (size_t j = 0; j < memz_series_breakdown.n; j++)
			part = part || !strcmp(memz_series_breakdown.s[j].name,
					       se->name);
		if (!part)
			key_u64(g, se->name, (uint64_t)memz_series_value(se, b));
	}
	yajl_gen_map_close(g);
}

static void psi_line(yajl_gen g, const char *k, const struct memz_psi_line *l)
{
	STR(g, k);
	yajl_gen_map_open(g);
	key_dbl(g, "avg10", l->avg10);
	key_dbl(g, "avg60", l->avg60);
	key_dbl(g, "avg300", l->avg300);
	key_u64(g, "total", l->total);
	yajl_gen_map_close(g);
}

static void system_part(yajl_gen g, const struct memz_snapshot *s)
{
	STR(g, "memory");
	yajl_gen_map_open(g);
	key_u64(g, "mem_available", s->mem.mem_available);
	key_u64(g, "anon_pages", s->mem.anon_pages);
	key_u64(g, "shmem", s->mem.shmem);
	key_u64(g, "swap_total", s->mem.swap_total);
	key_u64(g, "swap_free", s->mem.swap_free);
	yajl_gen_map_close(g);

	STR(g, "psi");
	if (s->psi.present) {
		yajl_gen_map_open(g);
		psi_line(g, "some", &s->psi.some);
		if (s->psi.has_full)
			psi_line(g, "full", &s->psi.full);
		yajl_gen_map_close(g);
	} else {
		yajl_gen_null(g);
	}

	STR(g, "numa");
	yajl_gen_array_open(g);
	for (unsigned i = 0; i < s->numa.n; i++) {
		yajl_gen_map_open(g);
		key_int(g, "node", s->numa.node[i].id);
		series_keys(g, &memz_series_node, &s->numa.node[i], 0);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);

	STR(g, "pace");
	yajl_gen_map_open(g);
	key_str(g, "mode", memz_pace_name(s->pace));
	key_int(g, "interval_ms", s->interval_ms);
	yajl_gen_map_close(g);

	STR(g, "stats");
	yajl_gen_map_open(g);
	key_int(g, "seen", s->stats.seen);
	key_int(g, "new", s->stats.new_procs);
	key_int(g, "vanished", s->stats.vanished);
	key_int(g, "denied", s->stats.denied);
	key_int(g, "kernel_threads", s->stats.kernel_threads);
	key_int(g, "files_read", s->stats.files_read);
	key_int(g, "rollup_reads", s->stats.rollup_reads);
	key_int(g, "rollup_skipped", s->stats.rollup_skipped);
	key_int(g, "rollup_deferred", s->stats.rollup_deferred);
	key_dbl(g, "rollup_cpu_s", s->stats.rollup_cpu_s);
	STR(g, "rollup_fallback");
	yajl_gen_bool(g, s->rollup_fallback);
	STR(g, "pss_anon_fallback");
	yajl_gen_bool(g, s->pss_anon_fallback);
	yajl_gen_map_close(g);
}

/* Every group, each saying whether hosts publish it and, given a report's
 * view, under which id. */
static void groups(yajl_gen g, const struct memz_snapshot *s,
		   const struct memz_report_view *rv)
{
	size_t published = 0;

	STR(g, "groups");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->view.n_groups; i++) {
		const struct memz_group *gr = s->view.groups[i];
		bool pub = memz_report_publishes(gr, published);
		const char *id = NULL;

		if (pub)
			published++;
		for (size_t j = 0; rv && pub && j < rv->n_groups; j++)
			if (rv->groups[j].g == gr)
				id = rv->groups[j].id;
		yajl_gen_map_open(g);
		key_str(g, "name", gr->name);
		series_keys(g, &memz_series_group, gr,
			    MEMZ_SERIES_VERDICT | MEMZ_SERIES_DETAIL);
		STR(g, "reported");
		yajl_gen_bool(g, gr->reported);
		STR(g, "published");
		yajl_gen_bool(g, pub);
		if (rv)
			key_str(g, "id", id);
		verdict(g, &gr->det.verdict);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

static void processes(yajl_gen g, const struct memz_snapshot *s)
{
	STR(g, "processes");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->view.n_procs; i++) {
		const struct memz_proc *p = s->view.procs[i];

		yajl_gen_map_open(g);
		key_int(g, "pid", p->pid);
		key_u64(g, "start", p->start);
		key_int(g, "ppid", p->ppid);
		key_str(g, "name", p->name);
		key_str(g, "group", p->group ? p->group->name : NULL);
		key_int(g, "uid", p->uid);
		key_u64(g, "pss", p->mem.pss);
		key_u64(g, "uss", memz_rollup_uss(&p->mem));
		key_u64(g, "rss", p->mem.rss);
		key_u64(g, "pss_anon", p->mem.pss_anon);
		key_u64(g, "pss_file", p->mem.pss_file);
		key_u64(g, "pss_shmem", p->mem.pss_shmem);
		key_u64(g, "swap", p->mem.swap);
		key_u64(g, "vm_hwm", p->vm_hwm);
		key_int(g, "oom_score_adj", p->oom_score_adj);
		key_dbl(g, "pss_age", p->pss_age);
		key_u64(g, "subtree_pss", p->subtree_pss);
		key_int(g, "descendants", p->descendants);
		verdict(g, &p->det.verdict);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

static void events(yajl_gen g, const struct memz_snapshot *s)
{
	STR(g, "events");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < s->view.n_events; i++) {
		const struct memz_event *e = &s->view.events[i];

		yajl_gen_map_open(g);
		key_str(g, "event", e->kind == MEMZ_EVENT_LEAK ? "leak" : "clear");
		key_dbl(g, "t", e->t);
		if (e->is_group) {
			key_str(g, "group", e->name);
		} else {
			key_int(g, "pid", e->pid);
			key_u64(g, "start", e->start);
			key_str(g, "name", e->name);
		}
		verdict(g, &e->verdict);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

static int snapshot(yajl_gen g, const struct memz_snapshot *s,
		    const struct memz_report_view *rv)
{
	if (yajl_gen_map_open(g) != yajl_gen_status_ok)
		return -1;
	key_dbl(g, "t", s->t);
	breakdown(g, &s->br);
	system_part(g, s);
	key_int(g, "leak_suspects", s->view.leak_suspects);
	groups(g, s, rv);
	processes(g, s);
	events(g, s);
	return yajl_gen_map_close(g) == yajl_gen_status_ok ? 0 : -1;
}

int memz_json_snapshot(yajl_gen g, const struct memz_snapshot *s)
{
	return snapshot(g, s, NULL);
}

int memz_json_report(yajl_gen g, const struct memz_report_view *v)
{
	return snapshot(g, v->snap, v);
}

static int print(FILE *f, const struct memz_snapshot *s,
		 const struct memz_report_view *v)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t len;
	int rc;

	if (!g)
		return -1;
	rc = snapshot(g, s, v);
	if (!rc && yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok) {
		if (fwrite(buf, 1, len, f) != len || fputc('\n', f) == EOF)
			rc = -1;
	}
	yajl_gen_free(g);
	return rc;
}

int memz_json_print(FILE *f, const struct memz_snapshot *s)
{
	return print(f, s, NULL);
}

int memz_json_print_report(FILE *f, const struct memz_report_view *v)
{
	return print(f, v->snap, v);
}
