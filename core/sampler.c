#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memz/procfs.h"
#include "memz/readbuf.h"
#include "sampler_int.h"

/* Kernel threads have no user memory to sample; only the sweep cares
 * whether one is still there, so each is probed (through stat, which also
 * catches a reused pid) once in this many cycles and simply kept as seen in
 * between. A dead kernel thread's pid taken by a new process is seen at once
 * when the pid is among those looked up since the last cycle, and else
 * hides that process for at most this many cycles. */
#define KTHREAD_PROBE_CYCLES 16

/* A kept smaps_rollup fd saves an open per exact read but pins a page of
 * kernel memory (the seq_file buffer) for as long as it is open, so only
 * processes read on consecutive cycles keep one; one left unread this many
 * cycles is closed. */
#define ROLLUP_FD_IDLE_CYCLES 3

/* While the pids handed out are few and each is looked up, the table holds
 * every process and /proc is not listed (pidwatch.h); it still is once in
 * this many cycles, so a process the watch missed for a reason not thought
 * of waits at most this long. */
#define LIST_PROC_CYCLES 16

/* A process whose statm has not moved for this many probes is probed every
 * other cycle, and after twice as many every fourth, while every task that
 * exited is accounted for (so it is still there, and its pid is its own):
 * a leak that starts in it is seen three cycles late at most, and from its
 * first change on it is probed every cycle again. On an idle machine that
 * saves most of the probes, the largest part of an idle cycle. */
#define QUIET_PROBES 10

double memz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool out_of_fds(int rc)
{
	return rc == -EMFILE || rc == -ENFILE;
}

static void on_retire(struct memz_proc *p, void *ctx)
{
	struct memz_sampler *s = ctx;

	memz_pidfiles_close(&s->files, &mz_pe(p)->statm_fd);
	memz_pidfiles_close(&s->files, &mz_pe(p)->rollup_fd);
}

static void say_failed(char *failed, size_t len, const char *path)
{
	if (failed && len)
		snprintf(failed, len, "%s", path);
}

/* Short of fds, the optional system files give theirs up, once. */
static unsigned spare_fds(void *ctx)
{
	struct memz_sampler *s = ctx;

	return s->sys.unkept ? 0 : memz_sysfiles_unkeep(&s->sys);
}

int memz_sampler_new(struct memz_sampler **out, const struct memz_settings *set,
		     const struct memz_allocator *a)
{
	return memz_sampler_open(out, set, a, NULL, 0);
}

int memz_sampler_open(struct memz_sampler **out,
		      const struct memz_settings *set,
		      const struct memz_allocator *a, char *failed,
		      size_t failed_len)
{
	struct memz_sampler *s = memz_realloc(a, NULL, sizeof *s);
	long ps = sysconf(_SC_PAGESIZE);
	int rc, dfd;

	*out = NULL;
	say_failed(failed, failed_len, "");
	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof *s);
	s->s = *set;
	s->a = a;
	memz_pidfiles_init(&s->files, a);
	s->page_size = ps > 0 ? (uint64_t)ps : 4096;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	memz_sysfiles_init(&s->sys);
	memz_oom_init(&s->oom);
	memz_pace_init(&s->pace);
	memz_pidwatch_init(&s->pids);
	memz_budget_init(&s->budget, set->cpu_budget);

	rc = memz_table_new(&s->table, set, a);
	if (rc)
		goto fail;
	memz_table_on_retire(s->table, on_retire, s);
	rc = memz_leakparts_new(&s->leakparts, set->proc_root,
				set->leak_parts_delay, set->leak_parts_max_rss, a);
	if (rc)
		goto fail;
	memz_leakparts_set_budget(s->leakparts, &s->budget);
	if (set->group_by == MEMZ_GROUP_CGROUP) {
		rc = memz_cgroups_new(&s->cgroups, set->sys_root,
				      set->docker_root, set->cgroup_refresh, a);
		if (rc)
			goto fail;
	}
	rc = memz_sysfiles_open(&s->sys, set->proc_root, set->sys_root);
	if (rc) {
		say_failed(failed, failed_len, s->sys.failed);
		goto fail;
	}
	s->files.spare = spare_fds;
	s->files.spare_ctx = s;
	rc = memz_pidfiles_open(&s->files, set->proc_root, set->max_open_files);
	if (out_of_fds(rc) && spare_fds(s))
		rc = memz_pidfiles_open(&s->files, set->proc_root,
					set->max_open_files);
	if (rc) {
		say_failed(failed, failed_len, set->proc_root);
		goto fail;
	}
	dfd = dup(s->files.proc_fd);
	if (dfd < 0 && out_of_fds(-errno) && spare_fds(s))
		dfd = dup(s->files.proc_fd);
	s->dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!s->dir) {
		rc = -errno;
		if (dfd >= 0)
			close(dfd);
		say_failed(failed, failed_len, set->proc_root);
		goto fail;
	}
	memz_pidwatch_open(&s->pids, s->files.proc_fd);
	*out = s;
	return 0;
