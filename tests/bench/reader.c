/*
 * reader - one reader of process memory, for `make bench` to measure from
 * the outside (utime+stime in /proc/PID/stat). Not a test.
 *
 *   reader memz [-w PIDFILE]   the core sampler, one cycle a second
 *   reader naive               open/read/close every smaps_rollup a second
 *   reader hour [-c CYCLES]    the core sampler over CYCLES cycles of a fake
 *                              clock (t += 1), as fast as it goes; then VmRSS
 *
 * memz prints one line per SIGUSR1 about the window since the last one:
 * cycles, CPU of the exact reads per second and the largest in one cycle,
 * and, with -w, the process in PIDFILE: its verdict and rate at the end of
 * the window, its exact reads and largest PSS age in the window, and how
 * long after it was first seen it was first flagged (its own allocation
 * ramp counts: it is seen while it touches its memory).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memz/procfs.h"
#include "memz/sampler.h"

static volatile sig_atomic_t report, stop;

static void on_sig(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

static long vm_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

/* Sleep until the next whole second of the monotonic clock. */
static void tick(struct timespec *next)
{
	next->tv_sec++;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) ==
		       EINTR &&
	       !stop && !report)
		;
}

static void naive_cycle(char *buf, size_t cap)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct memz_rollup r;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[64];
		ssize_t n;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/smaps_rollup", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, cap - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			memz_parse_rollup(buf, (size_t)n, &r);
		}
	}
	closedir(d);
}

static int watched_pid(const char *file)
{
	FILE *f;
	int pid = 0;

	if (!file || !(f = fopen(file, "r")))
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid;
}

struct window {
	unsigned cycles, reads, deferred;
	double rollup_cpu, rollup_max, t0;
};

static int run_memz(const char *watch, int hour_cycles)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct window w;
	struct timespec next;
	double seen_t = -1, flag_t = -1, t = 0, rate = 0, max_age = 0;
	unsigned exact = 0;
	int flagged = 0;
	int pid = 0;

	memz_settings_init(&set);
	memz_settings_set(&set, "MaxOpenFiles", "100000", NULL, 0);
	if (memz_sampler_new(&s, &set, memz_allocator_libc())) {
		fprintf(stderr, "reader: sampler failed\n");
		return 1;
	}
	memz_snapshot_init(&snap);
	if (hour_cycles > 0) {
		for (int i = 0; i < hour_cycles; i++)
			memz_sampler_run(s, t += 1.0, &snap);
		printf("hour: cycles=%d procs=%zu VmRSS_kB=%ld\n", hour_cycles,
		       snap.view.n_procs, vm_rss_kb());
		memz_sampler_free(&s);
		memz_snapshot_release(&snap, memz_allocator_libc());
		return 0;
	}
	memset(&w, 0, sizeof w);
	clock_gettime(CLOCK_MONOTONIC, &next);
	w.t0 = memz_now();
	while (!stop) {
		double now = memz_now();

		memz_sampler_run(s, now, &snap);
		w.cycles++;
		w.reads += snap.stats.rollup_reads;
		w.deferred += snap.stats.rollup_deferred;
		w.rollup_cpu += snap.stats.rollup_cpu_s;
		if (snap.stats.rollup_cpu_s > w.rollup_max)
			w.rollup_max = snap.stats.rollup_cpu_s;
		if (!pid)
			pid = watched_pid(watch);
		for (size_t i = 0; pid && i < snap.view.n_procs; i++) {
			const struct memz_proc *p = snap.view.procs[i];

			if (p->pid != pid)
				continue;
			if (seen_t < 0)
				seen_t = now;
			if (p->det.verdict.leak && flag_t < 0)
				flag_t = now;
			flagged = p->det.verdict.leak;
			rate = p->det.verdict.rate_bps;
			exact += p->pss_age == 0;
			if (p->pss_age > max_age)
				max_age = p->pss_age;
		}
		tick(&next);
		if (report) {
			double span = memz_now() - w.t0;

			report = 0;
			printf("memz: cycles=%u procs=%zu open_fds=%u exact_reads=%u "
			       "deferred=%u rollup_cpu_ms_per_s=%.3f "
			       "rollup_cpu_max_ms_per_cycle=%.3f budget_left_ms=%.1f "
			       "watched: flagged=%d rate_KiB_s=%.0f exact_reads=%u "
			       "max_pss_age_s=%.0f flagged_after_seen_s=%.1f "
			       "VmRSS_kB=%ld\n",
			       w.cycles, snap.view.n_procs, snap.stats.open_fds,
			       w.reads, w.deferred, w.rollup_cpu * 1e3 / span,
			       w.rollup_max * 1e3, snap.stats.budget_left_s * 1e3,
			       flagged, rate / 1024, exact, max_age,
			       flag_t >= 0 ? flag_t - seen_t : -1.0, vm_rss_kb());
			exact = 0;
			max_age = 0;
			fflush(stdout);
			memset(&w, 0, sizeof w);
			w.t0 = memz_now();
		}
	}
	memz_sampler_free(&s);
	memz_snapshot_release(&snap, memz_allocator_libc());
	return 0;
}

static int run_naive(void)
{
	static char buf[8192];
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop) {
		naive_cycle(buf, sizeof buf);
		tick(&next);
		report = 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *watch = NULL, *mode = argc > 1 ? argv[1] : "";
	int cycles = 3600, opt;
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	optind = 2;
	while ((opt = getopt(argc, argv, "w:c:")) != -1) {
		if (opt == 'w')
			watch = optarg;
		else if (opt == 'c')
			cycles = atoi(optarg);
		else
			return 2;
	}
	if (!strcmp(mode, "memz"))
		return run_memz(watch, 0);
	if (!strcmp(mode, "naive"))
		return run_naive();
	if (!strcmp(mode, "hour"))
		return run_memz(NULL, cycles);
	fprintf(stderr, "usage: reader memz [-w PIDFILE] | naive | hour [-c N]\n");
	return 2;
}
