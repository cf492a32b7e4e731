/* The /proc and /sys readers: the first byte picks the parser, the rest is
 * the file. Every parser must return 0 or -errno and never read past len. */
#include <errno.h>

#include "fuzz_util.h"
#include "memz/procfs.h"
#include "memz/sysinfo.h"

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
	char path[64];
	char *buf;
	size_t len;
	int v;

	if (size < 1)
		return 0;
	buf = fuzz_cstr(data + 1, size - 1);
	len = size - 1;
	switch (data[0] % 11) {
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
	}
	free(buf);
	return 0;
}
