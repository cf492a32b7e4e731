#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "memz/inspect.h"
#include "memz/leakparts.h"

struct slot {
	bool used;
	bool has_then; /* the first read was made (else it waits) */
	char name[MEMZ_LEAKPARTS_NAME_MAX];
	bool is_group;
	int pid;
	unsigned long long start;
	double t0;
	struct memz_smapscat then;
};

struct memz_leakparts {
	const struct memz_allocator *a;
	char proc_root[256];
	double delay, max_rss;
	/* its buffers are freed after each read: reads come once a verdict
	 * and once LeakPartsDelay later, and the smaps window (256 KiB) would
	 * otherwise stay resident for good, the size of 140 processes' state */
	struct memz_inspect ins;
	struct slot slot[MEMZ_LEAKPARTS_SLOTS];
	struct memz_leakpart done[MEMZ_LEAKPARTS_SLOTS];
	struct memz_leakparts_stats st;
	struct memz_budget *budget;
};

void memz_leakparts_set_budget(struct memz_leakparts *lp,
			       struct memz_budget *b)
{
	lp->budget = b;
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Does the budget have room for reading p now? A read dearer than the
 * bucket can hold waits for a full bucket rather than for ever. */
static bool affordable(struct memz_leakparts *lp, const struct memz_proc *p)
{
	double est = 20e-6 + (double)p->mem.rss * (12e-3 / 1073741824.0);

	if (!lp->budget)
		return true;
	if (est > lp->budget->cap)
		est = lp->budget->cap;
	if (memz_budget_room(lp->budget) >= est)
		return true;
	lp->st.deferred++;
	return false;
}

int memz_leakparts_new(struct memz_leakparts **out, const char *proc_root,
		       double delay, double max_rss,
		       const struct memz_allocator *a)
{
	struct memz_leakparts *lp = memz_realloc(a, NULL, sizeof *lp);

	*out = NULL;
	if (!lp)
		return -ENOMEM;
	memset(lp, 0, sizeof *lp);
	lp->a = a;
	snprintf(lp->proc_root, sizeof lp->proc_root, "%s", proc_root);
	lp->delay = delay;
	lp->max_rss = max_rss;
	memz_inspect_init(&lp->ins);
	/* only the sums are wanted: keep no mapping */
	lp->ins.keep_max = 1;
	*out = lp;
	return 0;
}

void memz_leakparts_free(struct memz_leakparts **plp)
{
	struct memz_leakparts *lp = *plp;

	if (!lp)
		return;
	memz_inspect_release(&lp->ins, lp->a);
	memz_free(lp->a, plp);
}

static const struct memz_proc *find(const struct memz_table_view *v, int pid,
				    unsigned long long start)
{
	for (size_t i = 0; i < v->n_procs; i++)
		if (v->procs[i]->pid == pid && v->procs[i]->start == start)
			return v->procs[i];
	return NULL;
}

/* The process a verdict is about: its own, or a group's largest member. */
static const struct memz_proc *target(const struct memz_table_view *v,
				      const struct memz_event *e)
{
	const struct memz_proc *best = NULL;

	if (e->pid)
		return find(v, e->pid, e->start);
	for (size_t i = 0; i < v->n_procs; i++) {
		const struct memz_proc *p = v->procs[i];

		if (p->group && p->group->name && e->name &&
		    !strcmp(p->group->name, e->name) &&
		    (!best || p->mem.pss > best->mem.pss))
			best = p;
	}
	return best;
}

/* smaps of p summed by category; false if it could not be read or is no
 * longer p (a reused pid). */
static bool read_cats(struct memz_leakparts *lp, const struct memz_proc *p,
		      struct memz_smapscat *out)
{
	const char *what;
	double t0, cost;
	int rc;

