#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/sampler.h"

#define MiB (1024ull * 1024ull)

static uint64_t parts_sum(const struct memz_breakdown *b)
{
	return b->free + b->buffers + b->cached + b->slab + b->page_tables +
	       b->process_anon + b->hidden_anon + b->kernel_residual;
}

static const struct memz_proc *find_pid(const struct memz_snapshot *s, int pid)
{
	for (size_t i = 0; i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i];
	return NULL;
}

static void settings_for(struct memz_settings *s, const char *fixture)
{
	char path[MEMZ_PATH_MAX];

	memz_settings_init(s);
	if (!fixture)
		return;
	snprintf(path, sizeof path, "%s/%s/proc", MEMZ_FIXTURES, fixture);
	CHECK_INT(memz_settings_set(s, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/%s/sys", MEMZ_FIXTURES, fixture);
	CHECK_INT(memz_settings_set(s, "SysRoot", path, NULL, 0), 0);
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
	CHECK(snap.stats.kernel_threads >= 1);
	/* unchanged processes are re-read only every PssRefreshCycles */
	CHECK(snap.stats.rollup_skipped > 0);
	memz_sampler_free(&s);
	CHECK_INT(c.live, 0);
}

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
		CHECK(p->statm_fd >= 0); /* kept for the cheap probe */
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

int main(void)
{
	fixture_real1();
	live();
	unprivileged();
	return check_status();
}
