#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memz/intern.h"
#include "memz/table.h"
#include "memz/users.h"
#include "table_int.h"

struct memz_table {
	struct memz_settings s;
	const struct memz_allocator *a;
	struct memz_intern names;
	double now;

	/* live processes: hashed by pid and listed; retired ones wait in the
	 * grave until the next begin (the last snapshot still points at them),
	 * then are recycled through the free list */
	struct memz_proc **pbucket;
	size_t pcap, n_live;
	struct memz_proc *live, *grave, *free_procs;
	/* entries are carved from slabs of SLAB entries, newest first (one
	 * malloc header per slab, not per entry; a slab's entries are not
	 * touched before they are handed out) */
	struct mz_slab *slabs;
	unsigned slab_used; /* entries handed out of the newest slab */

	struct memz_group **gbucket;
	size_t gcap, n_groups;
	struct memz_group *glive, *ggrave, *gfree;

	regex_t re[MEMZ_LIST_MAX];
	unsigned n_re;
	regex_t ignore[MEMZ_LIST_MAX + 1]; /* LeakIgnore, then memz's own */
	unsigned n_ignore;

	void (*on_retire)(struct memz_proc *p, void *ctx);
	void *retire_ctx;

	struct memz_proc **procs;
	size_t cap_procs;
	struct memz_group **groups;
	size_t cap_groups, n_view_groups;
	struct memz_event *events;
	size_t n_events, cap_events;
	struct memz_proc **gone; /* retired this cycle, for the OOM kill's victim */
	size_t n_gone, cap_gone;
	struct memz_users users; /* GroupBy user and the per-user totals */
	struct memz_user_totals utot;
};

#define SLAB 32

struct mz_slab {
	struct mz_slab *next;
	struct mz_proc_entry e[SLAB];
};

/* A never used entry, from the newest slab or a new one; NULL on ENOMEM. */
static struct memz_proc *carve(struct memz_table *t)
{
	if (!t->slabs || t->slab_used == SLAB) {
		struct mz_slab *sl = memz_realloc(t->a, NULL, sizeof *sl);

		if (!sl)
			return NULL;
		sl->next = t->slabs;
		t->slabs = sl;
		t->slab_used = 0;
	}
	return &t->slabs->e[t->slab_used++].pub;
}

static size_t pid_slot(const struct memz_table *t, int pid)
{
	return ((unsigned)pid * 2654435761u) & (t->pcap - 1);
}

int memz_table_new(struct memz_table **out, const struct memz_settings *s,
		   const struct memz_allocator *a)
{
	struct memz_table *t = memz_realloc(a, NULL, sizeof *t);

	*out = NULL;
	if (!t)
		return -ENOMEM;
	memset(t, 0, sizeof *t);
	t->s = *s;
	t->a = a;
	memz_intern_init(&t->names, a);
	for (unsigned i = 0; i < s->process_match.n; i++) {
		if (memz_regex_compile(&t->re[i], "ProcessMatch",
				       s->process_match.item[i], NULL, 0)) {
			t->n_re = i;
			memz_table_free(&t);
			return -EINVAL;
		}
		t->n_re = i + 1;
	}
	for (unsigned i = 0; i <= s->leak_ignore.n; i++) {
		/* memz's own processes last: its tables filling up are not a
		 * leak, and an operator could not act on one anyway */
		const char *pat = i < s->leak_ignore.n ? s->leak_ignore.item[i]
						       : "^memz(\\.plugin)?$";

		if (memz_regex_compile(&t->ignore[i], "LeakIgnore", pat, NULL,
				       0)) {
			memz_table_free(&t);
			return -EINVAL;
		}
		t->n_ignore = i + 1;
	}
	*out = t;
	return 0;
}

static void free_slabs(struct memz_table *t)
{
	struct mz_slab *next;

	for (struct mz_slab *sl = t->slabs; sl; sl = next) {
		next = sl->next;
		memz_realloc(t->a, sl, 0);
	}
	t->slabs = NULL;
}

static void free_group_list(struct memz_table *t, struct memz_group *g)
{
	struct memz_group *next;

	for (; g; g = next) {
		next = mz_ge(g)->lnext;
		memz_realloc(t->a, g, 0);
	}
}

void memz_table_free(struct memz_table **tp)
{
	struct memz_table *t = *tp;

	if (!t)
		return;
	if (t->on_retire)
		for (struct memz_proc *p = t->live; p; p = mz_pe(p)->lnext)
			t->on_retire(p, t->retire_ctx);
	free_slabs(t);
	free_group_list(t, t->glive);
	free_group_list(t, t->ggrave);
	free_group_list(t, t->gfree);
	for (unsigned i = 0; i < t->n_re; i++)
		regfree(&t->re[i]);
	for (unsigned i = 0; i < t->n_ignore; i++)
		regfree(&t->ignore[i]);
	memz_intern_release(&t->names);
	memz_free(t->a, &t->pbucket);
	memz_free(t->a, &t->gbucket);
	memz_free(t->a, &t->procs);
	memz_free(t->a, &t->groups);
	memz_free(t->a, &t->events);
	memz_free(t->a, &t->gone);
	memz_users_free(&t->users, t->a);
	memz_user_totals_free(&t->utot, t->a);
	memz_realloc(t->a, t, 0);
	*tp = NULL;
}

