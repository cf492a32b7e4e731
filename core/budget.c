#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memz/budget.h"

/* Below this a cost is noise in the clock, not a measurement. */
#define MIN_COST 1e-6

void memz_budget_init(struct memz_budget *b, double cpu_budget_percent)
{
	memset(b, 0, sizeof *b);
	b->rate = cpu_budget_percent / 100.0;
	b->cap = b->rate * MEMZ_BUDGET_BURST;
	b->minute = b->rate * 60.0;
	b->window_left = b->minute;
}

static size_t slot(long long second)
{
	long long m = second % MEMZ_BUDGET_SLOTS;

	return (size_t)(m < 0 ? m + MEMZ_BUDGET_SLOTS : m);
}

static void move_window(struct memz_budget *b, double now)
{
	long long sec = (long long)floor(now);
	double spent = 0;

	if (!b->started)
		b->second = sec;
	if (sec > b->second) {
		long long gone = sec - b->second;

		if (gone > MEMZ_BUDGET_SLOTS)
			gone = MEMZ_BUDGET_SLOTS;
		for (long long k = 1; k <= gone; k++)
			b->spent[slot(b->second + k)] = 0;
		b->second = sec;
	}
	/* summed afresh, so that adding and dropping leaves no rounding */
	for (size_t i = 0; i < MEMZ_BUDGET_SLOTS; i++)
		spent += b->spent[i];
	b->window_left = b->minute - spent;
}

void memz_budget_refill(struct memz_budget *b, double now)
{
	move_window(b, now);
	if (b->started && now > b->last_now) {
		b->tokens += (now - b->last_now) * b->rate;
		b->refresh_tokens += (now - b->last_now) * b->rate *
				     MEMZ_BUDGET_REFRESH_SHARE;
	}
	if (b->tokens > b->cap)
		b->tokens = b->cap;
	/* nor more than the window allows: a bucket that kept filling while
	 * the window was full would empty in one burst as soon as the window
	 * made room, and the window would be full again at once, every minute */
	if (b->tokens > 0 && b->tokens > b->window_left)
		b->tokens = b->window_left > 0 ? b->window_left : 0;
	if (b->refresh_tokens > b->cap * MEMZ_BUDGET_REFRESH_SHARE)
		b->refresh_tokens = b->cap * MEMZ_BUDGET_REFRESH_SHARE;
	if (!b->started || now > b->last_now)
		b->last_now = now;
	b->started = true;
}

void memz_budget_charge(struct memz_budget *b, double cost, bool refresh)
{
	double least;

	if (!(cost > 0))
		return;
	b->spent[slot(b->second)] += cost;
	b->window_left -= cost;
	if (refresh)
		b->refresh_tokens -= cost;
	b->tokens -= cost;
	/* A debt beyond one read and one minute only builds up when the
	 * PssMaxAge reads alone exceed the budget; forgetting that excess lets
	 * optional reads resume once they stop, instead of hours later (the
	 * window forgets it after a minute anyway). */
	least = -(cost > b->minute ? cost : b->minute);
	if (b->tokens < least)
		b->tokens = least;
}

double memz_budget_room(const struct memz_budget *b)
{
	return b->tokens < b->window_left ? b->tokens : b->window_left;
}

enum memz_need memz_budget_need(bool has_exact, double age, double max_age,
				bool changed, unsigned cycles_since_exact,
				unsigned refresh_cycles)
{
	if (!has_exact || age >= max_age)
		return MEMZ_NEED_MUST;
	if (age >= MEMZ_BUDGET_STALE_AGE * max_age)
		return MEMZ_NEED_STALE;
	if (changed)
		return MEMZ_NEED_CHANGED;
	if (cycles_since_exact + 1 >= refresh_cycles)
		return MEMZ_NEED_REFRESH;
	return MEMZ_NEED_NONE;
}

static double urgency(const struct memz_budget_cand *c)
{
	return c->age / (c->cost > MIN_COST ? c->cost : MIN_COST);
}

