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
 * and, with -w, each process in PIDFILE (up to 4, one pid a line): its
 * verdict and rate at the end of the window, its exact reads and largest
 * PSS age in the window, and how long after its leak started it was first
 * flagged. memz starts their leaks (SIGHUP, see procs -H) once none of them
 * has been flagged for a few cycles, and prints "memz: armed" then.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memz/procfs.h"
#include "naive.h"
#include "memz/sampler.h"

static volatile sig_atomic_t report, stop;

static void on_sig(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

static long status_kb(const char *key)
{
	char line[256];
	long kb = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, n))
			kb = atol(line + n);
	fclose(f);
	return kb;
}

static long vm_rss_kb(void)
{
	return status_kb("VmRSS:");
}

/* memz's own PSS: shared library pages count by their share. */
static long pss_kb(void)
{
	char buf[4096];
	struct memz_rollup r;
	ssize_t n;
	int fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n <= 0 || memz_parse_rollup(buf, (size_t)n, &r))
		return -1;
	return (long)(r.pss >> 10);
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

#define MAX_WATCH 4

/* A watched process: leaks once armed, and how soon it is flagged. */
struct watched {
	int pid;
	bool flagged;
	double rate, max_age, flag_t;
	unsigned exact;
};

/* The pids in file, one a line, once it has any. */
static int read_watch(const char *file, struct watched *w)
{
	FILE *f;
	int n = 0;

	if (!file || !(f = fopen(file, "r")))
		return 0;
	while (n < MAX_WATCH && fscanf(f, "%d", &w[n].pid) == 1 && w[n].pid > 0)
		n++;
	fclose(f);
	return n;
}

struct window {
	unsigned cycles, reads, deferred;
	unsigned listed;     /* cycles that listed /proc */
	unsigned long files; /* files read, probes included */
	double rollup_cpu, rollup_max, t0;
};

static int run_hour(struct memz_sampler *s, struct memz_snapshot *snap,
		    int cycles)
{
	double t = 0;

	for (int i = 0; i < cycles; i++)
		memz_sampler_run(s, t += 1.0, snap);
	/* RssAnon is what memz's own data costs; RssFile is mostly the shared
	 * libc every process maps anyway, which PSS divides among them */
	printf("hour: cycles=%d procs=%zu VmRSS_kB=%ld RssAnon_kB=%ld "
	       "RssFile_kB=%ld Pss_kB=%ld\n", cycles, snap->view.n_procs,
	       vm_rss_kb(), status_kb("RssAnon:"), status_kb("RssFile:"),
	       pss_kb());
#ifdef __GLIBC__
	{
		/* where RssAnon goes: what malloc hands out against what it
		 * holds free (fragmentation, or the top it keeps) */
		struct mallinfo2 mi = mallinfo2();

		printf("hour: heap_in_use_kB=%zu heap_free_kB=%zu "
		       "heap_top_free_kB=%zu mmapped_kB=%zu\n",
		       mi.uordblks >> 10, mi.fordblks >> 10,
		       mi.keepcost >> 10, mi.hblkhd >> 10);
	}
#endif
	return 0;
}

/*
 * The watched processes (procs -l -H) wait for SIGHUP to start leaking.
 * They are armed once all have been seen unflagged for ARM_CYCLES cycles in
 * a row, so a verdict on their allocation ramp has cleared and the time to
 * flag is the detector's latency on the leak alone, the large process's
 * beside the small one's.
 */
#define ARM_CYCLES 5