void memz_table_on_retire(struct memz_table *t,
			  void (*fn)(struct memz_proc *p, void *ctx), void *ctx)
{
	t->on_retire = fn;
	t->retire_ctx = ctx;
}

static void add_event(struct memz_table *t, enum memz_event_kind kind,
		      bool is_group, int pid, unsigned long long start,
		      const char *name, const struct memz_verdict *v)
{
	struct memz_event *e;

	/* Out of memory loses the event, not the cycle: the verdict itself
	 * still stands in the entry. */
	if (memz_grow(t->a, &t->events, &t->cap_events, t->n_events + 1,
		      sizeof *t->events))
		return;
	e = &t->events[t->n_events++];
	e->kind = kind;
	e->is_group = is_group;
	e->pid = pid;
	e->start = start;
	e->name = name;
	e->t = t->now;
	e->verdict = *v;
	e->alarm_level = 0;
}

static void unlink_hash(struct memz_table *t, struct memz_proc *p)
{
	struct memz_proc **pp = &t->pbucket[pid_slot(t, p->pid)];

	for (; *pp; pp = &mz_pe(*pp)->hnext)
		if (*pp == p) {
			*pp = mz_pe(p)->hnext;
			return;
		}
}

/* Leaving: its PSS stops counting for the group it was in, and a flagged
 * verdict clears (an exit while flagged is a clear). The entry itself waits
 * in the grave until the next cycle. */
static void retire(struct memz_table *t, struct memz_proc *p)
{
	if (mz_pe(p)->prev_group) {
		mz_ge(mz_pe(p)->prev_group)->join_delta -= mz_pe(p)->prev_pss;
		mz_ge(mz_pe(p)->prev_group)->join_anon -= mz_pe(p)->prev_anon;
	}
	mz_pe(p)->prev_group = NULL;
	if (mz_pe(p)->announced) {
		struct memz_verdict v = p->det.verdict;
		v.leak = false;
		add_event(t, MEMZ_EVENT_CLEAR, false, p->pid, p->start, p->name,
			  &v);
		mz_pe(p)->announced = false;
	}
	if (t->on_retire)
		t->on_retire(p, t->retire_ctx);
	/* a process that left is what an OOM kill took, if one rose; losing
	 * it to -ENOMEM only makes that kill "unknown" */
	if (!p->kernel_thread &&
	    !memz_grow(t->a, &t->gone, &t->cap_gone, t->n_gone + 1,
		       sizeof *t->gone))
		t->gone[t->n_gone++] = p;
	unlink_hash(t, p);
	t->n_live--;
	mz_pe(p)->lnext = t->grave;
	t->grave = p;
}

static void bury_names(struct memz_table *t, struct memz_proc *p)
{
	memz_intern_put(&t->names, p->name);
	memz_intern_put(&t->names, p->exe);
	memz_intern_put(&t->names, p->cgroup);
	memz_intern_put(&t->names, p->memcg);
	p->name = p->exe = p->cgroup = p->memcg = NULL;
}

void memz_table_begin(struct memz_table *t, double now)
{
	struct memz_proc *p, *next;
	struct memz_group *g, *gnext;

	t->now = now;
	t->n_events = 0;
	t->n_gone = 0;
	for (p = t->grave; p; p = next) {
		next = mz_pe(p)->lnext;
		bury_names(t, p);
		mz_pe(p)->lnext = t->free_procs;
		t->free_procs = p;
	}
	t->grave = NULL;
	for (g = t->ggrave; g; g = gnext) {
		gnext = mz_ge(g)->lnext;
		memz_intern_put(&t->names, g->name);
		g->name = NULL;
		mz_ge(g)->lnext = t->gfree;
		t->gfree = g;
	}
	t->ggrave = NULL;
	for (p = t->live; p; p = mz_pe(p)->lnext) {
		mz_pe(p)->seen = false;
		p->has_sample = false;
		p->denied = false;
	}
	for (g = t->glive; g; g = mz_ge(g)->lnext)
		mz_ge(g)->join_delta = mz_ge(g)->join_anon = 0;
}

struct memz_proc *memz_table_find(struct memz_table *t, int pid)
{
	struct memz_proc *p;

	if (!t->pcap)
		return NULL;
	for (p = t->pbucket[pid_slot(t, pid)]; p; p = mz_pe(p)->hnext)
		if (p->pid == pid)
			return p;
	return NULL;
}

static int grow_pids(struct memz_table *t)
{
	size_t n = t->pcap ? t->pcap * 2 : 256;
	struct memz_proc **b = memz_realloc(t->a, NULL, n * sizeof *b);
	size_t old = t->pcap;

	if (!b)
		return -ENOMEM;
	memset(b, 0, n * sizeof *b);
	t->pcap = n;
	for (size_t i = 0; i < old; i++) {
		struct memz_proc *p = t->pbucket[i], *next;
		for (; p; p = next) {
			next = mz_pe(p)->hnext;
			mz_pe(p)->hnext = b[pid_slot(t, p->pid)];
			b[pid_slot(t, p->pid)] = p;
		}
	}
	memz_free(t->a, &t->pbucket);
	t->pbucket = b;
	return 0;
}

