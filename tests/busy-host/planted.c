/*
 * planted - the leaks and the non-leak controls planted in the busy-host
 * recording (tests/busy-host/record.sh). Not built or run by the suite: the
 * trace it helped record is (tests/test_busy_host.sh).
 *
 * The program is started through a symlink named after what it does, so
 * the process's comm is honest from its exec on; it also sets comm with
 * prctl. Every event that a label rests on (start, leak onset, leak stop,
 * end of a fill) is appended to the file $PLANTED_EVENTS as one line
 *     BOOTTIME PID NAME EVENT [DETAIL]
 * where BOOTTIME is CLOCK_BOOTTIME in seconds, the clock of /proc/uptime
 * and of a process's start time, so the labels can place each event on the
 * trace's timeline (tests/busy-host/make-traces.sh).
 *
 *   planted leak FLAT_S KIB_PER_S LEAK_S [SPIKE_MIB PERIOD_S]
 *       flat for FLAT_S, then anonymous memory grows at KIB_PER_S for
 *       LEAK_S seconds (0: until killed), then flat again; with SPIKE_MIB,
 *       every PERIOD_S it also allocates SPIKE_MIB, touches it, holds it
 *       3 s and frees it (a batch spike), from its start
 *   planted memfd FLAT_S KIB_PER_S
 *       flat, then each second creates a memfd of KIB_PER_S, touches it
 *       and keeps it mapped (only this process maps it); the fd is closed
 *   planted shm FLAT_S KIB_PER_S
 *       flat, then each second grows a POSIX shared memory file
 *       (/dev/shm/memz-planted-PID, which only this process maps) by
 *       KIB_PER_S and maps and touches the new part; the file stays
 *   planted pool N FLAT_S KIB_PER_S LEAKER
 *       forks N workers of one name; each churns +-256 KiB; worker LEAKER
 *       (0-based) leaks KIB_PER_S after FLAT_S; the parent waits
 *   planted once MIB RUN_S
 *       allocates and touches MIB at start, then runs flat and exits
 *   planted batch KIB_PER_S RUN_S
 *       grows at KIB_PER_S for RUN_S seconds and exits
 *   planted cache MIB KIB_PER_S
 *       fills a cache of MIB at KIB_PER_S, then stays dead flat
 *   planted arena THREADS CLIMB_S
 *       THREADS threads malloc and free blocks of 16 B to 64 KiB at
 *       random; the live set each thread keeps climbs for CLIMB_S, then
 *       stays the same size (what glibc's arenas do with it is theirs)
 *   planted step FLAT_S MIB
 *       flat, one allocation of MIB after FLAT_S, flat again
 *   planted spawn LOG PROGRAM ARGS...
 *       starts PROGRAM (looked up in PATH) with stdout and stderr appended
 *       to LOG, prints its pid and exits. posix_spawn runs the child at
 *       once and its exec follows within microseconds, while a shell's
 *       fork can leave the child waiting for a busy CPU for a second under
 *       its parent's name, the name memz would then keep for it.
 *
 * Every mode but batch and once runs until it is killed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KiB 1024UL
#define MiB (1024UL * 1024UL)

static char name[16];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* One line, one write(2) on an O_APPEND file: lines of concurrent writers
 * never interleave. */
static void event(const char *what, const char *fmt, ...)
{
	const char *path = getenv("PLANTED_EVENTS");
	char line[256], detail[160] = "";
	va_list ap;
	int fd, n;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof detail, fmt, ap);
		va_end(ap);
	}
	n = snprintf(line, sizeof line, "%.3f %d %s %s %s\n", now(),
		     (int)getpid(), name, what, detail);
	if (!path || n <= 0)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0)
		perror("planted: event");
	close(fd);
}

static void *touched(size_t n)
{
	char *p = malloc(n);

	if (!p) {
		perror("planted: malloc");
		exit(1);
	}
	memset(p, 0x5a, n);
	return p;
}

/* Grows by KIB_PER_S from ONSET to END (0: forever), keeping to the clock
 * so a stalled process catches up rather than slowing its rate; with
 * SPIKE_MIB, spikes every PERIOD seconds. Returns never. */
