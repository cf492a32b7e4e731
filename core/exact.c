#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memz/procfs.h"
#include "memz/readbuf.h"
#include "sampler_int.h"

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident minus shared, in bytes. */
static int64_t anon_of(const struct memz_statm_pages *m, uint64_t page_size)
{
	return ((int64_t)m->resident - (int64_t)m->shared) * (int64_t)page_size;
}

bool mz_statm_changed(const struct memz_proc *p)
{
	return mz_pe(p)->statm_last.resident != mz_pe(p)->statm_at_exact.resident ||
	       mz_pe(p)->statm_last.shared != mz_pe(p)->statm_at_exact.shared ||
	       mz_pe(p)->statm_last.data != mz_pe(p)->statm_at_exact.data;
}

/* Above ExactMaxRss no smaps_rollup: the kernel holds the process's mmap
 * lock for the whole page-table walk, so every mmap, munmap and page fault
 * in it that needs the lock waits (139-219 ms for 8 GiB measured in issue
 * 16), and first reads are no exception. status counts the same resident
 * pages by kind from per-process counters, under no lock. */
static bool too_big(const struct memz_sampler *s, const struct memz_proc *p)
{
	return s->s.exact_max_rss > 0 &&
	       (double)mz_pe(p)->statm_last.resident * (double)s->page_size >
		       s->s.exact_max_rss;
}

/* Pagemap entries one read of a big process may walk: 256 MiB of address
 * space, 16 reads of MEMZ_PAGEMAP_CHUNK. The kernel takes the mmap lock
 * per 2 MiB of it, so the step bounds the CPU a cycle spends, not the
 * stall; an 8 GiB process is walked whole in 33 of its reads. */
#define WALK_STEP_PAGES 65536
/* The pause between two pagemap reads of a step, in which a mmap, munmap or
 * page fault waiting for the process's lock gets it (pagemap.h): 16 pauses
 * a step, 3.2 ms of a cycle's wall time, no CPU. */
#define WALK_GAP_NS 200000L
/* What a step costs before one was measured: the kernel's pagemap walk
 * of 256 MiB resident. */
#define WALK_STEP_COST 2e-3
/* A walk is given up past this many times the process's resident size
 * (plus a GiB) in address space: terabytes of writable address space
 * reserved (AddressSanitizer's shadow) would take it thousands of cycles,
 * and every other big process would wait that long for its walk. Its
 * figures stay what they were (status's alone before a first walk), and
 * it is tried again after PssMaxAge. */
#define WALK_MAX_SPAN 4

static bool walks(const struct memz_sampler *s, const struct memz_proc *p)
{
	return s->walking && s->walk_pid == p->pid && s->walk_start == p->start;
}

/* A walk starts for a big process never walked, or walked (or refused)
 * PssMaxAge ago, when no other walk is in progress. */
static bool walk_due(const struct memz_sampler *s, const struct memz_proc *p)
{
	const struct mz_proc_entry *e = mz_pe(p);

	return !s->walking &&
	       ((!e->has_walk && e->walk_t == 0) ||
		s->now - e->walk_t >= s->s.pss_max_age);
}

/* Before the first read, guess the cost from the resident size: the kernel
 * walks page tables at roughly 12 ms per GiB. */
double mz_est_cost(const struct memz_sampler *s, const struct memz_proc *p)
{
	if (too_big(s, p)) {
		if (!walks(s, p) && !walk_due(s, p))
			return 20e-6;
		return mz_pe(p)->cost_s > 20e-6 ? mz_pe(p)->cost_s :
						 20e-6 + WALK_STEP_COST;
	}
	if (mz_pe(p)->cost_s > 0)
		return mz_pe(p)->cost_s;
	return 20e-6 + (double)mz_pe(p)->statm_last.resident * (double)s->page_size *
			       (12e-3 / 1073741824.0);
}