struct memz_proc *memz_table_get(struct memz_table *t, int pid,
				 unsigned long long start, bool *is_new)
{
	struct memz_proc *p = memz_table_find(t, pid);

	*is_new = false;
	if (p && p->start == start) {
		mz_pe(p)->seen = true;
		return p;
	}
	if (p) { /* the pid was reused: the old process is gone */
		struct memz_proc **pp = &t->live;

		/* rare enough that a walk of the list is fine */
		while (*pp != p)
			pp = &mz_pe(*pp)->lnext;
		*pp = mz_pe(p)->lnext;
		retire(t, p);
	}
	if (t->n_live + 1 > t->pcap && grow_pids(t))
		return NULL;
	p = t->free_procs;
	if (p)
		t->free_procs = mz_pe(p)->lnext;
	else if (!(p = carve(t)))
		return NULL;
	memset(p, 0, sizeof(struct mz_proc_entry));
	p->pid = pid;
	p->start = start;
	mz_pe(p)->seen = true;
	mz_pe(p)->first_seen = t->now;
	mz_pe(p)->exec_t = -INFINITY;
	p->born = -INFINITY;
	mz_pe(p)->statm_fd = mz_pe(p)->rollup_fd = -1;
	memz_detector_init(&p->det);
	mz_pe(p)->hnext = t->pbucket[pid_slot(t, pid)];
	t->pbucket[pid_slot(t, pid)] = p;
	mz_pe(p)->lnext = t->live;
	t->live = p;
	t->n_live++;
	*is_new = true;
	return p;
}

static bool ignored(const struct memz_table *t, const char *name);

static int set_interned(struct memz_table *t, const char **field,
			const char *s, size_t len)
{
	const char *n;

	if (*field && memz_intern_len(*field) == len && !memcmp(*field, s, len))
		return 0;
	n = memz_intern_get(&t->names, s, len);
	if (!n)
		return -ENOMEM;
	memz_intern_put(&t->names, *field);
	*field = n;
	return 0;
}

int memz_table_set_name(struct memz_table *t, struct memz_proc *p,
			const char *name, size_t len)
{
	const char *was = p->name;
	int rc = set_interned(t, &p->name, name, len);

	/* a name is matched when it changes (exec), not every cycle; a
	 * new program starts up anew */
	if (!rc && p->name != was) {
		mz_pe(p)->ignored = ignored(t, p->name);
		if (was) {
			mz_pe(p)->exec_t = t->now;
			mz_pe(p)->settled = false;
			mz_pe(p)->settle_t = 0;
			mz_pe(p)->floor_t = 0;
		}
	}
	return rc;
}

int memz_table_set_exe(struct memz_table *t, struct memz_proc *p,
		       const char *exe)
{
	return set_interned(t, &p->exe, exe, strlen(exe));
}

int memz_table_set_cgroup(struct memz_table *t, struct memz_proc *p,
			  const char *cgroup)
{
	return set_interned(t, &p->cgroup, cgroup, strlen(cgroup));
}

int memz_table_set_memcg(struct memz_table *t, struct memz_proc *p,
			 const char *memcg)
{
	return set_interned(t, &p->memcg, memcg, strlen(memcg));
}

struct memz_proc *memz_table_first(struct memz_table *t)
{
	return t->live;
}

struct memz_proc *memz_table_next(struct memz_proc *p)
{
	return mz_pe(p)->lnext;
}

/* ---- groups ---- */

static int grow_groups(struct memz_table *t)
{
	size_t n = t->gcap ? t->gcap * 2 : 64, old = t->gcap;
	struct memz_group **b = memz_realloc(t->a, NULL, n * sizeof *b);

	if (!b)
		return -ENOMEM;
	memset(b, 0, n * sizeof *b);
	for (size_t i = 0; i < old; i++) {
		struct memz_group *g = t->gbucket[i], *next;
		for (; g; g = next) {
			next = mz_ge(g)->hnext;
			mz_ge(g)->hnext = b[mz_ge(g)->hash & (n - 1)];
			b[mz_ge(g)->hash & (n - 1)] = g;
		}
	}
	memz_free(t->a, &t->gbucket);
	t->gbucket = b;
	t->gcap = n;
	return 0;
}

