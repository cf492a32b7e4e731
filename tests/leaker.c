/*
 * leaker - a process whose touched anonymous memory grows at a known rate,
 * so integration tests can check what a host reports against a known truth.
 *
 *   leaker --name NAME [--rate KIB_PER_S] [--start-mib N] [--flat-for S]
 *          [--grow-for S] [--exit-after S] [--once MIB]
 *
 * --name      sets the process name (comm) seen in /proc/PID/stat
 * --rate      growth of touched anonymous memory, KiB per second (default 0)
 * --start-mib touched at start, before growing
 * --flat-for  stay flat for S seconds before growing: a leak in a process
 *             that has settled, which memz judges (a process growing
 *             since it started is warming up; LeakWarmup)
 * --grow-for  stop growing after S seconds but keep running
 * --exit-after exit (status 0) after S seconds
 * --once MIB  touch MIB once at start and stay flat (no growth)
 *
 * Prints its pid on a line of its own as soon as its name is set, so a
 * test that reads the pid may start looking for the name at once. Exits 0
 * on SIGTERM or SIGINT. SIGUSR1 stops the growth for good (as if --grow-for
 * ran out just then), for tests that wait for a verdict before stopping it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* Growth comes in 100 ms steps: fine enough that PSS sampled every 0.5 to
 * 2 s is a straight line, coarse enough that the helper costs nothing. */
#define STEP_NS 100000000L
/* Memory is mapped in chunks so the helper never reserves more than it is
 * about to touch. */
#define CHUNK (8UL << 20)

static volatile sig_atomic_t stop, frozen;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		frozen = 1;
	else
		stop = 1;
}

struct arena {
	unsigned char *chunk; /* current chunk */
	size_t used;          /* bytes touched in the current chunk */
	size_t total;         /* bytes touched overall */
	size_t page;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Touch pages until `target` bytes are resident. Chunks are never freed:
 * the process exits when done. */
static int grow_to(struct arena *a, size_t target)
{
	while (a->total + a->page <= target) {
		if (!a->chunk || a->used == CHUNK) {
			void *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				return -errno;
			/* A transparent huge page would make 4 KiB of touching
			 * cost 2 MiB at once: growth must be smooth. */
			madvise(p, CHUNK, MADV_NOHUGEPAGE);
			a->chunk = p;
			a->used = 0;
		}
		/* Not zero: a page of zeros could be merged away (KSM). */
		memset(a->chunk + a->used, 0xa5, a->page);
		a->used += a->page;
		a->total += a->page;
	}
	return 0;
}

static int parse_num(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = s ? strtod(s, &end) : 0;
	if (!s || !*s || *end || errno || *out < 0) {
		fprintf(stderr, "leaker: %s needs a number >= 0, got \"%s\"\n",
			opt, s ? s : "");
		return -1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: leaker --name NAME [--rate KIB_PER_S] [--start-mib N]\n"
		"              [--flat-for S] [--grow-for S] [--exit-after S]\n"
		"              [--once MIB]\n");
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	double rate = 0, start_mib = 0, grow_for = -1, exit_after = -1,
	       once = -1, flat_for = 0;
	struct arena a = { 0 };
	struct sigaction sa;
	double t0, t;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double *dst = NULL;

		if (!strcmp(o, "--name")) {
			if (!v) {
				usage();
				return 2;
			}
			name = v;
			i++;
			continue;
		}
		if (!strcmp(o, "--rate"))
			dst = &rate;
		else if (!strcmp(o, "--start-mib"))
			dst = &start_mib;
		else if (!strcmp(o, "--flat-for"))
			dst = &flat_for;
		else if (!strcmp(o, "--grow-for"))
			dst = &grow_for;
		else if (!strcmp(o, "--exit-after"))
			dst = &exit_after;
		else if (!strcmp(o, "--once"))
			dst = &once;
		if (!dst) {
			usage();
			return 2;
		}
		if (parse_num(o, v, dst))
			return 2;
		i++;
	}
	if (!name) {
		usage();
		return 2;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	/* comm is 15 bytes; the kernel truncates a longer name itself. */
	if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
		perror("leaker: prctl(PR_SET_NAME)");
		return 1;
	}
	a.page = (size_t)sysconf(_SC_PAGESIZE);

	if (once >= 0) {
		start_mib += once;
		rate = 0;
	}
	rc = grow_to(&a, (size_t)(start_mib * 1048576.0));
	if (rc) {
		fprintf(stderr, "leaker: mmap: %s\n", strerror(-rc));
		return 1;
	}
	printf("%ld\n", (long)getpid());
	fflush(stdout);

	t0 = now_s();
	while (!stop) {
		struct timespec step = { 0, STEP_NS };
		double grown;

		t = now_s() - t0;
		if (exit_after >= 0 && t >= exit_after)
			break;
		if (frozen && (grow_for < 0 || t < grow_for))
			grow_for = t;
		grown = grow_for >= 0 && t > grow_for ? grow_for : t;
		grown = grown > flat_for ? grown - flat_for : 0;
		rc = grow_to(&a, (size_t)(start_mib * 1048576.0 +
					  rate * 1024.0 * grown));
		if (rc) {
			fprintf(stderr, "leaker: mmap: %s\n", strerror(-rc));
			return 1;
		}
		nanosleep(&step, NULL);
	}
	return 0;
}
