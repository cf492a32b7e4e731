/*
 * One snapshot through the three formatters (collectd's values, netdata's
 * protocol lines, the JSON writer): the same groups go out under the same
 * ids everywhere, a small leaking group included, colliding names included.
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

static void collectd_value(void *ctx, const struct cdm_value *v)
{
	if (*v->plugin_instance && strncmp(v->plugin_instance, "node", 4) &&
	    !strcmp(v->type, "memory") && !strcmp(v->type_instance, "pss"))
		add_id(ctx, v->plugin_instance, v->v[0]);
}

static void collectd_ids(struct memz_report *r, const struct memz_snapshot *s,
			 struct ids *out)
{
	const struct memz_report_view *v;

	out->n = 0;
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

static void netdata_ids(struct nd *n, const struct memz_snapshot *s,
			const char *const *names, size_t n_names,
			struct ids *out)
{
	out->n = 0;
	CHECK_INT(memz_nd_emit(n->e, s, 0), 0);
	CHECK_INT(ndc_feed(n->chk, n->buf + n->fed, n->len - n->fed), 0);
	n->fed = n->len;
	/* a live dimension with a value this cycle is a published group */
	for (size_t i = 0; i < n_names; i++) {
		const char *id = memz_nd_group_id(n->e, names[i]);
		long long v;

		if (id && !ndc_dim_obsolete(n->chk, "memz.group_pss", id) &&
		    ndc_set_last_update(n->chk, "memz.group_pss", id) &&
		    ndc_last(n->chk, "memz.group_pss", id, &v))
			add_id(out, id, (double)v);
	}
	CHECK_INT(ndc_dim_count(n->chk, "memz.group_pss", true), out->n);
}

static void json_ids(struct memz_report *r, const struct memz_snapshot *s,
		     struct ids *out, size_t *unpublished)
{
	const struct memz_report_view *v;
	const char *gpath[] = { "groups", NULL }, *idp[] = { "id", NULL },
		   *pssp[] = { "pss", NULL }, *pubp[] = { "published", NULL };
	char *text = NULL, err[256];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	yajl_val root, a;

	out->n = 0;
	*unpublished = 0;
	CHECK_INT(memz_report_update(r, s, &v), 0);
	CHECK_INT(memz_json_print_report(f, v), 0);
	fclose(f);
	root = yajl_tree_parse(text, err, sizeof err);
	CHECK(root != NULL);
	a = root ? yajl_tree_get(root, gpath, yajl_t_array) : NULL;
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
	yajl_tree_free(root);
	free(text);
}

static bool same(const struct ids *a, const struct ids *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!has(b, a->id[i], a->pss[i]))
			return false;
	return true;
}

int main(void)
{
	static const char *const names[] = { "a b", "a/b", "idle", "x", "a_b" };
	struct memz_snapshot s;
	struct memz_group g[5];
	const struct memz_group *gp[5];
	struct memz_report *rc, *rj;
	struct nd n = { 0 };
	struct ids cd, nd, js;
	size_t unpublished;

	memset(&s, 0, sizeof s);
	memset(g, 0, sizeof g);
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
	json_ids(rj, &s, &js, &unpublished);
	CHECK_INT(cd.n, 3);
	CHECK(has(&cd, "a_b", 50.0 * MIB));
	CHECK(has(&cd, "a_b_2", 40.0 * MIB)); /* "a/b": leaking, suffixed */
	CHECK(has(&cd, "x", 20.0 * MIB));
	CHECK(same(&cd, &nd));
	CHECK(same(&cd, &js));
	CHECK_INT(unpublished, 2);

	/* the third name onto a_b joins; the order changes: every host keeps
	 * the ids it gave, and gives the newcomer the same one */
	g[4].reported = true;
	g[4].pss = 60 * MIB;
	gp[0] = &g[4];
	gp[4] = &g[0];
	collectd_ids(rc, &s, &cd);
	netdata_ids(&n, &s, names, 5, &nd);
	json_ids(rj, &s, &js, &unpublished);
	CHECK_INT(cd.n, 4);
	CHECK(has(&cd, "a_b", 50.0 * MIB));
	CHECK(has(&cd, "a_b_2", 40.0 * MIB));
	CHECK(has(&cd, "a_b_3", 60.0 * MIB));
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
