/* The /proc and /sys readers (zoneinfo among them): the first byte picks
 * the parser, the rest is the file. Every parser must return 0 or -errno
 * and never read past len.
 * Cgroup paths (a process's own, so hostile) and docker's config files
 * are among them: the names made of them stay NUL-terminated in their
 * buffers. */
#include <errno.h>
#include <string.h>

#include "fuzz_util.h"
#include "memz/cgname.h"
#include "memz/cgroup.h"
#include "memz/procfs.h"
#include "memz/sysinfo.h"

/* A cgroup path, a newline, and docker's config for it. */
static void cgname(char *buf, size_t len)
{
	struct memz_cgname n;
	char docker[MEMZ_CGNAME_MAX];
	char *cfg = memchr(buf, '\n', len);

	if (cfg)
		*cfg = '\0';
	if (memz_cgname_parse(buf, &n))
		return;
	if (memchr(n.name, '\0', sizeof n.name) == NULL)
		__builtin_trap();
	if (cfg && !memz_cgname_docker(cfg + 1, len - (size_t)(cfg + 1 - buf),
				       docker, sizeof docker)) {
		memz_cgname_apply_docker(&n, docker);
		if (memchr(n.name, '\0', sizeof n.name) == NULL)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memz_pstat st;
	struct memz_statm sm;
	struct memz_pstatus ps;
	struct memz_rollup r;
	struct memz_meminfo mi;
	struct memz_psi psi;
	struct memz_numa_node nm;
	struct memz_vmstat vm;
	struct memz_zoneinfo zi;
	char path[64];
	char *buf;
	size_t len;
	uint64_t u;
	int v;

	if (size < 1)
		return 0;
	buf = fuzz_cstr(data + 1, size - 1);
	len = size - 1;
	switch (data[0] % 15) {
	case 0: memz_parse_stat(buf, len, &st); break;
	case 1: memz_parse_statm(buf, len, 4096, &sm); break;
	case 2: memz_parse_status(buf, len, &ps); break;
	case 3: memz_parse_rollup(buf, len, &r); break;
	case 4: memz_parse_smaps_sum(buf, len, &r); break;
	case 5: memz_parse_oom_score_adj(buf, len, &v); break;
	case 6: memz_parse_cgroup(buf, len, path, sizeof path); break;
	case 7: memz_parse_meminfo(buf, len, &mi); break;
	case 8: memz_parse_psi(buf, len, &psi); break;
	case 9: memz_parse_node_meminfo(buf, len, 0, &nm); break;
	case 10: memz_parse_vmstat(buf, len, &vm); break;
	case 11: memz_cgroup_of_proc(buf, len, path, sizeof path, &v); break;
	case 12:
		memz_cgroup_parse_limit(buf, len, &u);
		memz_cgroup_parse_key(buf, len, "oom_kill", &u);
		break;
	case 13: cgname(buf, len); break;
	case 14: memz_parse_zoneinfo(buf, len, &zi); break;
	}
	free(buf);
	return 0;
}
