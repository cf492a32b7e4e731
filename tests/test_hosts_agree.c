/*
 * One snapshot through the three formatters (collectd's values, netdata's
 * protocol lines, the JSON writer): the same groups go out under the same
 * ids everywhere, a small leaking group included, colliding names included;
 * the same users with the same totals; every part of the RAM breakdown
 * with the same value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "check.h"
#include "map.h"
#include "memz/json.h"
#include "memz/report.h"
#include "netdata/ndcheck.h"
#include "../plugins/netdata/emit.h"

#define MIB 1048576ULL
#define MAXID 16

struct ids {
	char id[MAXID][CDM_INSTANCE_MAX];
	double pss[MAXID];
	size_t n;
};

static void add_id(struct ids *s, const char *id, double pss)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->id[i], id))
			return;
	if (s->n < MAXID) {
		snprintf(s->id[s->n], sizeof s->id[0], "%s", id);
		s->pss[s->n++] = pss;
	}
}

static bool has(const struct ids *s, const char *id, double pss)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->id[i], id))
			return s->pss[i] == pss;
	return false;
}

/* What a host put out: groups' PSS by id, users' PSS by name, the
 * breakdown's parts by name. */
struct out {
	struct ids groups, users, parts;
};

static void out_clear(struct out *o)
{
	o->groups.n = o->users.n = o->parts.n = 0;
}

static bool is_part(const char *name)
{
	return memz_series_find(&memz_series_breakdown, name) != NULL;
}

static void collectd_value(void *ctx, const struct cdm_value *v)
{
	struct out *o = ctx;

	if (strcmp(v->type, "memory"))
		return;
	if (!strcmp(v->plugin_instance, "users")) {
		if (!strncmp(v->type_instance, "pss_", 4))
			add_id(&o->users, v->type_instance + 4, v->v[0]);
	} else if (*v->plugin_instance &&
		   strncmp(v->plugin_instance, "node", 4)) {
		if (!strcmp(v->type_instance, "pss"))
			add_id(&o->groups, v->plugin_instance, v->v[0]);
	} else if (!*v->plugin_instance && is_part(v->type_instance)) {
		add_id(&o->parts, v->type_instance, v->v[0]);
	}
}

static void collectd_ids(struct memz_report *r, const struct memz_snapshot *s,
			 struct out *out)
{
	const struct memz_report_view *v;

	out_clear(out);
	CHECK_INT(memz_report_update(r, s, &v), 0);
	cdm_report_values(v, collectd_value, out);
}

struct nd {
	FILE *f;
	char *buf;
	size_t len, fed;
	struct ndc *chk;
	struct memz_nd_emitter *e;
};

/* A live dimension with a value this cycle is a published one. */
static void netdata_dim(struct nd *n, const char *chart, const char *id,
			struct ids *out)
{
	long long v;

	if (id && !ndc_dim_obsolete(n->chk, chart, id) &&
	    ndc_set_last_update(n->chk, chart, id) &&
	    ndc_last(n->chk, chart, id, &v))
		add_id(out, id, (double)v);
}

static void netdata_ids(struct nd *n, const struct memz_snapshot *s,
			const char *const *names, size_t n_names,
			struct out *out)
{
	out_clear(out);
	CHECK_INT(memz_nd_emit(n->e, s, 0), 0);
	CHECK_INT(ndc_feed(n->chk, n->buf + n->fed, n->len - n->fed), 0);
	n->fed = n->len;
	for (size_t i = 0; i < n_names; i++)
		netdata_dim(n, "memz.group_pss",
			    memz_nd_group_id(n->e, names[i]), &out->groups);
	CHECK_INT(ndc_dim_count(n->chk, "memz.group_pss", true),
		  out->groups.n);
	for (size_t i = 0; i < s->view.n_users; i++)
		netdata_dim(n, "memz.user_pss", s->view.users[i]->name,
			    &out->users);
	CHECK_INT(ndc_dim_count(n->chk, "memz.user_pss", true), out->users.n);
	for (size_t i = 0; i < memz_series_breakdown.n; i++)
		netdata_dim(n, "memz.ram", memz_series_breakdown.s[i].name,
			    &out->parts);
	CHECK_INT(ndc_dim_count(n->chk, "memz.ram", true), out->parts.n);
}

