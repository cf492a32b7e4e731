/*
 * test_sampler - the sampler on fixture /proc trees (tests/fixtures): exact
 * figures, identities, old kernels, garbled and unreadable files, when
 * /proc is listed and when quiet processes rest. The live /proc is in
 * test_sampler_live.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/sampler.h"
#include "sampler_util.h"
#include "../core/table_int.h" /* what the sampler keeps per process */

#define KiB 1024ull

static struct memz_sampler *open_fixture(const char *fixture, const char *extra_name,
					 const char *extra_value)
{
	struct memz_settings set;
	struct memz_sampler *s = NULL;

	settings_for(&set, fixture);
	if (extra_name)
		CHECK_INT(memz_settings_set(&set, extra_name, extra_value, NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	return s;
}

static const struct memz_group *group_named(const struct memz_snapshot *s,
					    const char *name)
{
	for (size_t i = 0; i < s->view.n_groups; i++)
		if (!strcmp(s->view.groups[i]->name, name))
			return s->view.groups[i];
	return NULL;
}

/* tree1: every number of the fixture README, through the whole sampler. */
static void fixture_tree1(void)
{
	struct memz_sampler *s = open_fixture("tree1", NULL, NULL);
	struct memz_snapshot snap;
	const struct memz_proc *p;
	const struct memz_group *g;

	if (!s)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 10.0, &snap), 0);
	CHECK_U64(snap.br.mem_total, 8388608 * KiB);
	CHECK_U64(snap.br.free, 4194304 * KiB);
	CHECK_U64(snap.br.buffers, 131072 * KiB);
	CHECK_U64(snap.br.cached, 1048576 * KiB);
	CHECK_U64(snap.br.slab, 262144 * KiB);
	CHECK_U64(snap.br.page_tables, 16384 * KiB);
	CHECK_U64(snap.br.process_anon, 37888 * KiB);
	CHECK_U64(snap.br.hidden_anon, 0);
	CHECK_U64(snap.br.kernel_residual, 2698240 * KiB);
	CHECK_U64(snap.br.kernel_stack, 8192 * KiB);
	CHECK_U64(snap.br.vmalloc_used, 32768 * KiB);
	CHECK_U64(snap.br.percpu, 4096 * KiB);
	CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);
	CHECK_INT(snap.view.n_procs, 5);
	CHECK_INT(snap.stats.kernel_threads, 1);
	CHECK(!snap.rollup_fallback);
	CHECK(!snap.pss_anon_fallback);
	CHECK(snap.psi.present);
	CHECK_NEAR(snap.psi.full.avg10, 0.01, 1e-9);
	CHECK_INT(snap.numa.n, 1);

	p = find_pid(&snap, 200);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->name, "worker");
		CHECK_INT(p->ppid, 100);
		CHECK_U64(p->start, 5100);
		CHECK_INT(p->uid, 1000);
		CHECK_U64(p->mem.rss, 13568 * KiB);
		CHECK_U64(p->mem.pss, 11520 * KiB);
		CHECK_U64(p->mem.pss_anon, 10240 * KiB);
		CHECK_U64(memz_rollup_uss(&p->mem), 10496 * KiB);
	}
	p = find_pid(&snap, 100);
	CHECK(p && p->subtree_pss == 36352 * KiB);
	CHECK(p && p->descendants == 2);
	/* started 7.00 s after boot, 100.00 s since boot, sampled at 10 */
	CHECK(p && fabs(p->born - (10.0 - 93.0)) < 1e-9);
	p = find_pid(&snap, 300);
	CHECK(p && fabs(p->born - 0.0) < 1e-9);
	g = group_named(&snap, "worker");
	CHECK(g != NULL);
	if (g) {
		CHECK_INT(g->members, 2);
		CHECK_U64(g->pss, 33280 * KiB);
		CHECK_U64(g->anon, 30720 * KiB);
		CHECK(g == snap.view.groups[0]); /* largest first */
	}
	memz_sampler_free(&s);
}

static int copy_tree(const char *from, const char *to)
{
	char cmd[4096];

	snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", to, from, to);
	return system(cmd);
}

/* A pid reused by another process is a new identity. Fixture files are
 * plain files, so a kept fd would keep reading the old ones: with
 * MaxOpenFiles 0 every cycle goes by stat's start time, which is what the
 * sampler falls back to above its fd budget. */
static void fixture_pid_reuse(void)
{
	char tmp[] = "/tmp/memz-reuse.XXXXXX", from[1024], to[1100];
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;

	if (!mkdtemp(tmp)) {
		CHECK(0);
		return;
	}
	snprintf(to, sizeof to, "%s/t", tmp);
	snprintf(from, sizeof from, "%s/tree1", MEMZ_FIXTURES);
	CHECK_INT(copy_tree(from, to), 0);
	memz_settings_init(&set);
	settings_under(&set, to);
	memz_settings_set(&set, "MaxOpenFiles", "0", NULL, 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	p = find_pid(&snap, 201);
	CHECK(p && p->start == 5200 && !strcmp(p->name, "worker"));

	snprintf(from, sizeof from, "%s/tree1-reused/proc/201", MEMZ_FIXTURES);
	snprintf(to, sizeof to, "%s/t/proc/201", tmp);
	CHECK_INT(copy_tree(from, to), 0);
	snprintf(from, sizeof from, "%s/tree1-reused/proc/meminfo", MEMZ_FIXTURES);
	snprintf(to, sizeof to, "%s/t/proc/meminfo.new", tmp);
	{
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "cp '%s' '%s' && mv '%s' '%s/t/proc/meminfo'",
			 from, to, to, tmp);
		CHECK_INT(system(cmd), 0);
	}
	CHECK_INT(memz_sampler_run(s, 2.0, &snap), 0);
	p = find_pid(&snap, 201);
	CHECK(p != NULL);
	if (p) {
		CHECK_U64(p->start, 901234);
		CHECK_STR(p->name, "cron");
		CHECK_INT(p->ppid, 1);
		CHECK_NEAR(mz_pe(p)->first_seen, 2.0, 0); /* a fresh entry and history */
	}
	CHECK_INT(snap.stats.new_procs, 1);
	memz_sampler_free(&s);
	snprintf(to, sizeof to, "rm -rf '%s'", tmp);
	CHECK_INT(system(to), 0);
}

/* Rewrite tmp/rel in place: the sampler keeps some files open. */
static void put_file(const char *tmp, const char *rel, const char *text)
{
	char path[1200];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmp, rel);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* No exact reads but the first, so files_read counts the probes; without
 * kept fds (MaxOpenFiles 0) a removed directory is an exit in a fixture
 * tree. Setting name, value pairs for watched_open(). */
