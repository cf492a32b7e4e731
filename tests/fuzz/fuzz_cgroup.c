/* The cgroup file parsers: /proc/PID/cgroup (a process's own, so hostile,
 * and of any length) into the memory cgroup as a key and as the cgroup its
 * limits are read from, and the memory.max / memory.events / memory.stat
 * style files. The first byte picks the output buffer's size, so paths
 * that are cut (a hash key, an ancestor) are reached as often as whole
 * ones; the rest is the file. */
#include <errno.h>
#include <string.h>

#include "fuzz_util.h"
#include "memz/cgroup.h"

/* what the callers pass (the table's key, the OOM watch's path), and
 * sizes around the least each accepts */
static const size_t outlens[] = { 0, 1, 2, 3, MEMZ_CGROUP_CUT_MIN - 1,
				  MEMZ_CGROUP_CUT_MIN, 33, 64, 256, 4096 };

static void of_proc(const char *buf, size_t len, size_t outlen)
{
	/* its own allocation, so ASan catches a write one past outlen */
	char *key = malloc(outlen ? outlen : 1);
	char *memcg = malloc(outlen ? outlen : 1);
	int v1 = -1, v2 = -1;
	int rk, rm;

	if (!key || !memcg)
		abort();
	rk = memz_cgroup_of_proc(buf, len, key, outlen, &v1);
	rm = memz_cgroup_memcg_of_proc(buf, len, memcg, outlen, &v2);
	if (rk == 0) {
		if (memchr(key, '\0', outlen) == NULL || v1 < 0 || v1 > 2)
			__builtin_trap();
		/* a cut key must never read as a path: no name, no files */
		if (key[0] != '/' && key[0] != '#')
			__builtin_trap();
	}
	if (rm == 0) {
		if (memchr(memcg, '\0', outlen) == NULL || memcg[0] != '/' ||
		    v2 < 0 || v2 > 2)
			__builtin_trap();
		/* both read the same line: a whole key is the memcg itself */
		if (rk == 0 && (v1 != v2 ||
				(key[0] == '/' && strcmp(key, memcg))))
			__builtin_trap();
	}
	/* the same line is found or not, whatever the buffer's size */
	if ((rk == -EINVAL) != (rm == -EINVAL))
		__builtin_trap();
	free(key);
	free(memcg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *keys[] = { "oom_kill", "oom", "max", "anon",
				      "inactive_file", "total_inactive_file",
				      "populated", "" };
	char *buf;
	size_t len;
	uint64_t u;

	if (size < 1)
		return 0;
	buf = fuzz_cstr(data + 1, size - 1);
	len = size - 1;
	of_proc(buf, len, outlens[data[0] % (sizeof outlens / sizeof *outlens)]);
	memz_cgroup_parse_limit(buf, len, &u);
	memz_cgroup_parse_key(buf, len, keys[(data[0] >> 4) % 8], &u);
	free(buf);
	return 0;
}
