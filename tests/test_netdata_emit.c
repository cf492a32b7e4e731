/*
 * The netdata emitter's output for a scripted sequence of hand-built
 * snapshots, read back through the strict protocol checker: groups appear,
 * vanish and return, names are hostile, and every value netdata would store
 * is the one the snapshot held.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "memz/cgroup.h"
#include "netdata/ndcheck.h"
#include "../plugins/netdata/emit.h"

#define MIB 1048576ULL
#define MAXG 16

struct script {
	struct memz_snapshot snap;
	struct memz_group g[MAXG];
	const struct memz_group *gp[MAXG];
	FILE *f;
	char *buf;
	size_t len, fed;
	struct ndc *chk;
	struct memz_nd_emitter *e;
};

static void script_init(struct script *s)
{
	memset(s, 0, sizeof *s);
	s->f = open_memstream(&s->buf, &s->len);
	s->chk = ndc_new();
	CHECK(s->f && s->chk);
	CHECK_INT(memz_nd_emitter_new(&s->e, s->f, 1, MEMZ_ND_V(1, 37)), 0);
}

static void script_free(struct script *s)
{
	memz_nd_emitter_free(&s->e);
	CHECK(s->e == NULL);
	fclose(s->f);
	free(s->buf);
	ndc_free(s->chk);
}

static struct memz_group *group(struct script *s, int i, const char *name,
				uint64_t pss_mib, bool reported)
{
	struct memz_group *g = &s->g[i];

	memset(g, 0, sizeof *g);
	g->name = name;
	g->pss = pss_mib * MIB;
	g->uss = pss_mib * MIB / 2;
	g->swap = (uint64_t)i * MIB;
	g->reported = reported;
	g->det.verdict.rate_bps = -1000.0 * i;
	return g;
}

/* Emit with the groups picked by index, then check what came out. */
static int cycle(struct script *s, const int *pick, size_t n)
{
	size_t before = s->fed;
	int rc;

	for (size_t i = 0; i < n; i++)
		s->gp[i] = &s->g[pick[i]];
	s->snap.view.groups = s->gp;
	s->snap.view.n_groups = n;
	rc = memz_nd_emit(s->e, &s->snap, s->fed ? 1000000 : 0);
	CHECK_INT(rc, 0);
	if (ndc_feed(s->chk, s->buf + before, s->len - before)) {
		fprintf(stderr, "checker: %s\n--- output:\n%.*s", ndc_error(s->chk),
			(int)(s->len - before), s->buf + before);
		CHECK(!"protocol error");
	}
	CHECK(ndc_error(s->chk) == NULL);
	s->fed = s->len;
	return rc;
}

static long long last(struct script *s, const char *chart, const char *name)
{
	const char *id = ndc_dim_id(s->chk, chart, name);
	long long v = -42;

	if (!id || !ndc_last(s->chk, chart, id, &v))
		fprintf(stderr, "no value for %s / %s\n", chart, name);
	return v;
}

static void test_fixed_charts(void)
{
	struct script s;
	struct memz_breakdown *b = &s.snap.br;

	script_init(&s);
	b->free = 1000 * MIB + 1;
	b->pcp_free = 12;
	b->buffers = 2;
	b->cached = 3 * MIB;
	b->slab = 4;
	b->page_tables = 5;
	b->process_anon = 6;
	b->hidden_anon = 7;
	b->kernel_residual = 8;
	b->kernel_stack = 9;
	b->vmalloc_used = 10;
	b->percpu = 11;
	s.snap.view.leak_suspects = 3;
	s.snap.interval_ms = 500;
	cycle(&s, NULL, 0);

	CHECK_INT(last(&s, "memz.ram", "free"), 1000 * MIB + 1);
	CHECK_INT(last(&s, "memz.ram", "pcp_free"), 12);
	CHECK_INT(last(&s, "memz.ram", "cached"), 3 * MIB);
	CHECK_INT(last(&s, "memz.ram", "kernel_residual"), 8);
	CHECK_INT(last(&s, "memz.ram", "hidden_anon"), 7);
	CHECK_INT(ndc_dim_count(s.chk, "memz.ram", true), 9);
	CHECK_INT(ndc_dim_divisor(s.chk, "memz.ram",
				  ndc_dim_id(s.chk, "memz.ram", "free")), MIB);
	CHECK_INT(last(&s, "memz.kernel", "kernel_residual"), 8);
	CHECK_INT(last(&s, "memz.kernel", "kernel_stack"), 9);
	CHECK_INT(last(&s, "memz.kernel", "vmalloc_used"), 10);
	CHECK_INT(last(&s, "memz.kernel", "percpu"), 11);
	CHECK_INT(last(&s, "memz.leak_suspects", "suspects"), 3);
	CHECK_INT(last(&s, "memz.pace", "interval"), 500);
	CHECK(ndc_has_chart(s.chk, "memz.group_pss"));
	CHECK(ndc_has_chart(s.chk, "memz.group_uss"));
	CHECK(ndc_has_chart(s.chk, "memz.group_swap"));
	CHECK(ndc_has_chart(s.chk, "memz.group_growth"));
	CHECK(ndc_has_chart(s.chk, "memz.leaks"));
	CHECK_INT(ndc_count(s.chk, "CHART"), 9);

	/* a second identical cycle declares nothing again */
	cycle(&s, NULL, 0);
	CHECK_INT(ndc_count(s.chk, "CHART"), 9);
	CHECK_INT(ndc_count(s.chk, "BEGIN"), 18);
	CHECK_INT(ndc_count(s.chk, "PLUGIN_KEEPALIVE"), 0);
	script_free(&s);
}

