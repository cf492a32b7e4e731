/*
 * test_sampler_live - the sampler on the live /proc: children of known size
 * appear and are swept, a walked cycle still sweeps, a kept fd costs one
 * read, and an unprivileged sampler degrades to what it may read. The
 * fixture trees are in test_sampler.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "memz/sampler.h"
#include "sampler_util.h"
#include "../core/table_int.h" /* what the sampler keeps per process */

static pid_t spawn_toucher(size_t bytes, int *ready_fd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(1);
		memset(m, 0x5a, bytes);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	*ready_fd = pfd[0];
	return pid;
}

/* A child that touches 64 MiB shows at least that much Pss_Anon; when it
 * exits, it is swept. */
static void live(void)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	int ready = -1;
	char ch;
	pid_t child;

	settings_for(&set, NULL);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);

	child = spawn_toucher(64 * MiB, &ready);
	CHECK(child > 0);
	CHECK_INT(read(ready, &ch, 1), 1);
	close(ready);
	CHECK_INT(memz_sampler_run(s, 2.0, &snap), 0);
	p = find_pid(&snap, child);
	CHECK(p != NULL);
	if (p) {
		CHECK(p->mem.pss_anon >= 64 * MiB);
		CHECK(p->mem.rss >= 64 * MiB);
		CHECK(p->pss_age == 0);
		/* kept for the cheap probe, unless other processes already
		 * hold every fd the budget allows (a bench running beside) */
		CHECK(mz_pe(p)->statm_fd >= 0 ||
		      snap.stats.open_fds >= snap.stats.fd_budget);
	}
	CHECK(snap.br.process_anon >= 64 * MiB);
	CHECK_U64(parts_sum(&snap.br), snap.br.mem_total);

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_INT(memz_sampler_run(s, 3.0, &snap), 0);
	CHECK(find_pid(&snap, child) == NULL);
	CHECK(snap.stats.vanished >= 1);
	memz_sampler_free(&s);
}

/* While the table is walked instead of /proc listed, a process that exits
 * is still swept: its kept statm fd fails with ESRCH and its stat is gone.
 * Whether a cycle walks depends on every other process on the machine not
 * forking in between, so this tries until a walked cycle sees the exit,
 * within a deadline, and says so when the machine never let it. */
static void live_walk_sweeps(void)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	double t = 1, deadline = memz_now() + 20;
	bool done = false;

	settings_for(&set, NULL);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	while (!done && memz_now() < deadline) {
		int ready = -1;
		char ch;
		pid_t child = spawn_toucher(MiB, &ready);
		bool walked = false;

		CHECK(child > 0);
		if (child <= 0)
			break;
		CHECK_INT(read(ready, &ch, 1), 1);
		close(ready);
		/* until a walked cycle with the child in it */
		while (!walked && memz_now() < deadline) {
			CHECK_INT(memz_sampler_run(s, t++, &snap), 0);
			walked = !snap.stats.listed && find_pid(&snap, child);
		}
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		CHECK_INT(memz_sampler_run(s, t++, &snap), 0);
		if (walked && !snap.stats.listed) {
			CHECK(find_pid(&snap, child) == NULL);
			CHECK(snap.stats.vanished >= 1);
			done = true;
		}
	}
	if (!done)
		fprintf(stderr, "# live_walk_sweeps: a pid was handed out before "
				"every walked cycle for 20 s; not checked\n");
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
}

/* Read system calls this process made so far (/proc/self/io), or -1. */
static long syscr(int fd)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	const char *k;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	k = strstr(buf, "syscr: ");
	return k ? atol(k + 7) : -1;
}

/* What one pread adds to syscr here, on a kept fd or on one opened for it:
 * 1, but valgrind counts more. */
static long per_read(int io, bool opened)
{
	char buf[256];
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	long before = syscr(io), n;

	for (int i = 0; i < 64; i++) {
		if (opened) {
			close(fd);
			fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
		}
		if (pread(fd, buf, sizeof buf, 0) < 0)
			break;
	}
	n = (syscr(io) - before + 32) / 64;
	close(fd);
	return n > 0 ? n : 1;
}

/* A file is one read, not a second one to see the end: with 32 idle
 * children, a cycle's read calls stay well under two per file read (the
 * system files take two each), on the first cycle (everything opened) as
 * on a later one (the kept statm fds). */
