/*
 * The publication layer: the series tables, which groups are published,
 * their ids, finite values, and the sample/publish clock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/report.h"
#include "memz/table.h"

#define NG (MEMZ_REPORT_MAX_GROUPS + 50) /* room past the cap */

struct fake {
	struct memz_snapshot s;
	struct memz_group g[NG];
	const struct memz_group *gp[NG];
};

static void fake_init(struct fake *f, size_t n)
{
	memset(f, 0, sizeof *f);
	for (size_t i = 0; i < NG; i++)
		f->gp[i] = &f->g[i];
	f->s.view.groups = f->gp;
	f->s.view.n_groups = n;
}

static const struct memz_series *series(const struct memz_series_table *t,
					const char *name)
{
	const struct memz_series *s = memz_series_find(t, name);

	CHECK(s != NULL);
	return s;
}

static void test_tables(void)
{
	struct memz_breakdown b = { .mem_total = 45, .free = 1, .pcp_free = 2,
				    .buffers = 3, .cached = 4, .slab = 5,
				    .page_tables = 6, .process_anon = 7,
				    .hidden_anon = 8, .kernel_residual = 9,
				    .kernel_stack = 10, .vmalloc_used = 11,
				    .percpu = 12 };
	struct memz_group g = { .members = 3, .threads = 7, .pss = 100,
				.uss = 50, .rss = 200, .swap = 4, .anon = 30 };
	struct memz_numa_node nd = { .id = 1, .total = 9, .free = 4, .used = 5 };
	double sum = 0;

	/* the parts, in stacking order, add up to MemTotal */
	CHECK_INT(memz_series_breakdown.n, 9);
	for (size_t i = 0; i < memz_series_breakdown.n; i++) {
		const struct memz_series *se = &memz_series_breakdown.s[i];
		CHECK(se->unit == MEMZ_UNIT_BYTES);
		CHECK(memz_series_value(se, &b) == (double)(i + 1));
		sum += memz_series_value(se, &b);
	}
	CHECK(sum == (double)b.mem_total);
	CHECK_STR(memz_series_breakdown.s[0].name, "free");
	CHECK_STR(memz_series_breakdown.s[1].name, "pcp_free");
	CHECK_STR(memz_series_breakdown.s[8].name, "kernel_residual");

	CHECK_INT(memz_series_kernel.n, 4);
	CHECK_STR(memz_series_kernel.s[0].name, "kernel_residual");
	CHECK(memz_series_value(&memz_series_kernel.s[3], &b) == 12);

	struct memz_psi_line pl = { 1.5, 2.5, 3.5, 77 };
	CHECK_INT(memz_series_psi.n, 4);
	CHECK(memz_series_find(&memz_series_psi, "avg1") == NULL);
	CHECK(memz_series_find(&memz_series_psi, "avg10") ==
	      &memz_series_psi.s[0]);
	CHECK(memz_series_value(series(&memz_series_psi, "avg10"), &pl) == 1.5);
	CHECK(memz_series_value(series(&memz_series_psi, "avg300"), &pl) == 3.5);
	CHECK(memz_series_value(series(&memz_series_psi, "total"), &pl) == 77);
	CHECK(series(&memz_series_psi, "total")->flags & MEMZ_SERIES_DETAIL);
	CHECK(memz_series_value(series(&memz_series_node, "used"), &nd) == 5);
	CHECK(memz_series_value(series(&memz_series_node, "free"), &nd) == 4);
	CHECK(series(&memz_series_node, "total")->flags & MEMZ_SERIES_DETAIL);

	CHECK(memz_series_value(series(&memz_series_group, "pss"), &g) == 100);
	CHECK(memz_series_value(series(&memz_series_group, "uss"), &g) == 50);
	CHECK(memz_series_value(series(&memz_series_group, "rss"), &g) == 200);
	CHECK(memz_series_value(series(&memz_series_group, "swap"), &g) == 4);
	CHECK(memz_series_value(series(&memz_series_group, "anon"), &g) == 30);
	CHECK(memz_series_value(series(&memz_series_group, "members"), &g) == 3);
	CHECK(memz_series_value(series(&memz_series_group, "threads"), &g) == 7);
	CHECK(memz_series_value(series(&memz_series_group, "leak"), &g) == 0);
	g.det.verdict.leak = true;
	g.det.verdict.confidence = 77;
	CHECK(memz_series_value(series(&memz_series_group, "leak"), &g) == 1);
	CHECK(memz_series_value(series(&memz_series_group, "leak_confidence"),
				&g) == 77);
	CHECK_STR(series(&memz_series_group, "pss")->chart, "group_pss");
	CHECK(series(&memz_series_group, "rss")->chart == NULL);

	/* every value leaves finite */
	g.det.verdict.rate_bps = NAN;
	CHECK(memz_series_value(series(&memz_series_group, "growth_rate"), &g) == 0);
	g.det.verdict.rate_bps = -INFINITY;
	CHECK(memz_series_value(series(&memz_series_group, "growth_rate"), &g) == 0);
	g.det.verdict.rate_bps = -12.5;
	CHECK(memz_series_value(series(&memz_series_group, "growth_rate"), &g) == -12.5);
	CHECK(memz_finite(HUGE_VAL) == 0);
	CHECK(memz_finite(3.25) == 3.25);

	/* every series name is an id already */
	const struct memz_series_table *all[] = {
		&memz_series_breakdown, &memz_series_kernel, &memz_series_psi,
		&memz_series_node,
		&memz_series_group, &memz_series_counts };
	for (size_t t = 0; t < sizeof all / sizeof *all; t++)
		for (size_t i = 0; i < all[t]->n; i++) {
			const char *n = all[t]->s[i].name;
			CHECK(*n && strspn(n, "abcdefghijklmnopqrstuvwxyz_0123456789") ==
					    strlen(n));
			CHECK(all[t]->s[i].label && *all[t]->s[i].label);
		}
}