static void watch_cycle(const struct memz_snapshot *snap, struct watched *w,
			int n, double now, double *armed_t, unsigned *calm)
{
	int seen = 0, flagged = 0;

	for (size_t i = 0; i < snap->view.n_procs; i++) {
		const struct memz_proc *p = snap->view.procs[i];

		for (int k = 0; k < n; k++) {
			if (p->pid != w[k].pid)
				continue;
			seen++;
			w[k].flagged = p->det.verdict.leak;
			flagged += w[k].flagged;
			w[k].rate = p->det.verdict.rate_bps;
			w[k].exact += p->pss_age == 0;
			if (p->pss_age > w[k].max_age)
				w[k].max_age = p->pss_age;
			if (*armed_t >= 0 && w[k].flagged && w[k].flag_t < 0)
				w[k].flag_t = now;
		}
	}
	if (*armed_t >= 0 || n == 0)
		return;
	*calm = seen == n && !flagged ? *calm + 1 : 0;
	if (*calm < ARM_CYCLES)
		return;
	for (int k = 0; k < n; k++)
		kill(w[k].pid, SIGHUP);
	*armed_t = now;
	printf("memz: armed\n");
	fflush(stdout);
}

static int run_memz(const char *watch, int hour_cycles)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct window w;
	struct timespec next;
	struct watched wd[MAX_WATCH];
	double armed_t = -1;
	unsigned calm = 0;
	int nw = 0;

	memz_settings_init(&set);
	memz_settings_set(&set, "MaxOpenFiles", "100000", NULL, 0);
	if (memz_sampler_new(&s, &set, memz_allocator_libc())) {
		fprintf(stderr, "reader: sampler failed\n");
		return 1;
	}
	memz_snapshot_init(&snap);
	if (hour_cycles > 0) {
		run_hour(s, &snap, hour_cycles);
		memz_sampler_free(&s);
		memz_snapshot_release(&snap);
		return 0;
	}
	memset(wd, 0, sizeof wd);
	memset(&w, 0, sizeof w);
	clock_gettime(CLOCK_MONOTONIC, &next);
	w.t0 = memz_now();
	while (!stop) {
		double now = memz_now();

		memz_sampler_run(s, now, &snap);
		w.cycles++;
		w.reads += snap.stats.rollup_reads;
		w.listed += snap.stats.listed;
		w.files += snap.stats.files_read;
		w.deferred += snap.stats.rollup_deferred;
		w.rollup_cpu += snap.stats.rollup_cpu_s;
		if (snap.stats.rollup_cpu_s > w.rollup_max)
			w.rollup_max = snap.stats.rollup_cpu_s;
		if (!nw && (nw = read_watch(watch, wd)) > 0)
			for (int k = 0; k < nw; k++)
				wd[k].flag_t = -1;
		watch_cycle(&snap, wd, nw, now, &armed_t, &calm);
		tick(&next);
		if (report) {
			double span = memz_now() - w.t0;

			report = 0;
			printf("memz: cycles=%u listed=%u files_read_per_cycle=%lu "
			       "procs=%zu open_fds=%u exact_reads=%u "
			       "deferred=%u rollup_cpu_ms_per_s=%.3f "
			       "rollup_cpu_max_ms_per_cycle=%.3f budget_left_ms=%.1f "
			       "VmRSS_kB=%ld",
			       w.cycles, w.listed,
			       w.cycles ? w.files / w.cycles : 0,
			       snap.view.n_procs, snap.stats.open_fds,
			       w.reads, w.deferred, w.rollup_cpu * 1e3 / span,
			       w.rollup_max * 1e3, snap.stats.budget_left_s * 1e3,
			       vm_rss_kb());
			for (int k = 0; k < nw; k++) {
				printf(" | watched %d: flagged=%d rate_KiB_s=%.0f "
				       "exact_reads=%u max_pss_age_s=%.0f "
				       "flagged_after_leak_start_s=%.1f",
				       k, wd[k].flagged, wd[k].rate / 1024,
				       wd[k].exact, wd[k].max_age,
				       wd[k].flag_t >= 0 ? wd[k].flag_t - armed_t
							 : -1.0);
				wd[k].exact = 0;
				wd[k].max_age = 0;
			}
			printf("\n");
			fflush(stdout);
			memset(&w, 0, sizeof w);
			w.t0 = memz_now();
		}
	}
	memz_sampler_free(&s);
	memz_snapshot_release(&snap);
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

#ifdef __GLIBC__
	/* as memz.plugin does (plugins/netdata/main.c) */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
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
