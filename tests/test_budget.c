/*
 * test_budget - the CPU budget of exact reads: the pure scheduler with fake
 * costs, so no huge process is needed. The sampler's side of the budget is
 * in test_budget_live.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "memz/budget.h"
#include "memz/sampler.h"

#define MiB (1024ull * 1024ull)

/* ---- simulation of the scheduler with fake processes ---- */

struct fake {
	int pid;
	double cost;    /* CPU seconds of one read */
	bool changing;  /* statm moves every cycle */
	bool has_exact;
	double exact_t;
	unsigned since; /* cycles since the exact read */
	unsigned reads;
	double max_age;  /* largest age seen before a read */
	double read_at[64];
	unsigned n_read_at;
};

struct sim {
	struct memz_budget b;
	struct fake *f;
	size_t n;
	struct memz_budget_cand *c;
	double now, spent;
	double max_age_setting;
	unsigned refresh;
	int order[16]; /* pids in the order read, first cycle of interest */
	unsigned n_order;
};

static int fake_read(void *ctx, struct memz_budget_cand *c, double *cost)
{
	struct sim *sm = ctx;
	struct fake *f = c->ref;

	*cost = f->cost;
	sm->spent += f->cost;
	if (f->has_exact && sm->now - f->exact_t > f->max_age)
		f->max_age = sm->now - f->exact_t;
	f->has_exact = true;
	f->exact_t = sm->now;
	f->since = 0;
	f->reads++;
	if (f->n_read_at < 64)
		f->read_at[f->n_read_at++] = sm->now;
	if (sm->n_order < 16)
		sm->order[sm->n_order++] = f->pid;
	return 0;
}

static void sim_init(struct sim *sm, struct fake *f, size_t n, double pct)
{
	memset(sm, 0, sizeof *sm);
	memz_budget_init(&sm->b, pct);
	sm->f = f;
	sm->n = n;
	sm->c = calloc(n, sizeof *sm->c);
	sm->max_age_setting = 60;
	sm->refresh = 10;
}

static void sim_cycle(struct sim *sm, struct memz_budget_result *res)
{
	memz_budget_refill(&sm->b, sm->now);
	for (size_t i = 0; i < sm->n; i++) {
		struct fake *f = &sm->f[i];
		double age = f->has_exact ? sm->now - f->exact_t : 0;

		sm->c[i].ref = f;
		sm->c[i].need = memz_budget_need(f->has_exact, age,
						 sm->max_age_setting,
						 f->changing, f->since,
						 sm->refresh);
		sm->c[i].cost = f->cost;
		sm->c[i].age = age;
		sm->c[i].key = f->pid;
	}
	memz_budget_schedule(&sm->b, sm->c, sm->n, fake_read, sm, res);
	for (size_t i = 0; i < sm->n; i++)
		if (sm->f[i].has_exact && sm->f[i].exact_t != sm->now)
			sm->f[i].since++;
}

/* One process whose read costs 100 ms next to 200 cheap changing ones, at
 * the default 1%: no sliding minute costs more than a minute of budget
 * plus one forced read; over ten minutes the average holds, and the
 * budget is used. */
static void budget_holds(void)
{
	enum { T = 600 };
	struct fake f[201];
	struct sim sm;
	struct memz_budget_result res;
	double spent_at[T + 1], worst = 0;

	memset(f, 0, sizeof f);
	for (int i = 0; i < 200; i++) {
		f[i].pid = 100 + i;
		f[i].cost = 20e-6;
		f[i].changing = true;
	}
	f[200].pid = 50;
	f[200].cost = 0.1;
	f[200].changing = true;
	sim_init(&sm, f, 201, 1.0);
	for (int t = 0; t <= T; t++) {
		sm.now = t;
		sim_cycle(&sm, &res);
		spent_at[t] = sm.spent;
		if (t >= 60 && spent_at[t] - spent_at[t - 60] > worst)
			worst = spent_at[t] - spent_at[t - 60];
	}
	CHECK(worst <= 0.6 + 0.1 + 1e-9);
	/* 601 s of budget at 1%, plus the first cycle's forced reads */
	CHECK(sm.spent <= 6.01 + 0.1 + 200 * 20e-6 + 1e-9);
	CHECK(sm.spent >= 5.0);
	/* the large one goes less often than the cheap ones, but does go */
	CHECK(f[200].reads >= 10);
	CHECK(f[200].reads < f[0].reads);
	free(sm.c);
}