#define MiB (1024.0 * 1024.0)

static void put_proc(struct memz_table *t, int pid, const char *name,
		     double born, double pss)
{
	bool is_new;
	struct memz_proc *p = memz_table_get(t, pid, 1, &is_new);

	CHECK(p != NULL);
	if (is_new)
		p->born = born;
	memz_table_set_name(t, p, name, strlen(name));
	p->mem.pss = p->mem.rss = p->mem.pss_anon = (uint64_t)pss;
	p->has_sample = true;
}

static bool in_view(const struct memz_report_view *rv, const char *name)
{
	for (size_t i = 0; i < rv->n_groups; i++)
		if (!strcmp(rv->groups[i].g->name, name))
			return true;
	return false;
}

/*
 * Publication is stable: a compiler that is the largest group for five
 * seconds at a time never gets an id (a collectd file, a netdata
 * dimension, for ever); a daemon found running publishes at once and stays
 * while compilers push it out of TopGroups now and then; a linker that
 * stays publishes once it is PublishAfter old; the daemon it pushes out
 * leaves PublishHold after it was last among the largest; a group
 * selected by Process publishes at once, however young and small.
 * PublishAfter 0 is the old way: every compiler gets an id.
 */
static void test_stable(double after)
{
	struct memz_settings set;
	struct memz_table *t;
	struct memz_report *r;
	struct memz_snapshot snap;
	const struct memz_report_view *rv;
	bool cc1_seen = false;

	memz_settings_init(&set);
	set.top_groups = 1;
	set.publish_after = after;
	CHECK(set.publish_hold == 300); /* the default */
	memz_settings_set(&set, "Process", "picked", NULL, 0);
	CHECK_INT(memz_table_new(&t, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	memset(&snap, 0, sizeof snap);
	for (int now = 0; now <= 600; now++) {
		memz_table_begin(t, now);
		put_proc(t, 10, "daemon", -INFINITY, 100 * MiB);
		/* a new compiler every 10 s, 5 s each, the largest */
		if (now < 200 && now % 10 < 5)
			put_proc(t, 1000 + now / 10, "cc1", now - now % 10,
				 200 * MiB);
		if (now >= 10)
			put_proc(t, 20, "picked", 10, 1 * MiB);
		if (now >= 200)
			put_proc(t, 30, "lto1", 200, 300 * MiB);
		CHECK_INT(memz_table_end(t, &snap.view), 0);
		CHECK_INT(memz_report_update(r, &snap, &rv), 0);
		cc1_seen |= in_view(rv, "cc1");
		CHECK(in_view(rv, "picked") == (now >= 10));
		if (after)
			CHECK(in_view(rv, "lto1") == (now >= 260));
		/* first among the largest at 5, last at 199 */
		CHECK(in_view(rv, "daemon") == (now >= 5 && now < 199 + 300));
	}
	CHECK(cc1_seen == !after);
	CHECK((memz_report_id(r, "cc1") != NULL) == !after);
	memz_report_free(&r);
	memz_table_free(&t);
}

static void test_published_set(void)
{
	struct fake f;
	struct memz_report *r;
	const struct memz_report_view *v;

	fake_init(&f, 4);
	f.g[0].name = "big";
	f.g[0].reported = true;
	f.g[1].name = "idle";         /* neither reported nor leaking */
	f.g[2].name = "leaky";        /* not in TopGroups, but flagged */
	f.g[2].det.verdict.leak = true;
	f.g[3].name = "selected";
	f.g[3].reported = true;
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK(v->snap == &f.s);
	CHECK_INT(v->n_groups, 3);
	CHECK(v->groups[0].g == &f.g[0]);
	CHECK(v->groups[1].g == &f.g[2]);
	CHECK(v->groups[2].g == &f.g[3]);
	CHECK_STR(v->groups[1].id, "leaky");
	CHECK(memz_report_id(r, "idle") == NULL);

	memz_report_free(&r);
	CHECK(r == NULL);
}

/* More reported groups than the cap (TopGroups 1000), and suspects among
 * the smallest: every suspect is published, the largest reported ones fill
 * what is left, and the total stays at the cap. */
static void test_published_cap(void)
{
	enum { N = MEMZ_REPORT_MAX_GROUPS + 50 };
	static char names[N][16];
	static struct fake f;
	struct memz_report *r;
	const struct memz_report_view *v;
	struct memz_publish p;
	size_t leaks = 0, reported = 0;

	fake_init(&f, N);
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "g%zu", i);
		f.g[i].name = names[i];
		f.g[i].reported = true;
	}
	f.g[N - 1].det.verdict.leak = true;
	f.g[N - 2].det.verdict.leak = true;
	f.g[N - 2].reported = false;
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(v->n_groups, MEMZ_REPORT_MAX_GROUPS);
	for (size_t i = 0; i < v->n_groups; i++) {
		leaks += v->groups[i].g->det.verdict.leak;
		reported += !v->groups[i].g->det.verdict.leak;
	}
	CHECK_INT(leaks, 2);
	CHECK_INT(reported, MEMZ_REPORT_MAX_GROUPS - 2);
	CHECK(v->groups[0].g == &f.g[0]);
	CHECK(v->groups[MEMZ_REPORT_MAX_GROUPS - 3].g ==
	      &f.g[MEMZ_REPORT_MAX_GROUPS - 3]);
	CHECK(v->groups[MEMZ_REPORT_MAX_GROUPS - 1].g == &f.g[N - 1]);
	memz_report_free(&r);

	/* the walk hosts follow: neither reported nor leaking never publishes,
	 * and a cap's worth of suspects leaves no room for the rest */
	memz_publish_init(&p, &f.s.view);
	CHECK(memz_publish_next(&p, &f.g[0]));
	f.g[1].reported = false;
	CHECK(!memz_publish_next(&p, &f.g[1]));
	for (size_t i = 0; i < N; i++)
		f.g[i].det.verdict.leak = true;
	memz_publish_init(&p, &f.s.view);
	for (size_t i = 0; i < MEMZ_REPORT_MAX_GROUPS; i++)
		CHECK(memz_publish_next(&p, &f.g[i]));
	f.g[N - 1].det.verdict.leak = false;
	CHECK(!memz_publish_next(&p, &f.g[N - 1]));
	CHECK(!memz_publish_next(&p, &f.g[N - 2]));
}