static const char *const no_exact[] = { "PssRefreshCycles", "100000",
					"PssMaxAge", "86400", NULL };
static const char *const no_exact_no_fds[] = { "PssRefreshCycles", "100000",
					       "PssMaxAge", "86400",
					       "MaxOpenFiles", "0", NULL };

/* A copy of tree1 in tmp (a mkdtemp template) with a loadavg and a self
 * naming us in the initial pid namespace, so that the sampler's pid watch
 * is on and counts exits; to gets the copy's root. watched_close() removes
 * it. */
static bool watched_copy(char *tmp, char *to, size_t cap)
{
	char from[1024], cmd[4096];

	if (!mkdtemp(tmp)) {
		CHECK(0);
		return false;
	}
	snprintf(to, cap, "%s/t", tmp);
	snprintf(from, sizeof from, "%s/tree1", MEMZ_FIXTURES);
	CHECK_INT(copy_tree(from, to), 0);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 500\n");
	snprintf(cmd, sizeof cmd, "ln -s %ld '%s/proc/self' && mkdir -p "
		 "'%s/proc/%ld/ns' && ln -s 'pid:[4026531836]' '%s/proc/%ld/ns/pid'",
		 (long)getpid(), to, to, (long)getpid(), to, (long)getpid());
	CHECK_INT(system(cmd), 0);
	return true;
}

/* A sampler of the copy at to with opts (name, value pairs, NULL-ended;
 * NULL: none) set, and snap ready for it. NULL when it cannot be made (a
 * failed check). */
static struct memz_sampler *sampler_at(const char *to, const char *const *opts,
				       struct memz_snapshot *snap)
{
	struct memz_settings set;
	struct memz_sampler *s = NULL;

	memz_settings_init(&set);
	settings_under(&set, to);
	for (; opts && *opts; opts += 2)
		CHECK_INT(memz_settings_set(&set, opts[0], opts[1], NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (s)
		memz_snapshot_init(snap);
	return s;
}

/* watched_copy(), then sampler_at() of it. */
static struct memz_sampler *watched_open(char *tmp, char *to, size_t cap,
					 const char *const *opts,
					 struct memz_snapshot *snap)
{
	if (!watched_copy(tmp, to, cap))
		return NULL;
	return sampler_at(to, opts, snap);
}

/* After a watched_open(): the snapshot, the sampler and the copy go. */
static void watched_close(const char *tmp, struct memz_sampler **s,
			  struct memz_snapshot *snap)
{
	char cmd[1100];

	memz_snapshot_release(snap);
	memz_sampler_free(s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK_INT(system(cmd), 0);
}

/* /proc is listed only when a pid was handed out (the last pid in loadavg
 * moved), or once in 16 cycles. A process directory that appears without
 * that shows the table being walked instead: it is not seen until the
 * loadavg moves or the sixteenth cycle. */
static void fixture_listing(void)
{
	char tmp[] = "/tmp/memz-listing.XXXXXX", to[1100], cmd[4096];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	size_t n1;
	int cycle;

	s = watched_open(tmp, to, sizeof to, NULL, &snap);
	if (!s)
		return;

	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	CHECK(snap.stats.listed);
	n1 = snap.view.n_procs;
	CHECK(n1 > 0 && !find_pid(&snap, 700));
	CHECK_INT(memz_sampler_run(s, 2.0, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK_INT(snap.view.n_procs, n1); /* the walk probes every one */
	CHECK_INT(snap.stats.vanished, 0);

	snprintf(cmd, sizeof cmd, "cp -a '%s/proc/300' '%s/proc/700'", to, to);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(memz_sampler_run(s, 3.0, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(!find_pid(&snap, 700));
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 700\n");
	CHECK_INT(memz_sampler_run(s, 4.0, &snap), 0);
	CHECK(snap.stats.listed);
	CHECK(find_pid(&snap, 700) != NULL);
	CHECK_INT(snap.stats.new_procs, 1);
	CHECK_INT(snap.view.n_procs, n1 + 1);

	/* the safety net: listed on cycle 16 whatever loadavg says */
	snprintf(cmd, sizeof cmd, "cp -a '%s/proc/300' '%s/proc/701'", to, to);
	CHECK_INT(system(cmd), 0);
	for (cycle = 5; cycle < 16; cycle++) {
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
		CHECK(!snap.stats.listed);
		CHECK(!find_pid(&snap, 701));
	}
	CHECK_INT(memz_sampler_run(s, 16.0, &snap), 0);
	CHECK(snap.stats.listed);
	CHECK(find_pid(&snap, 701) != NULL);

	watched_close(tmp, &s, &snap);
}

/* A process whose statm has not moved for 10 probes is probed every other
 * cycle while no task was created or exited, and after 20 every fourth: a
 * change made on a cycle it rests is seen on the next one it does not, and
 * listing cycles probe everyone. */
static void fixture_quiet_probes(void)
{
	char tmp[] = "/tmp/memz-quiet.XXXXXX", to[1100];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	unsigned reads_all = 0;
	int cycle;

	s = watched_open(tmp, to, sizeof to, no_exact, &snap);
	if (!s)
		return;
	for (cycle = 1; cycle <= 12; cycle++) {
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
		if (cycle == 11) /* the tenth quiet probe: from now on it rests */
			reads_all = snap.stats.files_read;
		if (cycle == 12)
			CHECK(snap.stats.files_read < reads_all);
	}
	CHECK(reads_all > 0);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->statm_last.resident == 544 && mz_pe(p)->quiet_probes == 11);

	/* cycle 13 is one pid 300 rests on (300 + 13 is odd) */
	put_file(to, "proc/300/statm", "1888 800 288 289 0 520 0\n");
	CHECK_INT(memz_sampler_run(s, 13, &snap), 0);
	CHECK(!snap.stats.listed);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->statm_last.resident == 544);
	CHECK_INT(memz_sampler_run(s, 14, &snap), 0);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->statm_last.resident == 800);
	CHECK(p && mz_pe(p)->quiet_probes == 0);
	CHECK_INT(memz_sampler_run(s, 15, &snap), 0); /* probed: it changed */
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes == 1);
	CHECK_INT(memz_sampler_run(s, 16, &snap), 0);
	CHECK(snap.stats.listed); /* once in 16 cycles: everyone probed */
	/* and the listing tries our own pid's directory, which in the copy
	 * holds only ns/pid */
	CHECK_INT(snap.stats.files_read, reads_all + 1);

	/* quiet for 20 probes: every fourth cycle, here 204 for pid 300 */
	for (cycle = 17; cycle <= 200; cycle++)
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes == 20);
	put_file(to, "proc/300/statm", "1888 900 288 289 0 520 0\n");
	for (cycle = 201; cycle <= 203; cycle++) {
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
		p = find_pid(&snap, 300);
		CHECK(p && mz_pe(p)->statm_last.resident == 800);
	}
	CHECK_INT(memz_sampler_run(s, 204, &snap), 0);
	CHECK(!snap.stats.listed);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->statm_last.resident == 900);

	/* a task exited (the count in loadavg went down, the last pid did
	 * not move): no one rests, since the one that exited could be any of
	 * them; pid 200 would rest on cycle 205 */
	p = find_pid(&snap, 200);
	CHECK(p && mz_pe(p)->quiet_probes == 20 && mz_pe(p)->statm_last.resident == 3392);
	put_file(to, "proc/200/statm", "999 555 1 1 0 1 0\n");
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/99 500\n");
	CHECK_INT(memz_sampler_run(s, 205, &snap), 0);
	CHECK(!snap.stats.listed);
	p = find_pid(&snap, 200);
	CHECK(p && mz_pe(p)->statm_last.resident == 555);

	watched_close(tmp, &s, &snap);
}

/* No quiet process rests while a watched cgroup is near its limit at the
 * rate it grows (oom.h, memz_oom_restless): a process that exited there
 * on a cycle it would rest on (300 + 13 is odd), a zombie its parent has
 * not reaped (statm all zeros; the task count did not move), is probed
 * and seen emptied in that cycle, not up to three later. */
static void fixture_oom_restless(void)
{
	char tmp[] = "/tmp/memz-restless.XXXXXX", to[1100], cmd[1300];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	int cycle;

	if (!watched_copy(tmp, to, sizeof to))
		return;
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/sys/fs/cgroup/memory/box'",
		 to);
	CHECK_INT(system(cmd), 0);
	put_file(to, "sys/fs/cgroup/memory/memory.usage_in_bytes", "1\n");
	put_file(to, "sys/fs/cgroup/memory/memory.limit_in_bytes",
		 "9223372036854771712\n");
	put_file(to, "sys/fs/cgroup/memory/box/memory.limit_in_bytes",
		 "268435456\n");
	put_file(to, "sys/fs/cgroup/memory/box/memory.usage_in_bytes",
		 "134217728\n");
	put_file(to, "sys/fs/cgroup/memory/box/memory.oom_control",
		 "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	s = sampler_at(to, no_exact, &snap);
	if (!s)
		return;
	for (cycle = 1; cycle <= 12; cycle++)
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
	CHECK(snap.stats.rested);
	CHECK_INT(snap.oom.n_scopes, 2);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes >= 10 &&
	      mz_pe(p)->statm_last.resident == 544);

