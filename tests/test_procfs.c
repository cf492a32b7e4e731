/* Per-process parsers: stat, statm, status, smaps_rollup, smaps, cgroup,
 * oom_score_adj, exe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"

int main(void)
{
	return check_status();
}