static void test_cap(void)
{
	size_t n = MEMZ_REPORT_MAX_GROUPS + 5;
	struct memz_group *g = calloc(n, sizeof *g);
	const struct memz_group **gp = calloc(n, sizeof *gp);
	char (*names)[16] = calloc(n, sizeof *names);
	struct memz_snapshot s;
	struct memz_report *r;
	const struct memz_report_view *v;

	memset(&s, 0, sizeof s);
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "g%zu", i);
		g[i].name = names[i];
		g[i].reported = true; /* ProcessMatch ".*" */
		gp[i] = &g[i];
	}
	s.view.groups = gp;
	s.view.n_groups = n;
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_update(r, &s, &v), 0);
	CHECK_INT(v->n_groups, MEMZ_REPORT_MAX_GROUPS);
	CHECK(v->groups[MEMZ_REPORT_MAX_GROUPS - 1].g ==
	      &g[MEMZ_REPORT_MAX_GROUPS - 1]);
	memz_report_free(&r);
	free(g);
	free(gp);
	free(names);
}

static void test_ids(void)
{
	struct fake f;
	struct memz_report *r;
	const struct memz_report_view *v;
	char longname[200];

	fake_init(&f, 5);
	f.g[0].name = "a b";
	f.g[1].name = "a=b";
	f.g[2].name = "a_b";
	f.g[3].name = "";
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	f.g[4].name = longname;
	for (int i = 0; i < 5; i++)
		f.g[i].reported = true;
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(v->n_groups, 5);
	CHECK_STR(v->groups[0].id, "a_b");
	CHECK_STR(v->groups[1].id, "a_b_2");
	CHECK_STR(v->groups[2].id, "a_b_3");
	CHECK_STR(v->groups[3].id, "_");
	CHECK_INT(strlen(v->groups[4].id), MEMZ_REPORT_ID_MAX - 1);
	CHECK_STR(v->groups[0].label, "a b");
	CHECK_STR(v->groups[1].label, "a_b");
	CHECK_STR(v->groups[2].label, "a_b #2");

	/* a long name that collides is cut so its suffix fits */
	f.g[0].name = longname;
	f.g[4].name = "y";
	longname[MEMZ_REPORT_ID_MAX + 3] = '\0'; /* another long name, same id */
	f.g[0].name = longname;
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(strlen(v->groups[0].id), MEMZ_REPORT_ID_MAX - 1);
	CHECK(strcmp(v->groups[0].id + MEMZ_REPORT_ID_MAX - 3, "_2") == 0);

	/* ids stay with their names whatever the order; a group that goes
	 * away and comes back gets its old id */
	fake_init(&f, 3);
	f.g[0].name = "a_b";
	f.g[1].name = "a b";
	f.g[2].name = "a=b";
	f.g[0].reported = f.g[1].reported = true;
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(v->n_groups, 2);
	CHECK_STR(v->groups[0].id, "a_b_3");
	CHECK_STR(v->groups[1].id, "a_b");
	CHECK_STR(memz_report_id(r, "a=b"), "a_b_2");
	memz_report_free(&r);
}