fail:
	memz_sampler_free(&s);
	return rc;
}

void memz_sampler_free(struct memz_sampler **sp)
{
	struct memz_sampler *s = *sp;

	if (!s)
		return;
	memz_table_free(&s->table);
	memz_cgroups_free(&s->cgroups);
	memz_leakparts_free(&s->leakparts);
	memz_sysfiles_release(&s->sys);
	memz_pidwatch_release(&s->pids);
	mz_walk_free(s);
	if (s->dir)
		closedir(s->dir);
	memz_pidfiles_release(&s->files);
	memz_free(s->a, &s->cand);
	memz_realloc(s->a, s, 0);
	*sp = NULL;
}

void memz_snapshot_init(struct memz_snapshot *s)
{
	memset(s, 0, sizeof *s);
	memz_table_view_init(&s->view);
}

void memz_snapshot_release(struct memz_snapshot *s)
{
	memz_snapshot_init(s);
}

const struct memz_settings *memz_sampler_settings(const struct memz_sampler *s)
{
	return &s->s;
}

const struct memz_allocator *memz_sampler_allocator(const struct memz_sampler *s)
{
	return s->a;
}

static bool vanished(int rc)
{
	return rc == -ENOENT || rc == -ESRCH;
}

/* statm as the file has it, in pages. */
static int read_statm(struct memz_sampler *s, struct memz_proc *p,
		      struct memz_statm *out)
{
	size_t len;
	int rc;

	if (mz_pe(p)->statm_fd >= 0)
		rc = memz_pidfiles_pread(&s->files, mz_pe(p)->statm_fd, &len);
	else
		rc = memz_pidfiles_read(&s->files, p->pid, "statm", &len);
	if (rc)
		return rc;
	return memz_parse_statm(s->files.buf, len, 1, out);
}

static uint32_t pages32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* read_statm in pages: the figures change detection keeps. *exec: its
 * text size changed since the last probe, which only an exec does. */
static int probe_statm(struct memz_sampler *s, struct memz_proc *p, bool *exec)
{
	struct memz_statm sm;
	int rc = read_statm(s, p, &sm);

	*exec = false;
	if (rc)
		return rc;
	p->vm_size = sm.size * s->page_size;
	if (pages32(sm.resident) == mz_pe(p)->statm_last.resident &&
	    pages32(sm.shared) == mz_pe(p)->statm_last.shared &&
	    pages32(sm.data) == mz_pe(p)->statm_last.data &&
	    pages32(sm.text) == mz_pe(p)->statm_last.text) {
		if (mz_pe(p)->quiet_probes < 2 * QUIET_PROBES)
			mz_pe(p)->quiet_probes++;
		return 0;
	}
	*exec = mz_pe(p)->statm_last.text &&
		pages32(sm.text) != mz_pe(p)->statm_last.text;
	mz_pe(p)->quiet_probes = 0;
	mz_pe(p)->statm_last.resident = pages32(sm.resident);
	mz_pe(p)->statm_last.shared = pages32(sm.shared);
	mz_pe(p)->statm_last.data = pages32(sm.data);
	mz_pe(p)->statm_last.text = pages32(sm.text);
	return 0;
}

/* What /proc/PID/cgroup says: the cgroup memz groups by (GroupBy cgroup)
 * and the memory cgroup, each when found. */
struct mz_cgroup_read {
	char cgroup[MEMZ_PATH_MAX], memcg[MEMZ_PATH_MAX];
	bool has_cgroup, has_memcg;
	int memcg_version;
};