/* One exact read: smaps_rollup (or summed smaps on kernels before 4.14). */
static int read_smaps_sum(struct memz_sampler *s, struct memz_proc *p,
			  struct memz_rollup *r)
{
	size_t len;
	int rc = memz_pidfiles_read_big(&s->files, p->pid, "smaps", &len);

	return rc ? rc : memz_parse_smaps_sum(s->files.big, len, r);
}

/* One exact read: smaps_rollup, or summed smaps on kernels before 4.14. A
 * missing smaps_rollup next to a present smaps is such a kernel, and then
 * smaps is read directly from then on. */
static int read_exact(struct memz_sampler *s, struct memz_proc *p,
		      struct memz_rollup *r)
{
	size_t len;
	int rc;

	if (s->no_rollup)
		return read_smaps_sum(s, p, r);
	/* kept by processes read on consecutive cycles; the statm fds come
	 * first, so the rollup fds stay within three quarters of the budget */
	if (mz_pe(p)->rollup_fd < 0 && mz_pe(p)->has_exact && mz_pe(p)->cycles_since_exact <= 1)
		mz_pe(p)->rollup_fd = memz_pidfiles_keep(
			&s->files, p->pid, "smaps_rollup",
			s->files.fd_budget - s->files.fd_budget / 4);
	if (mz_pe(p)->rollup_fd >= 0) {
		rc = memz_pidfiles_pread(&s->files, mz_pe(p)->rollup_fd, &len);
	} else {
		rc = memz_pidfiles_read(&s->files, p->pid, "smaps_rollup", &len);
		if (rc == -ENOENT) {
			rc = read_smaps_sum(s, p, r);
			if (!rc)
				s->no_rollup = true;
			return rc;
		}
	}
	return rc ? rc : memz_parse_rollup(s->files.buf, len, r);
}

static void walk_end(struct memz_sampler *s)
{
	if (!s->walking)
		return;
	memz_pidfiles_close(&s->files, &s->walk->maps_fd);
	memz_pidfiles_close(&s->files, &s->walk->pagemap_fd);
	s->walking = false;
}

void mz_walk_free(struct memz_sampler *s)
{
	walk_end(s);
	memz_realloc(s->a, s->walk, 0);
	s->walk = NULL;
}

static void walk_begin(struct memz_sampler *s, struct memz_proc *p)
{
	int maps, pm;

	if (!s->walk)
		s->walk = memz_realloc(s->a, NULL, sizeof *s->walk);
	if (!s->walk)
		return; /* tried again at its next read */
	maps = memz_pidfiles_keep(&s->files, p->pid, "maps", s->files.fd_budget);
	pm = maps < 0 ? -1 :
			memz_pidfiles_keep(&s->files, p->pid, "pagemap",
					   s->files.fd_budget);
	if (pm < 0) {
		/* gone, refused, or no fd to spare: tried again after
		 * PssMaxAge, not at every read */
		memz_pidfiles_close(&s->files, &maps);
		mz_pe(p)->walk_t = s->now;
		return;
	}
	memz_pagemap_begin(s->walk, maps, pm, s->page_size);
	s->walk->gap_ns = WALK_GAP_NS;
	s->walking = true;
	s->walk_pid = p->pid;
	s->walk_start = p->start;
}

/* One bounded step of p's walk, begun if due. true when the walk
 * completed: *shared then holds what it saw not mapped exclusively, with
 * rss (status's, now) standing for the resident at its end. */
static bool walk_step(struct memz_sampler *s, struct memz_proc *p,
		      uint64_t rss, uint64_t *shared)
{
	int rc;

	if (!walks(s, p)) {
		if (!walk_due(s, p))
			return false;
		walk_begin(s, p);
		if (!s->walking)
			return false;
	}
	rc = memz_pagemap_step(s->walk, WALK_STEP_PAGES);
	s->st->pagemap_steps++;
	if (rc == 0 && (double)s->walk->entries * (double)s->page_size <=
				(double)rss * WALK_MAX_SPAN + 1073741824.0)
		return false;
	if (rc == 0) {
		s->st->pagemap_given_up++;
		mz_pe(p)->walk_t = s->now;
	}
	if (rc == 1) {
		*shared = memz_pagemap_shared(&s->walk->c, s->page_size, rss);
		s->st->pagemap_walks++;
	} else if (rc == -EINVAL) {
		snprintf(s->walk_why, sizeof s->walk_why, "%d/maps: %s", p->pid,
			 s->walk->why ? s->walk->why : "malformed");
		s->st->pagemap_refused = s->walk_why;
		/* not walked again before PssMaxAge: the same maps would
		 * be refused the same way */
		mz_pe(p)->walk_t = s->now;
	}
	walk_end(s);
	return rc == 1;
}

