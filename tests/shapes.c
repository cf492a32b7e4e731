/*
 * shapes - small programs whose memory takes one shape each, recorded with
 * `memz record` into the traces under tests/traces (tests/record-traces.sh
 * says how). Not run by the tests: the traces are.
 *
 *   shapes late SECONDS_FLAT KIB_PER_S SECONDS
 *       flat, then anonymous memory grows at KIB_PER_S
 *   shapes stairs MIB EVERY SECONDS
 *       keeps MIB every EVERY seconds
 *   shapes churn MIB EVERY SECONDS
 *       keeps MIB every EVERY seconds while it allocates and frees blocks
 *       of 16 to 64 KiB at random, a random walk held within +-1.5 MiB
 *   shapes filemap FILE MIB_PER_S SECONDS
 *       maps FILE and reads through it at MIB_PER_S: PSS and RSS climb,
 *       Anonymous stays flat (page cache, not the process's own)
 *   shapes fork MIB CHILDREN EVERY SECONDS
 *       touches MIB of anonymous memory, forks CHILDREN that share it and
 *       sleep; one child exits every EVERY seconds, so the survivors' PSS
 *       rises as the kernel re-divides the shared pages, RSS and Anonymous
 *       flat
 *
 * Every mode sets comm to "shape-MODE" and runs for SECONDS, then exits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KiB 1024UL
#define MiB (1024UL * 1024UL)
#define TICK_NS 100000000L /* everything moves in 100 ms steps */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void tick(void)
{
	struct timespec ts = { 0, TICK_NS };

	nanosleep(&ts, NULL);
}

/* Anonymous memory that is touched, so it is resident and counted. */
static void *touched(size_t n)
{
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("shapes: mmap");
		exit(1);
	}
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	return p;
}

static int late(double flat, double kib_s, double secs)
{
	double t0 = now(), kept = 0;

	while (now() - t0 < secs) {
		double want = now() - t0 > flat ? (now() - t0 - flat) * kib_s : 0;
		if (want - kept >= 64) {
			touched((size_t)(want - kept) * KiB);
			kept += (double)(size_t)(want - kept);
		}
		tick();
	}
	return 0;
}

/* Blocks of the churn, each mapped on its own so a free returns it. */
#define CHURN_MAX 256

static int churn(double mib, double every, double secs, int walk)
{
	void *blk[CHURN_MAX];
	size_t len[CHURN_MAX], n = 0, held = 0;
	double t0 = now(), next = t0;

	srand(12345);
	/* the walk starts in the middle of its range */
	while (walk && held < (size_t)(1.5 * MiB)) {
		len[n] = (size_t)(16 + rand() % 49) * KiB;
		blk[n] = touched(len[n]);
		held += len[n++];
	}
	while (now() - t0 < secs) {
		if (now() >= next) {
			touched((size_t)(mib * MiB));
			next += every;
		}
		if (walk) {
			/* three moves a tick, up or down at random, within
			 * 0..3 MiB held: +-1.5 MiB around the middle */
			for (int k = 0; k < 3; k++) {
				int up = rand() % 2;
				if (up && n < CHURN_MAX && held < 3 * MiB) {
					len[n] = (size_t)(16 + rand() % 49) * KiB;
					blk[n] = touched(len[n]);
					held += len[n++];
				} else if (!up && n > 0) {
					size_t i = (size_t)rand() % n;
					munmap(blk[i], len[i]);
					held -= len[i];
					blk[i] = blk[--n];
					len[i] = len[n];
				}
			}
		}
		tick();
	}
	return 0;
}

static int filemap(const char *path, double mib_s, double secs)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	volatile char *p;
	double t0 = now();
	size_t at = 0;
	unsigned long sum = 0;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("shapes: mmap");
		return 1;
	}
	while (now() - t0 < secs) {
		size_t want = (size_t)((now() - t0) * mib_s * MiB);
		if (want > (size_t)st.st_size)
			want = (size_t)st.st_size;
		for (; at < want; at += 4096)
			sum += (unsigned char)p[at];
		tick();
	}
	return sum == 1; /* keeps the reads */
}

static int forked(double mib, int children, double every, double secs)
{
	pid_t kid[64];
	double t0 = now();

	if (children > 64)
		children = 64;
	touched((size_t)(mib * MiB));
	for (int i = 0; i < children; i++) {
		kid[i] = fork();
		if (kid[i] < 0) {
			perror("shapes: fork");
			return 1;
		}
		if (kid[i] == 0) {
			/* each child lives one EVERY longer than the last */
			double until = every * (i + 1);
			while (now() - t0 < until && getppid() != 1)
				tick();
			_exit(0);
		}
	}
	for (int i = 0; i < children; i++)
		waitpid(kid[i], NULL, 0);
	while (now() - t0 < secs)
		tick();
	return 0;
}

int main(int argc, char **argv)
{
	char comm[16];

	if (argc < 2) {
		fprintf(stderr, "usage: see tests/shapes.c\n");
		return 2;
	}
	snprintf(comm, sizeof comm, "shape-%s", argv[1]);
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "late") && argc == 5)
		return late(atof(argv[2]), atof(argv[3]), atof(argv[4]));
	if (!strcmp(argv[1], "stairs") && argc == 5)
		return churn(atof(argv[2]), atof(argv[3]), atof(argv[4]), 0);
	if (!strcmp(argv[1], "churn") && argc == 5)
		return churn(atof(argv[2]), atof(argv[3]), atof(argv[4]), 1);
	if (!strcmp(argv[1], "filemap") && argc == 5)
		return filemap(argv[2], atof(argv[3]), atof(argv[4]));
	if (!strcmp(argv[1], "fork") && argc == 6)
		return forked(atof(argv[2]), atoi(argv[3]), atof(argv[4]),
			      atof(argv[5]));
	fprintf(stderr, "usage: see tests/shapes.c\n");
	return 2;
}