/* Names a process can give itself with prctl(PR_SET_NAME) or exec. */
static const char *const hostile[] = {
	"a b",            /* 0: space */
	"a=b",            /* 1: '=' splits words too; id collides with 0 */
	"a_b",            /* 2: collides with both once sanitised */
	"",               /* 3: empty */
	"x\" CHART evil", /* 4: quote and a keyword */
	"l1\nSET x = 1",  /* 5: newline */
	"t\tq'\\\x1b[2J", /* 6: tab, single quote, backslash, ESC */
	"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x", /* 7: 15 bytes */
	"\xff\xfe bad",   /* 8: invalid UTF-8 */
	"bash",           /* 9: plain */
	"small",          /* 10: not reported, not flagged */
	"leaky",          /* 11: not reported, but flagged */
};

static void test_hostile_names(void)
{
	struct script s;
	int all[12];
	const char *ids[12];

	script_init(&s);
	for (int i = 0; i < 12; i++) {
		group(&s, i, hostile[i], 100 + (uint64_t)i, i != 10 && i != 11);
		all[i] = i;
	}
	s.g[11].det.verdict.leak = true;
	s.g[11].det.verdict.rate_bps = 262144.4;
	cycle(&s, all, 12);

	CHECK_INT(ndc_dim_count(s.chk, "memz.group_pss", true), 11);
	CHECK_INT(ndc_dim_count(s.chk, "memz.leaks", true), 11);
	CHECK(memz_nd_group_id(s.e, "small") == NULL);
	for (int i = 0; i < 12; i++) {
		ids[i] = memz_nd_group_id(s.e, hostile[i]);
		if (i == 10)
			continue;
		CHECK(ids[i] != NULL);
		if (!ids[i])
			continue;
		for (int j = 0; j < i; j++)
			if (ids[j] && j != 10)
				CHECK(strcmp(ids[i], ids[j]) != 0);
		long long v = -1;
		CHECK(ndc_last(s.chk, "memz.group_pss", ids[i], &v));
		CHECK_INT(v, (100 + i) * MIB);
		CHECK(ndc_last(s.chk, "memz.group_uss", ids[i], &v));
		CHECK_INT(v, (100 + i) * MIB / 2);
		CHECK(ndc_last(s.chk, "memz.group_swap", ids[i], &v));
		CHECK_INT(v, i * MIB);
		CHECK(ndc_last(s.chk, "memz.leaks", ids[i], &v));
		CHECK_INT(v, i == 11);
		CHECK(ndc_last(s.chk, "memz.group_growth", ids[i], &v));
		CHECK_INT(v, i == 11 ? 262144 : -1000 * i);
	}
	CHECK_STR(ids[0], "a_b");
	CHECK_STR(ids[1], "a_b_2");
	CHECK_STR(ids[2], "a_b_3");
	CHECK_STR(ids[3], "_");
	CHECK_STR(ids[9], "bash");
	CHECK_INT(ndc_dim_divisor(s.chk, "memz.group_growth", ids[9]), 1024);
	/* display names stay readable, and unique too */
	CHECK_STR(ndc_dim_id(s.chk, "memz.group_pss", "a b"), "a_b");
	CHECK_STR(ndc_dim_id(s.chk, "memz.group_pss", "a_b"), "a_b_2");
	CHECK_STR(ndc_dim_id(s.chk, "memz.group_pss", "a_b #2"), "a_b_3");
	CHECK_STR(ndc_dim_id(s.chk, "memz.group_pss",
			     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9x"),
		  ids[7]);
	script_free(&s);
}

static void test_groups_come_and_go(void)
{
	struct script s;
	const char *bid;
	long long v;
	unsigned charts;

	script_init(&s);
	group(&s, 0, "alpha", 10, true);
	group(&s, 1, "beta", 20, true);
	group(&s, 2, "gamma", 30, true);
	cycle(&s, (int[]){ 0, 1 }, 2);
	bid = memz_nd_group_id(s.e, "beta");
	CHECK_STR(bid, "beta");
	CHECK(!ndc_dim_obsolete(s.chk, "memz.group_pss", "beta"));

	/* beta vanishes, gamma appears: both declared before the SETs (the
	 * five group charts, then beta's three instances obsolete and
	 * gamma's three new) */
	charts = ndc_count(s.chk, "CHART");
	cycle(&s, (int[]){ 0, 2 }, 2);
	CHECK_INT(ndc_count(s.chk, "CHART"), charts + 5 + 3 + 3);
	for (const char *const *c = (const char *const[]){
		     "memz.group_pss", "memz.group_uss", "memz.group_swap",
		     "memz.group_growth", "memz.leaks", NULL };
	     *c; c++) {
		CHECK(ndc_dim_obsolete(s.chk, *c, "beta"));
		CHECK(!ndc_set_last_update(s.chk, *c, "beta"));
		CHECK(ndc_set_last_update(s.chk, *c, "gamma"));
		CHECK(ndc_set_last_update(s.chk, *c, "alpha"));
		CHECK_INT(ndc_dim_count(s.chk, *c, true), 2);
	}
	CHECK(ndc_last(s.chk, "memz.group_pss", "gamma", &v));
	CHECK_INT(v, 30 * MIB);

	/* steady: no declarations */
	charts = ndc_count(s.chk, "CHART");
	cycle(&s, (int[]){ 0, 2 }, 2);
	CHECK_INT(ndc_count(s.chk, "CHART"), charts);

	/* beta comes back under its old id, live again */
	s.g[1].pss = 25 * MIB;
	cycle(&s, (int[]){ 1, 0, 2 }, 3);
	CHECK_STR(memz_nd_group_id(s.e, "beta"), "beta");
	CHECK(!ndc_dim_obsolete(s.chk, "memz.group_pss", "beta"));
	CHECK(ndc_last(s.chk, "memz.group_pss", "beta", &v));
	CHECK_INT(v, 25 * MIB);

	/* a group that drops out of the reported set counts as vanished */
	s.g[2].reported = false;
	cycle(&s, (int[]){ 1, 0, 2 }, 3);
	CHECK(ndc_dim_obsolete(s.chk, "memz.group_pss", "gamma"));
	CHECK_INT(ndc_dim_count(s.chk, "memz.group_pss", true), 2);
	script_free(&s);
}

/* A stream of one-cycle names must not grow the emitter without bound, and
 * the output must stay valid when old ids are forgotten. */
static void test_churn_is_bounded(void)
{
	struct script s;
	char names[2][32];

	script_init(&s);
	for (int i = 0; i < MEMZ_ND_MAX_KNOWN + 100; i++) {
		snprintf(names[i % 2], sizeof names[0], "p%d", i);
		group(&s, 0, names[i % 2], 1, true);
		cycle(&s, (int[]){ 0 }, 1);
	}
	CHECK(memz_nd_group_id(s.e, "p0") == NULL);
	CHECK_STR(memz_nd_group_id(s.e, names[(MEMZ_ND_MAX_KNOWN + 99) % 2]),
		  names[(MEMZ_ND_MAX_KNOWN + 99) % 2]);
	CHECK_INT(ndc_dim_count(s.chk, "memz.group_pss", true), 1);
	script_free(&s);
}


static long long inst(struct script *s, const char *group_id,
		      const char *chart, const char *dim)
{
	char id[160];
	long long v = -42;

	snprintf(id, sizeof id, "memz.grp_%s_%s", group_id, chart);
	if (!ndc_last(s->chk, id, dim, &v))
		fprintf(stderr, "no value for %s / %s\n", id, dim);
	return v;
}

/* Every charted group has its own instances of the per-group contexts,
 * labelled with its name, so one health template raises one alarm per
 * group and the alarm can name it. */
static void test_group_instances(void)
{
	struct script s;
	const char *id;

	script_init(&s);
	group(&s, 0, "alpha", 10, true);
	group(&s, 1, "x\" CHART evil", 20, true);
	group(&s, 2, "leaky", 1, false);
	s.g[2].det.verdict.leak = true;
	s.g[2].det.verdict.rate_bps = 262144.4;
	s.g[2].det.verdict.confidence = 87;
	s.g[2].alarm.level = MEMZ_ALARM_WARNING;
	s.g[2].alarm.time_left = 5000.4;
	s.g[0].alarm.time_left = NAN;
	cycle(&s, (int[]){ 0, 1, 2 }, 3);

	CHECK_INT(ndc_chart_count(s.chk, "memz.group_mem", true), 3);
	CHECK_INT(ndc_chart_count(s.chk, "memz.group_growth_rate", true), 3);
	CHECK_INT(ndc_chart_count(s.chk, "memz.group_leak", true), 3);
	CHECK_STR(ndc_chart_label(s.chk, "memz.grp_alpha_mem", "memz_group"),
		  "alpha");
	CHECK_STR(ndc_chart_label(s.chk, "memz.grp_leaky_leak", "memz_group"),
		  "leaky");
	id = memz_nd_group_id(s.e, "x\" CHART evil");
	CHECK_STR(id, "x__CHART_evil");
	CHECK_STR(ndc_chart_label(s.chk, "memz.grp_x__CHART_evil_leak",
				  "memz_group"), "x_ CHART evil");
	CHECK_STR(ndc_chart_context(s.chk, "memz.grp_alpha_growth"),
		  "memz.group_growth_rate");
	CHECK_INT(inst(&s, "alpha", "mem", "pss"), 10 * MIB);
	CHECK_INT(inst(&s, "alpha", "mem", "uss"), 5 * MIB);
	CHECK_INT(inst(&s, "alpha", "mem", "swap"), 0);
	CHECK_INT(inst(&s, "alpha", "growth", "growth"), 0);
	CHECK_INT(inst(&s, "alpha", "leak", "leak"), 0);
	CHECK_INT(inst(&s, "leaky", "leak", "leak"), 1);
	CHECK_INT(inst(&s, "leaky", "leak", "rate"), 262144);
	CHECK_INT(inst(&s, "leaky", "leak", "confidence"), 87);
	/* the alarm level the shipped template shows, and the time it
	 * projects; none projected is a gap, never 0 s */
	CHECK_INT(inst(&s, "leaky", "leak", "alarm"), 1);
	CHECK_INT(inst(&s, "leaky", "leak", "time_left"), 5000);
	CHECK_INT(inst(&s, "alpha", "leak", "alarm"), 0);
	{
		long long v;

		CHECK(!ndc_last(s.chk, "memz.grp_alpha_leak", "time_left", &v));
	}
	CHECK_INT(inst(&s, "leaky", "growth", "growth"), 262144);
	CHECK_INT(ndc_dim_divisor(s.chk, "memz.grp_leaky_leak", "rate"), 1024);

	/* alpha goes: its instances are obsoleted once and never begun again
	 * (the checker refuses BEGIN of an obsolete chart) */
	cycle(&s, (int[]){ 1, 2 }, 2);
	CHECK(ndc_chart_obsolete(s.chk, "memz.grp_alpha_mem"));
	CHECK(ndc_chart_obsolete(s.chk, "memz.grp_alpha_leak"));
	CHECK_INT(ndc_chart_count(s.chk, "memz.group_leak", true), 2);
	cycle(&s, (int[]){ 1, 2 }, 2);
	/* and comes back live, same ids */
	s.g[0].pss = 12 * MIB;
	cycle(&s, (int[]){ 0, 1, 2 }, 3);
	CHECK(!ndc_chart_obsolete(s.chk, "memz.grp_alpha_mem"));
	CHECK_INT(inst(&s, "alpha", "mem", "pss"), 12 * MIB);
	CHECK_INT(ndc_chart_count(s.chk, "memz.group_leak", true), 3);
	script_free(&s);
}

/* TopGroups = 1000 on a machine with more distinct names than the report
 * publishes: the emitter charts the report's stated limit and never fails
 * (it used to run out of its 512 slots and end the plugin with exit 1). */
static void test_many_groups(void)
{
	enum { N = 1200 };
	static struct memz_group g[N];
	static const struct memz_group *gp[N];
	static char names[N][16];
	struct memz_nd_emitter *e;
	struct memz_snapshot snap;
	struct ndc *chk = ndc_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&snap, 0, sizeof snap);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "g%d", i);
		memset(&g[i], 0, sizeof g[i]);
		g[i].name = names[i];
		g[i].pss = (uint64_t)(N - i) * MIB;
		g[i].reported = true;
		gp[i] = &g[i];
	}
	snap.view.groups = gp;
	snap.view.n_groups = N;
	CHECK_INT(memz_nd_emitter_new(&e, f, 1, MEMZ_ND_V(1, 37)), 0);
	CHECK_INT(memz_nd_emit(e, &snap, 0), 0);
	/* the next cycle, other names: the old ones go obsolete */
	for (int i = 0; i < N; i++)
		names[i][0] = 'h';
	CHECK_INT(memz_nd_emit(e, &snap, 1000000), 0);
	fflush(f);
	CHECK_INT(ndc_feed(chk, buf, len), 0);
	if (ndc_error(chk))
		fprintf(stderr, "checker: %s\n", ndc_error(chk));
	CHECK_INT(ndc_dim_count(chk, "memz.group_pss", true),
		  MEMZ_REPORT_MAX_GROUPS);
	CHECK_INT(ndc_chart_count(chk, "memz.group_leak", true),
		  MEMZ_REPORT_MAX_GROUPS);
	CHECK_INT(ndc_chart_count(chk, "memz.group_leak", false),
		  2 * MEMZ_REPORT_MAX_GROUPS);
	CHECK(ndc_chart_obsolete(chk, "memz.grp_g0_leak"));
	CHECK(!ndc_chart_obsolete(chk, "memz.grp_h0_leak"));
	memz_nd_emitter_free(&e);
	fclose(f);
	free(buf);
	ndc_free(chk);
}

