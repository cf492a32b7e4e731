/*
 * bench_sampler - CPU per cycle of the memz sampler against a naive reader
 * that opens, reads and closes every /proc/PID/smaps_rollup each cycle, in
 * the same run, on the same processes. Not a test: it prints figures.
 *
 *   bench_sampler [-n PROCS] [-c CYCLES] [-m MIB_EACH]
 *
 * Phase 1: PROCS idle children. Phase 2: the same children all changing
 * their memory between every two cycles. Cycles are paced with a sleep (which
 * costs no CPU) so the children have time to change, and the sampler is told
 * one second passes per cycle, as when a host samples every second.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* An idle child: touch mib MiB, then sleep; after SIGUSR1, keep changing
 * its resident size every 10 ms (touch a page, and every so often give a
 * stretch back). */
static void child(size_t mib)
{
	size_t size = mib << 20, extra = 2u << 20, off = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		_exit(1);
	signal(SIGUSR1, on_usr1);
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

struct result {
	double memz, naive;
};

static struct result measure(struct memz_sampler *s, struct memz_snapshot *snap,
			     int cycles, double *t)
{
	struct result r;
	char buf[8192];
	double c0;

	c0 = cpu_now();
	for (int i = 0; i < cycles; i++) {
		*t += 1.0;
		memz_sampler_run(s, *t, snap);
		nap(50);
	}
	r.memz = (cpu_now() - c0) / cycles;
	c0 = cpu_now();
	for (int i = 0; i < cycles; i++) {
		naive_cycle(buf, sizeof buf);
		nap(50);
	}
	r.naive = (cpu_now() - c0) / cycles;
	return r;
}

int main(int argc, char **argv)
{
	int n = 1000, cycles = 40, opt;
	size_t mib = 4;
	pid_t *kids;
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct result idle, busy;
	double t = 0;

	while ((opt = getopt(argc, argv, "n:c:m:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'c')
			cycles = atoi(optarg);
		else if (opt == 'm')
			mib = (size_t)atoi(optarg);
		else
			return 2;
	}
	kids = calloc((size_t)n, sizeof *kids);
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			child(mib);
	}
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
	idle = measure(s, &snap, cycles, &t);
	printf("processes=%zu cycles=%d open_fds=%u\n", snap.view.n_procs,
	       cycles, snap.stats.open_fds);
	printf("idle: memz %.3f ms/cycle  naive %.3f ms/cycle  ratio %.3f (goal <= 0.2)\n",
	       idle.memz * 1e3, idle.naive * 1e3, idle.memz / idle.naive);

	for (int i = 0; i < n; i++)
		kill(kids[i], SIGUSR1);
	nap(200);
	busy = measure(s, &snap, cycles, &t);
	printf("busy: memz %.3f ms/cycle  naive %.3f ms/cycle  ratio %.3f (goal <= 1.15)\n",
	       busy.memz * 1e3, busy.naive * 1e3, busy.memz / busy.naive);
	printf("busy: last cycle rollup_reads=%u deferred=%u skipped=%u\n",
	       snap.stats.rollup_reads, snap.stats.rollup_deferred,
	       snap.stats.rollup_skipped);

	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	memz_sampler_free(&s);
	free(kids);
	return 0;
}