/* PSS and USS of a big process from status's resident and its last walk
 * (see table.h); *error the bound. */
static void apply_walk(struct memz_rollup *r, const struct memz_pstatus *st,
		       bool has_walk, uint64_t shared, uint64_t *error)
{
	struct memz_pss_estimate e;

	if (!has_walk) {
		r->pss = r->rss;
		r->private_clean = 0;
		r->private_dirty = st->rss_anon;
		*error = r->rss;
		return;
	}
	memz_pagemap_estimate(r->rss, shared, &e);
	r->pss = e.pss;
	r->private_dirty = st->rss_anon < e.uss ? st->rss_anon : e.uss;
	r->private_clean = e.uss - r->private_dirty;
	*error = e.error;
}

/* The estimate that stands in for smaps_rollup above ExactMaxRss (see
 * table.h for what each figure then is). */
static int read_status_estimate(struct memz_sampler *s, struct memz_proc *p,
				struct memz_rollup *r, struct memz_pstatus *st)
{
	size_t len;
	int rc = memz_pidfiles_read(&s->files, p->pid, "status", &len);

	if (!rc)
		rc = memz_parse_status(s->files.buf, len, st);
	if (rc)
		return rc;
	if (!st->has_vm || !st->has_rss_split)
		return -ENODATA; /* a kernel before 4.5: nothing to estimate from */
	memset(r, 0, sizeof *r);
	r->rss = st->rss_anon + st->rss_file + st->rss_shmem;
	r->pss = r->rss;
	r->pss_anon = r->anonymous = r->private_dirty = st->rss_anon;
	r->pss_file = st->rss_file;
	r->pss_shmem = st->rss_shmem;
	r->swap = st->vm_swap;
	r->has_pss_anon = true;
	return 0;
}

static uint64_t add_clamped(uint64_t v, int64_t d)
{
	if (d < 0 && (uint64_t)-d > v)
		return 0;
	return (uint64_t)((int64_t)v + d);
}