static struct memz_group *group_get(struct memz_table *t, const char *key,
				    size_t len)
{
	uint32_t h = memz_hash_bytes(key, len);
	struct memz_group *g;

	if (t->gcap)
		for (g = t->gbucket[h & (t->gcap - 1)]; g; g = mz_ge(g)->hnext)
			if (mz_ge(g)->hash == h && memz_intern_len(g->name) == len &&
			    !memcmp(g->name, key, len))
				return g;
	if (t->n_groups + 1 > t->gcap && grow_groups(t))
		return NULL;
	g = t->gfree;
	if (g)
		t->gfree = mz_ge(g)->lnext;
	else if (!(g = memz_realloc(t->a, NULL, sizeof(struct mz_group_entry))))
		return NULL;
	memset(g, 0, sizeof(struct mz_group_entry));
	g->name = memz_intern_get(&t->names, key, len);
	if (!g->name) {
		mz_ge(g)->lnext = t->gfree;
		t->gfree = g;
		return NULL;
	}
	mz_ge(g)->hash = h;
	mz_ge(g)->fresh = true;
	mz_ge(g)->since = INFINITY;
	mz_ge(g)->ignored = ignored(t, g->name);
	memz_alarm_init(&g->alarm);
	memz_detector_init(&g->det);
	mz_ge(g)->hnext = t->gbucket[h & (t->gcap - 1)];
	t->gbucket[h & (t->gcap - 1)] = g;
	mz_ge(g)->lnext = t->glive;
	t->glive = g;
	t->n_groups++;
	return g;
}

static void group_retire(struct memz_table *t, struct memz_group *g)
{
	struct memz_group **pp = &t->gbucket[mz_ge(g)->hash & (t->gcap - 1)];

	/* a host that raised the group's alarm hears that it ended */
	if (g->det.verdict.leak || g->alarm.level) {
		struct memz_verdict v = g->det.verdict;
		size_t n = t->n_events;

		v.leak = false;
		add_event(t, MEMZ_EVENT_CLEAR, true, mz_ge(g)->solo_pid, mz_ge(g)->solo_start,
			  g->name, &v);
		if (t->n_events > n)
			t->events[n].alarm_level = g->alarm.level;
	}
	for (; *pp; pp = &mz_ge(*pp)->hnext)
		if (*pp == g) {
			*pp = mz_ge(g)->hnext;
			break;
		}
	t->n_groups--;
	mz_ge(g)->lnext = t->ggrave;
	t->ggrave = g;
}

static const char *group_key(const struct memz_table *t,
			     const struct memz_proc *p, char *buf, size_t len,
			     size_t *klen)
{
	const char *k = p->name;

	switch (t->s.group_by) {
	case MEMZ_GROUP_EXE:
		if (p->exe)
			k = p->exe;
		break;
	case MEMZ_GROUP_CGROUP:
		/* never the comm, which a process sets itself and could make
		 * "/system.slice": one whose cgroup is unknown groups apart,
		 * under a key that is no cgroup path (cgroup.h) */
		if (!p->cgroup) {
			*klen = sizeof MEMZ_TABLE_NO_CGROUP - 1;
			return MEMZ_TABLE_NO_CGROUP;
		}
		k = p->cgroup;
		break;
	case MEMZ_GROUP_USER:
		k = memz_users_name(&t->users, p->uid);
		if (k) {
			*klen = strlen(k);
			return k;
		}
		*klen = (size_t)snprintf(buf, len, "%u", (unsigned)p->uid);
		return buf;
	default:
		break;
	}
	*klen = k ? memz_intern_len(k) : 0;
	return k ? k : "";
}

static bool selected(const struct memz_table *t, const char *name)
{
	for (unsigned i = 0; i < t->s.process.n; i++)
		if (!strcmp(t->s.process.item[i], name))
			return true;
	for (unsigned i = 0; i < t->n_re; i++)
		if (!regexec(&t->re[i], name, 0, NULL, 0))
			return true;
	return false;
}

/*
 * Whether g is reported (table.h), given whether it is among the TopGroups
 * largest now: a group selected by Process or ProcessMatch at once; one
 * among the largest once it has existed for PublishAfter (as old as its
 * oldest member was when it came to be, so a daemon found running
 * publishes at once and a compiler never); and it stays for PublishHold
 * after it was last among the largest. Every host publishes from this, and
 * a host keeps a file or a dimension for ever for each name it was once
 * given: a name that was large for a few seconds is not worth one. Age,
 * not an unbroken stay among the largest, since compilers taking the
 * places now and then would keep a daemon at the edge out for good. A
 * suspect is published at once (report.h) and, once its verdict clears
 * (this runs before the push that clears it), held as one that left the
 * largest: a host that dropped it at the clear would keep the suspect's
 * values as its last, and netdata's alarm on its chart would never clear
 * (on a busy host, where a small leaker is not among the largest).
 */
static bool publish(const struct memz_table *t, struct memz_group *g, bool top)
{
	struct mz_group_entry *e = mz_ge(g);

	if (selected(t, g->name))
		return true;
	if (g->det.verdict.leak ||
	    (top && !(t->now - e->since < t->s.publish_after))) {
		e->top_last = t->now;
		return true;
	}
	return e->listed && t->now - e->top_last < t->s.publish_hold;
}

/* Hosts publish at most MEMZ_TABLE_MAX_PUBLISHED groups, suspects first,
 * the reported ones in order sharing what is left (report.h): a group
 * past that is not reported, so that nothing is read for it (its cgroup's
 * files, every CgroupRefresh). Its hold stays (listed), as if it were. */
