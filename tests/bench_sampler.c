/*
 * bench_sampler - CPU per cycle of the memz sampler against a naive reader
 * that opens, reads and closes every /proc/PID/smaps_rollup each cycle, in
 * the same run, on the same processes. Not a test: it prints figures.
 *
 *   bench_sampler [-n PROCS] [-c CYCLES] [-m MIB_EACH | -k KIB_EACH]
 *                 [-f FORKS] [-i]
 *
 * Phase 1: PROCS idle children. Phase 2: the same, while a helper process
 * starts FORKS (10) short-lived processes between every two cycles (fork
 * churn: they start and exit between cycles, as cron, shells and health
 * checks do). Phase 3: the same children all changing their memory between
 * every two cycles. Each phase also prints what a cycle read on average
 * (files, how many cycles listed /proc, how many let quiet processes rest),
 * the figures that do not depend on how loaded the machine is. Cycles are paced with a sleep (which
 * costs no CPU) so the children have time to change, and the sampler is told
 * one second passes per cycle, as when a host samples every second. With -i
 * only phase 1 runs (the scale phase: thousands of children changing their
 * memory every 10 ms would be a load of their own, not the sampler's).
 *
 * Children are idle as idle processes are: asleep in pause(), a small
 * resident set touched once. They die with this process (PR_SET_PDEATHSIG),
 * so a bench that is killed leaves nothing behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memz/procfs.h"
#include "bench/naive.h"
#include "memz/sampler.h"

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static volatile sig_atomic_t busy_flag;

static void on_usr1(int sig)
{
	(void)sig;
	busy_flag = 1;
}

/* An idle child: touch kib KiB, then sleep; after SIGUSR1, keep changing
 * its resident size every 10 ms (touch a page, and every so often give a
 * stretch back). The handler is installed by the parent before the fork: a
 * SIGUSR1 that came before the child's own signal() would kill it. */
static void child(size_t kib, pid_t parent)
{
	size_t size = kib << 10, extra = 2u << 20, off = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *m;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	m = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(1);
	if (size)
		memset(m, 1, size);
	for (;;) {
		if (!busy_flag) {
			pause();
			continue;
		}
		m[size + off] = 1;
		off += (size_t)page;
		if (off >= extra) {
			madvise(m + size, extra, MADV_DONTNEED);
			off = 0;
		}
		nap(10);
	}
}

/* The churn helper: for every byte read from cmd, fork `forks` children
 * that exit at once, reap them, and answer with a byte on ack. A process of
 * its own, so its fork costs are not the sampler's. */
