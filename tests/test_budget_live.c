/*
 * test_budget_live - the CPU budget seen through the sampler: an exact read
 * that finds PSS moved where statm saw nothing re-bases the series (fixture
 * tree); live, a leak in a large process is flagged as fast as in a small
 * one when a tiny budget forces estimates; running out of file descriptors
 * keeps a process's entry.
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
#include "../core/table_int.h" /* what the sampler keeps per process */

#define MiB (1024ull * 1024ull)

/* ---- fixture: an exact read that finds PSS moved where statm saw
 * nothing moves the level, not the detector's growth ---- */

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* a rollup of rss_kb resident, 100 MiB of it anonymous, pss_kb PSS */
static void rollup_text(char *buf, size_t cap, unsigned rss_kb, unsigned pss_kb)
{
	snprintf(buf, cap,
		 "555556304000-7ffd3b9ae000 ---p 00000000 00:00 0 [rollup]\n"
		 "Rss:  %u kB\nPss:  %u kB\nPss_Anon:  %u kB\n"
		 "Pss_File:  0 kB\nPss_Shmem:  0 kB\nShared_Clean:  0 kB\n"
		 "Shared_Dirty:  0 kB\nPrivate_Clean:  0 kB\n"
		 "Private_Dirty:  %u kB\nAnonymous:  %u kB\nSwap:  0 kB\n"
		 "SwapPss:  0 kB\n",
		 rss_kb, pss_kb, pss_kb, 100 * 1024, 100 * 1024);
}