static int by_urgency(const void *a, const void *b)
{
	const struct memz_budget_cand *x = a, *y = b;
	double ux, uy;

	if (x->need != y->need)
		return x->need < y->need ? -1 : 1;
	/* stale ones by deadline: whatever their cost, each must be read
	 * before PssMaxAge, and the oldest has the least time left */
	if (x->need == MEMZ_NEED_STALE && x->age != y->age)
		return x->age > y->age ? -1 : 1;
	ux = urgency(x);
	uy = urgency(y);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static void swap_cand(struct memz_budget_cand *a, struct memz_budget_cand *b)
{
	struct memz_budget_cand t = *a;

	*a = *b;
	*b = t;
}

/* Restore the heap below h[i]: the most urgent at the root. */
static void sift_down(struct memz_budget_cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && by_urgency(&h[l], &h[m]) < 0)
			m = l;
		if (l + 1 < n && by_urgency(&h[l + 1], &h[m]) < 0)
			m = l + 1;
		if (m == i)
			return;
		swap_cand(&h[i], &h[m]);
		i = m;
	}
}

struct pass {
	struct memz_budget *b;
	int (*read)(void *ctx, struct memz_budget_cand *c, double *cost);
	void *ctx;
	struct memz_budget_result *res;
	bool blocked;
};

/* Read c or put it off, by the rules in budget.h. */
static void consider(struct pass *ps, struct memz_budget_cand *c)
{
	struct memz_budget *b = ps->b;
	double cost = 0;

	/* refreshes of unchanged processes draw on their own share too, so
	 * an idle machine costs a fraction of the budget */
	if (c->need == MEMZ_NEED_REFRESH && c->cost > b->refresh_tokens) {
		ps->res->deferred++;
		return;
	}
	if (c->need != MEMZ_NEED_MUST) {
		double room = memz_budget_room(b);

		if (!ps->blocked && c->cost > room && c->cost <= b->cap)
			ps->blocked = true;
		if (ps->blocked || c->cost > room) {
			ps->res->deferred++;
			return;
		}
	}
	if (!ps->read(ps->ctx, c, &cost))
		ps->res->reads++;
	if (cost > 0) {
		memz_budget_charge(b, cost, c->need == MEMZ_NEED_REFRESH);
		ps->res->spent += cost;
	}
}

/*
 * On an idle machine nearly every process is due a refresh and the share
 * affords a few of them a cycle, so the refreshes are not sorted: a heap
 * gives them most urgent first, as sorting would (by_urgency is a total
 * order), and is popped only while one could still be read. The share and
 * the bucket only shrink while reading, so once both rule out even the
 * cheapest refresh, or the optional reads are blocked, the rest would all
 * be deferred.
 */
static void refreshes(struct pass *ps, struct memz_budget_cand *h, size_t n)
{
	double cheapest = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || h[i].cost < cheapest)
			cheapest = h[i].cost;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(h, n, i);
	while (n) {
		if (ps->blocked || cheapest > ps->b->refresh_tokens ||
		    cheapest > memz_budget_room(ps->b)) {
			ps->res->deferred += n;
			return;
		}
		swap_cand(&h[0], &h[--n]);
		sift_down(h, n, 0);
		consider(ps, &h[n]);
	}
}

void memz_budget_schedule(struct memz_budget *b, struct memz_budget_cand *c,
			  size_t n,
			  int (*read)(void *ctx, struct memz_budget_cand *c,
				      double *cost),
			  void *ctx, struct memz_budget_result *res)
{
	struct pass ps = { b, read, ctx, res, false };
	size_t k = 0, r;

	res->reads = res->skipped = res->deferred = 0;
	res->spent = 0;
	/* [needed before refreshes, sorted] [refreshes] [NONE] */
	for (size_t i = 0; i < n; i++) {
		if (c[i].need == MEMZ_NEED_NONE) {
			res->skipped++;
			continue;
		}
		if (i != k)
			swap_cand(&c[k], &c[i]);
		k++;
	}
	r = k;
	for (size_t i = k; i-- > 0;)
		if (c[i].need == MEMZ_NEED_REFRESH && i != --r)
			swap_cand(&c[r], &c[i]);
	if (r > 1)
		qsort(c, r, sizeof *c, by_urgency);
	for (size_t i = 0; i < r; i++)
		consider(&ps, &c[i]);
	/* with no candidate c may be NULL, and NULL + 0 is undefined */
	if (k > r)
		refreshes(&ps, c + r, k - r);
}