/* Never silent for long: PLUGIN_KEEPALIVE only where netdata knows it,
 * a repeat of the data below 2.7 (1.37.1 would stop at the keyword). */
static void test_keepalive(void)
{
	static const struct { const char *env; unsigned v; } vers[] = {
		{ "v1.37.1", MEMZ_ND_V(1, 37) }, { "v2.8.1", MEMZ_ND_V(2, 8) },
		{ "2.7.0-12-nightly", MEMZ_ND_V(2, 7) },
		{ "v1.44.3", MEMZ_ND_V(1, 44) }, { NULL, MEMZ_ND_V(1, 37) },
		{ "", MEMZ_ND_V(1, 37) }, { "vx", MEMZ_ND_V(1, 37) },
		{ "v2", MEMZ_ND_V(1, 37) }, { "v0.9", MEMZ_ND_V(1, 37) },
		{ "v99999.1", MEMZ_ND_V(1, 37) },
	};
	for (size_t i = 0; i < sizeof vers / sizeof *vers; i++)
		CHECK_INT(memz_nd_version(vers[i].env), vers[i].v);

	for (int new = 0; new < 2; new++) {
		struct memz_nd_emitter *e;
		struct memz_snapshot snap;
		struct ndc *chk = ndc_new();
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		memset(&snap, 0, sizeof snap);
		if (new)
			ndc_set_version(chk, 2, 8);
		CHECK_INT(memz_nd_emitter_new(&e, f, 600,
					      memz_nd_version(new ? "v2.8.1" : "v1.37.1")), 0);
		CHECK_INT(memz_nd_emit(e, &snap, 0), 0);
		/* 1: data went out, the next update counts from it */
		CHECK_INT(memz_nd_emit_keepalive(e, &snap, 30000000), new ? 0 : 1);
		fflush(f);
		CHECK_INT(ndc_feed(chk, buf, len), 0);
		CHECK(ndc_error(chk) == NULL);
		CHECK_INT(ndc_count(chk, "PLUGIN_KEEPALIVE"), new ? 1 : 0);
		CHECK_INT(ndc_count(chk, "BEGIN"), new ? 9 : 18);
		memz_nd_emitter_free(&e);
		fclose(f);
		free(buf);
		ndc_free(chk);
	}
	/* and the 1.37 checker refuses the keyword */
	{
		struct ndc *chk = ndc_new();
		CHECK(ndc_feed(chk, "PLUGIN_KEEPALIVE\n", 17) != 0);
		ndc_free(chk);
	}
}