	/* +112 MiB in a cycle, 16 MiB left */
	put_file(to, "sys/fs/cgroup/memory/box/memory.usage_in_bytes",
		 "251658240\n");
	put_file(to, "proc/300/statm", "0 0 0 0 0 0 0\n");
	CHECK_INT(memz_sampler_run(s, 13, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(!snap.stats.rested);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->statm_last.resident == 0);

	/* flat again: they rest */
	CHECK_INT(memz_sampler_run(s, 14, &snap), 0);
	CHECK(snap.stats.rested);
	watched_close(tmp, &s, &snap);
}

/*
 * A process that moved between the cycle's statm probe and its exact read
 * (the probe saw a 48 MiB batch spike, the read came after its free): the
 * read's statm is its own resident and anonymous figures, not the probe's,
 * so statm still showing the spike reads as 48 MiB more than the read
 * (without statm_at_read: as unchanged, 48 MiB low, and once the spike is
 * freed clamped to 0, as the busy host's spiky leaker read for seconds).
 */
static void fixture_moved_between_reads(void)
{
	char tmp[] = "/tmp/memz-moved.XXXXXX", to[1100];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;

	s = watched_open(tmp, to, sizeof to, no_exact, &snap);
	if (!s)
		return;
	put_file(to, "proc/200/statm", "22464 15680 832 577 0 14856 0\n");
	CHECK_INT(memz_sampler_run(s, 1, &snap), 0);
	p = find_pid(&snap, 200);
	CHECK(p && mz_pe(p)->statm_last.resident == 15680);
	CHECK(p && mz_pe(p)->statm_at_exact.resident == 3392 &&
	      mz_pe(p)->statm_at_exact.shared == 832);
	CHECK_INT(memz_sampler_run(s, 2, &snap), 0);
	p = find_pid(&snap, 200);
	CHECK(p && p->mem.pss == (11520 + 49152) * KiB &&
	      p->mem.rss == (13568 + 49152) * KiB);
	put_file(to, "proc/200/statm", "10176 3392 832 577 0 2568 0\n");
	CHECK_INT(memz_sampler_run(s, 3, &snap), 0);
	p = find_pid(&snap, 200);
	CHECK(p && p->mem.pss == 11520 * KiB && p->mem.rss == 13568 * KiB);
	watched_close(tmp, &s, &snap);

	/* a gap within the counters' lag keeps the probe's statm, so a
	 * process that then holds still reads as unchanged */
	strcpy(tmp, "/tmp/memz-moved.XXXXXX");
	s = watched_open(tmp, to, sizeof to, no_exact, &snap);
	if (!s)
		return;
	put_file(to, "proc/200/statm", "10176 3400 832 577 0 2568 0\n");
	CHECK_INT(memz_sampler_run(s, 1, &snap), 0);
	p = find_pid(&snap, 200);
	CHECK(p && mz_pe(p)->statm_at_exact.resident == 3400 &&
	      mz_pe(p)->statm_at_exact.shared == 832);
	watched_close(tmp, &s, &snap);
}

/* tree1's pid 300 line of stat, as pid with comm, started at ticks */
static void put_stat(const char *to, int pid, const char *comm, int ticks)
{
	char rel[64], text[512];

	snprintf(rel, sizeof rel, "proc/%d/stat", pid);
	snprintf(text, sizeof text, "%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 9 21 0 0 20 0 1 0 %d 6684672 544 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", pid, comm,
		 pid, pid, ticks);
	put_file(to, rel, text);
}

/*
 * A process seen before its exec keeps no wrong name: one first seen
 * young has its name read again at its next probe (an exec of the same
 * binary, as a shell running a script, changes no statm figure), and any
 * process whose text size changes (an exec of another binary) at once.
 * Without it the busy host's redis-server stayed "planted", its spawner.
 */
static void fixture_exec_names(void)
{
	char tmp[] = "/tmp/memz-exec.XXXXXX", to[1100], cmd[2400];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;

	s = watched_open(tmp, to, sizeof to, no_exact, &snap);
	if (!s)
		return;
	/* uptime 100 s: 400 forked half a second ago */
	snprintf(cmd, sizeof cmd, "cp -a '%s/proc/300' '%s/proc/400'", to, to);
	CHECK_INT(system(cmd), 0);
	put_stat(to, 400, "planted", 9950);
	CHECK_INT(memz_sampler_run(s, 1, &snap), 0);
	p = find_pid(&snap, 400);
	CHECK(p && !strcmp(p->name, "planted"));
	put_stat(to, 400, "redis-server", 9950);
	CHECK_INT(memz_sampler_run(s, 2, &snap), 0);
	p = find_pid(&snap, 400);
	CHECK(p && !strcmp(p->name, "redis-server"));

	/* 300, ten seconds old, execs make: its text is make's */
	put_stat(to, 300, "make", 9000);
	put_file(to, "proc/300/statm", "1632 544 288 301 0 264 0\n");
	CHECK_INT(memz_sampler_run(s, 3, &snap), 0);
	p = find_pid(&snap, 300);
	CHECK(p && !strcmp(p->name, "make") && mz_pe(p)->exec_t == 3);
	/* but stat is not read each cycle for a name: a comm set by the
	 * process itself (prctl) shows at its next exec or flag */
	put_stat(to, 300, "renamed", 9000);
	put_file(to, "proc/300/statm", "1632 600 288 301 0 320 0\n");
	CHECK_INT(memz_sampler_run(s, 4, &snap), 0);
	p = find_pid(&snap, 300);
	CHECK(p && !strcmp(p->name, "make"));
	watched_close(tmp, &s, &snap);
}

/* pid's directory in the copy at to goes: its exit, without kept fds. */
static void remove_pid(const char *to, int pid)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "rm -rf '%s/proc/%d'", to, pid);
	CHECK_INT(system(cmd), 0);
}