static pid_t spawn_churner(int forks, int *cmd, int *ack)
{
	int c[2], a[2];
	pid_t pid;
	char ch;

	if (pipe(c) || pipe(a))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(c[1]);
		close(a[0]);
		while (read(c[0], &ch, 1) == 1) {
			for (int i = 0; i < forks; i++) {
				pid_t k = fork();

				if (k == 0)
					_exit(0);
				if (k > 0)
					waitpid(k, NULL, 0);
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

struct result {
	double memz, naive;
	double files_read, files_opened; /* per cycle, mean */
	int listed, rested;              /* cycles */
};

/* churn_cmd >= 0: ask the churn helper for its forks before each cycle. */
static struct result measure(struct memz_sampler *s, struct memz_snapshot *snap,
			     int cycles, double *t, int churn_cmd, int churn_ack)
{
	struct result r = { 0, 0, 0, 0, 0, 0 };
	char buf[8192], ch;
	double c0;

	c0 = cpu_now();
	for (int i = 0; i < cycles; i++) {
		if (churn_cmd >= 0 && (write(churn_cmd, "g", 1) != 1 ||
				       read(churn_ack, &ch, 1) != 1))
			break;
		*t += 1.0;
		memz_sampler_run(s, *t, snap);
		r.files_read += snap->stats.files_read;
		r.files_opened += snap->stats.files_opened;
		r.listed += snap->stats.listed;
		r.rested += snap->stats.rested;
		nap(50);
	}
	r.memz = (cpu_now() - c0) / cycles;
	r.files_read /= cycles;
	r.files_opened /= cycles;
	c0 = cpu_now();
	for (int i = 0; i < cycles; i++) {
		naive_cycle(buf, sizeof buf);
		nap(50);
	}
	r.naive = (cpu_now() - c0) / cycles;
	return r;
}

static void print_phase(const char *name, const struct result *r, int n,
			int cycles, const char *goal)
{
	printf("%s: memz %.3f ms/cycle (%.2f us per process)  naive %.3f ms/cycle  ratio %.3f (%s)\n",
	       name, r->memz * 1e3, r->memz * 1e6 / n, r->naive * 1e3,
	       r->memz / r->naive, goal);
	printf("%s: per cycle files_read=%.1f files_opened=%.1f; listed %d of %d cycles, rested %d\n",
	       name, r->files_read, r->files_opened, r->listed, cycles,
	       r->rested);
}

int main(int argc, char **argv)
{
	int n = 1000, cycles = 40, forks = 10, opt, ccmd = -1, cack = -1;
	int idle_only = 0;
	size_t kib = 4096;
	pid_t *kids;
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct result idle, churn, busy;
	pid_t churner;
	double t = 0;

	while ((opt = getopt(argc, argv, "n:c:m:k:f:i")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'c')
			cycles = atoi(optarg);
		else if (opt == 'm')
			kib = (size_t)atoi(optarg) << 10;
		else if (opt == 'k')
			kib = (size_t)atoi(optarg);
		else if (opt == 'f')
			forks = atoi(optarg);
		else if (opt == 'i')
			idle_only = 1;
		else
			return 2;
	}
	kids = calloc((size_t)n, sizeof *kids);
	if (!kids)
		return 1;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < n; i++) {
		pid_t parent = getpid();

		kids[i] = fork();
		if (kids[i] == 0)
			child(kib, parent);
	}
	signal(SIGUSR1, SIG_DFL);
	nap(1000 + n);

	memz_settings_init(&set);
	memz_settings_set(&set, "MaxOpenFiles", "100000", NULL, 0);
	if (memz_sampler_new(&s, &set, memz_allocator_libc())) {
		fprintf(stderr, "bench: sampler failed\n");
		return 1;
	}
	memz_snapshot_init(&snap);
	/* warm up: first reads of every process, fds opened */
	for (int i = 0; i < 3; i++) {
		t += 1.0;
		memz_sampler_run(s, t, &snap);
	}
	churner = idle_only ? -1 : spawn_churner(forks, &ccmd, &cack);
	/* quiet for 20 probes first, as a machine that has run a while */
	for (int i = 0; i < 24; i++) {
		t += 1.0;
		memz_sampler_run(s, t, &snap);
	}
	idle = measure(s, &snap, cycles, &t, -1, -1);
	printf("processes=%zu cycles=%d open_fds=%u\n", snap.view.n_procs,
	       cycles, snap.stats.open_fds);
	print_phase("idle", &idle, n, cycles, "goal <= 0.2");
	if (idle_only)
		goto out;
	churn = measure(s, &snap, cycles, &t, ccmd, cack);
	print_phase("churn", &churn, n, cycles, "goal: as idle");
	close(ccmd);
	close(cack);
	if (churner > 0)
		waitpid(churner, NULL, 0);

	for (int i = 0; i < n; i++)
		kill(kids[i], SIGUSR1);
	nap(200);
	busy = measure(s, &snap, cycles, &t, -1, -1);
	print_phase("busy", &busy, n, cycles, "goal <= 1.15");
	printf("busy: last cycle rollup_reads=%u deferred=%u skipped=%u\n",
	       snap.stats.rollup_reads, snap.stats.rollup_deferred,
	       snap.stats.rollup_skipped);
out:
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	memz_sampler_free(&s);
	free(kids);
	return 0;
}