static void test_closed_pipe(void)
{
	struct memz_nd_emitter *e;
	struct memz_snapshot snap;
	int fds[2];
	FILE *f;
	int rc = 0;

	memset(&snap, 0, sizeof snap);
	signal(SIGPIPE, SIG_IGN);
	CHECK_INT(pipe(fds), 0);
	close(fds[0]);
	f = fdopen(fds[1], "w");
	CHECK(f != NULL);
	CHECK_INT(memz_nd_emitter_new(&e, f, 2, MEMZ_ND_V(1, 37)), 0);
	errno = 0;
	for (int i = 0; i < 3 && !rc; i++)
		rc = memz_nd_emit(e, &snap, 0);
	CHECK_INT(rc, -EIO);
	CHECK_INT(errno, EPIPE);
	memz_nd_emitter_free(&e);
	fclose(f);
}

static void test_functions_declared(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ndc *c = ndc_new();

	CHECK_INT(memz_nd_emit_functions(f, 10), 0);
	fclose(f);
	CHECK_INT(ndc_feed(c, buf, len), 0);
	CHECK_INT(ndc_count(c, "FUNCTION"), 3);
	CHECK(strstr(buf, "\"memz-top\" 10 ") != NULL);
	CHECK(strstr(buf, "\"memz-oom\" 10 ") != NULL);
	/* tags and the access level ride on every registration */
	CHECK(strstr(buf, "\"top\" 0x13 20\n") != NULL);
	CHECK(strstr(buf, "\"top\" 0x13 21\n") != NULL);
	CHECK(strstr(buf, "\"top\" 0x13 22\n") != NULL);
	ndc_free(c);
	free(buf);
}