/* The published entries of a JSON list (groups, users): id and PSS. */
static void json_list(yajl_val root, const char *key, struct ids *out,
		      size_t *unpublished)
{
	const char *path[] = { key, NULL }, *idp[] = { "id", NULL },
		   *pssp[] = { "pss", NULL }, *pubp[] = { "published", NULL };
	yajl_val a = root ? yajl_tree_get(root, path, yajl_t_array) : NULL;

	*unpublished = 0;
	for (size_t i = 0; a && i < YAJL_GET_ARRAY(a)->len; i++) {
		yajl_val g = YAJL_GET_ARRAY(a)->values[i];
		yajl_val id = yajl_tree_get(g, idp, yajl_t_any);
		yajl_val pss = yajl_tree_get(g, pssp, yajl_t_number);
		yajl_val pub = yajl_tree_get(g, pubp, yajl_t_any);

		if (YAJL_IS_TRUE(pub) && YAJL_IS_STRING(id) && pss)
			add_id(out, YAJL_GET_STRING(id),
			       (double)YAJL_GET_INTEGER(pss));
		else if (YAJL_IS_FALSE(pub) && YAJL_IS_NULL(id))
			(*unpublished)++;
	}
}

static void json_ids(struct memz_report *r, const struct memz_snapshot *s,
		     struct out *out, size_t *unpublished,
		     size_t *users_unpublished, long long *pcp_free)
{
	const struct memz_report_view *v;
	const char *pcpp[] = { "memory", "pcp_free", NULL };
	char *text = NULL, err[256];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	yajl_val root, x;

	out_clear(out);
	CHECK_INT(memz_report_update(r, s, &v), 0);
	CHECK_INT(memz_json_print_report(f, v), 0);
	fclose(f);
	root = yajl_tree_parse(text, err, sizeof err);
	CHECK(root != NULL);
	json_list(root, "groups", &out->groups, unpublished);
	json_list(root, "users", &out->users, users_unpublished);
	for (size_t i = 0; root && i < memz_series_breakdown.n; i++) {
		const char *name = memz_series_breakdown.s[i].name;
		const char *path[] = { "breakdown", name, NULL };

		x = yajl_tree_get(root, path, yajl_t_number);
		if (x)
			add_id(&out->parts, name, (double)YAJL_GET_INTEGER(x));
	}
	x = root ? yajl_tree_get(root, pcpp, yajl_t_any) : NULL;
	/* -1: null, -2: no such key */
	*pcp_free = !x ? -2 : YAJL_IS_INTEGER(x) ? YAJL_GET_INTEGER(x) :
		    YAJL_IS_NULL(x) ? -1 : -2;
	yajl_tree_free(root);
	free(text);
}

static bool same_ids(const struct ids *a, const struct ids *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!has(b, a->id[i], a->pss[i]))
			return false;
	return true;
}

static bool same(const struct out *a, const struct out *b)
{
	return same_ids(&a->groups, &b->groups) &&
	       same_ids(&a->users, &b->users) && same_ids(&a->parts, &b->parts);
}