/* A copy of pid 200 as pid `pid` of thread group tgid. */
static void add_task(const char *to, int pid, int tgid)
{
	char cmd[4096], name[64], text[512];

	snprintf(cmd, sizeof cmd, "cp -a '%s/proc/200' '%s/proc/%d'", to, to, pid);
	CHECK_INT(system(cmd), 0);
	snprintf(name, sizeof name, "proc/%d/status", pid);
	snprintf(text, sizeof text,
		 "Name:\tbash\nTgid:\t%d\nPid:\t%d\nPPid:\t1\n"
		 "Uid:\t1000\t1000\t1000\t1000\nVmHWM:\t 2432 kB\n"
		 "VmRSS:\t 2176 kB\nVmSwap:\t 0 kB\n", tgid, pid);
	put_file(to, name, text);
	snprintf(name, sizeof name, "proc/%d/stat", pid);
	snprintf(text, sizeof text,
		 "%d (bash) S 1 %d %d 0 -1 4194560 100 0 0 0 6 14 0 0 20 0 1 "
		 "0 %d 6684672 544 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
		 "17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", pid, tgid, tgid, 9000 + pid);
	put_file(to, name, text);
}

/* Fork churn: pids handed out since the last cycle are looked up one by
 * one instead of listing /proc, and a short-lived process that started
 * and exited in between (the task count did not move) lets quiet
 * processes go on resting. A new process and a new thread in the span are
 * told apart by Tgid, and an exit the span does not explain (the count
 * fell) has everyone probed, so a resting process that exited is swept on
 * that very cycle. */