static void leak_loop(double onset, double kib_s, double end, double spike_mib,
		      double period)
{
	double kept = 0, next_spike = now() + period, t;
	int leaking = 0, stopped = 0;

	for (;;) {
		t = now();
		if (!leaking && t >= onset && kib_s > 0) {
			leaking = 1;
			event("onset", "%.0f KiB/s", kib_s);
		}
		if (leaking && !stopped && end > 0 && t >= end) {
			stopped = 1;
			event("stop", "%.0f KiB kept", kept);
		}
		if (leaking && !stopped) {
			double want = kib_s * (t - onset);

			while (kept + 1 <= want) {
				size_t n = want - kept >= 64 ? 64 : 1;

				(void)touched(n * KiB);
				kept += (double)n;
			}
		}
		if (spike_mib > 0 && t >= next_spike) {
			void *p = touched((size_t)(spike_mib * MiB));

			sleep_s(3);
			free(p);
			next_spike += period;
		}
		sleep_s(0.25);
	}
}

static void mode_memfd(double flat, double kib_s)
{
	double onset = now() + flat, next;
	size_t n = (size_t)(kib_s * KiB);

	sleep_s(flat);
	event("onset", "%.0f KiB/s memfd", kib_s);
	for (next = onset;; next += 1) {
		int fd = memfd_create("planted-leak", MFD_CLOEXEC);
		char *p;

		if (fd < 0 || ftruncate(fd, (off_t)n) < 0) {
			perror("planted: memfd");
			exit(1);
		}
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			perror("planted: mmap");
			exit(1);
		}
		memset(p, 0x5a, n);
		close(fd);
		sleep_s(next + 1 - now());
	}
}

static void mode_shm(double flat, double kib_s)
{
	double onset = now() + flat, next;
	size_t n = (size_t)(kib_s * KiB);
	off_t size = 0;
	char path[64];
	int fd;

	snprintf(path, sizeof path, "/memz-planted-%d", (int)getpid());
	fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror("planted: shm_open");
		exit(1);
	}
	sleep_s(flat);
	event("onset", "%.0f KiB/s shm /dev/shm%s", kib_s, path);
	for (next = onset;; next += 1) {
		char *p;

		if (ftruncate(fd, size + (off_t)n) < 0) {
			perror("planted: ftruncate");
			exit(1);
		}
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, size);
		if (p == MAP_FAILED) {
			perror("planted: mmap");
			exit(1);
		}
		memset(p, 0x5a, n);
		size += (off_t)n;
		sleep_s(next + 1 - now());
	}
}

/* A worker's churn: a block of 0-256 KiB comes and goes each second. */
static void worker(double onset, double kib_s)
{
	double kept = 0, t;
	int leaking = 0;

	srand((unsigned)getpid());
	for (;;) {
		void *p = touched((size_t)(rand() % 256 + 1) * KiB);

		t = now();
		if (kib_s > 0 && t >= onset) {
			if (!leaking) {
				leaking = 1;
				event("onset", "%.0f KiB/s", kib_s);
			}
			while (kept + 1 <= kib_s * (t - onset)) {
				(void)touched(KiB);
				kept += 1;
			}
		}
		sleep_s(0.5);
		free(p);
		sleep_s(0.5);
	}
}

static void mode_pool(int n, double flat, double kib_s, int leaker)
{
	double onset = now() + flat;
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("planted: fork");
			exit(1);
		}
		if (pid == 0) {
			event("worker", "%d of %d%s", i, n,
			      i == leaker ? ", the leaker" : "");
			worker(onset, i == leaker ? kib_s : 0);
		}
	}
	while (wait(NULL) > 0)
		;
	exit(0);
}

struct arena_arg {
	double start, climb;
	unsigned seed;
};

#define ARENA_SLOTS 4096

/* Keeps a live set of random blocks that grows with the climb (up to
 * ARENA_SLOTS blocks averaging 16 KiB, 64 MiB a thread) and then stays
 * that size, replacing a random block every few microseconds. */
