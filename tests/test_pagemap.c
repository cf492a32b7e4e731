/*
 * test_pagemap.c - the pagemap walk over fixture maps and a pagemap the
 * test writes (tests/fixtures/pagemap/), bounded steps, malformed maps,
 * the PSS estimate, and a live process whose smaps_rollup PSS must lie
 * within the estimate's stated error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "memz/json.h"
#include "memz/pagemap.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"
#include "memz/sampler.h"

#define PG 4096u
#define P MEMZ_PAGEMAP_PRESENT
#define X MEMZ_PAGEMAP_EXCLUSIVE
#define F MEMZ_PAGEMAP_FILE
#define SW MEMZ_PAGEMAP_SWAPPED
#define MiB (1024u * 1024u)

static struct memz_pagemap_walk walk; /* 68 KiB: not on the stack */
static char tmpdir[] = "/tmp/test_pagemap.XXXXXX";

static void put(int fd, uint64_t addr, unsigned pages, uint64_t e)
{
	for (unsigned i = 0; i < pages; i++)
		CHECK_INT(pwrite(fd, &e, sizeof e,
				 (off_t)((addr / PG + i) * sizeof e)),
			  (long)sizeof e);
}

/* The pagemap tests/fixtures/README describes for pagemap/maps. */
static int fixture_pagemap(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "%s/pagemap", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	put(fd, 0x400000, 6, P | F | X);
	put(fd, 0x406000, 4, P | F);
	put(fd, 0x410000, 4, P | X);
	put(fd, 0x414000, 2, SW);
	put(fd, 0x420000, 32, P | X);
	put(fd, 0x440000, 50, P | X);
	put(fd, 0x480000 - 5 * PG, 5, P);
	put(fd, 0x10000000, 16, P | F);
	return fd;
}

static int open_text(const char *name, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_INT(write(fd, text, strlen(text)), (long)strlen(text));
		lseek(fd, 0, SEEK_SET);
	}
	return fd;
}

static void check_fixture_counts(const struct memz_pagemap_counts *c)
{
	CHECK_U64(c->present, 85);
	CHECK_U64(c->exclusive, 60);
	CHECK_U64(c->file, 26);
	CHECK_U64(c->swapped, 2);
}

/* One step with room for everything reads the whole fixture; the guard
 * mapping's entries are not counted and [vsyscall], beyond the file, ends
 * the walk quietly. */
static void fixture_whole(int pm)
{
	int maps = open(MEMZ_FIXTURES "/pagemap/maps", O_RDONLY);

	CHECK(maps >= 0);
	memz_pagemap_begin(&walk, maps, pm, PG);
	CHECK_INT(memz_pagemap_step(&walk, 1u << 30), 1);
	check_fixture_counts(&walk.c);
	/* every entry of the walked mappings, up to the file's end */
	CHECK_U64(walk.entries, 16 + 16 + 64 + 16);
	close(maps);
}

/* Small steps: each reads at most its allowance (a read counting
 * MEMZ_PAGEMAP_CALL_COST at least), and together they count what one
 * step does. */