/* The checker itself must refuse what netdata would choke on. */
static void test_checker_rejects(void)
{
	static const char *const bad[] = {
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nBEGIN memz.x\nSET a = 1\nEND\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nDIMENSION a \"a\" absolute 1 1 \"\"\nBEGIN memz.x\nSET a = 010\nEND\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nDIMENSION a \"a\" absolute 1 1 \"\"\nDIMENSION a \"b\" absolute 1 1 \"\"\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nDIMENSION a \"n\" absolute 1 1 \"\"\nDIMENSION b \"n\" absolute 1 1 \"\"\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nDIMENSION a \"a\" absolute 1 1 \"obsolete\"\nBEGIN memz.x\nSET a = 1\nEND\n",
		"CHART memz.x '' \"t x\" \"u\" \"f\" \"c\" line 1 1 '' p m\nDIMENSION a \"a\" absolute 1 1 \"\"\nBEGIN memz.x\nSET a = 1.5\nEND\n",
		"BEGIN memz.y\n",
		"SET a = 1\n",
		"HELLO\n",
		"CHART memz.x '' \"t\"x \"u\" \"f\" \"c\" line 1 1 '' p m\n",
		"CLABEL a b 1\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nCLABEL a b\n",
		"CHART memz.x '' \"t\\\" \"u\" \"f\" \"c\" line 1 1 '' p m\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\n\n",
		"FUNCTION_RESULT_BEGIN u 200 application/json 0\n{}\n",
		"END\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m 1 2 3 4 5 6 7 8\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 'obsolete' p m\nBEGIN memz.x\nEND\n",
		"CHART memz.x '' \"t\" \"u\" \"f\" \"c\" line 1 1 '' p m\nCHART memz.x '' \"t\" \"u\" \"f\" \"d\" line 1 1 '' p m\n",
		"FUNCTION GLOBAL \"f\" 10 \"help\"\n",
		"FUNCTION GLOBAL \"f\" 10 \"help\" \"top\" 0 1\n",
		"FUNCTION_RESULT_BEGIN u 200 application/json 0\n{\"status\":404}\nFUNCTION_RESULT_END\n",
		"FUNCTION_RESULT_BEGIN u 404 application/json 0\n{\"status\":404}\nFUNCTION_RESULT_END\n",
		"FUNCTION_RESULT_BEGIN u 200 application/json 0\n{\"status\":200,\"type\":\"table\",\"has_history\":false,\"update_every\":1,\"help\":\"h\",\"columns\":{\"A\":{\"index\":0,\"name\":\"A\",\"type\":\"number\"}},\"data\":[]}\nFUNCTION_RESULT_END\n",
		"FUNCTION_RESULT_BEGIN u 200 application/json 0\n{not json\nFUNCTION_RESULT_END\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct ndc *c = ndc_new();
		int rc = ndc_feed(c, bad[i], strlen(bad[i]));
		if (!rc && !ndc_error(c))
			fprintf(stderr, "checker accepted bad[%zu]\n", i);
		CHECK(rc || ndc_error(c));
		ndc_free(c);
	}
}