/* smaps counts in kB, so KiB lose nothing; 32 bits hold 4 TiB. */
static uint32_t kib32(uint64_t bytes)
{
	uint64_t k = bytes >> 10;

	return k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

static uint64_t from_kib(uint32_t kib)
{
	return (uint64_t)kib << 10;
}

/* Anonymous growth since the last exact read, as statm sees it. */
static int64_t anon_delta(const struct memz_proc *p, uint64_t page_size)
{
	return anon_of(&mz_pe(p)->statm_last, page_size) -
	       anon_of(&mz_pe(p)->statm_at_exact, page_size);
}

/*
 * statm as it stood when the exact read r was taken. The probe reads statm
 * early in a cycle and the exact read comes when the budget reaches the
 * process, so one that moved in between (a batch spike freed) left statm
 * describing another moment: kept as the base of the estimates, it read
 * the busy host's spiky leaker 48 MiB low, clamped to 0, for seconds until
 * its next exact read. Resident pages are what both count (statm from the
 * process's counters, r from its page tables or status), so a gap wider
 * than the counters' per-CPU lag is movement, and r's own resident and
 * anonymous figures stand for statm then. Within the lag statm is kept, so
 * a process that then holds still reads as unchanged.
 */
#define STATM_LAG_PAGES 256
static struct memz_statm_pages statm_at_read(const struct memz_proc *p,
					     const struct memz_rollup *r,
					     uint64_t page_size)
{
	struct memz_statm_pages m = mz_pe(p)->statm_last;
	uint64_t res = r->rss / page_size, anon = r->anonymous / page_size;
	uint64_t lag = res / 64 > STATM_LAG_PAGES ? res / 64 : STATM_LAG_PAGES;

	if ((res > m.resident ? res - m.resident : m.resident - res) <= lag)
		return m;
	m.resident = res > UINT32_MAX ? UINT32_MAX : (uint32_t)res;
	m.shared = anon < m.resident ? m.resident - (uint32_t)anon : 0;
	return m;
}

/* A process's series between two exact reads follows statm; what statm
 * could not see (sharers coming and going, shared memory) would land as
 * one step at the next exact read, an artefact of how seldom the budget
 * lets a large process be read. So the step moves the detector's history
 * instead of counting as growth. A process read every cycle has no
 * estimated samples in between and keeps its exact series. */
static void rebase_on_exact(struct memz_proc *p, const struct memz_rollup *r,
			    const struct memz_statm_pages *at,
			    uint64_t page_size)
{
	int64_t d_anon = anon_of(at, page_size) -
			 anon_of(&mz_pe(p)->statm_at_exact, page_size);

	if (mz_pe(p)->has_exact && mz_pe(p)->cycles_since_exact > 0)
		memz_detector_rebase(&p->det,
				     (double)r->pss -
					     (double)add_clamped(from_kib(mz_pe(p)->exact.pss),
								 d_anon));
}

/* The status estimate, and a step of the walk. The figure the last walk
 * gives is what the history continues from; a walk completing now moves
 * the history by what it changes, so the detector sees no step when the
 * figures switch from one walk's (or status's alone) to the next. */
static int read_big(struct memz_sampler *s, struct memz_proc *p,
		    struct memz_rollup *r, struct memz_pstatus *st)
{
	struct memz_rollup prev;
	struct memz_statm_pages at;
	uint64_t shared = 0, err_prev, err;
	int rc = read_status_estimate(s, p, r, st);

	if (rc) {
		if (walks(s, p))
			walk_end(s);
		return rc;
	}
	prev = *r;
	apply_walk(&prev, st, mz_pe(p)->has_walk,
		   from_kib(mz_pe(p)->walk_shared), &err_prev);
	if (!walk_step(s, p, r->rss, &shared)) {
		*r = prev;
		p->pss_error = err_prev;
		return 0;
	}
	apply_walk(r, st, true, shared, &err);
	at = statm_at_read(p, &prev, s->page_size);
	rebase_on_exact(p, &prev, &at, s->page_size);
	memz_detector_rebase(&p->det, (double)r->pss - (double)prev.pss);
	/* and its group's, which sums it (the group of last cycle: should it
	 * move this very cycle, the move's own rebase is off by the switch) */
	if (p->group)
		memz_detector_rebase(&p->group->det,
				     (double)r->pss - (double)prev.pss);
	/* rebased already, from what the figure was before the walk */
	mz_pe(p)->cycles_since_exact = 0;
	mz_pe(p)->walk_shared = kib32(shared);
	mz_pe(p)->walk_t = s->now;
	mz_pe(p)->has_walk = true;
	p->pss_error = err;
	return 0;
}

static int exact_read(struct memz_sampler *s, struct memz_proc *p,
		      double *cost)
{
	struct memz_rollup r;
	struct memz_pstatus st;
	struct memz_statm_pages at;
	double c0 = thread_cpu();
	size_t len;
	/* statm unchanged since the last exact read: resident did not move,
	 * so neither did VmHWM nor VmSwap (swapping out lowers resident) */
	bool moved = !mz_pe(p)->has_exact || mz_statm_changed(p);
	bool estimate = too_big(s, p);
	int rc = estimate ? read_big(s, p, &r, &st) : read_exact(s, p, &r);

	*cost = thread_cpu() - c0;
	s->st->rollup_cpu_s += *cost;
	if (rc == -EACCES || rc == -EPERM) {
		mz_pe(p)->no_access = true;
		return rc;
	}
	if (rc)
		return rc;
	if (estimate)
		s->st->estimated++;
	else
		s->st->rollup_reads++;
	p->estimated = estimate;
	if (!estimate)
		p->pss_error = 0;
	mz_pe(p)->cost_s = (float)(mz_pe(p)->cost_s > 0 ? 0.7 * mz_pe(p)->cost_s + 0.3 * *cost : *cost);
	at = statm_at_read(p, &r, s->page_size);
	rebase_on_exact(p, &r, &at, s->page_size);
	p->mem = r;
	mz_pe(p)->exact.rss = kib32(r.rss);
	mz_pe(p)->exact.pss = kib32(r.pss);
	mz_pe(p)->exact.pss_anon = kib32(r.pss_anon);
	mz_pe(p)->exact.anonymous = kib32(r.anonymous);
	mz_pe(p)->exact.private_dirty = kib32(r.private_dirty);
	mz_pe(p)->statm_at_exact = at;
	mz_pe(p)->exact_t = s->now;
	mz_pe(p)->has_exact = true;
	mz_pe(p)->cycles_since_exact = 0;
	if (estimate) {
		p->vm_hwm = st.vm_hwm;
		p->vm_swap = st.vm_swap;
	} else if (moved && !memz_pidfiles_read(&s->files, p->pid, "status", &len) &&
		   !memz_parse_status(s->files.buf, len, &st)) {
		p->vm_hwm = st.vm_hwm;
		p->vm_swap = st.vm_swap;
	}
	return 0;
}

static int read_cand(void *ctx, struct memz_budget_cand *c, double *cost)
{
	return exact_read(ctx, c->ref, cost);
}

/* Between exact reads, move the figures by what statm says changed:
 * resident minus shared is the anonymous part a leak grows. */
void mz_estimate(struct memz_proc *p, double now, uint64_t page_size)
{
	int64_t d_anon = anon_delta(p, page_size);
	int64_t d_rss = ((int64_t)mz_pe(p)->statm_last.resident -
			 (int64_t)mz_pe(p)->statm_at_exact.resident) *
			(int64_t)page_size;

	p->mem.pss = add_clamped(from_kib(mz_pe(p)->exact.pss), d_anon);
	p->mem.pss_anon = add_clamped(from_kib(mz_pe(p)->exact.pss_anon), d_anon);
	p->mem.anonymous = add_clamped(from_kib(mz_pe(p)->exact.anonymous), d_anon);
	p->mem.private_dirty = add_clamped(from_kib(mz_pe(p)->exact.private_dirty), d_anon);
	p->mem.rss = add_clamped(from_kib(mz_pe(p)->exact.rss), d_rss);
	p->pss_age = now - mz_pe(p)->exact_t;
}

/* The process being walked goes on being read each cycle, within the
 * budget, though nothing changed, so the walk ends within a few cycles of
 * its start; a walk whose process is gone, or no longer big, is let go. */
static void keep_walking(struct memz_sampler *s, size_t n)
{
	uint64_t e;

	if (!s->walking)
		return;
	for (size_t i = 0; i < n; i++) {
		struct memz_proc *p = s->cand[i].ref;

		if (!walks(s, p))
			continue;
		if (!too_big(s, p))
			walk_end(s);
		else if (s->cand[i].need > MEMZ_NEED_CHANGED)
			s->cand[i].need = MEMZ_NEED_CHANGED;
		return;
	}
	/* not probed this cycle (resting) or gone: an open pagemap of an
	 * exited process refuses to read */
	if (pread(s->walk->pagemap_fd, &e, sizeof e, 0) < 0)
		walk_end(s);
}

void mz_schedule_exact(struct memz_sampler *s, size_t n)
{
	struct memz_budget_result res;

	keep_walking(s, n);
	memz_budget_schedule(&s->budget, s->cand, n, read_cand, s, &res);
	s->st->rollup_skipped += res.skipped;
	s->st->rollup_deferred += res.deferred;
}
