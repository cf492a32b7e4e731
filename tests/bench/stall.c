/*
 * stall - how long a big process waits for its own mmap lock while readers
 * walk its page tables. Not a test; `make bench` runs it.
 *
 *   stall -m MIB -t SECONDS [-f FILE_MIB]
 *
 * Touches MIB MiB (4 KiB pages, as a database's heap), prints "ready", then
 * for SECONDS maps and unmaps 64 KiB every millisecond, timing each pair,
 * and prints "worst_ms=W p999_ms=P over_10ms=C samples=N" (C: the pairs
 * that took over 10 ms, which tells a reader's stalls from the machine's
 * own odd one, when the worst alone can be that). mmap and munmap take the
 * mmap lock for writing, so any reader that holds it for reading (the
 * smaps_rollup walk) shows here as a stall the size of its walk.
 *
 * With -f, the MIB are FILE_MIB of shared memory (a memfd) mapped over and
 * over, one mapping after the other: the page tables, and so every walk
 * of them, of a MIB process, in the RAM of FILE_MIB, so that a machine of
 * 24 GiB can stand for a 32 GiB database (its buffer pool is shared memory
 * too). Its pages are shared by its own mappings, so PSS is not RSS.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t mib = 8192, n = 0, cap, over = 0;
	double secs = 60, worst = 0, end, *lat;
	struct timespec ms = { 0, 1000000L };
	size_t file_mib = 0;
	char *m;
	int opt;

	while ((opt = getopt(argc, argv, "m:t:f:")) != -1) {
		if (opt == 'm')
			mib = (size_t)atol(optarg);
		else if (opt == 't')
			secs = atof(optarg);
		else if (opt == 'f')
			file_mib = (size_t)atol(optarg);
		else
			return 2;
	}
	if (file_mib) {
		int fd = memfd_create("stall", 0);

		if (fd < 0 || ftruncate(fd, (off_t)(file_mib << 20)))
			return 1;
		m = mmap(NULL, mib << 20, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return 1;
		for (size_t off = 0; off < mib; off += file_mib) {
			size_t len = (mib - off < file_mib ? mib - off : file_mib) << 20;

			if (mmap(m + (off << 20), len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd,
				 0) == MAP_FAILED)
				return 1;
		}
		close(fd);
	} else {
		m = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 1;
		madvise(m, mib << 20, MADV_NOHUGEPAGE);
	}
	memset(m, 1, mib << 20);
	cap = (size_t)(secs * 1000) + 16;
	lat = malloc(cap * sizeof *lat);
	if (!lat)
		return 1;
	printf("ready\n");
	fflush(stdout);
	end = now_ms() + secs * 1e3;
	while (now_ms() < end && n < cap) {
		double t0 = now_ms(), d;
		void *p = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED) {
			((char *)p)[0] = 1;
			munmap(p, 64 << 10);
		}
		d = now_ms() - t0;
		lat[n++] = d;
		over += d > 10;
		if (d > worst)
			worst = d;
		nanosleep(&ms, NULL);
	}
	qsort(lat, n, sizeof *lat, cmp_double);
	printf("worst_ms=%.2f p999_ms=%.2f over_10ms=%zu samples=%zu\n", worst,
	       n ? lat[n - 1 - n / 1000] : 0, over, n);
	free(lat);
	munmap(m, mib << 20);
	return 0;
}
