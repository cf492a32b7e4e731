#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* Before the first read, guess the cost from the resident size: the kernel
 * walks page tables at roughly 12 ms per GiB. */
double mz_est_cost(const struct memz_sampler *s, const struct memz_proc *p)
{
	if (too_big(s, p))
		return 20e-6;
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

/* PSS as estimated from the last exact read and statm since. */
static uint64_t estimated_pss(const struct memz_proc *p, uint64_t page_size)
{
	return add_clamped(from_kib(mz_pe(p)->exact.pss), anon_delta(p, page_size));
}

/* A process's series between two exact reads follows statm; what statm
 * could not see (sharers coming and going, shared memory) would land as
 * one step at the next exact read, an artefact of how seldom the budget
 * lets a large process be read. So the step moves the detector's history
 * instead of counting as growth. A process read every cycle has no
 * estimated samples in between and keeps its exact series. */
static void rebase_on_exact(struct memz_proc *p, const struct memz_rollup *r,
			    uint64_t page_size)
{
	if (mz_pe(p)->has_exact && mz_pe(p)->cycles_since_exact > 0)
		memz_detector_rebase(&p->det,
				     (double)r->pss -
					     (double)estimated_pss(p, page_size));
}

static int exact_read(struct memz_sampler *s, struct memz_proc *p,
		      double *cost)
{
	struct memz_rollup r;
	struct memz_pstatus st;
	double c0 = thread_cpu();
	size_t len;
	/* statm unchanged since the last exact read: resident did not move,
	 * so neither did VmHWM nor VmSwap (swapping out lowers resident) */
	bool moved = !mz_pe(p)->has_exact || mz_statm_changed(p);
	bool estimate = too_big(s, p);
	int rc = estimate ? read_status_estimate(s, p, &r, &st) :
			    read_exact(s, p, &r);

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
	mz_pe(p)->cost_s = (float)(mz_pe(p)->cost_s > 0 ? 0.7 * mz_pe(p)->cost_s + 0.3 * *cost : *cost);
	rebase_on_exact(p, &r, s->page_size);
	p->mem = r;
	mz_pe(p)->exact.rss = kib32(r.rss);
	mz_pe(p)->exact.pss = kib32(r.pss);
	mz_pe(p)->exact.pss_anon = kib32(r.pss_anon);
	mz_pe(p)->exact.anonymous = kib32(r.anonymous);
	mz_pe(p)->exact.private_dirty = kib32(r.private_dirty);
	mz_pe(p)->statm_at_exact = mz_pe(p)->statm_last;
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

void mz_schedule_exact(struct memz_sampler *s, size_t n)
{
	struct memz_budget_result res;

	memz_budget_schedule(&s->budget, s->cand, n, read_cand, s, &res);
	s->st->rollup_skipped += res.skipped;
	s->st->rollup_deferred += res.deferred;
}