/* GroupBy cgroup: a cgroup's usage and limit are charted from the first
 * cycle a group has them, under the operator's name, and a group without
 * a limit sets no value on the limit chart. */
static void test_cgroup_charts(void)
{
	struct script s;
	struct memz_cgroup web, batch;
	long long v;
	const char *id;

	script_init(&s);
	group(&s, 0, "/system.slice/docker-x.scope", 30, true);
	group(&s, 1, "/system.slice/batch.service", 20, true);
	cycle(&s, (int[]){ 0, 1 }, 2);
	CHECK(!ndc_has_chart(s.chk, "memz.group_cgroup_usage"));
	CHECK(!ndc_has_chart(s.chk, "memz.group_cgroup_limit"));

	memset(&web, 0, sizeof web);
	snprintf(web.n.name, sizeof web.n.name, "docker:web");
	web.has_mem = true;
	web.mem.version = 2;
	web.mem.usage = 300 * MIB;
	web.mem.limited = true;
	web.mem.limit = 512 * MIB;
	memset(&batch, 0, sizeof batch);
	snprintf(batch.n.name, sizeof batch.n.name, "batch.service");
	batch.has_mem = true;
	batch.mem.usage = 100 * MIB;
	/* names first published with their cgroup take its name */
	group(&s, 2, "/system.slice/docker-y.scope", 10, true)->cgroup = &web;
	group(&s, 3, "/system.slice/other.service", 5, true)->cgroup = &batch;
	cycle(&s, (int[]){ 0, 1, 2, 3 }, 4);
	CHECK(ndc_has_chart(s.chk, "memz.group_cgroup_usage"));
	CHECK(ndc_has_chart(s.chk, "memz.group_cgroup_limit"));
	CHECK_INT(last(&s, "memz.group_cgroup_usage", "docker:web"), 300 * MIB);
	CHECK_INT(last(&s, "memz.group_cgroup_limit", "docker:web"), 512 * MIB);
	CHECK_INT(last(&s, "memz.group_cgroup_usage", "batch.service"), 100 * MIB);
	id = ndc_dim_id(s.chk, "memz.group_cgroup_limit", "batch.service");
	CHECK(id != NULL);
	CHECK(id && !ndc_last(s.chk, "memz.group_cgroup_limit", id, &v));
	CHECK_STR(ndc_dim_id(s.chk, "memz.group_pss", "docker:web"),
		  "docker_web");
	/* the groups without a cgroup set nothing on its charts */
	id = ndc_dim_id(s.chk, "memz.group_cgroup_usage",
			"/system.slice/docker-x.scope");
	CHECK(id && !ndc_last(s.chk, "memz.group_cgroup_usage", id, &v));
	script_free(&s);
}

/* A chart per OOM scope: time to OOM (a gap when there is none) and the
 * kills, labelled with the scope; a scope that goes away is obsolete. */