int main(void)
{
	static const char *const names[] = { "a b", "a/b", "idle", "x", "a_b" };
	struct memz_snapshot s;
	struct memz_group g[5];
	const struct memz_group *gp[5];
	struct memz_user_total u[3];
	const struct memz_user_total *up[3] = { &u[0], &u[1], &u[2] };
	struct memz_report *rc, *rj;
	struct nd n = { 0 };
	struct out cd, nd, js;
	size_t unpublished, users_unpublished;
	long long pcp_free;

	memset(&s, 0, sizeof s);
	memset(g, 0, sizeof g);
	s.br = (struct memz_breakdown){ .mem_total = 1000 * MIB,
					.free = 300 * MIB, .pcp_free = 70 * MIB,
					.buffers = 10 * MIB, .cached = 250 * MIB,
					.slab = 50 * MIB, .page_tables = 5 * MIB,
					.process_anon = 200 * MIB,
					.hidden_anon = 15 * MIB,
					.kernel_residual = 100 * MIB };
	s.mem.pcp_free = 70 * MIB;
	s.mem.has_pcp_free = true;
	memset(u, 0, sizeof u);
	u[0] = (struct memz_user_total){ .uid = 1000, .members = 3,
					 .pss = 90 * MIB, .name = "alice",
					 .reported = true };
	u[1] = (struct memz_user_total){ .uid = 0, .members = 1,
					 .pss = 30 * MIB, .name = "root",
					 .reported = true };
	u[2] = (struct memz_user_total){ .uid = 33, .members = 1,
					 .pss = 1 * MIB, .name = "www-data" };
	s.view.users = up;
	s.view.n_users = 3;
	for (int i = 0; i < 5; i++) {
		g[i].name = names[i];
		g[i].pss = (uint64_t)(50 - 10 * i) * MIB;
		gp[i] = &g[i];
	}
	g[0].reported = true;
	g[1].det.verdict.leak = true; /* small, not in TopGroups, leaking */
	g[3].reported = true;
	g[4].reported = false;
	s.view.groups = gp;
	s.view.n_groups = 5;

	CHECK_INT(memz_report_new(&rc, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_new(&rj, memz_allocator_libc()), 0);
	n.f = open_memstream(&n.buf, &n.len);
	n.chk = ndc_new();
	CHECK_INT(memz_nd_emitter_new(&n.e, n.f, 1, MEMZ_ND_V(1, 37)), 0);

	collectd_ids(rc, &s, &cd);
	netdata_ids(&n, &s, names, 5, &nd);
	json_ids(rj, &s, &js, &unpublished, &users_unpublished, &pcp_free);
	CHECK_INT(cd.groups.n, 3);
	CHECK(has(&cd.groups, "a_b", 50.0 * MIB));
	CHECK(has(&cd.groups, "a_b_2", 40.0 * MIB)); /* "a/b": leaking */
	CHECK(has(&cd.groups, "x", 20.0 * MIB));
	/* the reported users, www-data (not reported) in the JSON only */
	CHECK_INT(cd.users.n, 2);
	CHECK(has(&cd.users, "alice", 90.0 * MIB));
	CHECK(has(&cd.users, "root", 30.0 * MIB));
	CHECK_INT(users_unpublished, 1);
	/* every part of the breakdown, the per-CPU lists' free pages too */
	CHECK_INT(cd.parts.n, memz_series_breakdown.n);
	CHECK(has(&cd.parts, "pcp_free", 70.0 * MIB));
	CHECK(has(&cd.parts, "kernel_residual", 100.0 * MIB));
	CHECK(same(&cd, &nd));
	CHECK(same(&cd, &js));
	CHECK_INT(unpublished, 2);
	CHECK_INT(pcp_free, 70 * MIB);

	/* the third name onto a_b joins; the order changes: every host keeps
	 * the ids it gave, and gives the newcomer the same one */
	g[4].reported = true;
	g[4].pss = 60 * MIB;
	gp[0] = &g[4];
	gp[4] = &g[0];
	/* and the users change places, one more is reported; zoneinfo was
	 * not read: JSON says so with null */
	s.mem.has_pcp_free = false;
	s.mem.pcp_free = 0;
	up[0] = &u[1];
	up[1] = &u[0];
	u[1].pss = 120 * MIB;
	u[2].reported = true;
	collectd_ids(rc, &s, &cd);
	netdata_ids(&n, &s, names, 5, &nd);
	json_ids(rj, &s, &js, &unpublished, &users_unpublished, &pcp_free);
	CHECK_INT(cd.groups.n, 4);
	CHECK(has(&cd.groups, "a_b", 50.0 * MIB));
	CHECK(has(&cd.groups, "a_b_2", 40.0 * MIB));
	CHECK(has(&cd.groups, "a_b_3", 60.0 * MIB));
	CHECK_INT(cd.users.n, 3);
	CHECK(has(&cd.users, "root", 120.0 * MIB));
	CHECK(has(&cd.users, "www-data", 1.0 * MIB));
	CHECK_INT(users_unpublished, 0);
	CHECK_INT(pcp_free, -1);
	CHECK(same(&cd, &nd));
	CHECK(same(&cd, &js));
	CHECK_INT(unpublished, 1);

	memz_nd_emitter_free(&n.e);
	fclose(n.f);
	free(n.buf);
	ndc_free(n.chk);
	memz_report_free(&rc);
	memz_report_free(&rj);
	return check_status();
}