/* A flood of new names stays bounded; steady updates allocate nothing. */
static void test_bounded_and_quiet(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	struct fake f;
	struct memz_report *r;
	const struct memz_report_view *v;
	char name[32];
	unsigned long allocs;
	const char *id, *label;
	unsigned gen, gen0;

	fake_init(&f, 1);
	f.g[0].name = name;
	f.g[0].reported = true;
	CHECK_INT(memz_report_new(&r, &a), 0);
	for (int i = 0; i < MEMZ_REPORT_MAX_KNOWN + 50; i++) {
		snprintf(name, sizeof name, "p%d", i);
		CHECK_INT(memz_report_update(r, &f.s, &v), 0);
		CHECK_STR(v->groups[0].id, name);
		CHECK(v->groups[0].slot < MEMZ_REPORT_MAX_KNOWN);
	}
	CHECK(memz_report_id(r, "p0") == NULL);
	CHECK(memz_report_id(r, "p49") == NULL);
	CHECK_STR(memz_report_id(r, "p50"), "p50");
	/* the names, the report, its slots, its groups' and users' arrays */
	CHECK(c.live <= MEMZ_REPORT_MAX_KNOWN + 4);

	/* the same names again and again: nothing allocated */
	allocs = c.allocs;
	for (int i = 0; i < 100; i++)
		CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(c.allocs, allocs);

	/* a slot handed to another name says so by its gen */
	CHECK(memz_report_slot(r, v->groups[0].slot, &id, &label, &gen));
	CHECK_STR(id, name);
	gen0 = v->groups[0].gen;
	CHECK_INT(gen, gen0);
	strcpy(name, "fresh");
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK(v->groups[0].gen != gen0);
	CHECK(!memz_report_slot(r, MEMZ_REPORT_MAX_KNOWN, &id, &label, &gen));
	memz_report_free(&r);
	CHECK_INT(c.live, 0);
}