static void test_oom_scopes(void)
{
	struct script s;
	struct memz_oom_view *o;
	long long v;
	double w;

	script_init(&s);
	o = &s.snap.oom;
	o->n_scopes = 2;
	snprintf(o->scope[0].id, sizeof o->scope[0].id, "machine");
	o->scope[0].seconds = 1500.4;
	o->scope[0].kills = 2;
	snprintf(o->scope[1].id, sizeof o->scope[1].id, "cg_box");
	snprintf(o->scope[1].path, sizeof o->scope[1].path, "/box\" CHART x");
	o->scope[1].seconds = NAN;
	o->scope[0].warn_s = 3600;
	o->scope[1].warn_s = 90.5;
	cycle(&s, NULL, 0);
	/* OomWarn, for the shipped alarm, on each time to OOM chart */
	CHECK(ndc_chart_var(s.chk, "memz.time_to_oom_machine", "oom_warn", &w));
	CHECK(w == 3600);
	CHECK(strstr(s.buf, "VARIABLE CHART oom_warn = 3600\n") != NULL);
	CHECK(ndc_chart_var(s.chk, "memz.time_to_oom_cg_box", "oom_warn", &w));
	CHECK(w == 90.5);
	CHECK(!ndc_chart_var(s.chk, "memz.oom_kills_cg_box", "oom_warn", &w));
	CHECK(ndc_has_chart(s.chk, "memz.time_to_oom_machine"));
	CHECK(ndc_has_chart(s.chk, "memz.oom_kills_machine"));
	CHECK(ndc_has_chart(s.chk, "memz.time_to_oom_cg_box"));
	CHECK_INT(last(&s, "memz.time_to_oom_machine", "time to OOM"), 1500);
	CHECK_INT(last(&s, "memz.oom_kills_machine", "kills"), 2);
	CHECK_INT(last(&s, "memz.oom_kills_cg_box", "kills"), 0);
	/* none: the dimension was never set */
	CHECK(!ndc_last(s.chk, "memz.time_to_oom_cg_box", "time_to_oom", &v));
	CHECK(strstr(s.buf, "CLABEL scope \"/box_ CHART x\" 1") != NULL);
	CHECK(strstr(s.buf, "\"memz.time_to_oom\" line") != NULL);

	o->scope[1].seconds = 60;
	cycle(&s, NULL, 0);
	CHECK_INT(last(&s, "memz.time_to_oom_cg_box", "time to OOM"), 60);

	/* the cgroup went away: its charts are obsolete, and not set again */
	o->n_scopes = 1;
	s.fed = s.len;
	cycle(&s, NULL, 0);
	CHECK(strstr(s.buf, "CHART memz.time_to_oom_cg_box '' ") != NULL);
	CHECK(strstr(s.buf, "'obsolete' memz.plugin") != NULL);
	CHECK(strstr(strstr(s.buf, "'obsolete' memz.plugin"),
		     "BEGIN memz.time_to_oom_cg_box") == NULL);
	script_free(&s);
}

/* A CHART line's fields, quoted ('...' or "...") or bare, into f[]. */
static size_t chart_fields(const char *line, char f[][128], size_t max)
{
	size_t n = 0;

	while (*line && *line != '\n' && n < max) {
		char q = 0;
		size_t k = 0;

		while (*line == ' ')
			line++;
		if (!*line || *line == '\n')
			break;
		if (*line == '\'' || *line == '"')
			q = *line++;
		while (*line && *line != '\n' &&
		       (q ? *line != q : *line != ' ')) {
			if (k < 127)
				f[n][k++] = *line;
			line++;
		}
		if (q && *line == q)
			line++;
		f[n++][k] = '\0';
	}
	return n;
}

/* The dashboard's menu: a group's own charts sit in a submenu of their
 * own under "groups/", so a group named after one of memz's sections
 * ("oom", "leaks", "ram", "memz", "groups") never merges into it; the
 * time to OOM has a priority of its own, not the groups' charts'. */
static void test_menu(void)
{
	static const char *const names[] = { "oom", "leaks", "ram", "memz",
					     "groups" };
	struct script s;
	struct { char id[128], family[128]; long prio; } c[256];
	size_t nc = 0;
	struct memz_oom_view *o;

	script_init(&s);
	for (int i = 0; i < 5; i++)
		group(&s, i, names[i], 10 + (uint64_t)i, true);
	o = &s.snap.oom;
	o->n_scopes = 1;
	snprintf(o->scope[0].id, sizeof o->scope[0].id, "machine");
	o->scope[0].seconds = 100;
	cycle(&s, (int[]){ 0, 1, 2, 3, 4 }, 5);
	for (const char *l = s.buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		char f[16][128];

		if (strncmp(l, "CHART ", 6) || chart_fields(l, f, 16) < 9 ||
		    nc == sizeof c / sizeof c[0])
			continue;
		snprintf(c[nc].id, sizeof c[nc].id, "%s", f[1]);
		snprintf(c[nc].family, sizeof c[nc].family, "%s", f[5]);
		c[nc++].prio = atol(f[8]);
	}
	CHECK(nc > 15);
	for (size_t i = 0; i < nc; i++) {
		bool grp = !strncmp(c[i].id, "memz.grp_", 9);

		if (grp)
			CHECK(!strncmp(c[i].family, "groups/", 7));
		for (size_t j = 0; j < nc; j++) {
			bool grp2 = !strncmp(c[j].id, "memz.grp_", 9);

			if (grp && !grp2 && !strcmp(c[i].family, c[j].family))
				fprintf(stderr, "%s shares family %s with %s\n",
					c[i].id, c[i].family, c[j].id);
			CHECK(!(grp && !grp2 &&
				!strcmp(c[i].family, c[j].family)));
			/* the OOM charts' priorities are theirs alone */
			if (i != j && !strncmp(c[i].id, "memz.time_to_oom", 16))
				CHECK(c[i].prio != c[j].prio);
			if (i != j && !strncmp(c[i].id, "memz.oom_kills", 14))
				CHECK(c[i].prio != c[j].prio);
		}
	}
	CHECK(strstr(s.buf, "\"groups/oom\" \"memz.group_mem\"") != NULL);
	script_free(&s);
}

/* Per-user totals: a chart per figure under "users", a dimension per
 * published user, with the values in MiB; a user no longer published is
 * made obsolete once, one that comes back is live again, a steady cycle
 * declares nothing, and no user published means no user charts. */