static void kept_fd_one_read(void)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	pid_t kids[32];
	int go[2], io = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	long before, after;
	char ch;

	if (io < 0 || syscr(io) < 0 || pipe(go)) {
		fprintf(stderr, "kept_fd_one_read: no /proc/self/io, skipped\n");
		if (io >= 0)
			close(io);
		return;
	}
	for (int i = 0; i < 32; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			close(go[1]);
			_exit(read(go[0], &ch, 1) < 0);
		}
	}
	close(go[0]);
	settings_for(&set, NULL);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (s) {
		memz_snapshot_init(&snap);
		before = syscr(io);
		CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
		after = syscr(io);
		/* discovery: every file opened, each read once */
		CHECK(snap.stats.files_opened > 32);
		CHECK(2 * (after - before) <
		      3 * per_read(io, true) * (long)snap.stats.files_read);
		CHECK_INT(memz_sampler_run(s, 2.0, &snap), 0);
		before = syscr(io);
		CHECK_INT(memz_sampler_run(s, 3.0, &snap), 0);
		after = syscr(io);
		CHECK(2 * (after - before) <
		      3 * per_read(io, false) * (long)snap.stats.files_read);
		memz_sampler_free(&s);
	}
	close(go[1]);
	for (int i = 0; i < 32; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
	close(io);
}

/* Unprivileged, other users' smaps_rollup is refused: those processes are
 * counted as denied and their anonymous memory shows as hidden_anon, and
 * the breakdown still adds up. Runs in a child that drops to nobody. */
static void unprivileged(void)
{
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		fprintf(stderr, "unprivileged: not root, part skipped\n");
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct memz_settings set;
		struct memz_sampler *s;
		struct memz_snapshot snap;
		int bad = 0;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		memz_settings_init(&set);
		if (memz_sampler_new(&s, &set, memz_allocator_libc()))
			_exit(4);
		memz_snapshot_init(&snap);
		if (memz_sampler_run(s, 1.0, &snap))
			_exit(5);
		if (snap.stats.denied == 0)
			bad |= 8;
		if (snap.br.hidden_anon == 0)
			bad |= 16;
		if (parts_sum(&snap.br) != snap.br.mem_total)
			bad |= 32;
		if (!find_pid(&snap, getpid())) /* its own process is readable */
			bad |= 64;
		memz_sampler_free(&s);
		_exit(bad);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
}

/* A short-lived child: forked, exited and reaped between two cycles. */
static void churn_one(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* Under fork churn, quiet idle children rest, and yet one killed between
 * two cycles is gone from the very next one, whatever else the machine
 * (other engineers' builds) forks or reaps meanwhile; the cycles that rest
 * are counted for the log, not asserted, since that depends on them. */
static void live_churn_exits(void)
{
	enum { KIDS = 6 };
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	pid_t kids[KIDS];
	unsigned rested = 0, walked = 0;
	double t = 1;
	int i, k;

	settings_for(&set, NULL);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	for (i = 0; i < KIDS; i++) {
		int ready = -1;
		char ch;

		kids[i] = spawn_toucher(MiB, &ready);
		CHECK(kids[i] > 0);
		if (kids[i] <= 0)
			return;
		CHECK_INT(read(ready, &ch, 1), 1);
		close(ready);
	}
	/* quiet for 20 probes: every fourth cycle */
	for (i = 0; i < 24; i++) {
		churn_one();
		CHECK_INT(memz_sampler_run(s, t++, &snap), 0);
	}
	for (k = 0; k < KIDS; k++) {
		const struct memz_proc *p = find_pid(&snap, kids[k]);

		CHECK(p && mz_pe(p)->quiet_probes >= 10);
		for (i = 0; i < 3; i++) {
			churn_one();
			CHECK_INT(memz_sampler_run(s, t++, &snap), 0);
			rested += snap.stats.rested;
			walked += !snap.stats.listed;
		}
		churn_one();
		kill(kids[k], SIGKILL);
		waitpid(kids[k], NULL, 0);
		churn_one();
		CHECK_INT(memz_sampler_run(s, t++, &snap), 0);
		CHECK(find_pid(&snap, kids[k]) == NULL);
		for (i = k + 1; i < KIDS; i++)
			CHECK(find_pid(&snap, kids[i]) != NULL);
	}
	fprintf(stderr, "# live_churn_exits: %u of %d churn cycles walked, "
			"%u rested\n", walked, 3 * KIDS, rested);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
}

int main(void)
{
	live();
	live_walk_sweeps();
	kept_fd_one_read();
	live_churn_exits();
	unprivileged();
	return check_status();
}