/* The memory cgroup is what an OOM forecast and kill are about, so the
 * file is read whatever GroupBy is. A path too long to keep groups by a
 * key no cgroup has, but its memory is still counted under the deepest
 * ancestor that fits, whose limit (or a limit above it) is its too. */
static int cgroup_read(struct memz_sampler *s, const struct memz_proc *p,
		       struct mz_cgroup_read *r)
{
	size_t len;
	int version, rc;

	r->has_cgroup = r->has_memcg = false;
	rc = memz_pidfiles_read(&s->files, p->pid, "cgroup", &len);
	if (rc)
		return rc;
	r->has_cgroup = s->s.group_by == MEMZ_GROUP_CGROUP &&
			!memz_cgroup_of_proc(s->files.buf, len, r->cgroup,
					     sizeof r->cgroup, &version);
	r->has_memcg = !memz_cgroup_memcg_of_proc(s->files.buf, len, r->memcg,
						  sizeof r->memcg,
						  &r->memcg_version) &&
		       r->memcg_version;
	return 0;
}

static void cgroup_apply(struct memz_sampler *s, struct memz_proc *p,
			 const struct mz_cgroup_read *r)
{
	if (r->has_cgroup)
		memz_table_set_cgroup(s->table, p, r->cgroup);
	if (r->has_memcg && !memz_table_set_memcg(s->table, p, r->memcg))
		p->memcg_v1 = r->memcg_version == 1;
}

static void read_cgroup(struct memz_sampler *s, struct memz_proc *p)
{
	struct mz_cgroup_read r;

	if (!cgroup_read(s, p, &r))
		cgroup_apply(s, p, &r);
}

/* stat's flags once a process has begun to exit (the kernel's PF_EXITING):
 * from then on cgroup v1 shows it in the root of every hierarchy (the
 * kernel's proc_cgroup_show), not in the cgroup it was in. */
#define PF_EXITING_FLAG 0x4ull

/* Its name (stat, for this process only: the start time must match) and
 * cgroups read again. The cgroups first: stat after them says whether
 * they were read of this process before it began to exit, and only then
 * are they taken. An OOM victim the kernel killed was seen with its text
 * gone (as an exec) and read again as a zombie, and on cgroup v1 it left
 * from the root, in no watched cgroup's scope. */
static void reread_identity(struct memz_sampler *s, struct memz_proc *p)
{
	struct mz_cgroup_read r;
	struct memz_pstat ps;
	size_t len;
	bool cg = !cgroup_read(s, p, &r);

	if (memz_pidfiles_read(&s->files, p->pid, "stat", &len) ||
	    memz_parse_stat(s->files.buf, len, &ps) ||
	    ps.start_time != p->start)
		return;
	memz_table_set_name(s->table, p, ps.comm, strlen(ps.comm));
	if (cg && !(ps.flags & PF_EXITING_FLAG))
		cgroup_apply(s, p, &r);
}

/* A process is first seen as its parent forked it, sometimes before it
 * exec'd or joined its cgroup (systemd moves a service between its fork
 * and its exec), and a kept statm fd means its stat is not read again. So
 * its name and cgroup are read again: at its next probe when it was first
 * seen young, which an exec of the same binary needs (a shell running a
 * script: the comm changes, the text does not); when its text size
 * changes, which only an exec does (the busy host's redis-server stayed
 * "planted", its spawner, for 36 minutes); and once when it is flagged,
 * since a suspect's name and cgroup are what a forecast and an OOM kill
 * report. */
#define YOUNG_S 2.0
static void recheck_identity(struct memz_sampler *s, struct memz_proc *p,
			     bool exec)
{
	bool suspect = p->det.verdict.leak && !mz_pe(p)->rechecked;

	if (!exec && !suspect && !mz_pe(p)->young_seen)
		return;
	if (suspect)
		mz_pe(p)->rechecked = true;
	mz_pe(p)->young_seen = false;
	reread_identity(s, p);
}