static void cap_reported(struct memz_table *t, size_t n)
{
	size_t left = MEMZ_TABLE_MAX_PUBLISHED;

	for (size_t i = 0; i < n && left; i++)
		left -= t->groups[i]->det.verdict.leak;
	for (size_t i = 0; i < n; i++) {
		struct memz_group *g = t->groups[i];

		if (g->det.verdict.leak || !g->reported)
			continue;
		if (left)
			left--;
		else
			g->reported = false;
	}
}

static int by_pss_desc(const void *a, const void *b)
{
	const struct memz_group *x = *(struct memz_group *const *)a;
	const struct memz_group *y = *(struct memz_group *const *)b;

	if (x->pss != y->pss)
		return x->pss < y->pss ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * The detector's owned figure: the memory the process alone holds, so that
 * its growth is the process's own doing. Anonymous memory, and the shared
 * memory (memfd, tmpfs, SysV) only it maps: a shmem page mapped by k
 * processes adds 1/k to Pss_Shmem and 1 to Rss, so Pss_Shmem less what
 * all its pages lack of being exclusive (Rss - Pss) bounds its exclusive
 * shmem from below. A memfd it fills grows the bound as fast as its PSS;
 * a database backend touching more of the shared buffers others map too
 * grows Rss faster than Pss, and the bound not at all; a file read
 * through is not shmem. Nor is what a process touches of a mapping it
 * had from the start: a backend's share of the shared buffers it forked
 * with is often all its own (Rss = Pss, no other process touched those
 * pages), yet bounded by a mapping that does not grow; a memfd leak maps
 * more every time. So the shared memory counted is at most what the
 * address space grew since memz first saw it (vm_first; 0: not known,
 * and then no cap). Every process with an address space has an
 * anonymous stack, so an Anonymous of 0 is a figure nobody read (a
 * trace's empty field), and then PSS alone decides (NaN).
 */
static double owned(const struct memz_proc *p)
{
	double excl;

	if (!p->mem.anonymous)
		return NAN;
	/* an estimated PSS may be high by pss_error, which the bound takes
	 * off; one that is the resident size itself (no sharing seen, as
	 * before a big process's first pagemap walk) says nothing of what
	 * is shared, and gives no credit */
	if (p->mem.pss >= p->mem.rss)
		return (double)p->mem.anonymous;
	excl = (double)p->mem.pss_shmem -
	       ((double)p->mem.rss - (double)p->mem.pss) - (double)p->pss_error;
	if (p->vm_size && mz_pe(p)->vm_first) {
		double grew = (double)p->vm_size - (double)mz_pe(p)->vm_first;

		if (excl > grew)
			excl = grew;
	}
	return (double)p->mem.anonymous + (excl > 0 ? excl : 0);
}

/* The owned figure as a sum's term: 0 when not known. */
static double owned0(const struct memz_proc *p)
{
	double o = owned(p);

	return isnan(o) ? 0 : o;
}

/* A group's owned figure: its members' summed (0: none known). */
static double group_owned(const struct memz_group *g)
{
	return mz_ge(g)->owned > 0 ? mz_ge(g)->owned : NAN;
}

/* When p's program started: its birth, or its last exec. */
static double start_of(const struct memz_proc *p)
{
	return p->born > mz_pe(p)->exec_t ? p->born : mz_pe(p)->exec_t;
}

/*
 * Whether p is not judged yet (table.h, warming): growth since its program
 * started (an exec starts it anew) is start-up, until what it owns has
 * held within SETTLE_ABS (or SETTLE_REL of itself) for LeakSettle, or its
 * floor has (floor_held), or it is LeakWarmup old. What it owns, not its
 * PSS, which moves as other processes map and unmap the libraries it
 * shares. An age not known reads as old, as for a process found already
 * running. (A process that sat idle and then works, xz waiting on a pipe,
 * is judged like one that sat idle and then leaks: its verdict clears when
 * its growth stops.)
 */
#define SETTLE_ABS (64.0 * 1024)
#define SETTLE_REL 0.01
static double settle_tol(double o)
{
	return SETTLE_REL * o > SETTLE_ABS ? SETTLE_REL * o : SETTLE_ABS;
}

/*
 * Whether the least p owned in each of the last MZ_FLOOR_WINDOWS windows
 * of LeakSettle, the last just closed, held within the tolerance of one
 * another. A batch job's spikes every half minute never let what it owns
 * hold still for a minute, yet it returns to the same floor between them,
 * and a leak that starts under them later (the busy hosts' spiky leakers,
 * 4 minutes after start) was judged only at LeakWarmup. A compiler's floor
 * climbs with it, a browser's creeps up as it warms (a tolerance a window,
 * but not for three), and no process shorter-lived than three windows is
 * judged by it.
 */
static bool floor_held(const struct memz_table *t, struct mz_proc_entry *e,
		       double o)
{
	bool held = false;

	if (e->floor_t && t->now - e->floor_t < t->s.leak_settle) {
		if (o < e->floor[0])
			e->floor[0] = (float)o;
		return false;
	}
	if (!e->floor_t)
		e->floor_n = 0;
	else if (e->floor_n < MZ_FLOOR_WINDOWS)
		e->floor_n++;
	if (e->floor_n == MZ_FLOOR_WINDOWS) {
		double lo = e->floor[0], hi = e->floor[0];

		for (unsigned i = 1; i < MZ_FLOOR_WINDOWS; i++) {
			lo = fmin(lo, e->floor[i]);
			hi = fmax(hi, e->floor[i]);
		}
		held = hi - lo <= settle_tol(lo);
	}
	memmove(e->floor + 1, e->floor,
		(MZ_FLOOR_WINDOWS - 1) * sizeof *e->floor);
	e->floor[0] = (float)o;
	e->floor_t = t->now;
	return held;
}

static bool warming(const struct memz_table *t, struct memz_proc *p)
{
	struct mz_proc_entry *e = mz_pe(p);
	double o = owned(p), start = start_of(p);

	if (e->ignored)
		return true;
	if (e->settled || !(t->now - start < t->s.leak_warmup))
		return false;
	if (isnan(o))
		o = (double)p->mem.pss;
	if (floor_held(t, e, o)) {
		e->settled = true;
		return false;
	}
	if (!e->settle_t || fabs(o - e->settle_ref) > settle_tol(o)) {
		e->settle_ref = (float)o;
		e->settle_t = t->now;
	} else if (t->now - e->settle_t >= t->s.leak_settle) {
		e->settled = true;
		return false;
	}
	return true;
}

static bool ignored(const struct memz_table *t, const char *name)
{
	for (unsigned i = 0; name && i < t->n_ignore; i++)
		if (!regexec(&t->ignore[i], name, 0, NULL, 0))
			return true;
	return false;
}

/*
 * A group founded by one warming process alone (a daemon, a service, a
 * leaker under its own name) is that process's series: the founder's
 * start-up growth is not rebased away as a joining member's is (that left
 * the group flat until the founder was judged, then judged from there: a
 * leak under spikes that never let its process settle was never found in
 * its group, as it was in the process), but withheld with the group's
 * verdict until the founder settles, when the long horizon restarts as
 * the process's does. Others may join meanwhile; they count as joiners.
 * Should the founder leave first, its start-up growth stays in the
 * group's history with nothing to tell it from a leak, so the history
 * goes with it. A group founded by several processes at once (memz's
 * first cycle under GroupBy user) rebases their start-up as before.
 */
static void founder_series(struct memz_group *g)
{
	struct mz_group_entry *e = mz_ge(g);

	if (!e->founder_mode)
		return;
	if (e->fresh && g->members != 1) {
		e->founder_mode = false;
	} else if (e->founder_settled) {
		e->founder_mode = false;
		memz_detector_restart_long(&g->det);
	} else if (!e->fresh && !e->founder_seen) {
		e->founder_mode = false;
		memz_detector_init(&g->det);
	}
}

static int sum_groups(struct memz_table *t, struct memz_table_view *v)
{
	struct memz_group *g, *next;
	size_t n = 0;

	for (g = t->glive; g; g = mz_ge(g)->lnext) {
		/* an emptied group keeps last cycle's solo member for its
		 * clear event */
		if (g->members != 1)
			mz_ge(g)->solo_pid = 0, mz_ge(g)->solo_start = 0;
		g->members = 0;
		g->threads = 0;
		g->pss = g->uss = g->rss = g->swap = g->anon = 0;
		mz_ge(g)->owned = 0;
		mz_ge(g)->founder_seen = mz_ge(g)->founder_settled = false;
	}
	for (size_t i = 0; i < v->n_procs; i++) {
		struct memz_proc *p = t->procs[i];
		char buf[16];
		size_t klen;
		const char *key = group_key(t, p, buf, sizeof buf, &klen);

		g = group_get(t, key, klen);
		if (!g)
			return -ENOMEM;
		p->group = g;
		g->members++;
		mz_ge(g)->solo_pid = g->members == 1 ? p->pid : 0;
		mz_ge(g)->solo_start = g->members == 1 ? p->start : 0;
		g->threads += p->threads;
		g->pss += p->mem.pss;
		g->uss += memz_rollup_uss(&p->mem);
		g->rss += p->mem.rss;
		g->swap += p->mem.swap;
		g->anon += p->mem.pss_anon;
		mz_ge(g)->owned += owned0(p);
		if (mz_ge(g)->fresh && start_of(p) < mz_ge(g)->since)
			mz_ge(g)->since = start_of(p);
		if (mz_pe(p)->prev_group != g) {
			/* joined (or moved here): its PSS is not growth, nor,
			 * for a while, is its start-up growth, unless it
			 * founded the group (then the group is its series) */
			mz_ge(g)->join_delta += (double)p->mem.pss;
			mz_ge(g)->join_anon += owned0(p);
			if (mz_pe(p)->prev_group) {
				mz_ge(mz_pe(p)->prev_group)->join_delta -= mz_pe(p)->prev_pss;
				mz_ge(mz_pe(p)->prev_group)->join_anon -= mz_pe(p)->prev_anon;
			}
			mz_pe(p)->joined_t = mz_ge(g)->fresh ? -1 : t->now;
			/* one that founds a group while warming makes the
			 * group's series its own, should it be alone in it */
			mz_pe(p)->founds = mz_ge(g)->fresh && p->warming;
			if (mz_pe(p)->founds)
				mz_ge(g)->founder_mode = true;
		} else if (mz_pe(p)->founds && mz_ge(g)->founder_mode) {
			/* its growth is the group's, judged as its own is */
			mz_ge(g)->founder_seen = true;
			if (!p->warming) {
				mz_pe(p)->founds = false;
				mz_ge(g)->founder_settled = true;
			}
		} else if (p->warming ||
			   (mz_pe(p)->joined_t >= 0 &&
			    t->now - mz_pe(p)->joined_t < t->s.leak_join_settle)) {
			/* nor is the growth of a member not judged yet (a
			 * compiler in a group of compilers) */
			mz_ge(g)->join_delta += (double)p->mem.pss - mz_pe(p)->prev_pss;
			mz_ge(g)->join_anon += owned0(p) - mz_pe(p)->prev_anon;
		}
	}
	/* live but unsampled this cycle: they left their group */
	for (struct memz_proc *p = t->live; p; p = mz_pe(p)->lnext)
		if (!p->has_sample && mz_pe(p)->prev_group) {
			mz_ge(mz_pe(p)->prev_group)->join_delta -= mz_pe(p)->prev_pss;
			mz_ge(mz_pe(p)->prev_group)->join_anon -= mz_pe(p)->prev_anon;
		}

	for (g = t->glive; g; g = next) {
		next = mz_ge(g)->lnext;
		if (!g->members)
			continue;
		if (memz_grow(t->a, &t->groups, &t->cap_groups, n + 1,
			      sizeof *t->groups))
			return -ENOMEM;
		t->groups[n++] = g;
	}
	/* unlink empty groups from the live list */
	for (struct memz_group **pp = &t->glive; *pp;) {
		g = *pp;
		if (g->members) {
			pp = &mz_ge(g)->lnext;
			continue;
		}
		*pp = mz_ge(g)->lnext;
		group_retire(t, g);
	}
	/* a cycle without a process has no array yet: qsort wants one */
	if (n > 1)
		qsort(t->groups, n, sizeof *t->groups, by_pss_desc);
	for (size_t i = 0; i < n; i++) {
		g = t->groups[i];
		g->reported = mz_ge(g)->listed =
			publish(t, g, i < (size_t)t->s.top_groups);
		founder_series(g);
		memz_detector_rebase(&g->det, mz_ge(g)->join_delta);
		memz_detector_rebase_anon(&g->det, mz_ge(g)->join_anon);
		if (memz_detector_push(&g->det, &t->s, t->now, (double)g->pss,
				       group_owned(g)) > 0 &&
		    !((mz_ge(g)->ignored || mz_ge(g)->founder_mode) &&
		      memz_detector_withhold(&g->det)))
			add_event(t, g->det.verdict.leak ? MEMZ_EVENT_LEAK
							 : MEMZ_EVENT_CLEAR,
				  true, mz_ge(g)->solo_pid, mz_ge(g)->solo_start, g->name,
				  &g->det.verdict);
		if (g->det.verdict.leak)
			v->leak_suspects++;
	}
	cap_reported(t, n);
	for (g = t->glive; g; g = mz_ge(g)->lnext)
		mz_ge(g)->fresh = false;
	v->groups = (const struct memz_group *const *)t->groups;
	v->n_groups = t->n_view_groups = n;
	return 0;
}

/* Siblings are mostly listed one after another and share their ancestry,
 * so the last lookup of each of the first levels up is remembered: the
 * table does not change meanwhile. */
#define ANCESTRY_CACHE 4

static void subtree_totals(struct memz_table *t, struct memz_table_view *v)
{
	int cpid[ANCESTRY_CACHE] = { 0 };
	struct memz_proc *cp[ANCESTRY_CACHE] = { NULL };

	for (size_t i = 0; i < v->n_procs; i++) {
		t->procs[i]->subtree_pss = t->procs[i]->mem.pss;
		t->procs[i]->descendants = 0;
	}
	for (size_t i = 0; i < v->n_procs; i++) {
		struct memz_proc *p = t->procs[i], *a = p;
		/* bounded: a pid tree is never deeper than the table */
		for (size_t depth = 0; depth < v->n_procs; depth++) {
			int ppid = a->ppid;

			if (ppid <= 0 || ppid == a->pid)
				break;
			if (depth < ANCESTRY_CACHE && cpid[depth] == ppid) {
				a = cp[depth];
			} else {
				a = memz_table_find(t, ppid);
				if (depth < ANCESTRY_CACHE) {
					cpid[depth] = ppid;
					cp[depth] = a;
				}
			}
			if (!a || !a->has_sample)
				break;
			a->subtree_pss += p->mem.pss;
			a->descendants++;
		}
	}
}

/* A process's verdict becomes an event unless its group has no other
 * member: then the group's event already tells of the same series. */
static void announce(struct memz_table *t, struct memz_table_view *v)
{
	for (size_t i = 0; i < v->n_procs; i++) {
		struct memz_proc *p = t->procs[i];
		bool want = p->det.verdict.leak &&
			    (t->s.group_by == MEMZ_GROUP_NONE || !p->group ||
			     p->group->members > 1);

		if (want != mz_pe(p)->announced) {
			struct memz_verdict vd = p->det.verdict;

			vd.leak = want;
			add_event(t, want ? MEMZ_EVENT_LEAK : MEMZ_EVENT_CLEAR,
				  false, p->pid, p->start, p->name, &vd);
			mz_pe(p)->announced = want;
		}
		if (want)
			v->leak_suspects++;
	}
}

/* Every process's figures by uid, beside whatever the groups are. */
static int sum_users(struct memz_table *t, struct memz_table_view *v)
{
	memz_user_totals_begin(&t->utot);
	for (size_t i = 0; i < v->n_procs; i++) {
		const struct memz_proc *p = t->procs[i];
		const struct memz_user_sample us = {
			.uid = p->uid, .threads = p->threads,
			.pss = p->mem.pss, .uss = memz_rollup_uss(&p->mem),
			.rss = p->mem.rss, .swap = p->mem.swap,
			.anon = p->mem.pss_anon, .start = start_of(p),
		};

		if (memz_user_totals_add(&t->utot, &us, t->a))
			return -ENOMEM;
	}
	if (memz_user_totals_end(&t->utot, &t->users, t->now, t->s.top_users,
				 t->s.publish_after, t->s.publish_hold, t->a))
		return -ENOMEM;
	v->users = (const struct memz_user_total *const *)t->utot.order;
	v->n_users = t->utot.n;
	return 0;
}

int memz_table_end(struct memz_table *t, struct memz_table_view *v)
{
	struct memz_proc **pp, *p;
	size_t n = 0;
	int rc = 0;

	v->t = t->now;
	v->vanished = 0;
	v->leak_suspects = 0;
	for (pp = &t->live; *pp;) {
		p = *pp;
		if (mz_pe(p)->seen) {
			pp = &mz_pe(p)->lnext;
			continue;
		}
		*pp = mz_pe(p)->lnext;
		retire(t, p);
		v->vanished++;
	}
	if (memz_grow(t->a, &t->procs, &t->cap_procs, t->n_live + 1,
		      sizeof *t->procs))
		return -ENOMEM;
	for (p = t->live; p; p = mz_pe(p)->lnext)
		if (p->has_sample && !p->kernel_thread)
			t->procs[n++] = p;
	v->procs = (const struct memz_proc *const *)t->procs;
	v->n_procs = n;

	subtree_totals(t, v);
	for (size_t i = 0; i < n; i++) {
		p = t->procs[i];
		if (p->mem.rss > p->rss_max_seen)
			p->rss_max_seen = p->mem.rss;
		bool was = p->warming;

		if (!mz_pe(p)->vm_first)
			mz_pe(p)->vm_first = p->vm_size;
		p->warming = warming(t, p);
		if (was && !p->warming)
			memz_detector_restart_long(&p->det);
		/* no address space left (a zombie: an OOM victim its parent
		 * has not reaped) is no memory to judge: the verdict stands
		 * as it was until the process leaves, so that its kill is
		 * named with it, and its fall to 0 is no clear */
		if (!mz_pe(p)->vm_first || p->vm_size)
			memz_detector_push(&p->det, &t->s, t->now,
					   (double)p->mem.pss, owned(p));
		if (p->warming)
			memz_detector_withhold(&p->det);
	}
	v->groups = NULL;
	v->n_groups = t->n_view_groups = 0;
	v->users = NULL;
	v->n_users = 0;
	/* a file that cannot be read names no one: uids as numbers */
	(void)memz_users_refresh(&t->users, t->s.passwd_file, t->a);
	if (t->s.group_by != MEMZ_GROUP_NONE)
		rc = sum_groups(t, v);
	if (!rc)
		rc = sum_users(t, v);
	announce(t, v);
	for (p = t->live; p; p = mz_pe(p)->lnext) {
		mz_pe(p)->prev_group = p->has_sample ? p->group : NULL;
		mz_pe(p)->prev_pss = (double)p->mem.pss;
		mz_pe(p)->prev_anon = owned0(p);
		if (!p->has_sample)
			p->group = NULL;
	}
	v->events = t->events;
	v->n_events = t->n_events;
	v->gone = (const struct memz_proc *const *)t->gone;
	v->n_gone = t->n_gone;
	return rc;
}

void memz_table_view_init(struct memz_table_view *v)
{
	memset(v, 0, sizeof *v);
}

struct memz_group *memz_table_group(struct memz_table *t, size_t i)
{
	return i < t->n_view_groups ? t->groups[i] : NULL;
}