	if ((double)p->mem.rss > lp->max_rss) {
		lp->st.too_big++;
		return false;
	}
	lp->st.reads++;
	t0 = thread_cpu();
	rc = memz_inspect_read_proc(&lp->ins, lp->proc_root, p->pid, p->start,
				    lp->a, &what);
	cost = thread_cpu() - t0;
	lp->st.spent_s += cost;
	if (lp->budget)
		memz_budget_charge(lp->budget, cost, false);
	memz_inspect_release(&lp->ins, lp->a);
	if (rc)
		return false;
	*out = lp->ins.cats;
	return true;
}

static void start(struct memz_leakparts *lp, const struct memz_table_view *v,
		  const struct memz_event *e, double now)
{
	const struct memz_proc *p = target(v, e);
	struct slot *free_slot = NULL;

	if (!p)
		return;
	for (size_t i = 0; i < MEMZ_LEAKPARTS_SLOTS; i++) {
		if (lp->slot[i].used && lp->slot[i].pid == p->pid &&
		    lp->slot[i].start == p->start)
			return; /* its process and its group: one read will do */
		if (!lp->slot[i].used && !free_slot)
			free_slot = &lp->slot[i];
	}
	if (!free_slot) {
		lp->st.busy++;
		return;
	}
	if ((double)p->mem.rss > lp->max_rss) {
		lp->st.too_big++;
		return;
	}
	free_slot->has_then = affordable(lp, p);
	if (free_slot->has_then && !read_cats(lp, p, &free_slot->then))
		return;
	free_slot->used = true;
	snprintf(free_slot->name, sizeof free_slot->name, "%s",
		 e->name ? e->name : "");
	/* a group of one is that process (table.h): named as the process,
	 * as its verdict is */
	free_slot->is_group = e->is_group && !e->pid;
	free_slot->pid = p->pid;
	free_slot->start = p->start;
	free_slot->t0 = now;
}

int memz_leakparts_cycle(struct memz_leakparts *lp,
			 const struct memz_table_view *v, double now,
			 const struct memz_leakpart **done, size_t *n_done)
{
	size_t n = 0;

	*done = lp->done;
	*n_done = 0;
	if (lp->max_rss <= 0)
		return 0;
	for (size_t i = 0; i < MEMZ_LEAKPARTS_SLOTS; i++) {
		struct slot *s = &lp->slot[i];
		struct memz_leakpart *d = &lp->done[n];
		const struct memz_proc *p;
		struct memz_smapscat now_cats;

		if (!s->used)
			continue;
		p = find(v, s->pid, s->start);
		if (!p) {
			s->used = false;
			continue;
		}
		if (!s->has_then) {
			if (affordable(lp, p)) {
				s->has_then = true;
				s->t0 = now;
				if (!read_cats(lp, p, &s->then))
					s->used = false;
			}
			continue;
		}
		if (now - s->t0 < lp->delay || !affordable(lp, p))
			continue;
		s->used = false;
		if (!read_cats(lp, p, &now_cats))
			continue;
		memcpy(d->name, s->name, sizeof d->name);
		d->is_group = s->is_group;
		d->pid = s->pid;
		d->start = s->start;
		d->over_s = now - s->t0;
		d->n = memz_smapscat_diff(&s->then, &now_cats, d->d);
		memz_smapscat_diff_format(d->d, d->n, d->text, sizeof d->text);
		n++;
	}
	for (size_t i = 0; i < v->n_events; i++)
		if (v->events[i].kind == MEMZ_EVENT_LEAK)
			start(lp, v, &v->events[i], now);
	*n_done = n;
	return 0;
}

const struct memz_leakparts_stats *
memz_leakparts_stats(const struct memz_leakparts *lp)
{
	return &lp->st;
}

static bool stands(const struct memz_leakpart_kept *e,
		   const struct memz_proc *p)
{
	if (e->is_group)
		return p->group && p->group->det.verdict.leak;
	return p->det.verdict.leak;
}

void memz_leakparts_kept_procs(const struct memz_leakparts_kept *k,
			       const struct memz_table_view *v,
			       const struct memz_proc *found[MEMZ_LEAKPARTS_KEPT])
{
	size_t used = 0;

	for (size_t i = 0; i < MEMZ_LEAKPARTS_KEPT; i++) {
		found[i] = NULL;
		used += k && k->p[i].used;
	}
	for (size_t j = 0; used && v && j < v->n_procs; j++) {
		const struct memz_proc *p = v->procs[j];

		for (size_t i = 0; i < MEMZ_LEAKPARTS_KEPT; i++)
			if (k->p[i].used && k->p[i].pid == p->pid &&
			    k->p[i].start == p->start)
				found[i] = p;
	}
}

void memz_leakparts_keep(struct memz_leakparts_kept *k,
			 const struct memz_table_view *v,
			 const struct memz_leakpart *done, size_t n_done)
{
	const struct memz_proc *found[MEMZ_LEAKPARTS_KEPT];

	memz_leakparts_kept_procs(k, v, found);
	for (size_t i = 0; i < MEMZ_LEAKPARTS_KEPT; i++)
		if (k->p[i].used && (!found[i] || !stands(&k->p[i], found[i])))
			k->p[i].used = false;
	for (size_t j = 0; j < n_done; j++) {
		const struct memz_leakpart *lp = &done[j];
		struct memz_leakpart_kept *e = NULL;

		for (size_t i = 0; !e && i < MEMZ_LEAKPARTS_KEPT; i++)
			if (k->p[i].used && k->p[i].pid == lp->pid &&
			    k->p[i].start == lp->start)
				e = &k->p[i];
		for (size_t i = 0; !e && i < MEMZ_LEAKPARTS_KEPT; i++)
			if (!k->p[i].used)
				e = &k->p[i];
		if (!e) {
			e = &k->p[k->next];
			k->next = (k->next + 1) % MEMZ_LEAKPARTS_KEPT;
		}
		e->used = true;
		e->is_group = lp->is_group;
		e->pid = lp->pid;
		e->start = lp->start;
		snprintf(e->text, sizeof e->text, "%s", lp->text);
	}
}

const char *memz_leakparts_kept_group(const struct memz_leakparts_kept *k,
				      const struct memz_proc *const *found,
				      const struct memz_group *g)
{
	const char *member = NULL;

	for (size_t i = 0; k && i < MEMZ_LEAKPARTS_KEPT; i++) {
		if (!found[i] || found[i]->group != g)
			continue;
		if (k->p[i].is_group)
			return k->p[i].text;
		if (!member)
			member = k->p[i].text;
	}
	return member;
}

const char *memz_leakparts_kept_proc(const struct memz_leakparts_kept *k,
				     const struct memz_proc *const *found,
				     const struct memz_proc *p)
{
	for (size_t i = 0; k && i < MEMZ_LEAKPARTS_KEPT; i++)
		if (found[i] == p)
			return k->p[i].text;
	return NULL;
}
