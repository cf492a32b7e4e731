/*
 * inspect.h - everything `memz inspect` and netdata's memz-inspect show
 * about one live process: a second reader beside the sampler's, for one
 * process on request, since full smaps is too costly to read every cycle.
 *
 * It reads <proc_root>/<pid>/: stat, status, oom_score_adj, smaps_rollup,
 * exe and full smaps (streamed; every mapping classified by smapscat.h and
 * summed, those asked for kept). A process resident above max_rss (set after
 * _init; the callers pass ExactMaxRss) is read no further than status: both
 * smaps files make the kernel walk its page tables under its mmap lock,
 * about 17 ms per GiB resident, so an 8 GiB database would wait 140 ms for
 * each, and every page fault and mmap in it with it. System
 * uptime and boot time come from <proc_root>/uptime and <proc_root>/stat.
 * The struct owns its buffers, which grow to the largest process read and
 * are reused; memz_inspect_release() frees them.
 */
#ifndef MEMZ_INSPECT_H
#define MEMZ_INSPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "memz/alloc.h"
#include "memz/procfs.h"
#include "memz/smapscat.h"

struct memz_inspect_map {
	struct memz_mapping m;
	enum memz_mapcat cat;
};

struct memz_inspect {
	int pid;
	struct memz_pstat stat;
	struct memz_pstatus status;
	struct memz_rollup rollup;
	bool has_rollup; /* smaps_rollup readable (kernels >= 4.14) */
	/* bytes resident (status) above which neither smaps file is read;
	 * 0: no bound */
	double max_rss;
	bool too_big; /* above max_rss: no rollup, no mappings */
	int oom_score_adj;
	char exe[512]; /* full exe path; "" when unreadable */
	double uptime_s;   /* system uptime at the read */
	long long boot_time; /* epoch seconds (btime); 0 if unknown */
	long clk_tck;
	struct memz_smapscat cats;
	/*
	 * Which mappings are kept, set after _init (which keeps every one, in
	 * file order): those keep_filter passes, and of them the keep_max (0:
	 * all) first by keep_cmp (NULL: file order), in that order after
	 * _read. selected counts and sums every mapping the filter passed.
	 * smaps is streamed through a bounded buffer, so with keep_max set
	 * memory stays bounded whatever the number of mappings.
	 */
	struct memz_mapfilter keep_filter;
	size_t keep_max;
	int (*keep_cmp)(const struct memz_inspect_map *a,
			const struct memz_inspect_map *b);
	struct memz_catsum selected;
	struct memz_inspect_map *maps;
	size_t n_maps, cap_maps;
	char *buf; /* a window of the smaps text, kept for reuse */
	size_t buf_cap;
};

void memz_inspect_init(struct memz_inspect *ins);
/*
 * Read pid. Returns 0; -ENOENT or -ESRCH when the process is gone; -EACCES
 * when its smaps is private; -EINVAL on malformed files; -ENOMEM.
 * *what names the file that failed ("smaps", "stat", ...).
 */
int memz_inspect_read(struct memz_inspect *ins, const char *proc_root,
		      int pid, const struct memz_allocator *a,
		      const char **what);
/*
 * Read the process the sampler saw as pid, started at start (clock ticks
 * since boot, procfs.h's start_time): -ESRCH, with *what "process", when
 * pid's stat gives another start, since the pid is then another process's
 * and nothing past its stat is read. Otherwise as memz_inspect_read().
 */
int memz_inspect_read_proc(struct memz_inspect *ins, const char *proc_root,
			   int pid, unsigned long long start,
			   const struct memz_allocator *a, const char **what);
void memz_inspect_release(struct memz_inspect *ins,
			  const struct memz_allocator *a);

/* Seconds the process has been running (uptime minus its start). */
double memz_inspect_age(const struct memz_inspect *ins);

#endif