static void test_user_charts(void)
{
	static const char *const charts[] = { "memz.user_pss", "memz.user_uss",
					      "memz.user_swap", "memz.user_anon" };
	struct script s;
	struct memz_user_total u[3];
	const struct memz_user_total *up[3];
	unsigned n_charts;
	long long v;

	script_init(&s);
	group(&s, 0, "alpha", 10, true);
	cycle(&s, (int[]){ 0 }, 1);
	CHECK(!ndc_has_chart(s.chk, "memz.user_pss"));

	memset(u, 0, sizeof u);
	u[0] = (struct memz_user_total){ .uid = 1000, .pss = 30 * MIB,
					 .uss = 20 * MIB, .swap = 2 * MIB,
					 .anon = 10 * MIB, .name = "alice",
					 .reported = true };
	u[1] = (struct memz_user_total){ .uid = 0, .pss = 8 * MIB,
					 .name = "root", .reported = true };
	u[2] = (struct memz_user_total){ .uid = 33, .pss = 4 * MIB,
					 .name = "www-data", .reported = true };
	up[0] = &u[0];
	up[1] = &u[1];
	s.snap.view.users = up;
	s.snap.view.n_users = 2;
	cycle(&s, (int[]){ 0 }, 1);
	for (size_t c = 0; c < 4; c++) {
		CHECK(ndc_has_chart(s.chk, charts[c]));
		CHECK_INT(ndc_dim_count(s.chk, charts[c], true), 2);
		CHECK_INT(ndc_dim_divisor(s.chk, charts[c], "alice"), MIB);
	}
	CHECK(strstr(s.buf, "\"users\" \"memz.user_pss\" stacked") != NULL);
	CHECK(ndc_last(s.chk, "memz.user_pss", "alice", &v));
	CHECK_INT(v, 30 * MIB);
	CHECK(ndc_last(s.chk, "memz.user_uss", "alice", &v));
	CHECK_INT(v, 20 * MIB);
	CHECK(ndc_last(s.chk, "memz.user_swap", "alice", &v));
	CHECK_INT(v, 2 * MIB);
	CHECK(ndc_last(s.chk, "memz.user_anon", "alice", &v));
	CHECK_INT(v, 10 * MIB);
	CHECK(ndc_last(s.chk, "memz.user_pss", "root", &v));
	CHECK_INT(v, 8 * MIB);

	/* steady: nothing declared again */
	n_charts = ndc_count(s.chk, "CHART");
	cycle(&s, (int[]){ 0 }, 1);
	CHECK_INT(ndc_count(s.chk, "CHART"), n_charts);

	/* root no longer published, www-data is */
	up[1] = &u[2];
	cycle(&s, (int[]){ 0 }, 1);
	CHECK(ndc_dim_obsolete(s.chk, "memz.user_pss", "root"));
	CHECK(!ndc_set_last_update(s.chk, "memz.user_pss", "root"));
	CHECK(ndc_set_last_update(s.chk, "memz.user_pss", "www-data"));
	CHECK_INT(ndc_dim_count(s.chk, "memz.user_pss", true), 2);
	CHECK(ndc_last(s.chk, "memz.user_pss", "www-data", &v));
	CHECK_INT(v, 4 * MIB);

	/* root back: live again, under the same id */
	up[2] = &u[1];
	s.snap.view.n_users = 3;
	cycle(&s, (int[]){ 0 }, 1);
	CHECK(!ndc_dim_obsolete(s.chk, "memz.user_pss", "root"));
	CHECK(ndc_set_last_update(s.chk, "memz.user_pss", "root"));
	CHECK_INT(ndc_dim_count(s.chk, "memz.user_pss", true), 3);

	/* a user the report does not publish (not reported) is not charted */
	u[2].reported = false;
	cycle(&s, (int[]){ 0 }, 1);
	CHECK(ndc_dim_obsolete(s.chk, "memz.user_pss", "www-data"));
	CHECK_INT(ndc_dim_count(s.chk, "memz.user_pss", true), 2);
	script_free(&s);
}

/* Users that come and go for ever (a new DynamicUser each time) keep the
 * emitter's state bounded and every SET for a declared dimension. */
static void test_user_churn(void)
{
	struct script s;
	struct memz_user_total u;
	const struct memz_user_total *up[1] = { &u };

	script_init(&s);
	group(&s, 0, "alpha", 10, true);
	s.snap.view.users = up;
	s.snap.view.n_users = 1;
	for (unsigned i = 0; i < 3 * MEMZ_REPORT_MAX_USERS; i++) {
		memset(&u, 0, sizeof u);
		u.uid = 60000 + i;
		u.pss = MIB;
		u.reported = true;
		snprintf(u.name, sizeof u.name, "%u", u.uid);
		cycle(&s, (int[]){ 0 }, 1);
	}
	CHECK_INT(ndc_dim_count(s.chk, "memz.user_pss", true), 1);
	CHECK(ndc_set_last_update(s.chk, "memz.user_pss", u.name));
	script_free(&s);
}

int main(void)
{
	test_user_charts();
	test_user_churn();
	test_cgroup_charts();
	test_oom_scopes();
	test_menu();
	test_checker_rejects();
	test_fixed_charts();
	test_hostile_names();
	test_groups_come_and_go();
	test_churn_is_bounded();
	test_group_instances();
	test_many_groups();
	test_keepalive();
	test_closed_pipe();
	test_functions_declared();
	return check_status();
}