/* What a process is, read once when it is first seen. */
static void read_identity(struct memz_sampler *s, struct memz_proc *p)
{
	struct memz_pstatus st;
	char tmp[MEMZ_PATH_MAX];
	size_t len;
	int v;

	if (!memz_pidfiles_read(&s->files, p->pid, "status", &len) &&
	    !memz_parse_status(s->files.buf, len, &st)) {
		p->uid = st.uid;
		p->vm_hwm = st.vm_hwm;
		p->vm_swap = st.vm_swap;
		p->kernel_thread = !st.has_vm;
	}
	if (p->kernel_thread)
		return;
	if (!memz_pidfiles_read(&s->files, p->pid, "oom_score_adj", &len) &&
	    !memz_parse_oom_score_adj(s->files.buf, len, &v))
		p->oom_score_adj = v;
	read_cgroup(s, p);
	if (s->s.group_by == MEMZ_GROUP_EXE) {
		char path[32];
		int dfd;

		snprintf(path, sizeof path, "%d", p->pid);
		dfd = openat(s->files.proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			if (!memz_read_exe_name(dfd, tmp, sizeof tmp))
				memz_table_set_exe(s->table, p, tmp);
			close(dfd);
		}
	}
}

/* When p started on the sampler's clock, from its start time and the boot
 * clock: the detector leaves a process alone while it is young and
 * growing since birth, so an age must be known, not guessed (unknown
 * reads as old, as for a process memz found already running). */
static double born(struct memz_sampler *s, const struct memz_proc *p)
{
	char buf[64];
	size_t len;
	double up, age;

	if (s->uptime_cycle != s->cycle) {
		s->uptime_cycle = s->cycle;
		s->uptime = NAN;
		if (!memz_read_file_at(s->files.proc_fd, "uptime", buf,
				       sizeof buf, &len) &&
		    memz_parse_uptime(buf, len, &up) == 0)
			s->uptime = up;
	}
	if (!(s->uptime >= 0) || s->clk_tck <= 0)
		return -INFINITY;
	age = s->uptime - (double)p->start / (double)s->clk_tck;
	return s->now - (age > 0 ? age : 0);
}

/*
 * Each group's alarm (alarm.h): about its own sustained verdict, or, when
 * the group is not flagged, its most urgent member's (a group leaks when a
 * member does, even one its other members' churn hides), against the least
 * room any member has (its memory cgroup's, where one is watched).
 */
static void update_alarms(struct memz_sampler *s,
			  const struct memz_table_view *v, double now)
{
	const struct memz_oom_view *o = &s->oom.view;

	for (size_t i = 0; i < v->n_groups; i++) {
		struct memz_group *g = memz_table_group(s->table, i);

		mz_ge(g)->alarm_v = memz_alarm_sustained(&g->det.verdict, now,
							 &s->s)
					    ? &g->det.verdict
					    : NULL;
		mz_ge(g)->alarm_room = o->n_scopes ? o->scope[0].available : 0;
	}
	for (size_t i = 0; i < v->n_procs; i++) {
		const struct memz_proc *p = v->procs[i];
		struct mz_group_entry *ge;
		uint64_t room;

		if (!p->group)
			continue;
		ge = mz_ge(p->group);
		if (!ge->pub.det.verdict.leak &&
		    memz_alarm_sustained(&p->det.verdict, now, &s->s) &&
		    (!ge->alarm_v ||
		     p->det.verdict.rate_bps > ge->alarm_v->rate_bps))
			ge->alarm_v = &p->det.verdict;
		room = memz_oom_limiting(o, p->memcg, p->memcg_v1)->available;
		if (room < ge->alarm_room)
			ge->alarm_room = room;
	}
	for (size_t i = 0; i < v->n_groups; i++) {
		struct memz_group *g = memz_table_group(s->table, i);

		memz_alarm_update(&g->alarm, mz_ge(g)->alarm_v, now,
				  mz_ge(g)->alarm_room, &s->s);
	}
}

/* stat gives the identity (start time) and the name; a pid whose stat is
 * gone has exited, which is not an error. */
static struct memz_proc *discover(struct memz_sampler *s, int pid, int *rc)
{
	struct memz_pstat ps;
	struct memz_proc *p;
	size_t len;
	bool is_new;