/*
 * A quiet spell, then every process changing (the bench's idle and busy
 * phases): the budget the quiet minutes left unspent is not spent on top
 * of the busy minute's, so every sliding minute (60 cycles) stays within a
 * minute of budget plus one read. A bucket alone, filled while quiet,
 * would spend its fill and then a minute's rate on top. After the first
 * busy minute the reads are paced, not bunched: every 20 s then costs at
 * least half of 20 s of budget.
 */
static void quiet_then_busy(void)
{
	enum { N = 1000, QUIET = 300, T = 900 };
	struct fake *f = calloc(N, sizeof *f);
	double *spent_at = calloc(T + 1, sizeof *spent_at);
	struct sim sm;
	struct memz_budget_result res;
	double worst = 0, least20 = 1e9;

	for (int i = 0; i < N; i++) {
		f[i].pid = 1 + i;
		f[i].cost = 20e-6 + i * 1e-9; /* all of them: 20 ms, 2 s of budget */
	}
	sim_init(&sm, f, N, 1.0);
	for (int t = 0; t <= T; t++) {
		sm.now = t;
		if (t == QUIET)
			for (int i = 0; i < N; i++)
				f[i].changing = true;
		sim_cycle(&sm, &res);
		spent_at[t] = sm.spent;
		if (t >= QUIET && spent_at[t] - spent_at[t - 60] > worst)
			worst = spent_at[t] - spent_at[t - 60];
		if (t >= QUIET + 80 &&
		    spent_at[t] - spent_at[t - 20] < least20)
			least20 = spent_at[t] - spent_at[t - 20];
	}
	CHECK(worst <= 0.6 + 21e-6);
	CHECK(worst >= 0.55); /* and the busy minutes use it */
	CHECK(least20 >= 0.1);
	free(spent_at);
	free(sm.c);
	free(f);
}

/* At 0.05% the bucket (20 s of budget: 10 ms) never holds a 100 ms read: the
 * process is read only when it is never read or PssMaxAge old, and the
 * debt each of those reads makes is paid back before any optional read. */
static void mandatory_at_max_age(void)
{
	struct fake f[2];
	struct sim sm;
	struct memz_budget_result res;
	bool optional_in_debt = false;

	memset(f, 0, sizeof f);
	f[0].pid = 1;
	f[0].cost = 0.1;
	f[0].changing = true;
	f[1].pid = 2;
	f[1].cost = 1e-3;
	f[1].changing = true;
	sim_init(&sm, f, 2, 0.05);
	for (int t = 0; t <= 200; t++) {
		unsigned reads1 = f[1].reads;
		bool forced = !f[1].has_exact || t - f[1].exact_t >= 60;
		double before;

		sm.now = t;
		memz_budget_refill(&sm.b, sm.now);
		before = sm.b.tokens;
		sim_cycle(&sm, &res);
		if (f[1].reads > reads1 && !forced && before < f[1].cost)
			optional_in_debt = true;
	}
	CHECK_INT(f[0].n_read_at, 4);
	CHECK_NEAR(f[0].read_at[0], 0, 0);
	CHECK_NEAR(f[0].read_at[1], 60, 0);
	CHECK_NEAR(f[0].read_at[2], 120, 0);
	CHECK_NEAR(f[0].read_at[3], 180, 0);
	CHECK(!optional_in_debt);
	/* the small one is not starved past PssMaxAge either */
	CHECK(f[1].max_age <= 60);
	free(sm.c);
}

/* 1000 changing processes of slightly different cost (20 us plus 1 ns per
 * pid) and a budget for about 50 reads a cycle: every one is read round
 * robin, well within PssMaxAge, none waits for its forced read. */
