/*
 * procs - the processes `make bench` measures readers on. Not a test.
 *
 *   procs -n N (-m MIB | -k KIB) [-l [-H]] [-c FORKS]
 *
 * Forks N children that each touch MIB MiB or KIB KiB (4 KiB pages, so a
 * large one is as expensive to walk as a real database), prints "ready" once
 * all have, and then waits. An idle child sleeps in pause() and costs no CPU
 * (the scale phase runs thousands); every child dies with this process
 * (PR_SET_PDEATHSIG), so a killed bench leaves none behind. SIGUSR1: every child changes its resident size every
 * 10 ms; SIGUSR2: idle again; SIGTERM: kill the children and exit. With -l
 * each child also grows by 1 MiB every second from the start (a leak); with
 * -H too, only once the child itself gets SIGHUP (the bench's memz reader
 * sends it when the child's allocation ramp is no longer flagged). With -c
 * it also starts FORKS short-lived processes a second (each exits at once:
 * fork churn, as cron, shells and health checks make); -n 0 -c 10 is churn
 * alone.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t busy, stop, leak_on = 1;

static void on_sig(int sig)
{
	if (sig == SIGHUP)
		leak_on = 1;
	else if (sig == SIGUSR1)
		busy = 1;
	else if (sig == SIGUSR2)
		busy = 0;
	else
		stop = 1;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void child(size_t kib, int leak, int ready_fd, pid_t parent)
{
	size_t size = kib << 10, extra = 2u << 20, off = 0, grown = 0;
	size_t leak_cap = leak ? (size_t)1 << 30 : 0;
	long page = sysconf(_SC_PAGESIZE);
	char *m;
	unsigned tick = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	m = mmap(NULL, size + extra + leak_cap, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(1);
	madvise(m, size + extra + leak_cap, MADV_NOHUGEPAGE);
	memset(m, 1, size);
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	close(ready_fd);
	for (;;) {
		if (!busy && !(leak && leak_on)) {
			pause();
			continue;
		}
		if (busy) {
			m[size + off] = 1;
			off += (size_t)page;
			if (off >= extra) {
				madvise(m + size, extra, MADV_DONTNEED);
				off = 0;
			}
		}
		if (leak && leak_on && ++tick % 100 == 0 &&
		    grown + (1u << 20) <= leak_cap) {
			memset(m + size + extra + grown, 2, 1u << 20);
			grown += 1u << 20;
		}
		nap_ms(10);
	}
}

int main(int argc, char **argv)
{
	int n = 1000, leak = 0, churn = 0, opt, pfd[2];
	size_t kib = 3 << 10;
	pid_t *kids;
	struct sigaction sa;

	while ((opt = getopt(argc, argv, "n:m:k:lHc:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'm')
			kib = (size_t)atol(optarg) << 10;
		else if (opt == 'k')
			kib = (size_t)atol(optarg);
		else if (opt == 'l')
			leak = 1;
		else if (opt == 'H')
			leak_on = 0;
		else if (opt == 'c')
			churn = atoi(optarg);
		else
			return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	kids = calloc((size_t)n, sizeof *kids);
	if (!kids || pipe(pfd))
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t parent = getpid();

		kids[i] = fork();
		if (kids[i] < 0) {
			fprintf(stderr, "procs: fork %d of %d: %s\n", i + 1, n,
				strerror(errno));
			return 1; /* the children die with it */
		}
		if (kids[i] == 0) {
			close(pfd[0]);
			child(kib, leak, pfd[1], parent);
		}
	}
	close(pfd[1]);
	for (int i = 0; i < n; i++) {
		char c;
		if (read(pfd[0], &c, 1) != 1)
			return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (int applied = 0, tick = 0; !stop; nap_ms(100), tick++) {
		/* FORKS a second, spread over the ten naps of a second */
		for (int i = churn * (tick % 10) / 10;
		     i < churn * (tick % 10 + 1) / 10; i++) {
			pid_t k = fork();

			if (k == 0)
				_exit(0);
			if (k > 0)
				waitpid(k, NULL, 0);
		}
		if (busy == applied)
			continue;
		applied = busy;
		for (int i = 0; i < n; i++)
			kill(kids[i], applied ? SIGUSR1 : SIGUSR2);
	}
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	free(kids);
	return 0;
}