	*rc = memz_pidfiles_read(&s->files, pid, "stat", &len);
	if (*rc || memz_parse_stat(s->files.buf, len, &ps))
		return NULL;
	p = memz_table_get(s->table, pid, ps.start_time, &is_new);
	if (!p)
		return NULL;
	p->ppid = ps.ppid;
	p->state = ps.state;
	p->threads = ps.num_threads;
	memz_table_set_name(s->table, p, ps.comm, strlen(ps.comm));
	if (!is_new)
		return p;
	p->born = born(s, p);
	s->st->new_procs++;
	read_identity(s, p);
	mz_pe(p)->young_seen = s->now - p->born < YOUNG_S;
	return p;
}

static bool rests(const struct memz_proc *p, unsigned cycle)
{
	unsigned every = mz_pe(p)->quiet_probes >= 2 * QUIET_PROBES ? 4 :
			 mz_pe(p)->quiet_probes >= QUIET_PROBES     ? 2 : 1;

	return ((unsigned)p->pid + cycle) % every != 0;
}

/* Published groups carry their cgroup's name and memory figures. Only
 * those: the rest are seen by nobody, and reading their files would cost
 * two reads per cgroup of the machine. Which are published is report.h's
 * rule, in the view's order: the first MEMZ_TABLE_MAX_PUBLISHED suspects,
 * and the reported groups, which the table capped to what the suspects
 * leave. A sweep every SWEEP_CYCLES forgets cgroups no longer published;
 * it runs before any group points at the cache this cycle, so no pointer
 * outlives its entry. */
#define SWEEP_CYCLES 64
static int attach_cgroups(struct memz_sampler *s,
			  const struct memz_table_view *v, double now)
{
	size_t leaks = 0;
	unsigned long reads;

	if (!s->cgroups)
		return 0;
	reads = memz_cgroups_reads(s->cgroups);
	if (s->cycle % SWEEP_CYCLES == 0)
		memz_cgroups_sweep(s->cgroups);
	for (size_t i = 0; i < v->n_groups; i++) {
		struct memz_group *g = memz_table_group(s->table, i);
		int rc;

		g->cgroup = NULL;
		if (!(g->det.verdict.leak ? leaks++ < MEMZ_TABLE_MAX_PUBLISHED
					  : g->reported) ||
		    !g->name)
			continue;
		rc = memz_cgroups_get(s->cgroups, g->name, now, &g->cgroup);
		if (rc)
			return rc;
	}
	s->st->files_read += (unsigned)(memz_cgroups_reads(s->cgroups) - reads);
	return 0;
}

/* Find this cycle's entry for pid: the kept statm fd fails with ESRCH once
 * the process it was opened on is gone, so a reused pid can never pass for
 * the old process. Without a kept fd, or for a pid handed out since the
 * last cycle, stat's start time decides. */
static struct memz_proc *probe(struct memz_sampler *s, int pid)
{
	struct memz_proc *p = memz_table_find(s->table, pid), *known;
	bool is_new, exec;
	int rc;

	if (p && p->kernel_thread && !s->span_pid &&
	    ((unsigned)pid + s->cycle) % KTHREAD_PROBE_CYCLES != 0) {
		memz_table_get(s->table, pid, p->start, &is_new);
		return p;
	}
	if (p && s->may_rest && rests(p, s->cycle)) {
		memz_table_get(s->table, pid, p->start, &is_new);
		return p;
	}
	if (p && mz_pe(p)->statm_fd >= 0 && !s->span_pid) {
		rc = probe_statm(s, p, &exec);
		if (!rc) {
			memz_table_get(s->table, pid, p->start, &is_new);
			recheck_identity(s, p, exec);
			return p;
		}
		if (!vanished(rc))
			return NULL;
	}
	known = p;
	p = discover(s, pid, &rc);
	if (!p && known && out_of_fds(rc)) {
		/* the host ran out of fds, the process did not go anywhere:
		 * it keeps its entry and history, figures as of the last probe */
		memz_table_get(s->table, pid, known->start, &is_new);
		return known;
	}
	if (!p || p->kernel_thread)
		return p;
	/* a kept fd only while under the budget, first come first served:
	 * no process ever loses its fd to a newer one, and one that came
	 * when none was left gets one once others have exited; the last
	 * MZ_WALK_FDS stay for a pagemap walk */
	if (mz_pe(p)->statm_fd < 0)
		mz_pe(p)->statm_fd = memz_pidfiles_keep(&s->files, pid, "statm",
						 s->files.fd_budget - MZ_WALK_FDS);
	/* its name was read just now, but a suspect's cgroups are due, and
	 * only stat read after them says they are not an exiting one's */
	if (probe_statm(s, p, &exec))
		return NULL;
	if (p->det.verdict.leak && !mz_pe(p)->rechecked) {
		mz_pe(p)->rechecked = true;
		reread_identity(s, p);
	}
	return p;
}