static void no_starvation(void)
{
	enum { N = 1000 };
	struct fake *f = calloc(N, sizeof *f);
	struct sim sm;
	struct memz_budget_result res;
	double worst = 0;

	for (int i = 0; i < N; i++) {
		f[i].pid = 1 + i;
		f[i].cost = 20e-6 + i * 1e-9;
		f[i].changing = true;
	}
	sim_init(&sm, f, N, 0.1);
	for (int t = 0; t <= 300; t++) {
		sm.now = t;
		sim_cycle(&sm, &res);
		/* the first minute pays the debt of reading everyone at once */
		if (t == 100)
			for (int i = 0; i < N; i++)
				f[i].max_age = 0;
	}
	for (int i = 0; i < N; i++)
		if (f[i].max_age > worst)
			worst = f[i].max_age;
	CHECK(worst > 0);
	CHECK(worst <= 25);
	for (int i = 0; i < N; i++)
		CHECK(f[i].reads >= 5);
	free(sm.c);
	free(f);
}

/* 1000 processes that never change, 100 us a read, refreshed every 10
 * cycles would cost 10 ms/s: the whole 1% budget. Refreshes get a tenth of
 * it (1 ms/s), so an idle machine costs little more than the statm probe;
 * they still go round robin, and stale reads (here 1000 / 45 s of
 * 100 us: 2.2 ms/s) bound every process's age. */
static void refresh_share(void)
{
	enum { N = 1000 };
	struct fake *f = calloc(N, sizeof *f);
	struct sim sm;
	struct memz_budget_result res;
	double after_start = 0;
	const double share = 0.01 * MEMZ_BUDGET_REFRESH_SHARE;
	const double must = N * 100e-6 / (MEMZ_BUDGET_STALE_AGE * 60);

	for (int i = 0; i < N; i++) {
		f[i].pid = 1 + i;
		f[i].cost = 100e-6;
	}
	sim_init(&sm, f, N, 1.0);
	for (int t = 0; t <= 600; t++) {
		sm.now = t;
		sim_cycle(&sm, &res);
		if (t == 0)
			after_start = sm.spent;
	}
	/* 600 s of the share plus the forced PssMaxAge reads, plus the
	 * share's bucket */
	CHECK(sm.spent - after_start <= 600 * (share + must) + 60 * share + 1e-9);
	CHECK(sm.spent - after_start >= 600 * share * 0.9);
	/* every process is read once in 3/4 of a minute (from then on it is
	 * stale), and hardly more often */
	CHECK(sm.spent - after_start <=
	      600 * N * 100e-6 / (MEMZ_BUDGET_STALE_AGE * 60) + 60 * share);
	for (int i = 0; i < N; i++)
		CHECK(f[i].max_age <= 60);
	free(sm.c);
	free(f);
}

/*
 * 1000 idle processes of 100 us a read (a few MiB each), started together,
 * beside 20 changing ones of 1 ms that would take twice the 1% budget: the
 * bench's busy phase. Forced at PssMaxAge all at once, the idle ones' reads
 * would land on a budget the changing ones already spend, so a minute would
 * cost more than a minute of budget. Read from 3/4 of PssMaxAge on, oldest
 * first, within the budget, they spread out: over every sliding minute after
 * the first reads the cost stays within the budget (plus one read), no age
 * passes PssMaxAge, and hardly any read is forced.
 */
static void stale_spread(void)
{
	enum { N = 1020, IDLE = 1000, T = 900, WARM = 120 };
	struct fake *f = calloc(N, sizeof *f);
	double *spent_at = calloc(T + 1, sizeof *spent_at);
	struct sim sm;
	struct memz_budget_result res;
	unsigned forced = 0;
	double worst = 0, worst20 = 0, worst_age = 0;

	for (int i = 0; i < N; i++) {
		f[i].pid = 1 + i;
		f[i].cost = i < IDLE ? 100e-6 : 1e-3;
		f[i].changing = i >= IDLE;
	}
	sim_init(&sm, f, N, 1.0);
	for (int t = 0; t <= T; t++) {
		sm.now = t;
		for (int i = 0; i < N; i++)
			if (t > WARM && f[i].has_exact &&
			    t - f[i].exact_t >= sm.max_age_setting)
				forced++;
		sim_cycle(&sm, &res);
		spent_at[t] = sm.spent;
		if (t >= WARM + 60 && spent_at[t] - spent_at[t - 60] > worst)
			worst = spent_at[t] - spent_at[t - 60];
		if (t >= WARM + 20 && spent_at[t] - spent_at[t - 20] > worst20)
			worst20 = spent_at[t] - spent_at[t - 20];
		if (t == WARM)
			for (int i = 0; i < N; i++)
				f[i].max_age = 0;
	}
	for (int i = 0; i < N; i++)
		if (f[i].max_age > worst_age)
			worst_age = f[i].max_age;
	CHECK(worst <= 0.6 + 1e-3 + 1e-9);
	CHECK(worst >= 0.5); /* and the budget is used */
	/* nor does any 20 s window (the bench's) see a burst */
	CHECK(worst20 <= 0.2 + 1e-3 + 1e-9);
	CHECK(worst_age <= 60);
	CHECK(forced <= IDLE / 100);
	free(spent_at);
	free(sm.c);
	free(f);
}