static void test_clock(void)
{
	struct memz_clock c;

	memz_clock_init(&c, 0.5, 1.0);
	CHECK(memz_clock_sample_due(&c, 100.0)); /* first call samples at once */
	CHECK(!memz_clock_publish_due(&c, 100.0));
	CHECK(memz_clock_next(&c) == 0);
	memz_clock_sampled(&c, 100.0, 2000);
	/* the first sample took 0.4 s: the first publish goes out after it
	 * and the grid starts there */
	CHECK(memz_clock_publish_due(&c, 100.4));
	CHECK(memz_clock_next(&c) == 0);
	CHECK(memz_clock_published(&c, 100.4) == 0);
	CHECK(c.next_publish == 101.4);
	CHECK(memz_clock_next(&c) == 101.4);
	CHECK(!memz_clock_sample_due(&c, 100.9));
	CHECK(!memz_clock_publish_due(&c, 100.9));
	/* a tick that comes a little early still counts */
	CHECK(memz_clock_publish_due(&c, 101.3));
	CHECK(fabs(memz_clock_published(&c, 101.3) - 0.9) < 1e-9);
	CHECK(c.next_publish == 102.4); /* stays on the grid */
	CHECK(memz_clock_next(&c) == 102.0);
	CHECK(!memz_clock_sample_due(&c, 101.5));
	CHECK(memz_clock_sample_due(&c, 101.9));
	/* the pace speeds up: next sample half a second later */
	memz_clock_sampled(&c, 101.9, 500);
	CHECK(!memz_clock_sample_due(&c, 102.1));
	CHECK(memz_clock_sample_due(&c, 102.4));
	/* no interval from the pace: a second */
	memz_clock_sampled(&c, 103.0, 0);
	CHECK(c.next_sample == 104.0);
	/* after a stall the grid restarts from now */
	memz_clock_published(&c, 110.0);
	CHECK(c.next_publish == 111.0);

	/* a failed first sample: retried a second later, nothing published */
	memz_clock_init(&c, 0, 2.0);
	memz_clock_failed(&c, 50.0);
	CHECK(!memz_clock_sample_due(&c, 50.5));
	CHECK(!memz_clock_publish_due(&c, 50.5));
	CHECK(memz_clock_next(&c) == 51.0);
	CHECK(memz_clock_sample_due(&c, 51.0));
}

/* A scope's time to OOM may be none, and is then no number at all. */
static void test_oom_series(void)
{
	struct memz_oom_scope sc;
	const struct memz_series *t;

	memset(&sc, 0, sizeof sc);
	sc.seconds = 1500;
	sc.available = 370;
	sc.growth_bps = 256;
	sc.confidence = 92;
	sc.kills = 2;
	t = series(&memz_series_oom, "time_to_oom");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_STR(t->chart, "time_to_oom");
	CHECK(!memz_series_none(t, &sc));
	CHECK(memz_series_value(t, &sc) == 1500);
	CHECK(memz_series_value(series(&memz_series_oom, "available"), &sc) == 370);
	CHECK(memz_series_value(series(&memz_series_oom, "oom_growth"), &sc) == 256);
	CHECK(memz_series_value(series(&memz_series_oom, "oom_confidence"), &sc) ==
	      92);
	CHECK(memz_series_value(series(&memz_series_oom, "oom_kills"), &sc) == 2);
	CHECK_STR(series(&memz_series_oom, "oom_kills")->chart, "oom_kills");
	sc.seconds = NAN;
	CHECK(memz_series_none(t, &sc));
	CHECK(memz_series_value(t, &sc) == 0);
	/* only a series that may be none is ever none */
	CHECK(!memz_series_none(series(&memz_series_group, "pss"),
				&(struct memz_group){ .pss = 0 }));
}