static void fixture_steps(int pm)
{
	int maps = open(MEMZ_FIXTURES "/pagemap/maps", O_RDONLY);
	int steps = 0, rc;
	uint64_t before = 0;

	CHECK(maps >= 0);
	memz_pagemap_begin(&walk, maps, pm, PG);
	do {
		rc = memz_pagemap_step(&walk, 1);
		steps++;
		/* a step of allowance 1 makes at most one maps read and
		 * one pagemap read, of MEMZ_PAGEMAP_CALL_COST entries */
		CHECK(walk.c.present - before <= MEMZ_PAGEMAP_CALL_COST);
		before = walk.c.present;
	} while (rc == 0 && steps < 1000);
	CHECK_INT(rc, 1);
	/* 5 mappings with entries, each its own step */
	CHECK(steps >= 5);
	check_fixture_counts(&walk.c);
	close(maps);

	/* a larger allowance still stops and resumes inside the walk */
	maps = open(MEMZ_FIXTURES "/pagemap/maps", O_RDONLY);
	memz_pagemap_begin(&walk, maps, pm, PG);
	CHECK_INT(memz_pagemap_step(&walk, MEMZ_PAGEMAP_CALL_COST * 3), 0);
	CHECK(walk.next > 0);
	while ((rc = memz_pagemap_step(&walk, MEMZ_PAGEMAP_CALL_COST * 3)) == 0)
		;
	CHECK_INT(rc, 1);
	check_fixture_counts(&walk.c);
	close(maps);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* With gap_ns, a step pauses that long between two pagemap reads (a writer
 * waiting for the lock gets it then), and counts what it counts without. */
static void fixture_gaps(int pm)
{
	int maps = open(MEMZ_FIXTURES "/pagemap/maps", O_RDONLY);
	double t0;

	CHECK(maps >= 0);
	memz_pagemap_begin(&walk, maps, pm, PG);
	CHECK_INT(walk.gap_ns, 0);
	CHECK_INT(memz_pagemap_step(&walk, 1u << 30), 1);
	CHECK_INT(walk.pauses, 0);
	close(maps);

	maps = open(MEMZ_FIXTURES "/pagemap/maps", O_RDONLY);
	memz_pagemap_begin(&walk, maps, pm, PG);
	walk.gap_ns = 2000000;
	t0 = mono();
	CHECK_INT(memz_pagemap_step(&walk, 1u << 30), 1);
	/* 5 mappings with entries: a read each, a pause between two */
	CHECK(walk.pauses >= 4);
	CHECK(mono() - t0 >= walk.pauses * 2e-3);
	check_fixture_counts(&walk.c);
	close(maps);
}

static void one_bad(int pm, const char *text, const char *why_part)
{
	int maps = open_text("maps", text);

	memz_pagemap_begin(&walk, maps, pm, PG);
	CHECK_INT(memz_pagemap_step(&walk, 1u << 20), -EINVAL);
	CHECK(walk.why && strstr(walk.why, why_part));
	if (!walk.why || !strstr(walk.why, why_part))
		fprintf(stderr, "  for %s: why %s\n", text,
			walk.why ? walk.why : "(null)");
	close(maps);
}

/* Every malformed line is refused with its reason, whatever came before. */
static void malformed(int pm)
{
	static const char good[] =
		"00400000-00410000 r-xp 00000000 fd:01 1234 /usr/bin/big\n";
	char text[512];

	one_bad(pm, "00400000 r-xp 00000000 fd:01 1234 /x\n", "range");
	one_bad(pm, "0040000g-00410000 r-xp 00000000 fd:01 1234 /x\n", "range");
	one_bad(pm, "00410000-00400000 r-xp 00000000 fd:01 1234 /x\n", "empty");
	one_bad(pm, "00400000-00400000 r-xp 00000000 fd:01 1234 /x\n", "empty");
	one_bad(pm, "00400100-00410000 r-xp 00000000 fd:01 1234 /x\n", "aligned");
	one_bad(pm, "00400000-00410000 rwxq 00000000 fd:01 1234 /x\n", "permissions");
	one_bad(pm, "00400000-00410000 r-x 00000000 fd:01 1234 /x\n", "permissions");
	one_bad(pm, "00400000-00410000 r-xp 0000000z fd:01 1234 /x\n", "device");
	one_bad(pm, "00400000-00410000 r-xp 00000000 fd01 1234 /x\n", "device");
	one_bad(pm, "00400000-00410000 r-xp 00000000 fd:01 /x\n", "inode");
	one_bad(pm, "00400000-00410000 r-xp 00000000 fd:01 12a4 /x\n", "inode");
	one_bad(pm, "00400000-0000000000000000410000 r-xp 0 0:0 0\n", "range");
	snprintf(text, sizeof text, "%s%s", good, "00410000-00420000 rw-p 0");
	one_bad(pm, text, "inside a line");
	snprintf(text, sizeof text, "%s%s", good, "garbage\n");
	one_bad(pm, text, "range");
}

/* A path longer than the line buffer: the line's fields are read from
 * its start, the rest skipped, and the next line read as usual. */
static void long_line(int pm)
{
	size_t n = 3 * sizeof walk.lines;
	char *text = malloc(n + 256);
	size_t off;
	int maps;

	CHECK(text != NULL);
	if (!text)
		return;
	off = (size_t)sprintf(text, "00400000-00410000 r-xp 00000000 fd:01 1234 /");
	memset(text + off, 'a', n);
	off += n;
	sprintf(text + off, "\n00440000-00480000 rw-p 00000000 00:00 0 [heap]\n");
	maps = open_text("maps", text);
	memz_pagemap_begin(&walk, maps, pm, PG);
	CHECK_INT(memz_pagemap_step(&walk, 1u << 20), 1);
	CHECK_U64(walk.c.present, 10 + 55);
	CHECK_U64(walk.c.exclusive, 6 + 50);
	close(maps);
	free(text);
}

static void estimate(void)
{
	struct memz_pss_estimate e;
	struct memz_pagemap_counts c = { .present = 300, .exclusive = 200 };

	/* 100 pages not exclusive: PSS in [uss, uss + 50 pages] */
	memz_pagemap_estimate(300 * PG, 100 * PG, &e);
	CHECK_U64(e.uss, 200 * PG);
	CHECK_U64(e.pss, 225 * PG);
	CHECK_U64(e.error, 25 * PG);
	/* all exclusive: exact */
	memz_pagemap_estimate(300 * PG, 0, &e);
	CHECK_U64(e.pss, 300 * PG);
	CHECK_U64(e.error, 0);
	/* the process shrank below what was shared: all of it may be */
	memz_pagemap_estimate(40 * PG, 100 * PG, &e);
	CHECK_U64(e.uss, 0);
	CHECK_U64(e.pss, 10 * PG);
	CHECK_U64(e.error, 10 * PG);
	/* the bound rounds up */
	memz_pagemap_estimate(10, 5, &e);
	CHECK_U64(e.pss, 6);
	CHECK_U64(e.error, 2);
	/* up to the top of the range (fuzz_pagemap): an error that wrapped
	 * to 0 would call a guess exact */
	memz_pagemap_estimate(UINT64_MAX, UINT64_MAX, &e);
	CHECK_U64(e.uss, 0);
	CHECK_U64(e.pss, UINT64_MAX / 4);
	CHECK_U64(e.error, UINT64_MAX / 4 + 1);

	/* shared: zero pages are present but not resident for status, so
	 * status's resident bounds it; growth during the walk is in
	 * status's figure but not the walk's, which then bounds it */
	CHECK_U64(memz_pagemap_shared(&c, PG, 250 * PG), 50 * PG);
	CHECK_U64(memz_pagemap_shared(&c, PG, 400 * PG), 100 * PG);
	CHECK_U64(memz_pagemap_shared(&c, PG, 150 * PG), 0);
}

/* The live process: 64 MiB private and touched, 16 MiB shared with a
 * forked sibling (forked before the private mapping exists, so that stays
 * exclusive), and 8 MiB only read: the shared zero page where the kernel
 * maps it on a read (present for pagemap, not resident for status or
 * smaps), real pages where it does not. */
static pid_t spawn_child(int *ready, int *hold)
{
	int r[2], h[2];
	pid_t pid;

	if (pipe(r) || pipe(h))
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t sh = 16 * MiB, pr = 64 * MiB, z = 8 * MiB;
		char *s = mmap(NULL, sh, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		char *p, *zp, ch;
		int sr[2];
		volatile char sum = 0;
		pid_t sib;

		close(r[0]);
		close(h[1]);
		if (s == MAP_FAILED)
			_exit(1);
		memset(s, 1, sh);
		if (pipe(sr))
			_exit(1);
		sib = fork();
		if (sib == 0) {
			/* fork copies no page tables of a shared mapping:
			 * the sibling maps the pages by touching them */
			for (size_t i = 0; i < sh; i += PG)
				sum += s[i];
			if (write(sr[1], "s", 1) != 1)
				_exit(1);
			while (read(h[0], &ch, 1) > 0)
				;
			_exit(sum);
		}
		if (read(sr[0], &ch, 1) != 1)
			_exit(1);
		p = mmap(NULL, pr, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		zp = mmap(NULL, z, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || zp == MAP_FAILED)
			_exit(1);
		madvise(zp, z, MADV_NOHUGEPAGE);
		memset(p, 2, pr);
		for (size_t i = 0; i < z; i += PG)
			sum += zp[i];
		if (write(r[1], "r", 1) != 1)
			_exit(1);
		while (read(h[0], &ch, 1) > 0)
			;
		kill(sib, SIGKILL);
		waitpid(sib, NULL, 0);
		_exit(sum);
	}
	close(r[1]);
	close(h[0]);
	*ready = r[0];
	*hold = h[1];
	return pid;
}

static int open_pid(pid_t pid, const char *name)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void live(void)
{
	static char buf[8192];
	int ready, hold, maps, pm, fd, rc, steps = 0;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), rss, shared;
	struct memz_pstatus st;
	struct memz_rollup roll;
	struct memz_pss_estimate e;
	size_t len;
	char ch;
	pid_t pid = spawn_child(&ready, &hold);

	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK_INT(read(ready, &ch, 1), 1);
	maps = open_pid(pid, "maps");
	pm = open_pid(pid, "pagemap");
	CHECK(maps >= 0 && pm >= 0);
	memz_pagemap_begin(&walk, maps, pm, page);
	/* 16 MiB of address space a step, as a cycle would */
	while ((rc = memz_pagemap_step(&walk, 4096)) == 0)
		steps++;
	CHECK_INT(rc, 1);
	CHECK(steps >= 5);

	fd = open_pid(pid, "status");
	CHECK_INT(memz_pread_file(fd, buf, sizeof buf, &len), 0);
	CHECK_INT(memz_parse_status(buf, len, &st), 0);
	close(fd);
	fd = open_pid(pid, "smaps_rollup");
	CHECK_INT(memz_pread_file(fd, buf, sizeof buf, &len), 0);
	CHECK_INT(memz_parse_rollup(buf, len, &roll), 0);
	close(fd);

	rss = st.rss_anon + st.rss_file + st.rss_shmem;
	shared = memz_pagemap_shared(&walk.c, page, rss);
	memz_pagemap_estimate(rss, shared, &e);
	fprintf(stderr,
		"live: present %llu exclusive %llu pages; status rss %llu kB; "
		"estimate pss %llu +- %llu kB, smaps_rollup pss %llu kB\n",
		(unsigned long long)walk.c.present,
		(unsigned long long)walk.c.exclusive,
		(unsigned long long)rss / 1024, (unsigned long long)e.pss / 1024,
		(unsigned long long)e.error / 1024,
		(unsigned long long)roll.pss / 1024);
	/* status counts resident pages, and the walk sees each present
	 * (status's counters may lag by a little); the 8 MiB only read are
	 * zero pages, present for the walk but not resident, where the
	 * kernel maps the zero page, and real exclusive pages where it does
	 * not: which one the child got is the kernel's choice, and under
	 * valgrind not what a probe of this process saw; under ASan every
	 * read also touches shadow memory, present and not resident. So the
	 * walk is held to what holds in every case: each resident page is
	 * present, and the 64 MiB written are exclusive */
	CHECK(walk.c.present * page + MiB >= rss);
	CHECK(walk.c.exclusive * page >= 64 * MiB);
	CHECK(e.uss >= 64 * MiB);
	CHECK(shared >= 16 * MiB);
	/* the stated bound holds (smaps truncates PSS to whole kB) */
	CHECK(roll.pss + 1024 >= e.pss - e.error);
	CHECK(roll.pss <= e.pss + e.error);
	/* and is tight: a quarter of what is not the 64 MiB (the sibling's
	 * 16, the libraries, any real pages read; under valgrind, its own) */
	CHECK(e.error <= (rss - 64 * MiB) / 4 + PG);

	/* after the process exits, a walk begun before is refused, not cut */
	memz_pagemap_begin(&walk, maps, pm, page);
	lseek(maps, 0, SEEK_SET);
	close(hold);
	waitpid(pid, NULL, 0);
	rc = memz_pagemap_step(&walk, 1u << 30);
	CHECK(rc == -ESRCH || rc == -ENOENT);
	if (rc != -ESRCH && rc != -ENOENT)
		fprintf(stderr, "live: walk of an exited process gave %d\n", rc);
	close(maps);
	close(pm);
	close(ready);
}

static const struct memz_proc *find_pid(const struct memz_snapshot *s,
					int pid)
{
	for (size_t i = 0; i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i];
	return NULL;
}

/* The last two samples the process's detector holds, as it sees them. */
static void last_two(const struct memz_detector *d, double *prev,
		     double *last)
{
	unsigned n = d->rcount;

	*prev = *last = -1;
	if (n < 2)
		return;
	*prev = memz_detector_ring_pss(d, n - 2);
	*last = memz_detector_ring_pss(d, n - 1);
}

/* tree1's pid 201 above ExactMaxRss, with a maps and pagemap matching its
 * status: 23,808 kB resident (5,952 pages), of which 1,024 pages mapped
 * twice (its smaps_rollup says PSS 21,760 kB: 2,048 kB less). Its one
 * mapping is 256 MiB, so the walk takes two reads of it: until it
 * completes, PSS is RSS and the error all of it; then PSS is
 * 23,808 - 3/4 * 4,096 = 20,736 kB within 1,024 kB, and the detector's
 * history moves with the switch, so it sees no step. MaxOpenFiles is 5,
 * one per process: statm's kept fds leave the walk its two. */
static void sampler_fixture(void)
{
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	char cmd[256], path[128];
	double prev, last;
	FILE *json;
	char *text = NULL;
	size_t len;
	int fd;

	snprintf(cmd, sizeof cmd, "cp -r '%s/tree1' '%s/tree'", MEMZ_FIXTURES,
		 tmpdir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof path, "%s/tree/proc/201/maps", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	dprintf(fd, "00400000-10400000 rw-p 00000000 00:00 0 [heap]\n");
	close(fd);
	snprintf(path, sizeof path, "%s/tree/proc/201/pagemap", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	put(fd, 0x400000, 4928, P | X);
	put(fd, 0x400000 + 4928 * PG, 1024, P);
	put(fd, 0x10400000 - PG, 1, 0); /* the file covers the mapping */
	close(fd);

	memz_settings_init(&set);
	/* its leaking children are young: judged from birth here, as
	 * warm-up is test_table's */
	set.leak_warmup = 0;
	snprintf(path, sizeof path, "%s/tree/proc", tmpdir);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/tree/sys", tmpdir);
	CHECK_INT(memz_settings_set(&set, "SysRoot", path, NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "ExactMaxRss", "16777216", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "MaxOpenFiles", "5", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		goto out;
	memz_snapshot_init(&snap);

	CHECK_INT(memz_sampler_run(s, 1.0, &snap), 0);
	CHECK_INT(snap.stats.fd_budget, 5);
	CHECK_INT(snap.stats.open_fds, 5);
	CHECK_INT(snap.stats.pagemap_steps, 1);
	CHECK_INT(snap.stats.pagemap_walks, 0);
	p = find_pid(&snap, 201);
	CHECK(p && p->estimated);
	CHECK(p && p->mem.pss == 23808 * 1024 && p->pss_error == 23808 * 1024);
	p = find_pid(&snap, 200);
	CHECK(p && !p->estimated && p->pss_error == 0);

	/* 201 is read again though nothing changed: its walk goes on */
	CHECK_INT(memz_sampler_run(s, 11.0, &snap), 0);
	CHECK_INT(snap.stats.pagemap_steps, 1);
	CHECK_INT(snap.stats.pagemap_walks, 1);
	p = find_pid(&snap, 201);
	CHECK(p && p->estimated);
	CHECK(p && p->mem.pss == 20736 * 1024);
	CHECK(p && p->pss_error == 1024 * 1024);
	CHECK(p && memz_rollup_uss(&p->mem) == (23808 - 4096) * 1024);
	/* smaps_rollup's figure within the stated bound */
	CHECK(p && p->mem.pss + p->pss_error >= 21760 * 1024 &&
	      p->mem.pss - p->pss_error <= 21760 * 1024);
	if (p) {
		last_two(&p->det, &prev, &last);
		CHECK_NEAR(prev, 20736 * 1024, 1024);
		CHECK_NEAR(last, 20736 * 1024, 1024);
	}
	/* nor does its group's, which sums it */
	CHECK(p && p->group);
	if (p && p->group) {
		last_two(&p->group->det, &prev, &last);
		CHECK_NEAR(prev, (double)p->group->pss, 1024);
		CHECK_NEAR(last, (double)p->group->pss, 1024);
	}
	/* the JSON says so beside the figure */
	json = open_memstream(&text, &len);
	CHECK(json != NULL);
	if (json) {
		CHECK_INT(memz_json_print(json, &snap), 0);
		fclose(json);
		CHECK(text && strstr(text, "{\"pid\":201,") &&
		      strstr(strstr(text, "{\"pid\":201,"),
			     "\"estimated\":true,\"pss_error\":1048576,"));
		CHECK(text && strstr(text, "{\"pid\":200,") &&
		      strstr(strstr(text, "{\"pid\":200,"),
			     "\"estimated\":false,\"pss_error\":0,"));
		free(text);
	}

	/* no walk is due before PssMaxAge: status alone, the figures kept */
	CHECK_INT(memz_sampler_run(s, 21.0, &snap), 0);
	CHECK_INT(snap.stats.pagemap_steps, 0);
	p = find_pid(&snap, 201);
	CHECK(p && p->mem.pss == 20736 * 1024 && p->pss_error == 1024 * 1024);

	/* a malformed maps is refused with its reason, and the figures stay
	 * those of the last walk */
	snprintf(path, sizeof path, "%s/tree/proc/201/maps", tmpdir);
	fd = open(path, O_WRONLY | O_TRUNC);
	dprintf(fd, "00400000-10400000 rw-q 00000000 00:00 0 [heap]\n");
	close(fd);
	CHECK_INT(memz_sampler_run(s, 81.0, &snap), 0);
	CHECK_INT(snap.stats.pagemap_steps, 1);
	CHECK(snap.stats.pagemap_refused &&
	      strstr(snap.stats.pagemap_refused, "201/maps: maps line: permissions"));
	p = find_pid(&snap, 201);
	CHECK(p && p->mem.pss == 20736 * 1024 && p->pss_error == 1024 * 1024);
	CHECK_INT(memz_sampler_run(s, 91.0, &snap), 0);
	CHECK_INT(snap.stats.pagemap_steps, 0);
	CHECK(snap.stats.pagemap_refused == NULL);

	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
out:
	snprintf(cmd, sizeof cmd, "rm -rf '%s/tree'", tmpdir);
	CHECK_INT(system(cmd), 0);
}

/* A walk through far more address space than the process has resident
 * (AddressSanitizer's terabytes of shadow) is given up past 4 x resident
 * + 1 GiB, here on its fifth step of 256 MiB, so other big processes get
 * their turn: 201's figures stay status's, and no walk of it begins again
 * before PssMaxAge. */
static void sampler_given_up(void)
{
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	const struct memz_proc *p;
	char cmd[256], path[128];
	unsigned steps = 0;
	int fd;

	snprintf(cmd, sizeof cmd, "cp -r '%s/tree1' '%s/tree2'", MEMZ_FIXTURES,
		 tmpdir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof path, "%s/tree2/proc/201/maps", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dprintf(fd, "00400000-80400000 rw-p 00000000 00:00 0 [heap]\n");
	close(fd);
	snprintf(path, sizeof path, "%s/tree2/proc/201/pagemap", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	put(fd, 0x400000, 5952, P | X);
	put(fd, 0x80400000 - PG, 1, 0);
	close(fd);

	memz_settings_init(&set);
	/* its leaking children are young: judged from birth here, as
	 * warm-up is test_table's */
	set.leak_warmup = 0;
	snprintf(path, sizeof path, "%s/tree2/proc", tmpdir);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/tree2/sys", tmpdir);
	CHECK_INT(memz_settings_set(&set, "SysRoot", path, NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "ExactMaxRss", "16777216", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		goto out;
	memz_snapshot_init(&snap);
	for (int i = 0; i < 5; i++) {
		CHECK_INT(memz_sampler_run(s, 1.0 + 10 * i, &snap), 0);
		steps += snap.stats.pagemap_steps;
		CHECK_INT(snap.stats.pagemap_given_up, i == 4);
		CHECK_INT(snap.stats.pagemap_walks, 0);
	}
	CHECK_INT(steps, 5);
	p = find_pid(&snap, 201);
	CHECK(p && p->mem.pss == 23808 * 1024 && p->pss_error == 23808 * 1024);
	CHECK_INT(memz_sampler_run(s, 51.0, &snap), 0);
	CHECK_INT(snap.stats.pagemap_steps, 0);
	CHECK_INT(memz_sampler_run(s, 101.0, &snap), 0);
	CHECK_INT(snap.stats.pagemap_steps, 1);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
out:
	snprintf(cmd, sizeof cmd, "rm -rf '%s/tree2'", tmpdir);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	char path[64];
	int pm;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	pm = fixture_pagemap();
	if (pm >= 0) {
		fixture_whole(pm);
		fixture_steps(pm);
		fixture_gaps(pm);
		malformed(pm);
		long_line(pm);
		close(pm);
	}
	estimate();
	sampler_fixture();
	sampler_given_up();
	live();
	snprintf(path, sizeof path, "%s/pagemap", tmpdir);
	unlink(path);
	snprintf(path, sizeof path, "%s/maps", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	return check_status();
}