/* One cycle's order: forced first, then changed before refresh, within a
 * class the most urgent (age / cost); the first changed read that does not
 * fit stops the optional reads behind it, unless it never could fit. */
static void order(void)
{
	struct memz_budget b;
	struct memz_budget_cand c[7];
	struct fake f[7];
	struct sim sm;
	struct memz_budget_result res;

	memset(f, 0, sizeof f);
	memset(c, 0, sizeof c);
	memz_budget_init(&b, 1.0); /* cap 0.2 s */
	memz_budget_refill(&b, 0);
	memz_budget_refill(&b, 0.5); /* 5 ms */
	memset(&sm, 0, sizeof sm);
	sm.now = 1000;
#define CAND(i, pid_, need_, cost_, age_)                                  \
	do {                                                               \
		f[i].pid = pid_;                                           \
		f[i].cost = cost_;                                         \
		c[i].ref = &f[i];                                          \
		c[i].need = need_;                                         \
		c[i].cost = cost_;                                         \
		c[i].age = age_;                                           \
		c[i].key = pid_;                                           \
	} while (0)
	CAND(0, 10, MEMZ_NEED_REFRESH, 1e-4, 10);
	CAND(1, 11, MEMZ_NEED_CHANGED, 1e-4, 2);  /* urgency 2e4 */
	CAND(2, 12, MEMZ_NEED_MUST, 0.05, 60);
	CAND(3, 13, MEMZ_NEED_CHANGED, 1e-4, 5);  /* 5e4 */
	CAND(4, 14, MEMZ_NEED_NONE, 1e-5, 30);
	CAND(5, 15, MEMZ_NEED_CHANGED, 10.0, 59); /* never fits: no block */
	CAND(6, 16, MEMZ_NEED_CHANGED, 1e-4, 1);  /* 1e4 */
	memz_budget_schedule(&b, c, 7, fake_read, &sm, &res);
	/* the forced read put the bucket in debt: nothing optional */
	CHECK_INT(sm.n_order, 1);
	CHECK_INT(sm.order[0], 12);
	CHECK_INT(res.skipped, 1);
	CHECK_INT(res.deferred, 5);

	/* with a full bucket: changed by urgency, then refresh */
	memz_budget_init(&b, 1.0);
	memz_budget_refill(&b, 0);
	memz_budget_refill(&b, 100);
	sm.n_order = 0;
	c[0].need = MEMZ_NEED_REFRESH;
	for (int i = 0; i < 7; i++)
		if (((struct fake *)c[i].ref)->pid == 12)
			c[i].need = MEMZ_NEED_CHANGED;
	memz_budget_schedule(&b, c, 7, fake_read, &sm, &res);
	CHECK_INT(sm.n_order, 5);
	CHECK_INT(sm.order[0], 13);
	CHECK_INT(sm.order[1], 11);
	CHECK_INT(sm.order[2], 16);
	CHECK_INT(sm.order[3], 12); /* 50 ms: urgency 1200 */
	CHECK_INT(sm.order[4], 10);

	/* a changed read that fits no more blocks the cheaper ones behind */
	memz_budget_init(&b, 1.0);
	memz_budget_refill(&b, 0);
	memz_budget_refill(&b, 1); /* 10 ms */
	sm.n_order = 0;
	for (int i = 0; i < 7; i++) {
		int pid = ((struct fake *)c[i].ref)->pid;
		c[i].need = pid == 14 ? MEMZ_NEED_NONE : MEMZ_NEED_CHANGED;
		if (pid == 12) {
			c[i].cost = f[i].cost = 0.02;
			c[i].age = 1000; /* urgency 5e4: first */
		}
		if (pid == 13)
			c[i].age = 6; /* 6e4: before it */
		if (pid == 10)
			c[i].age = 1; /* 1e4 */
	}
	memz_budget_schedule(&b, c, 7, fake_read, &sm, &res);
	CHECK_INT(sm.n_order, 1);
	CHECK_INT(sm.order[0], 13);
	CHECK_INT(res.deferred, 5);
#undef CAND
}