static void fixture_churn(void)
{
	char tmp[] = "/tmp/memz-churn.XXXXXX", to[1100];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	size_t n1;
	int cycle;

	s = watched_open(tmp, to, sizeof to, no_exact_no_fds, &snap);
	if (!s)
		return;
	for (cycle = 1; cycle <= 12; cycle++)
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
	n1 = snap.view.n_procs;
	CHECK(!snap.stats.listed && snap.stats.rested);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes >= 10);

	/* ten short-lived processes came and went: no listing, still resting */
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 510\n");
	CHECK_INT(memz_sampler_run(s, 13, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(snap.stats.rested);
	CHECK_INT(snap.stats.span_lookups, 10);
	CHECK_INT(snap.view.n_procs, n1);
	CHECK_INT(snap.stats.vanished, 0);

	/* one of the span lives on: found, and the count explains it */
	add_task(to, 515, 515);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 520\n");
	CHECK_INT(memz_sampler_run(s, 14, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(snap.stats.rested);
	CHECK_INT(snap.stats.new_procs, 1);
	p = find_pid(&snap, 515);
	CHECK(p && p->start == 9515);
	CHECK_INT(snap.view.n_procs, n1 + 1);

	/* a thread of 515: a task the count explains, not a process */
	add_task(to, 525, 515);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/102 530\n");
	CHECK_INT(memz_sampler_run(s, 15, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(snap.stats.rested);
	CHECK(!find_pid(&snap, 525));
	CHECK_INT(snap.stats.new_procs, 0);
	CHECK_INT(snap.view.n_procs, n1 + 1);
	/* the thread ends (a real listing would not show it) */
	remove_pid(to, 525);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 530\n");

	/* pid 300 exits on a cycle it would rest on (300 + 17 is odd), amid
	 * churn: the count fell by one the span does not explain */
	CHECK_INT(memz_sampler_run(s, 16, &snap), 0); /* the safety listing */
	CHECK(snap.stats.listed);
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes >= 10);
	remove_pid(to, 300);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 540\n");
	CHECK_INT(memz_sampler_run(s, 17, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(!snap.stats.rested);
	CHECK(!find_pid(&snap, 300));
	CHECK_INT(snap.stats.vanished, 1);
	CHECK(find_pid(&snap, 200) != NULL);

	/* the next cycle, all accounted for again, they rest */
	CHECK_INT(memz_sampler_run(s, 18, &snap), 0);
	CHECK(snap.stats.rested);

	/* a fork and an exit in the same interval: the count stays, the
	 * span finds one task, and the one that exited is young, probed
	 * every cycle, and so found gone before the quiet ones' turn */
	add_task(to, 545, 545);
	remove_pid(to, 515);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 550\n");
	CHECK_INT(memz_sampler_run(s, 19, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(snap.stats.rested);
	CHECK(!find_pid(&snap, 515));
	CHECK(find_pid(&snap, 545) != NULL);
	CHECK_INT(snap.stats.vanished, 1);

	/* a span too long to look up is listed */
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 750\n");
	CHECK_INT(memz_sampler_run(s, 20, &snap), 0);
	CHECK(snap.stats.listed);
	CHECK_INT(snap.stats.span_lookups, 0);

	/* the same, but the one that exited is quiet pid 200 on a cycle it
	 * rests (200 + 21 is odd): the quiet ones are all probed */
	p = find_pid(&snap, 200);
	CHECK(p && mz_pe(p)->quiet_probes >= 10);
	add_task(to, 755, 755);
	remove_pid(to, 200);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/100 760\n");
	CHECK_INT(memz_sampler_run(s, 21, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(!snap.stats.rested);
	CHECK(!find_pid(&snap, 200));
	CHECK(find_pid(&snap, 755) != NULL);
	CHECK_INT(snap.stats.vanished, 1);

	watched_close(tmp, &s, &snap);
}

/* A kernel thread is probed once in 16 cycles, so its exit is counted in
 * the cycle it happened and found only at its next probe. Found then, it
 * explains nothing of that cycle: a quiet process that exits on the cycle
 * the dead kernel thread is due (pid 2: cycles 30, 46) is swept at once. */
static void fixture_kthread_exit(void)
{
	char tmp[] = "/tmp/memz-kthread.XXXXXX", to[1100];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	int cycle;

	s = watched_open(tmp, to, sizeof to, no_exact_no_fds, &snap);
	if (!s)
		return;
	for (cycle = 1; cycle <= 40; cycle++)
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
	CHECK(snap.stats.rested);
	CHECK_INT(snap.stats.kernel_threads, 1);

	/* kthreadd exits on a cycle it is not probed: no one rests */
	remove_pid(to, 2);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/99 500\n");
	CHECK_INT(memz_sampler_run(s, 41, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(!snap.stats.rested);
	CHECK_INT(snap.stats.kernel_threads, 1);
	for (cycle = 42; cycle <= 45; cycle++) {
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
		CHECK(snap.stats.rested);
	}

	/* 300 exits on a cycle it would rest on (346 is not a multiple of
	 * 4), the cycle kthreadd is due and found gone */
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes >= 20);
	remove_pid(to, 300);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/98 500\n");
	CHECK_INT(memz_sampler_run(s, 46, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK(!snap.stats.rested);
	CHECK(!find_pid(&snap, 300));
	CHECK_INT(snap.stats.kernel_threads, 0);
	CHECK(find_pid(&snap, 200) != NULL);

	watched_close(tmp, &s, &snap);
}

/* In a container the task count in loadavg is the whole machine's: an
 * exit here and a fork on the host leave it as it was. So no one rests
 * there, and a quiet process that exits is swept on the next cycle. */
static void fixture_container_exit(void)
{
	char tmp[] = "/tmp/memz-pidns.XXXXXX", to[1100], cmd[4096];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	int cycle;

	if (!watched_copy(tmp, to, sizeof to))
		return;
	snprintf(cmd, sizeof cmd, "ln -sfn 'pid:[4026532199]' '%s/proc/%ld/ns/pid'",
		 to, (long)getpid());
	CHECK_INT(system(cmd), 0);
	s = sampler_at(to, no_exact_no_fds, &snap);
	if (!s)
		return;
	for (cycle = 1; cycle <= 40; cycle++) {
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
		CHECK(!snap.stats.rested);
	}
	CHECK(!snap.stats.listed); /* new pids are still told */
	p = find_pid(&snap, 300);
	CHECK(p && mz_pe(p)->quiet_probes >= 20);
	remove_pid(to, 300);
	CHECK_INT(memz_sampler_run(s, 41, &snap), 0); /* 341: would rest */
	CHECK(!snap.stats.listed);
	CHECK(!find_pid(&snap, 300));
	CHECK_INT(snap.stats.vanished, 1);

	watched_close(tmp, &s, &snap);
}

/* A pid handed out again (it is in the span) is checked by stat's start
 * time even while a kept statm fd still reads: the new process gets a new
 * entry, with none of the old one's history. */
static void fixture_span_reuse(void)
{
	char tmp[] = "/tmp/memz-reuse.XXXXXX", to[1100];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	int cycle;

	s = watched_open(tmp, to, sizeof to, NULL, &snap);
	if (!s)
		return;
	add_task(to, 505, 505);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 505\n");
	for (cycle = 1; cycle <= 5; cycle++)
		CHECK_INT(memz_sampler_run(s, cycle, &snap), 0);
	p = find_pid(&snap, 505);
	CHECK(p && p->start == 9505 && mz_pe(p)->first_seen == 1.0);
	CHECK(p && mz_pe(p)->statm_fd >= 0);
	/* pids wrapped (listed), then 505 was handed out again */
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 400\n");
	CHECK_INT(memz_sampler_run(s, 6, &snap), 0);
	CHECK(snap.stats.listed);
	remove_pid(to, 505);
	add_task(to, 505, 505);
	put_file(to, "proc/505/stat",
		 "505 (bash) S 1 505 505 0 -1 4194560 100 0 0 0 6 14 0 0 20 0 1 "
		 "0 77777 6684672 544 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
		 "17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 510\n");
	CHECK_INT(memz_sampler_run(s, 7, &snap), 0);
	CHECK(!snap.stats.listed);
	CHECK_INT(snap.stats.new_procs, 1);
	p = find_pid(&snap, 505);
	CHECK(p && p->start == 77777 && mz_pe(p)->first_seen == 7.0);

	/* kernel thread 2 is probed once in 16 cycles, but its pid handed
	 * out again (wrapped, then 2 in the span) is looked at at once */
	CHECK(!find_pid(&snap, 2)); /* kernel threads are not in the view */
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 1\n");
	CHECK_INT(memz_sampler_run(s, 8, &snap), 0);
	CHECK(snap.stats.listed);
	remove_pid(to, 2);
	add_task(to, 2, 2);
	put_file(to, "proc/loadavg", "0.00 0.00 0.00 1/101 3\n");
	CHECK_INT(memz_sampler_run(s, 9, &snap), 0);
	CHECK(!snap.stats.listed);
	p = find_pid(&snap, 2);
	CHECK(p && !p->kernel_thread && p->start == 9002);
	watched_close(tmp, &s, &snap);
}

/* Above ExactMaxRss a process is never read by smaps_rollup, first read
 * included: its figures come from status, PSS as RSS (an upper bound),
 * flagged as an estimate; the rest are read exactly. pid 201 is 23,808 kB
 * resident (PSS 21,760 by smaps_rollup), pid 200 13,568 kB. */
static void fixture_exact_max_rss(void)
{
	struct memz_sampler *s = open_fixture("tree1", "ExactMaxRss", "16777216");
	struct memz_snapshot snap;
	const struct memz_proc *p;
	unsigned reads;

	memz_snapshot_init(&snap);
	if (!s)
		return;
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	CHECK_INT(snap.stats.estimated, 1);
	reads = snap.stats.rollup_reads;
	p = find_pid(&snap, 201);
	CHECK(p && p->estimated);
	CHECK(p && p->mem.rss == 23808 * KiB && p->mem.pss == 23808 * KiB);
	CHECK(p && p->mem.pss_anon == 20480 * KiB && p->mem.pss_file == 2304 * KiB &&
	      p->mem.pss_shmem == 1024 * KiB);
	CHECK(p && p->mem.pss >= 21760 * KiB); /* never below the truth */
	CHECK(p && p->vm_hwm == 24064 * KiB);
	p = find_pid(&snap, 200);
	CHECK(p && !p->estimated && p->mem.pss == 11520 * KiB);
	memz_sampler_free(&s);

	/* without the bound, 201 is read exactly like everyone */
	s = open_fixture("tree1", "ExactMaxRss", "0");
	if (!s)
		return;
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	CHECK_INT(snap.stats.estimated, 0);
	CHECK_INT(snap.stats.rollup_reads, reads + 1);
	p = find_pid(&snap, 201);
	CHECK(p && !p->estimated && p->mem.pss == 21760 * KiB);
	memz_sampler_free(&s);
}

/* Old kernels: no smaps_rollup (smaps summed), no Pss_Anon (Anonymous),
 * and the snapshot says which was used. */
static void fixture_old_kernels(void)
{
	struct memz_sampler *s = open_fixture("no-rollup", NULL, NULL);
	struct memz_snapshot snap;
	const struct memz_proc *p;

	memz_snapshot_init(&snap);
	if (s) {
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
		CHECK(snap.rollup_fallback);
		CHECK(snap.pss_anon_fallback);
		CHECK(!snap.psi.present);
		CHECK_INT(snap.numa.n, 0);
		p = find_pid(&snap, 77);
		CHECK(p && p->mem.rss == 70144 * KiB && p->mem.pss == 68096 * KiB);
		CHECK(p && p->mem.pss_anon == 65536 * KiB);
		CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);
		memz_sampler_free(&s);
	}
	s = open_fixture("no-pss-anon", NULL, NULL);
	if (s) {
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
		CHECK(!snap.rollup_fallback);
		CHECK(snap.pss_anon_fallback);
		p = find_pid(&snap, 60);
		CHECK(p && p->mem.pss_anon == 3000 * KiB);
		CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);
		memz_sampler_free(&s);
	}
}

/* Vanished files, garbled files and a hostile name: never an error for the
 * cycle, and only the healthy processes are sampled. */
static void fixture_edges(void)
{
	struct memz_sampler *s = open_fixture("vanished", NULL, NULL);
	struct memz_snapshot snap;
	const struct memz_proc *p;

	memz_snapshot_init(&snap);
	if (s) {
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
		CHECK(find_pid(&snap, 500) == NULL);
		memz_sampler_free(&s);
	}
	s = open_fixture("garbled", NULL, NULL);
	if (s) {
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
		CHECK(find_pid(&snap, 1) != NULL);
		CHECK(find_pid(&snap, 10) == NULL); /* stat cut short */
		CHECK(find_pid(&snap, 11) == NULL); /* statm garbled */
		CHECK(find_pid(&snap, 12) == NULL); /* rollup without Pss */
		CHECK(find_pid(&snap, 14) == NULL); /* rollup cut short */
		CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);
		memz_sampler_free(&s);
	}
	s = open_fixture("weird-comm", NULL, NULL);
	if (s) {
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
		p = find_pid(&snap, 4242);
		CHECK(p != NULL);
		if (p) {
			CHECK_STR(p->name, "a) (b\nc ) Z");
			CHECK_INT(p->state, 'S');
			CHECK_U64(p->start, 777);
		}
		memz_sampler_free(&s);
	}
	s = open_fixture("garbled-meminfo", NULL, NULL);
	if (s) {
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), -EINVAL);
		memz_sampler_free(&s);
	}
}


/* An unreadable process (smaps_rollup refused): it is counted as denied and
 * its anonymous memory is hidden_anon, exactly. The copy's smaps_rollup is
 * made mode 000 and read as nobody, since root ignores file modes. */
static void fixture_unreadable(void)
{
	char tmp[] = "/tmp/memz-unread.XXXXXX", from[1024], cmd[4096];
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		fprintf(stderr, "fixture_unreadable: not root, part skipped\n");
		return;
	}
	if (!mkdtemp(tmp)) {
		CHECK(0);
		return;
	}
	snprintf(from, sizeof from, "%s/unreadable", MEMZ_FIXTURES);
	snprintf(cmd, sizeof cmd,
		 "cp -a '%s/.' '%s' && chmod -R a+rX '%s' && "
		 "chmod 000 '%s/proc/600/smaps_rollup'", from, tmp, tmp, tmp);
	CHECK_INT(system(cmd), 0);
	pid = fork();
	if (pid == 0) {
		struct memz_settings set;
		struct memz_sampler *s;
		struct memz_snapshot snap;
		char root[MEMZ_PATH_MAX];
		int bad = 0;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		memz_settings_init(&set);
		snprintf(root, sizeof root, "%s/proc", tmp);
		memz_settings_set(&set, "ProcRoot", root, NULL, 0);
		snprintf(root, sizeof root, "%s/sys", tmp);
		memz_settings_set(&set, "SysRoot", root, NULL, 0);
		if (memz_sampler_new(&s, &set, memz_allocator_libc()))
			_exit(4);
		memz_snapshot_init(&snap);
		if (memz_sampler_run(s, 1.0, &snap))
			_exit(5);
		bad |= snap.stats.denied != 1 ? 8 : 0;
		bad |= snap.br.process_anon != 4096 * KiB ? 16 : 0;
		bad |= snap.br.hidden_anon != 2048 * KiB ? 32 : 0;
		bad |= parts_sum(&snap.br) != snap.br.mem_total ? 64 : 0;
		bad |= find_pid(&snap, 600) != NULL ? 128 : 0;
		memz_sampler_free(&s);
		_exit(bad);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK_INT(system(cmd), 0);
}

/* The breakdown is steady under churn: a process that started after the
 * meminfo read, 300 MiB of anonymous memory meminfo does not hold yet (or
 * a process's figure older or newer than the read), moves neither
 * kernel_residual nor hidden_anon; process_anon stays AnonPages. */
static void fixture_steady_breakdown(void)
{
	char tmp[] = "/tmp/memz-steady.XXXXXX", from[1024], to[1100],
	     cmd[6144];
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	uint64_t residual;

	if (!mkdtemp(tmp)) {
		CHECK(0);
		return;
	}
	snprintf(to, sizeof to, "%s/t", tmp);
	snprintf(from, sizeof from, "%s/tree1", MEMZ_FIXTURES);
	CHECK_INT(copy_tree(from, to), 0);
	memz_settings_init(&set);
	settings_under(&set, to);
	memz_settings_set(&set, "MaxOpenFiles", "0", NULL, 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	residual = snap.br.kernel_residual;
	CHECK_U64(residual, 2698240 * KiB);
	CHECK_U64(snap.br.process_anon, 37888 * KiB);

	snprintf(cmd, sizeof cmd,
		 "cp -a '%s/proc/300' '%s/proc/700' && sed -i "
		 "-e 's/^\\(Rss\\|Pss\\|Pss_Anon\\|Anonymous\\|Private_Dirty\\):.*/\\1: 307200 kB/' "
		 "'%s/proc/700/smaps_rollup' && "
		 "echo '77000 76800 0 289 0 76800 0' >'%s/proc/700/statm'",
		 to, to, to, to);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(memz_sampler_run(s, 2.0, &snap), 0);
	CHECK(find_pid(&snap, 700) != NULL);
	CHECK_U64(find_pid(&snap, 700)->mem.pss_anon, 307200 * KiB);
	CHECK_U64(snap.br.kernel_residual, residual);
	CHECK_U64(snap.br.hidden_anon, 0);
	CHECK_U64(snap.br.process_anon, 37888 * KiB);
	CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);

	/* and gone again: nothing is called hidden */
	snprintf(cmd, sizeof cmd, "rm -rf '%s/proc/700' '%s/proc/300'", to, to);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(memz_sampler_run(s, 3.0, &snap), 0);
	CHECK(find_pid(&snap, 300) == NULL);
	CHECK_U64(snap.br.kernel_residual, residual);
	CHECK_U64(snap.br.hidden_anon, 0);
	CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);
	memz_sampler_free(&s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK_INT(system(cmd), 0);
}

/* The breakdown adds up to MemTotal exactly, on a real capture. */
static void fixture_real1(void)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct counting c = { 0, 0, 0 };
	struct memz_allocator a = { counting_realloc, &c };
	unsigned long before = 0;

	settings_for(&set, "real1");
	CHECK_INT(memz_sampler_new(&s, &set, &a), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	for (int i = 0; i < 30; i++) {
		if (i == 2)
			before = c.allocs;
		CHECK_INT(memz_sampler_run(s, 100.0 + i, &snap), 0);
	}
	/* steady state: nothing allocated after the first cycles */
	CHECK_INT(c.allocs - before, 0);
	CHECK(snap.br.mem_total > 0);
	CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);
	CHECK(snap.view.n_procs >= 3);
	CHECK(find_pid(&snap, 2) == NULL); /* kthreadd: no memory of its own */
	CHECK(find_pid(&snap, 1185) != NULL);
	/* the capture has no uptime: an age not known is not made up */
	CHECK(find_pid(&snap, 1185) &&
	      find_pid(&snap, 1185)->born == -INFINITY);
	CHECK(snap.stats.kernel_threads >= 1);
	/* unchanged processes are re-read only every PssRefreshCycles */
	CHECK(snap.stats.rollup_skipped > 0);
	memz_sampler_free(&s);
	CHECK_INT(c.live, 0);
}

/* The caller is told which file failed, to print it: at open and when a
 * cycle fails (meminfo garbled). */
static void fixture_failed_path(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_settings set;
	struct memz_sampler *sm = NULL;
	struct memz_snapshot snap;
	char failed[512], want[512];

	memz_settings_init(&set);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", "/nonexistent/memz", NULL,
				    0), 0);
	CHECK_INT(memz_sampler_open(&sm, &set, a, failed, sizeof failed),
		  -ENOENT);
	CHECK_STR(failed, "/nonexistent/memz/meminfo");
	CHECK(sm == NULL);

	settings_for(&set, "garbled-meminfo");
	CHECK_INT(memz_sampler_open(&sm, &set, a, failed, sizeof failed), 0);
	CHECK_STR(failed, "");
	memz_snapshot_init(&snap);
	CHECK(memz_sampler_run(sm, 1, &snap) < 0);
	snprintf(want, sizeof want, "%s/meminfo", set.proc_root);
	CHECK_STR(snap.stats.failed_path, want);
	memz_snapshot_release(&snap);
	memz_sampler_free(&sm);

	settings_for(&set, "tree1");
	CHECK_INT(memz_sampler_new(&sm, &set, a), 0);
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(sm, 1, &snap), 0);
	CHECK(snap.stats.failed_path == NULL);
	CHECK_INT(snap.stats.fd_short, 0);
	CHECK(!snap.stats.fd_degraded);
	memz_snapshot_release(&snap);
	memz_sampler_free(&sm);
}

/* Time to OOM and the OOM kill, end to end over a fixture tree: a
 * process first seen outside its cgroup (forked, not yet moved) is found
 * in it once it is flagged; its cgroup's forecast names it, and when it
 * leaves as the cgroup's oom_kill rises, the kill names it. line is its
 * /proc/PID/cgroup once moved, memcg the memory cgroup memz must take
 * from it: /box, or below it a cgroup whose path is too long to keep,
 * which /box's limit limits all the same. zombie: with kept fds, the
 * victim leaves as a zombie its parent has not reaped, as the kernel
 * shows one on cgroup v1: statm all zeros (its text gone, which reads as
 * an exec), PF_EXITING in stat's flags, and the root of every hierarchy
 * in its cgroup file; it is still /box's (without reading the cgroup
 * only before stat says it exits, it left from "/", and /box's kill was
 * "unknown" as a loaded run of it_netdata_oom.sh logged it), and it holds
 * nothing though its exact reads found 40 KiB more resident than the
 * probes before them, as it grew between the two (its estimate kept
 * those 40 KiB: without its size of 0 it was never emptied, and no
 * candidate). */
static void fixture_oom(const char *line, const char *memcg, bool zombie)
{
	char tmp[] = "/tmp/memz-oom.XXXXXX", to[1100], cmd[4096], text[1300];
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	const struct memz_proc *p = NULL;
	const struct memz_oom_scope *box = NULL;
	double t;

	if (!mkdtemp(tmp)) {
		CHECK(0);
		return;
	}
	snprintf(to, sizeof to, "%s/t", tmp);
	snprintf(cmd, sizeof cmd, "%s/tree1", MEMZ_FIXTURES);
	CHECK_INT(copy_tree(cmd, to), 0);
	snprintf(cmd, sizeof cmd,
		 "mkdir -p '%s/sys/fs/cgroup/memory/box' && "
		 "echo 'oom_kill 0' >> '%s/proc/vmstat'", to, to);
	CHECK_INT(system(cmd), 0);
	put_file(to, "sys/fs/cgroup/memory/memory.usage_in_bytes", "1\n");
	put_file(to, "sys/fs/cgroup/memory/memory.limit_in_bytes",
		 "9223372036854771712\n");
	put_file(to, "sys/fs/cgroup/memory/box/memory.limit_in_bytes",
		 "268435456\n");
	put_file(to, "sys/fs/cgroup/memory/box/memory.usage_in_bytes",
		 "134217728\n");
	put_file(to, "sys/fs/cgroup/memory/box/memory.oom_control",
		 "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	put_file(to, "proc/300/cgroup", "4:memory:/\n0::/\n");
	memz_settings_init(&set);
	/* its leaking children are young: judged from birth here, as
	 * warm-up is test_table's, and counted in the forecast from their
	 * first verdict, as sustained growth is test_oom's */
	set.leak_warmup = 0;
	set.leak_alarm_after = 0;
	settings_under(&set, to);
	if (!zombie)
		memz_settings_set(&set, "MaxOpenFiles", "0", NULL, 0);
	memz_settings_set(&set, "GroupBy", "none", NULL, 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	p = find_pid(&snap, 300);
	CHECK(p && p->memcg && !strcmp(p->memcg, "/") && p->memcg_v1);
	CHECK_INT(snap.oom.n_scopes, 2);
	CHECK_STR(snap.oom.scope[1].path, "/box");
	CHECK(isnan(snap.oom.scope[1].seconds));

	/* it joins /box, then grows 1 MiB a second */
	put_file(to, "proc/300/cgroup", line);
	for (t = 2; t < 40; t++) {
		unsigned long kb = 2048 + 1024 * (unsigned long)(t - 1);

		snprintf(text, sizeof text, "%lu %lu 288 289 0 %lu 0\n",
			 kb / 4, kb / 4, kb / 4);
		put_file(to, "proc/300/statm", text);
		snprintf(text, sizeof text,
			 "00400000-7ffd00000000 ---p 00000000 00:00 0 [rollup]\n"
			 "Rss: %lu kB\nPss: %lu kB\nPss_Anon: %lu kB\n"
			 "Pss_File: 0 kB\nPss_Shmem: 0 kB\nShared_Clean: 0 kB\n"
			 "Shared_Dirty: 0 kB\nPrivate_Clean: 0 kB\n"
			 "Private_Dirty: %lu kB\nAnonymous: %lu kB\nSwap: 0 kB\n"
			 "SwapPss: 0 kB\n", kb + (zombie ? 40 : 0), kb, kb,
			 kb, kb);
		put_file(to, "proc/300/smaps_rollup", text);
		CHECK_INT(memz_sampler_run(s, t, &snap), 0);
		p = find_pid(&snap, 300);
		if (p && p->det.verdict.leak && !isnan(snap.oom.scope[1].seconds))
			break;
	}
	CHECK(p && p->det.verdict.leak);
	CHECK(p && p->memcg && !strcmp(p->memcg, memcg));
	box = &snap.oom.scope[1];
	CHECK_STR(box->path, "/box");
	/* 256 MiB - 128 MiB at about 1 MiB/s */
	CHECK(box->seconds > 100 && box->seconds < 160);
	CHECK(box->n_drivers == 1 && !strcmp(box->drivers[0].name, "bash") &&
	      box->drivers[0].pid == 300);
	CHECK(!isnan(snap.oom.scope[0].seconds));

	/* the kill: the cgroup's counter and vmstat's rise, pid 300 is gone
	 * or a zombie */
	if (zombie) {
		put_file(to, "proc/300/statm", "0 0 0 0 0 0 0\n");
		put_file(to, "proc/300/smaps_rollup", "");
		put_file(to, "proc/300/stat",
			 "300 (bash) Z 1 300 300 0 -1 4227084 100 0 0 0 9 21 0 "
			 "0 20 0 1 0 9000 0 0 18446744073709551615 0 0 0 0 0 "
			 "0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
		put_file(to, "proc/300/cgroup", "4:memory:/\n0::/\n");
		snprintf(cmd, sizeof cmd,
			 "sed -i 's/^oom_kill 0/oom_kill 1/' '%s/proc/vmstat'",
			 to);
	} else {
		snprintf(cmd, sizeof cmd,
			 "rm -rf '%s/proc/300' && "
			 "sed -i 's/^oom_kill 0/oom_kill 1/' '%s/proc/vmstat'",
			 to, to);
	}
	CHECK_INT(system(cmd), 0);
	put_file(to, "sys/fs/cgroup/memory/box/memory.oom_control",
		 "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
	CHECK_INT(memz_sampler_run(s, t + 1, &snap), 0);
	p = find_pid(&snap, 300);
	CHECK(!zombie || (p && p->memcg && !strcmp(p->memcg, memcg)));
	CHECK_INT(snap.oom.new_kills, 1);
	CHECK(snap.oom.kill[0].known);
	CHECK_STR(snap.oom.kill[0].name, "bash");
	CHECK_INT(snap.oom.kill[0].pid, 300);
	CHECK_STR(snap.oom.kill[0].scope, "/box");
	CHECK(snap.oom.kill[0].leak);
	/* its last sampled PSS */
	CHECK_U64(snap.oom.kill[0].pss,
		  (uint64_t)(2048 + 1024 * (t - 1)) * 1024);
	/* vmstat's count is the same kill: not reported again */
	CHECK_INT(memz_sampler_run(s, t + 2, &snap), 0);
	CHECK_INT(memz_sampler_run(s, t + 3, &snap), 0);
	CHECK_INT(snap.oom.new_kills, 0);
	CHECK_INT(snap.oom.n_kills, 1);

	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	fixture_failed_path();
	fixture_oom("4:memory:/box\n0::/\n", "/box", false);
	fixture_oom("4:memory:/box\n0::/\n", "/box", true);
	{
		/* /box/a...a/b...b, 306 bytes: the deepest ancestor that
		 * fits in MEMZ_PATH_MAX is /box/a...a */
		char line[400], memcg[256];

		memset(memcg, 'a', 205);
		memcpy(memcg, "/box/", 5);
		memcg[205] = '\0';
		snprintf(line, sizeof line, "4:memory:%s/%0100d\n0::/\n",
			 memcg, 0);
		fixture_oom(line, memcg, false);
	}
	fixture_real1();
	fixture_tree1();
	fixture_steady_breakdown();
	fixture_pid_reuse();
	fixture_listing();
	fixture_quiet_probes();
	fixture_moved_between_reads();
	fixture_exec_names();
	fixture_churn();
	fixture_oom_restless();
	fixture_kthread_exit();
	fixture_container_exit();
	fixture_exact_max_rss();
	fixture_span_reuse();
	fixture_old_kernels();
	fixture_edges();
	fixture_unreadable();
	return check_status();
}