/* The anonymous memory of the processes whose smaps_rollup memz may not
 * read: statm's resident less its shared (RssAnon), as last probed; world
 * readable, so hidden_anon is theirs and moves only when theirs does. */
static uint64_t unread_anon(struct memz_sampler *s)
{
	uint64_t pages = 0;

	for (struct memz_proc *p = memz_table_first(s->table); p;
	     p = memz_table_next(p)) {
		const struct memz_statm_pages *m = &mz_pe(p)->statm_last;

		if (p->denied && !p->kernel_thread && m->resident > m->shared)
			pages += m->resident - m->shared;
	}
	return pages * s->page_size;
}

/* Probe one process and make it a candidate for an exact read. */
static int visit(struct memz_sampler *s, int pid, double now, size_t *n)
{
	struct memz_proc *p = probe(s, pid);
	struct memz_budget_cand *c;

	if (!p)
		return 0;
	if (p->kernel_thread) {
		s->st->kernel_threads++;
		return 0;
	}
	if (mz_pe(p)->no_access) {
		p->denied = true;
		s->st->denied++;
		return 0;
	}
	if (memz_grow(s->a, &s->cand, &s->cap_cand, *n + 1, sizeof *s->cand))
		return -ENOMEM;
	c = &s->cand[(*n)++];
	c->ref = p;
	c->need = memz_budget_need(mz_pe(p)->has_exact, now - mz_pe(p)->exact_t,
				   s->s.pss_max_age, mz_statm_changed(p),
				   mz_pe(p)->cycles_since_exact,
				   (unsigned)s->s.pss_refresh_cycles);
	c->cost = mz_est_cost(s, p);
	c->age = mz_pe(p)->has_exact ? now - mz_pe(p)->exact_t : 0;
	c->key = p->pid;
	return 0;
}

/* A span of pids handed out since the last cycle longer than this is
 * listed rather than looked up pid by pid: a lookup of a pid that is gone
 * costs about what listing a few dozen entries does. */
#define SPAN_LOOKUPS 128

/* A pid of the span: is it a task now (a process or a thread), and if a
 * process, its visit. 1 when a task is there, 0 when none is, -1 when that
 * could not be told (out of fds, say). */
static int visit_new(struct memz_sampler *s, int pid, double now, size_t *n,
		     int *rc)
{
	struct memz_pstatus st;
	size_t len;
	int r;

	*rc = 0;
	r = memz_pidfiles_read(&s->files, pid, "status", &len);
	if (r)
		return vanished(r) ? 0 : -1;
	/* a thread's pid is found by name but not listed: counted, not
	 * sampled; an unparsable status is left to the listing's stat */
	if (!memz_parse_status(s->files.buf, len, &st) && st.tgid != 0 &&
	    st.tgid != pid)
		return 1;
	/* handed out since the last cycle: stat's start time says whether
	 * an entry for it is this process or one that exited before */
	s->span_pid = true;
	*rc = visit(s, pid, now, n);
	s->span_pid = false;
	return 1;
}

/* Would p go unprobed this cycle if resting were allowed? */
static bool may_skip(const struct memz_proc *p, unsigned cycle)
{
	if (p->kernel_thread)
		return ((unsigned)p->pid + cycle) % KTHREAD_PROBE_CYCLES != 0;
	return rests(p, cycle);
}

/*
 * Walk the table in two passes. The first probes every process that would
 * not rest, counting the ones found gone; if they account for all the
 * tasks that exited (gone: -1 when unknown), the quiet ones rest in the
 * second, else they are probed too, since any of them may be the one that
 * exited. Those the span already visited are skipped (seen).
 */
