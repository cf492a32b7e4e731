/*
 * naive.h - the naive PSS reader both benches compare memz with: open, read
 * and close every process's smaps_rollup, every cycle. Not a test.
 */
#ifndef MEMZ_BENCH_NAIVE_H
#define MEMZ_BENCH_NAIVE_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "memz/procfs.h"

static inline void naive_cycle(char *buf, size_t cap)
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

#endif
