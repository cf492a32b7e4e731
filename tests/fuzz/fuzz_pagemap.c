/* The pagemap walk's results: a maps text and the pagemap entries (u64s)
 * behind it turned into counts, and the counts and status's resident into
 * a PSS estimate with its bound. The walk reads two fds, so both files are
 * memfds holding the fuzzer's bytes (no /proc read): the first byte picks
 * the page size and the step's allowance, then comes the maps text, a NUL,
 * and the entries, the one at offset 8 * (address / page size) being the
 * page at that address as in the kernel's file. The last 16 bytes of the
 * input, when there are that many, are also taken as a resident and a
 * shared figure for the estimate alone. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "memz/pagemap.h"

/* the walk's buffers are 36 KiB: not on the stack of every input */
static struct memz_pagemap_walk w;

static int memfd(const char *name)
{
	int fd = memfd_create(name, 0);

	if (fd < 0)
		abort();
	return fd;
}

static void fill(int fd, const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
}

/* The estimate's promise: uss <= PSS <= uss + shared / 2 (smaps' PSS in
 * whole bytes), all of it within pss +- error. */
static void check_estimate(uint64_t rss, uint64_t shared)
{
	struct memz_pss_estimate e;
	uint64_t s = shared < rss ? shared : rss;

	memz_pagemap_estimate(rss, shared, &e);
	if (e.uss != rss - s || e.pss < e.uss || e.pss > rss ||
	    e.pss - e.uss > e.error || /* uss is within the bound */
	    e.error > s ||
	    e.uss + s / 2 - e.pss > e.error) /* so is uss + s/2 */
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int maps_fd = -1, pagemap_fd;
	static const uint64_t page_sizes[] = { 4096, 16384, 65536, 4096 };
	static const uint64_t allowances[] = { 1, 512, 4096, 1 << 20 };
	const uint8_t *nul;
	uint64_t page_size, allowance, rss, shared;
	size_t maps_len;
	int rc = 0;

	if (size < 1)
		return 0;
	if (maps_fd < 0) {
		maps_fd = memfd("memz-fuzz-maps");
		pagemap_fd = memfd("memz-fuzz-pagemap");
	}
	page_size = page_sizes[data[0] & 3];
	allowance = allowances[(data[0] >> 2) & 3];
	data++;
	size--;
	nul = memchr(data, '\0', size);
	maps_len = nul ? (size_t)(nul - data) : size;
	fill(maps_fd, data, maps_len);
	if (nul)
		fill(pagemap_fd, nul + 1, size - maps_len - 1);
	else
		fill(pagemap_fd, NULL, 0);

	memz_pagemap_begin(&w, maps_fd, pagemap_fd, page_size);
	/* each step spends at least one read: a few thousand end any input
	 * the fuzzer makes */
	for (int i = 0; i < 4096 && rc == 0; i++)
		rc = memz_pagemap_step(&w, allowance);
	if (rc == -EINVAL && !w.why)
		__builtin_trap();
	if (w.c.exclusive > w.c.present || w.c.file > w.c.present ||
	    w.c.present + w.c.swapped > w.entries)
		__builtin_trap();
	if (rc == 1) {
		/* status's resident at the walk's end, as far off as it
		 * may be: below, at and above what the walk saw */
		uint64_t seen = w.c.present * page_size;
		uint64_t ends[] = { 0, seen / 2, seen, seen + page_size };

		for (size_t i = 0; i < 4; i++) {
			shared = memz_pagemap_shared(&w.c, page_size, ends[i]);
			if (shared > (w.c.present - w.c.exclusive) * page_size)
				__builtin_trap();
			check_estimate(ends[i], shared);
		}
	}
	if (size >= 16) {
		memcpy(&rss, data + size - 16, 8);
		memcpy(&shared, data + size - 8, 8);
		check_estimate(rss, shared);
	}
	return 0;
}