static int walk_table(struct memz_sampler *s, double now, size_t *n, int gone)
{
	struct memz_proc *p, *next;
	int rc;

	s->may_rest = false;
	for (p = memz_table_first(s->table); p; p = next) {
		next = memz_table_next(p);
		if (mz_pe(p)->seen || may_skip(p, s->cycle))
			continue;
		rc = visit(s, p->pid, now, n);
		if (rc)
			return rc;
		/* one task per process: an exiting process's other threads
		 * go unexplained, which only costs probes. A kernel thread
		 * found gone may have exited any time since its last probe,
		 * counted by an earlier cycle, so it explains none of this
		 * one's exits. */
		if (!mz_pe(p)->seen && !p->kernel_thread && gone > 0)
			gone--;
	}
	/* what ran above raced with no fork or exit (else it could have
	 * counted as gone a process that exited after loadavg was read) */
	s->may_rest = gone == 0 && !s->restless &&
		      memz_pidwatch_still(&s->pids);
	s->st->rested = s->may_rest;
	for (p = memz_table_first(s->table); p; p = next) {
		next = memz_table_next(p);
		if (mz_pe(p)->seen || !may_skip(p, s->cycle))
			continue;
		rc = visit(s, p->pid, now, n);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Every process: from a listing of /proc, or, while the pids handed out
 * since the last cycle are few, from the table plus a lookup of each of
 * those pids. A process that exited fails its probe either way (its kept
 * statm fd says ESRCH, its stat is gone), and a reused pid is one of the
 * span, looked up and found with a new start time, so it never inherits
 * the old process's entry.
 *
 * Quiet processes may rest only when every task that exited since the last
 * cycle is accounted for: the task count moved by the tasks the span found
 * minus the ones that exited, so a short-lived process that started and
 * exited in between (the usual fork churn) shows in neither and wakes no
 * one. The watch is asked every cycle so that it compares consecutive
 * cycles.
 */
static int visit_all(struct memz_sampler *s, double now, size_t *n)
{
	int from, to, delta, found = 0, rc = 0;
	bool span, unsure = false;
	struct dirent *de;

	memz_pidwatch_changed(&s->pids);
	span = memz_pidwatch_span(&s->pids, &from, &to, &delta);
	if (span && to - from <= SPAN_LOOKUPS &&
	    s->cycle % LIST_PROC_CYCLES != 0) {
		s->may_rest = false;
		for (int pid = from + 1; pid <= to && !rc; pid++) {
			int r = visit_new(s, pid, now, n, &rc);

			if (r < 0)
				unsure = true;
			else
				found += r;
			s->st->span_lookups++;
		}
		if (rc)
			return rc;
		/* delta = found - exited; a negative count of exits (more
		 * found than the count grew by) is one not understood */
		return walk_table(s, now, n, unsure || found < delta ? -1 :
					     found - delta);
	}
	s->may_rest = false;
	s->st->listed = true;
	rewinddir(s->dir);
	while ((de = readdir(s->dir))) {
		int pid;

		if (memz_parse_pid(de->d_name, strlen(de->d_name), &pid))
			continue;
		rc = visit(s, pid, now, n);
		if (rc)
			return rc;
	}
	return 0;
}

static int sample_processes(struct memz_sampler *s, double now)
{
	size_t n = 0;
	int rc = visit_all(s, now, &n);

	if (rc)
		return rc;
	mz_schedule_exact(s, n);
	for (size_t i = 0; i < n; i++) {
		struct memz_proc *p = s->cand[i].ref;

		if (mz_pe(p)->no_access) {
			p->denied = true;
			s->st->denied++;
			continue;
		}
		if (!mz_pe(p)->has_exact)
			continue;
		if (mz_pe(p)->exact_t != now)
			mz_pe(p)->cycles_since_exact++;
		if (mz_pe(p)->rollup_fd >= 0 &&
		    mz_pe(p)->cycles_since_exact >= ROLLUP_FD_IDLE_CYCLES)
			memz_pidfiles_close(&s->files, &mz_pe(p)->rollup_fd);
		mz_estimate(p, now, s->page_size);
		p->has_sample = true;
		s->st->seen++;
	}
	return 0;
}

int memz_sampler_run(struct memz_sampler *s, double now,
		     struct memz_snapshot *snap)
{
	struct memz_pace_input pin;
	uint64_t anon = 0;
	unsigned long reads;
	int rc;

	memset(&snap->stats, 0, sizeof snap->stats);
	snap->leak_parts = NULL;
	snap->n_leak_parts = 0;
	s->st = &snap->stats;
	s->files.files_read = s->files.files_opened = 0;
	s->files.fd_short = 0;
	snap->t = now;
	s->sys.reads = 0;
	rc = memz_sysfiles_read_meminfo(&s->sys, &snap->mem);
	if (rc) {
		snprintf(s->failed, sizeof s->failed, "%s", s->sys.failed);
		snap->stats.failed_path = s->failed;
		return rc;
	}
	/* PSI, NUMA and vmstat are optional: a failed read reads as absent */
	if (memz_sysfiles_read_psi(&s->sys, &snap->psi))
		snap->psi.present = false;
	if (memz_sysfiles_read_numa(&s->sys, &snap->numa))
		snap->numa.n = 0;
	/* the cgroups' kill counters before the machine's, so that the
	 * machine's is never behind */
	memz_oom_read_cgroups(&s->oom, s->s.sys_root);
	if (memz_sysfiles_read_vmstat(&s->sys, &snap->vm))
		snap->vm.present = false;
	/* near an OOM every exit is to be seen in its cycle (oom.h) */
	s->restless = memz_oom_restless(&s->oom, &snap->vm);
	snap->stats.files_read += s->sys.reads;

	s->now = now;
	s->cycle++;
	memz_budget_refill(&s->budget, now);
	memz_table_begin(s->table, now);
	rc = sample_processes(s, now);
	if (rc)
		return rc;
	rc = memz_table_end(s->table, &snap->view);
	if (rc)
		return rc;
	rc = attach_cgroups(s, &snap->view, now);
	if (rc)
		return rc;
	reads = memz_leakparts_stats(s->leakparts)->reads;
	memz_leakparts_cycle(s->leakparts, &snap->view, now, &snap->leak_parts,
			     &snap->n_leak_parts);
	snap->stats.files_read +=
		(unsigned)(memz_leakparts_stats(s->leakparts)->reads - reads);

	snap->rollup_fallback = s->no_rollup;
	snap->pss_anon_fallback = false;
	for (size_t i = 0; i < snap->view.n_procs; i++) {
		anon += snap->view.procs[i]->mem.pss_anon;
		if (!snap->view.procs[i]->mem.has_pss_anon)
			snap->pss_anon_fallback = true;
	}
	memz_breakdown_compute(&snap->mem, anon, unread_anon(s), &snap->br);
	{
		struct memz_oom_input oin = {
			.t = now,
			.mem = &snap->mem,
			.vm = &snap->vm,
			.view = &snap->view,
			.grouped = s->s.group_by != MEMZ_GROUP_NONE,
			.sys_root = s->s.sys_root,
			.warn_s = s->s.oom_warn,
			.s = &s->s,
		};

		memz_oom_update(&s->oom, &oin);
		update_alarms(s, &snap->view, now);
		snap->oom = s->oom.view;
		snap->stats.files_read += s->oom.files_read;
	}

	snap->stats.vanished = snap->view.vanished;
	snap->stats.files_read += s->files.files_read;
	snap->stats.files_opened += s->files.files_opened;
	snap->stats.open_fds = (unsigned)s->files.open_fds;
	snap->stats.fd_budget = (unsigned)s->files.fd_budget;
	snap->stats.fd_degraded = s->sys.unkept;
	snap->stats.fd_short = s->files.fd_short;
	if (s->files.fd_short) {
		snprintf(s->failed, sizeof s->failed, "%s/%s", s->s.proc_root,
			 s->files.failed);
		snap->stats.failed_path = s->failed;
	}
	snap->stats.budget_left_s = memz_budget_room(&s->budget);

	memset(&pin, 0, sizeof pin);
	pin.t = now;
	pin.pswpout = snap->vm.pswpout;
	pin.has_vmstat = snap->vm.present;
	pin.page_size = s->page_size;
	pin.psi_full_avg10 = snap->psi.full.avg10;
	pin.has_psi = snap->psi.present && snap->psi.has_full;
	pin.mem_available = snap->mem.mem_available;
	pin.mem_total = snap->mem.mem_total;
	pin.leak_suspects = snap->view.leak_suspects;
	snap->pace = memz_pace_next(&s->pace, &s->s, &pin);
	snap->interval_ms = memz_pace_interval_ms(snap->pace);
	return 0;
}