static void rebase_at_exact(void)
{
	char tmp[] = "/tmp/memz-budget-XXXXXX", cmd[600], pdir[600], buf[1024];
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	const struct memz_proc *p = NULL;
	int t;

	if (!mkdtemp(tmp)) {
		CHECK(0);
		return;
	}
	snprintf(cmd, sizeof cmd, "cp -r '%s/real1/proc' '%s/real1/sys' '%s'",
		 MEMZ_FIXTURES, MEMZ_FIXTURES, tmp);
	CHECK_INT(system(cmd), 0);
	snprintf(pdir, sizeof pdir, "%s/proc/1185", tmp);
	/* 100 MiB anonymous and 50 MiB shared with many, flat */
	CHECK_INT(write_file(pdir, "statm", "40000 38400 12800 211 0 25600 0\n"), 0);
	rollup_text(buf, sizeof buf, 150 * 1024, 100 * 1024);
	CHECK_INT(write_file(pdir, "smaps_rollup", buf), 0);

	memz_settings_init(&set);
	/* its leaking children are young: judged from birth here, as
	 * warm-up is test_table's */
	set.leak_warmup = 0;
	snprintf(cmd, sizeof cmd, "%s/proc", tmp);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", cmd, NULL, 0), 0);
	snprintf(cmd, sizeof cmd, "%s/sys", tmp);
	CHECK_INT(memz_settings_set(&set, "SysRoot", cmd, NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "PssMaxAge", "10", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "PssRefreshCycles", "100000", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		goto out;
	memz_snapshot_init(&snap);
	for (t = 1; t <= 30; t++) {
		if (t == 5) {
			/* sharers left: PSS up 50 MiB, statm unchanged */
			rollup_text(buf, sizeof buf, 150 * 1024, 150 * 1024);
			CHECK_INT(write_file(pdir, "smaps_rollup", buf), 0);
		}
		CHECK_INT(memz_sampler_run(s, t, &snap), 0);
		p = NULL;
		for (size_t i = 0; i < snap.view.n_procs; i++)
			if (snap.view.procs[i]->pid == 1185)
				p = snap.view.procs[i];
		CHECK(p != NULL);
		if (!p)
			break;
		if (t == 8) /* not yet re-read: the estimate */
			CHECK_U64(p->mem.pss, 100 * MiB);
		if (t == 9) { /* stale at 3/4 of PssMaxAge: the exact figure */
			CHECK_U64(p->mem.pss, 150 * MiB);
			CHECK(p->pss_age == 0);
		}
	}
	if (p) {
		CHECK(!p->det.verdict.leak);
		CHECK_NEAR(p->det.verdict.rate_bps, 0, 1024);
	}
	memz_sampler_free(&s);
out:
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK_INT(system(cmd), 0);
}

/* ---- live: same latency for a leak in a small and in a large process ---- */

/* A child that touches base bytes, then one more MiB per byte it reads from
 * *cmd, answering each with a byte on *ack. */
static pid_t spawn_leaker(size_t base, int *cmd, int *ack)
{
	int c[2], a[2];
	pid_t pid;

	if (pipe(c) || pipe(a))
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t leak_cap = 256 * MiB, off = 0;
		char *big = NULL, *leak, ch;

		close(c[1]);
		close(a[0]);
		if (base) {
			big = mmap(NULL, base, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (big == MAP_FAILED)
				_exit(1);
			/* 4 KiB pages: the expensive case for the kernel walk */
			madvise(big, base, MADV_NOHUGEPAGE);
			memset(big, 0x5a, base);
		}
		leak = mmap(NULL, leak_cap, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (leak == MAP_FAILED)
			_exit(1);
		madvise(leak, leak_cap, MADV_NOHUGEPAGE);
		if (write(a[1], "r", 1) != 1)
			_exit(1);
		while (read(c[0], &ch, 1) == 1) {
			if (off + MiB <= leak_cap) {
				memset(leak + off, 0x33, MiB);
				off += MiB;
			}
			if (write(a[1], "k", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(c[0]);
	close(a[1]);
	*cmd = c[1];
	*ack = a[0];
	return pid;
}

struct run_result {
	int flagged_at; /* cycle of the first leak verdict, -1 if none */
	unsigned exact_reads, estimated;
	double max_age;
	bool ok;
};

/* exact_max_rss: the ExactMaxRss setting, as text. */
static struct run_result leak_run(size_t base, int cycles,
				  const char *exact_max_rss)
{
	struct run_result r = { -1, 0, 0, 0, false };
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	int cmd, ack;
	char ch;
	pid_t child = spawn_leaker(base, &cmd, &ack);

	if (child <= 0 || read(ack, &ch, 1) != 1)
		return r;
	memz_settings_init(&set);
	/* its leaking children are young: judged from birth here, as
	 * warm-up is test_table's */
	set.leak_warmup = 0;
	CHECK_INT(memz_settings_set(&set, "CpuBudget", "0.05", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "ExactMaxRss", exact_max_rss, NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (s) {
		memz_snapshot_init(&snap);
		r.ok = true;
		for (int i = 0; i < cycles; i++) {
			const struct memz_proc *p = NULL;

			if (i > 0 && (write(cmd, "g", 1) != 1 ||
				      read(ack, &ch, 1) != 1)) {
				r.ok = false;
				break;
			}
			CHECK_INT(memz_sampler_run(s, 1000.0 + i, &snap), 0);
			for (size_t j = 0; j < snap.view.n_procs; j++)
				if (snap.view.procs[j]->pid == child)
					p = snap.view.procs[j];
			if (!p) {
				r.ok = false;
				break;
			}
			if (p->pss_age == 0 && !p->estimated)
				r.exact_reads++;
			if (p->estimated)
				r.estimated++;
			if (p->pss_age > r.max_age)
				r.max_age = p->pss_age;
			if (p->det.verdict.leak && r.flagged_at < 0)
				r.flagged_at = i;
		}
		memz_sampler_free(&s);
	}
	close(cmd);
	close(ack);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return r;
}

static void live_same_latency(void)
{
	struct run_result small, large, bounded;

	/* without ExactMaxRss the budget alone protects the large one */
	small = leak_run(8 * MiB, 40, "0");
	large = leak_run(1024 * MiB, 40, "0");
	CHECK(small.ok);
	CHECK(large.ok);
	fprintf(stderr,
		"live: 8 MiB flagged at cycle %d (%u exact reads), "
		"1 GiB at cycle %d (%u exact reads, max age %.0f s)\n",
		small.flagged_at, small.exact_reads, large.flagged_at,
		large.exact_reads, large.max_age);
	CHECK(small.flagged_at > 0);
	CHECK(large.flagged_at > 0);
	CHECK(abs(large.flagged_at - small.flagged_at) <= 1);
	/* the tiny budget really forced estimates on the large one */
	CHECK(large.exact_reads < 40 / 2);
	CHECK(large.max_age >= 10);

	/* above the default ExactMaxRss (512 MiB) it is never read whole,
	 * and its leak is seen as soon as the small one's */
	bounded = leak_run(1024 * MiB, 40, "536870912");
	CHECK(bounded.ok);
	fprintf(stderr, "live: 1 GiB under ExactMaxRss flagged at cycle %d "
			"(%u exact reads, %u estimated)\n",
		bounded.flagged_at, bounded.exact_reads, bounded.estimated);
	CHECK_INT(bounded.exact_reads, 0);
	CHECK(bounded.estimated > 0);
	CHECK(bounded.flagged_at > 0);
	CHECK(abs(bounded.flagged_at - small.flagged_at) <= 1);
}

static const struct memz_proc *find_proc(const struct memz_snapshot *snap,
					 pid_t pid)
{
	for (size_t i = 0; i < snap->view.n_procs; i++)
		if (snap->view.procs[i]->pid == pid)
			return snap->view.procs[i];
	return NULL;
}

/* When the host has used up its fd limit, a process memz cannot open
 * anything of is still there: it keeps its entry and history instead of
 * being swept and coming back as new, and the cycle does not fail. */
static void fds_exhausted(void)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	struct rlimit rl, low;
	int fds[512], n = 0;
	double first = -1;
	pid_t child = fork();

	if (child == 0) {
		for (;;)
			pause();
	}
	CHECK(child > 0);
	memz_settings_init(&set);
	/* its leaking children are young: judged from birth here, as
	 * warm-up is test_table's */
	set.leak_warmup = 0;
	/* no kept fds: every probe opens its files by path */
	CHECK_INT(memz_settings_set(&set, "MaxOpenFiles", "0", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	p = find_proc(&snap, child);
	CHECK(p != NULL);
	if (p)
		first = mz_pe(p)->first_seen;

	CHECK_INT(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = 256;
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < 512 && (fds[n] = dup(0)) >= 0)
		n++;
	CHECK_INT(errno, EMFILE);
	CHECK_INT(memz_sampler_run(s, 2.0, &snap), 0);
	p = find_proc(&snap, child);
	CHECK(p != NULL);
	if (p)
		CHECK(mz_pe(p)->first_seen == first);
	while (n > 0)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &rl);

	CHECK_INT(memz_sampler_run(s, 3.0, &snap), 0);
	p = find_proc(&snap, child);
	CHECK(p != NULL && mz_pe(p)->first_seen == first);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
}

int main(void)
{
	rebase_at_exact();
	live_same_latency();
	fds_exhausted();
	return check_status();
}
