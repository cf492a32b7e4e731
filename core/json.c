#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memz/cgname.h"
#include "memz/cgroup.h"
#include "memz/json.h"
#include "memz/pace.h"
#include "memz/report.h"
#include "memz/sanitize.h"


bool memz_json_depth_within(const char *buf, size_t len, unsigned max)
{
	unsigned depth = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				return false;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return true;
}

/* Valid UTF-8 kept, anything else becomes U+FFFD, so the output always
 * parses whatever bytes a process put in its name. */
int memz_json_string(yajl_gen g, const char *s, size_t len)
{
	unsigned char out[2048];
	const unsigned char *in = (const unsigned char *)s;
	size_t o = 0;

	for (size_t i = 0; i < len && o + 4 < sizeof out;) {
		size_t k = memz_utf8_len(in + i, len - i);

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

void memz_json_str(yajl_gen g, const char *s)
{
	if (s)
		memz_json_string(g, s, strlen(s));
	else
		yajl_gen_null(g);
}

void memz_json_double(yajl_gen g, double v)
{
	if (isfinite(v))
		yajl_gen_double(g, v);
	else
		yajl_gen_null(g);
}

void memz_json_kv_str(yajl_gen g, const char *key, const char *v)
{
	memz_json_str(g, key);
	memz_json_str(g, v);
}

void memz_json_kv_int(yajl_gen g, const char *key, long long v)
{
	memz_json_str(g, key);
	yajl_gen_integer(g, v);
}

void memz_json_kv_u64(yajl_gen g, const char *key, uint64_t v)
{
	memz_json_kv_int(g, key, v > LLONG_MAX ? LLONG_MAX : (long long)v);
}

void memz_json_kv_double(yajl_gen g, const char *key, double v)
{
	memz_json_str(g, key);
	memz_json_double(g, v);
}

void memz_json_kv_bool(yajl_gen g, const char *key, bool v)
{
	memz_json_str(g, key);
	yajl_gen_bool(g, v);
}

void memz_json_kv_fixed(yajl_gen g, const char *key, double v, int decimals)
{
	char buf[64];
	int n;

	memz_json_str(g, key);
	if (!isfinite(v)) {
		yajl_gen_null(g);
		return;
	}
	n = snprintf(buf, sizeof buf, "%.*f", decimals, v);
	if (n <= 0 || (size_t)n >= sizeof buf) {
		yajl_gen_double(g, v);
		return;
	}
	/* a diff of two outputs should show a changed figure, not noise */
	if (strchr(buf, '.'))
		while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
			buf[--n] = '\0';
	if (!strcmp(buf, "-0.0"))
		strcpy(buf, "0.0");
	yajl_gen_number(g, buf, strlen(buf));
}


/* One map per item, under key: the shape of every list in a snapshot.
 * item writes the i-th map's keys; ctx is the list's owner. */
static void list(yajl_gen g, const char *key, size_t n,
		 void (*item)(yajl_gen g, const void *ctx, size_t i),
		 const void *ctx)
{
	memz_json_str(g, key);
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++) {
		yajl_gen_map_open(g);
		item(g, ctx, i);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

/* A table's series as keys: whole units as integers. */
static void series_keys(yajl_gen g, const struct memz_series_table *t,
			const void *obj, unsigned skip)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct memz_series *se = &t->s[i];
		double v = memz_series_value(se, obj);

		if (se->flags & skip || !memz_series_has(se, obj))
			continue;
		if (memz_series_none(se, obj))
			memz_json_kv_double(g, se->name, NAN); /* null */
		else if (se->unit == MEMZ_UNIT_BYTES_PER_S ||
		    se->unit == MEMZ_UNIT_PERCENT || se->unit == MEMZ_UNIT_SECONDS ||
		    se->unit == MEMZ_UNIT_TIME_LEFT || se->unit == MEMZ_UNIT_SCORE)
			memz_json_kv_double(g, se->name, v);
		else
			memz_json_kv_int(g, se->name, (long long)v);
	}
}

static void verdict(yajl_gen g, const struct memz_verdict *v)
{
	memz_json_str(g, "verdict");
	yajl_gen_map_open(g);
	memz_json_kv_bool(g, "leak", v->leak);
	memz_json_kv_double(g, "rate_bps", v->rate_bps);
	memz_json_kv_double(g, "r2", v->r2);
	memz_json_kv_int(g, "samples", v->samples);
	memz_json_kv_str(g, "horizon", v->horizon == MEMZ_HORIZON_LONG ? "long" : "short");
	memz_json_kv_int(g, "confidence", v->confidence);
	if (v->leak)
		memz_json_kv_double(g, "since", v->since);
	yajl_gen_map_close(g);
}

static void breakdown(yajl_gen g, const struct memz_breakdown *b)
{
	memz_json_str(g, "breakdown");
	yajl_gen_map_open(g);
	memz_json_kv_u64(g, "mem_total", b->mem_total);
	series_keys(g, &memz_series_breakdown, b, 0);
	/* the kernel's pieces beside the residual, which is a part already */
	for (size_t i = 0; i < memz_series_kernel.n; i++) {
		const struct memz_series *se = &memz_series_kernel.s[i];
		bool part = false;

		for (size_t j = 0; j < memz_series_breakdown.n; j++)
			part = part || !strcmp(memz_series_breakdown.s[j].name,
					       se->name);
		if (!part)
			memz_json_kv_u64(g, se->name, (uint64_t)memz_series_value(se, b));
	}
	yajl_gen_map_close(g);
}

static void psi_line(yajl_gen g, const char *k, const struct memz_psi_line *l)
{
	memz_json_str(g, k);
	yajl_gen_map_open(g);
	series_keys(g, &memz_series_psi, l, 0);
	yajl_gen_map_close(g);
}

static void numa_node(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_snapshot *s = ctx;
	const struct memz_numa_node *nd = &s->numa.node[i];

	memz_json_kv_int(g, "node", nd->id);
	series_keys(g, &memz_series_node, nd, 0);
}

static void system_part(yajl_gen g, const struct memz_snapshot *s)
{
	memz_json_str(g, "memory");
	yajl_gen_map_open(g);
	memz_json_kv_u64(g, "mem_available", s->mem.mem_available);
	memz_json_kv_u64(g, "anon_pages", s->mem.anon_pages);
	/* null: no zoneinfo to read, so the residual holds them */
	memz_json_str(g, "pcp_free");
	if (s->mem.has_pcp_free)
		yajl_gen_integer(g, s->mem.pcp_free > LLONG_MAX ?
				     LLONG_MAX : (long long)s->mem.pcp_free);
	else
		yajl_gen_null(g);
	memz_json_kv_u64(g, "shmem", s->mem.shmem);
	memz_json_kv_u64(g, "swap_total", s->mem.swap_total);
	memz_json_kv_u64(g, "swap_free", s->mem.swap_free);
	yajl_gen_map_close(g);

	memz_json_str(g, "psi");
	if (s->psi.present) {
		yajl_gen_map_open(g);
		psi_line(g, "some", &s->psi.some);
		if (s->psi.has_full)
			psi_line(g, "full", &s->psi.full);
		yajl_gen_map_close(g);
	} else {
		yajl_gen_null(g);
	}

	list(g, "numa", s->numa.n, numa_node, s);

	memz_json_str(g, "pace");
	yajl_gen_map_open(g);
	memz_json_kv_str(g, "mode", memz_pace_name(s->pace));
	memz_json_kv_int(g, "interval_ms", s->interval_ms);
	yajl_gen_map_close(g);

	memz_json_str(g, "stats");
	yajl_gen_map_open(g);
	memz_json_kv_int(g, "seen", s->stats.seen);
	memz_json_kv_int(g, "new", s->stats.new_procs);
	memz_json_kv_int(g, "vanished", s->stats.vanished);
	memz_json_kv_int(g, "denied", s->stats.denied);
	memz_json_kv_int(g, "kernel_threads", s->stats.kernel_threads);
	memz_json_kv_int(g, "files_read", s->stats.files_read);
	memz_json_kv_int(g, "rollup_reads", s->stats.rollup_reads);
	memz_json_kv_int(g, "rollup_skipped", s->stats.rollup_skipped);
	memz_json_kv_int(g, "rollup_deferred", s->stats.rollup_deferred);
	memz_json_kv_int(g, "fd_short", s->stats.fd_short);
	memz_json_kv_bool(g, "fd_degraded", s->stats.fd_degraded);
	memz_json_kv_double(g, "rollup_cpu_s", s->stats.rollup_cpu_s);
	memz_json_kv_int(g, "pagemap_steps", s->stats.pagemap_steps);
	memz_json_kv_int(g, "pagemap_walks", s->stats.pagemap_walks);
	memz_json_kv_int(g, "pagemap_given_up", s->stats.pagemap_given_up);
	memz_json_kv_str(g, "pagemap_refused", s->stats.pagemap_refused);
	memz_json_kv_bool(g, "rollup_fallback", s->rollup_fallback);
	memz_json_kv_bool(g, "pss_anon_fallback", s->pss_anon_fallback);
	yajl_gen_map_close(g);
}

/* What a group's cgroup is called, and which hierarchy its figures come
 * from; the limit and usage are series (cgroup_limit, cgroup_usage). */
static void cgroup(yajl_gen g, const struct memz_cgroup *cg)
{
	memz_json_str(g, "cgroup");
	yajl_gen_map_open(g);
	memz_json_kv_str(g, "name", cg->n.name);
	memz_json_kv_str(g, "kind", memz_cgname_kind_name(cg->n.kind));
	if (cg->n.runtime[0])
		memz_json_kv_str(g, "runtime", cg->n.runtime);
	if (cg->n.id[0])
		memz_json_kv_str(g, "container_id", cg->n.id);
	if (cg->n.pod_uid[0])
		memz_json_kv_str(g, "pod_uid", cg->n.pod_uid);
	memz_json_kv_int(g, "version", cg->mem.version);
	memz_json_kv_bool(g, "limited", cg->has_mem && cg->mem.limited);
	yajl_gen_map_close(g);
}

struct groups_ctx {
	const struct memz_snapshot *s;
	const struct memz_report_view *rv;
	struct memz_publish *published; /* report.h's rule, walked in order */
};

/* A group, saying whether hosts publish it and, given a report's view,
 * under which id. */
static void group(yajl_gen g, const void *ctx, size_t i)
{
	const struct groups_ctx *c = ctx;
	const struct memz_group *gr = c->s->view.groups[i];
	bool pub = memz_publish_next(c->published, gr);
	const char *id = NULL;

	for (size_t j = 0; c->rv && pub && j < c->rv->n_groups; j++)
		if (c->rv->groups[j].g == gr)
			id = c->rv->groups[j].id;
	memz_json_kv_str(g, "name", gr->name);
	series_keys(g, &memz_series_group, gr,
		    MEMZ_SERIES_VERDICT | MEMZ_SERIES_DETAIL);
	memz_json_kv_bool(g, "reported", gr->reported);
	memz_json_kv_bool(g, "published", pub);
	if (c->rv)
		memz_json_kv_str(g, "id", id);
	if (gr->cgroup)
		cgroup(g, gr->cgroup);
	verdict(g, &gr->det.verdict);
}

static void groups(yajl_gen g, const struct memz_snapshot *s,
		   const struct memz_report_view *rv)
{
	struct memz_publish published;
	const struct groups_ctx c = { s, rv, &published };

	memz_publish_init(&published, &s->view);

	list(g, "groups", s->view.n_groups, group, &c);
}

struct users_ctx {
	const struct memz_snapshot *s;
	const struct memz_report_view *rv;
	size_t *published; /* report.h's rule, walked in order */
};

/* A user's totals, saying whether hosts publish them and under which id
 * (its name: users.h makes it one). */
static void user(yajl_gen g, const void *ctx, size_t i)
{
	const struct users_ctx *c = ctx;
	const struct memz_user_total *u = c->s->view.users[i];
	bool pub = memz_publish_user_next(c->published, u);

	memz_json_kv_str(g, "name", u->name);
	memz_json_kv_int(g, "uid", u->uid);
	series_keys(g, &memz_series_user, u, MEMZ_SERIES_DETAIL);
	memz_json_kv_bool(g, "reported", u->reported);
	memz_json_kv_bool(g, "published", pub);
	if (c->rv)
		memz_json_kv_str(g, "id", pub ? u->name : NULL);
}

static void users(yajl_gen g, const struct memz_snapshot *s,
		  const struct memz_report_view *rv)
{
	size_t published = 0;
	const struct users_ctx c = { s, rv, &published };

	list(g, "users", s->view.n_users, user, &c);
}

static void process(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_snapshot *s = ctx;
	const struct memz_proc *p = s->view.procs[i];

	memz_json_kv_int(g, "pid", p->pid);
	memz_json_kv_u64(g, "start", p->start);
	memz_json_kv_int(g, "ppid", p->ppid);
	memz_json_kv_str(g, "name", p->name);
	memz_json_kv_str(g, "group", p->group ? p->group->name : NULL);
	memz_json_kv_int(g, "uid", p->uid);
	memz_json_kv_u64(g, "pss", p->mem.pss);
	memz_json_kv_u64(g, "uss", memz_rollup_uss(&p->mem));
	memz_json_kv_u64(g, "rss", p->mem.rss);
	memz_json_kv_u64(g, "pss_anon", p->mem.pss_anon);
	memz_json_kv_u64(g, "pss_file", p->mem.pss_file);
	memz_json_kv_u64(g, "pss_shmem", p->mem.pss_shmem);
	memz_json_kv_u64(g, "swap", p->mem.swap);
	memz_json_kv_u64(g, "vm_hwm", p->vm_hwm);
	memz_json_kv_int(g, "oom_score_adj", p->oom_score_adj);
	memz_json_kv_double(g, "pss_age", p->pss_age);
	/* never read by smaps_rollup (above ExactMaxRss): PSS from status
	 * and pagemap, within pss_error bytes */
	memz_json_kv_bool(g, "estimated", p->estimated);
	memz_json_kv_u64(g, "pss_error", p->pss_error);
	memz_json_kv_u64(g, "subtree_pss", p->subtree_pss);
	memz_json_kv_int(g, "descendants", p->descendants);
	verdict(g, &p->det.verdict);
}

static void event(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_snapshot *s = ctx;
	const struct memz_event *e = &s->view.events[i];

	memz_json_kv_str(g, "event", e->kind == MEMZ_EVENT_LEAK ? "leak" : "clear");
	memz_json_kv_double(g, "t", e->t);
	if (e->is_group) {
		memz_json_kv_str(g, "group", e->name);
	} else {
		memz_json_kv_int(g, "pid", e->pid);
		memz_json_kv_u64(g, "start", e->start);
		memz_json_kv_str(g, "name", e->name);
	}
	verdict(g, &e->verdict);
}

static void leak_category(yajl_gen g, const void *ctx, size_t k)
{
	const struct memz_leakpart *lp = ctx;

	memz_json_kv_str(g, "category", memz_mapcat_name(lp->d[k].cat));
	memz_json_kv_int(g, "pss", lp->d[k].pss);
}

/* What a suspect's leak is made of, found this cycle (leakparts.h). */
static void leak_part(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_snapshot *s = ctx;
	const struct memz_leakpart *lp = &s->leak_parts[i];

	memz_json_kv_str(g, lp->is_group ? "group" : "name", lp->name);
	memz_json_kv_int(g, "pid", lp->pid);
	memz_json_kv_u64(g, "start", lp->start);
	memz_json_kv_double(g, "over_s", lp->over_s);
	memz_json_kv_str(g, "text", lp->text);
	list(g, "categories", lp->n, leak_category, lp);
}

static void oom_driver(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_oom_scope *sc = ctx;
	const struct memz_oom_driver *d = &sc->drivers[i];

	memz_json_kv_str(g, d->pid ? "name" : "group", d->name);
	if (d->pid)
		memz_json_kv_int(g, "pid", d->pid);
	memz_json_kv_double(g, "rate_bps", d->rate_bps);
	memz_json_kv_fixed(g, "share", d->share, 3);
}

static void oom_scope(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_oom_view *o = ctx;
	const struct memz_oom_scope *sc = &o->scope[i];

	memz_json_kv_str(g, "scope", sc->path[0] ? sc->path : "machine");
	memz_json_kv_str(g, "id", sc->id);
	if (sc->path[0])
		memz_json_kv_int(g, "cgroup_version", sc->v1 ? 1 : 2);
	series_keys(g, &memz_series_oom, sc, 0);
	memz_json_kv_bool(g, "warn", sc->warn);
	memz_json_kv_int(g, "warn_level", sc->warn_level);
	memz_json_kv_double(g, "warn_s", sc->warn_s);
	list(g, "drivers", sc->n_drivers, oom_driver, sc);
}

/* The kills come newest first; the first new_kills are this cycle's. */
static void oom_kill(yajl_gen g, const void *ctx, size_t i)
{
	const struct memz_oom_view *o = ctx;
	const struct memz_oom_kill *k = &o->kill[i];

	memz_json_kv_double(g, "t", k->t);
	memz_json_kv_bool(g, "new", i < o->new_kills);
	memz_json_kv_str(g, "scope", k->scope[0] ? k->scope : "machine");
	memz_json_kv_str(g, "scope_id", k->scope_id);
	memz_json_kv_bool(g, "known", k->known);
	memz_json_kv_str(g, "name", k->known ? k->name : NULL);
	if (k->known) {
		memz_json_kv_int(g, "pid", k->pid);
		memz_json_kv_u64(g, "pss", k->pss);
		memz_json_kv_bool(g, "leak", k->leak);
		if (k->leak)
			memz_json_kv_int(g, "leak_confidence", k->leak_confidence);
	}
	memz_json_kv_int(g, "sure", k->sure);
	memz_json_kv_int(g, "candidates", k->candidates);
}

/* Time to OOM per scope, and the last OOM kills, newest first. */
static void oom(yajl_gen g, const struct memz_oom_view *o)
{
	memz_json_str(g, "oom");
	yajl_gen_map_open(g);
	list(g, "scopes", o->n_scopes, oom_scope, o);
	list(g, "kills", o->n_kills, oom_kill, o);
	yajl_gen_map_close(g);
}

static int snapshot(yajl_gen g, const struct memz_snapshot *s,
		    const struct memz_report_view *rv)
{
	if (yajl_gen_map_open(g) != yajl_gen_status_ok)
		return -1;
	memz_json_kv_double(g, "t", s->t);
	breakdown(g, &s->br);
	system_part(g, s);
	memz_json_kv_int(g, "leak_suspects", s->view.leak_suspects);
	groups(g, s, rv);
	users(g, s, rv);
	list(g, "processes", s->view.n_procs, process, s);
	list(g, "events", s->view.n_events, event, s);
	list(g, "leak_parts", s->n_leak_parts, leak_part, s);
	oom(g, &s->oom);
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