static void need_classes(void)
{
	CHECK_INT(memz_budget_need(false, 0, 60, false, 0, 10), MEMZ_NEED_MUST);
	CHECK_INT(memz_budget_need(true, 60, 60, false, 0, 10), MEMZ_NEED_MUST);
	CHECK_INT(memz_budget_need(true, 59, 60, true, 0, 10), MEMZ_NEED_STALE);
	CHECK_INT(memz_budget_need(true, 45, 60, false, 0, 10), MEMZ_NEED_STALE);
	CHECK_INT(memz_budget_need(true, 44, 60, true, 0, 10), MEMZ_NEED_CHANGED);
	CHECK_INT(memz_budget_need(true, 9, 60, false, 9, 10), MEMZ_NEED_REFRESH);
	CHECK_INT(memz_budget_need(true, 8, 60, false, 8, 10), MEMZ_NEED_NONE);
}

/* A thousand refreshes and a share for five: the five most urgent, in
 * order; a dear one that does not fit lets a cheaper one behind it in. */
static void many_refreshes(void)
{
	static struct fake f[1000];
	static struct memz_budget_cand c[1000];
	struct memz_budget_result res;
	struct sim sm;

	memset(f, 0, sizeof f);
	memset(&sm, 0, sizeof sm);
	memz_budget_init(&sm.b, 1.0);
	memz_budget_refill(&sm.b, 0);
	memz_budget_refill(&sm.b, 100);
	sm.b.refresh_tokens = 5.5e-4;
	for (int i = 0; i < 1000; i++) {
		f[i].pid = 1000 + i;
		f[i].cost = 1e-4;
		c[i].ref = &f[i];
		c[i].need = MEMZ_NEED_REFRESH;
		c[i].cost = 1e-4;
		c[i].age = (double)((i * 337) % 1000) / 10; /* a permutation */
		c[i].key = f[i].pid;
	}
	c[3].cost = f[3].cost = 6e-4; /* the most urgent, and too dear */
	c[3].age = 1000;
	memz_budget_schedule(&sm.b, c, 1000, fake_read, &sm, &res);
	CHECK_INT(res.reads, 5);
	CHECK_INT(res.deferred, 995);
	CHECK_INT(sm.n_order, 5);
	for (int k = 0; k < 5; k++) /* ages 99.9, 99.8, ...; 273 inverts 337 */
		CHECK_INT(sm.order[k], 1000 + ((999 - k) * 273) % 1000);
}

static int never_read(void *ctx, struct memz_budget_cand *c, double *cost)
{
	(void)c;
	(void)cost;
	++*(int *)ctx;
	return 0;
}

/* No candidate: the sampler passes its array before it ever grew (NULL),
 * which must neither read nor do pointer arithmetic on NULL (UBSan). */
static void no_candidates(void)
{
	struct memz_budget b;
	struct memz_budget_result res;
	int calls = 0;

	memz_budget_init(&b, 1);
	memz_budget_refill(&b, 1);
	res.reads = res.skipped = res.deferred = 7;
	memz_budget_schedule(&b, NULL, 0, never_read, &calls, &res);
	CHECK_INT(calls, 0);
	CHECK_INT(res.reads, 0);
	CHECK_INT(res.skipped, 0);
	CHECK_INT(res.deferred, 0);
}

int main(void)
{
	no_candidates();
	need_classes();
	order();
	budget_holds();
	quiet_then_busy();
	mandatory_at_max_age();
	no_starvation();
	stale_spread();
	refresh_share();
	many_refreshes();
	return check_status();
}