static void *arena_thread(void *argp)
{
	struct arena_arg *a = argp;
	static __thread void *slot[ARENA_SLOTS];
	unsigned seed = a->seed;
	long i;

	for (i = 0;; i++) {
		double f = (now() - a->start) / a->climb;
		int live = f >= 1 ? ARENA_SLOTS : (int)(f * ARENA_SLOTS) + 1;
		int k = rand_r(&seed) % live;
		size_t sz = rand_r(&seed) % 2 ? (size_t)(rand_r(&seed) % 512) + 16
					      : (size_t)rand_r(&seed) % (64 * KiB) + 16;

		free(slot[k]);
		slot[k] = malloc(sz);
		if (slot[k])
			memset(slot[k], 0x5a, sz);
		if (i % 16 == 0)
			sleep_s(0.002);
	}
	return NULL;
}

static void mode_arena(int threads, double climb)
{
	static struct arena_arg args[16];
	pthread_t th;
	int i;

	if (threads > 16)
		threads = 16;
	for (i = 0; i < threads; i++) {
		args[i].start = now();
		args[i].climb = climb;
		args[i].seed = (unsigned)i + 1;
		if (pthread_create(&th, NULL, arena_thread, &args[i])) {
			perror("planted: thread");
			exit(1);
		}
	}
	sleep_s(climb);
	event("stop", "live sets full");
	for (;;)
		sleep_s(60);
}

extern char **environ;

static int mode_spawn(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int err;

	if (argc < 4)
		return 2;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, argv[2],
					 O_WRONLY | O_APPEND | O_CREAT, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	err = posix_spawnp(&pid, argv[3], &fa, NULL, argv + 3, environ);
	if (err) {
		fprintf(stderr, "planted: spawn %s: %s\n", argv[3], strerror(err));
		return 1;
	}
	printf("%d\n", (int)pid);
	return 0;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const char *mode = argc > 1 ? argv[1] : "";
	double a = argc > 2 ? atof(argv[2]) : 0;
	double b = argc > 3 ? atof(argv[3]) : 0;
	double c = argc > 4 ? atof(argv[4]) : 0;
	double d = argc > 5 ? atof(argv[5]) : 0;
	double e = argc > 6 ? atof(argv[6]) : 0;
	double t0 = now();

	if (!strcmp(mode, "spawn"))
		return mode_spawn(argc, argv);
	snprintf(name, sizeof name, "%s", base ? base + 1 : argv[0]);
	prctl(PR_SET_NAME, name);
	event("start", "%s", mode);
	if (!strcmp(mode, "leak"))
		leak_loop(t0 + a, b, c > 0 ? t0 + a + c : 0, d, e);
	else if (!strcmp(mode, "memfd"))
		mode_memfd(a, b);
	else if (!strcmp(mode, "shm"))
		mode_shm(a, b);
	else if (!strcmp(mode, "pool"))
		mode_pool((int)a, b, c, (int)d);
	else if (!strcmp(mode, "once")) {
		(void)touched((size_t)(a * MiB));
		event("allocated", "%.0f MiB", a);
		sleep_s(b);
		event("exit", NULL);
		return 0;
	} else if (!strcmp(mode, "batch")) {
		double kept = 0;

		while (now() < t0 + b) {
			while (kept + 64 <= a * (now() - t0)) {
				(void)touched(64 * KiB);
				kept += 64;
			}
			sleep_s(0.25);
		}
		event("exit", "%.0f KiB", kept);
		return 0;
	} else if (!strcmp(mode, "cache")) {
		double kept = 0;

		while (kept < a * 1024) {
			while (kept + 4 <= b * (now() - t0) && kept < a * 1024) {
				(void)touched(4 * KiB);
				kept += 4;
			}
			sleep_s(0.25);
		}
		event("stop", "%.0f KiB cached", kept);
		for (;;)
			sleep_s(60);
	} else if (!strcmp(mode, "arena"))
		mode_arena((int)a, b);
	else if (!strcmp(mode, "step")) {
		sleep_s(a);
		(void)touched((size_t)(b * MiB));
		event("step", "%.0f MiB", b);
		for (;;)
			sleep_s(60);
	}
	fprintf(stderr, "planted: unknown mode %s\n", mode);
	return 2;
}