/* The scope of a cgroup path is the deepest watched cgroup holding it,
 * by whole path components; the machine's scope is never one. */
static void test_scope_of(void)
{
	static const char *const paths[] = { "", "/a", "/a/b", "/ab" };
	struct memz_oom_view *o = calloc(1, sizeof *o);

	CHECK(o != NULL);
	if (!o)
		return;
	o->n_scopes = 4;
	for (int i = 0; i < 4; i++)
		snprintf(o->scope[i].path, sizeof o->scope[i].path, "%s", paths[i]);
	CHECK(memz_report_scope_of(o, "/a/b/c") == &o->scope[2]);
	CHECK(memz_report_scope_of(o, "/a/b") == &o->scope[2]);
	CHECK(memz_report_scope_of(o, "/a/bc") == &o->scope[1]);
	CHECK(memz_report_scope_of(o, "/ab/x") == &o->scope[3]);
	CHECK(memz_report_scope_of(o, "/abc") == NULL);
	CHECK(memz_report_scope_of(o, "/x") == NULL);
	CHECK(memz_report_scope_of(o, "/") == NULL);
	CHECK(memz_report_scope_of(o, NULL) == NULL);
	free(o);
}

/* Users: those the table reports, in its order, at most
 * MEMZ_REPORT_MAX_USERS; their series read the totals. */
static void test_users(void)
{
	static struct memz_user_total u[MEMZ_REPORT_MAX_USERS + 20];
	static const struct memz_user_total *up[MEMZ_REPORT_MAX_USERS + 20];
	struct fake f;
	struct memz_report *r;
	const struct memz_report_view *v;

	fake_init(&f, 0);
	for (size_t i = 0; i < MEMZ_REPORT_MAX_USERS + 20; i++) {
		u[i] = (struct memz_user_total){
			.uid = (uint32_t)i, .members = 2, .threads = 5,
			.pss = 1000 - i, .uss = 7, .rss = 9, .swap = 3,
			.anon = 4, .reported = i != 1 };
		snprintf(u[i].name, sizeof u[i].name, "u%zu", i);
		up[i] = &u[i];
	}
	f.s.view.users = up;
	f.s.view.n_users = MEMZ_REPORT_MAX_USERS + 20;
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(v->n_users, MEMZ_REPORT_MAX_USERS);
	CHECK(v->users[0] == &u[0]);
	CHECK(v->users[1] == &u[2]); /* u1 is not reported */
	CHECK(v->users[MEMZ_REPORT_MAX_USERS - 1] == &u[MEMZ_REPORT_MAX_USERS]);
	CHECK(memz_series_value(series(&memz_series_user, "pss"), &u[0]) == 1000);
	CHECK(memz_series_value(series(&memz_series_user, "uss"), &u[0]) == 7);
	CHECK(memz_series_value(series(&memz_series_user, "rss"), &u[0]) == 9);
	CHECK(memz_series_value(series(&memz_series_user, "swap"), &u[0]) == 3);
	CHECK(memz_series_value(series(&memz_series_user, "anon"), &u[0]) == 4);
	CHECK(memz_series_value(series(&memz_series_user, "members"), &u[0]) == 2);
	CHECK(memz_series_value(series(&memz_series_user, "threads"), &u[0]) == 5);
	/* none reported, none published */
	for (size_t i = 0; i < MEMZ_REPORT_MAX_USERS + 20; i++)
		u[i].reported = false;
	CHECK_INT(memz_report_update(r, &f.s, &v), 0);
	CHECK_INT(v->n_users, 0);
	memz_report_free(&r);
}

int main(void)
{
	test_users();
	test_tables();
	test_oom_series();
	test_scope_of();
	test_published_set();
	test_stable(60);
	test_stable(0);
	test_published_cap();
	test_cap();
	test_ids();
	test_bounded_and_quiet();
	test_clock();
	return check_status();
}
