#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memz/inspect.h"
#include "memz/readbuf.h"

void memz_inspect_init(struct memz_inspect *ins)
{
	memset(ins, 0, sizeof *ins);
}

void memz_inspect_release(struct memz_inspect *ins,
			  const struct memz_allocator *a)
{
	memz_free(a, &ins->maps);
	memz_free(a, &ins->buf);
	ins->n_maps = ins->cap_maps = ins->buf_cap = 0;
}

struct keep {
	struct memz_inspect *ins;
	const struct memz_allocator *a;
};

/* The kept mappings are a heap with the one that sorts last on top, so a
 * better one replaces it in log time and the number kept stays keep_max. */
static bool after(const struct memz_inspect *ins, size_t i, size_t j)
{
	return ins->keep_cmp(&ins->maps[i], &ins->maps[j]) > 0;
}

static void swap_maps(struct memz_inspect *ins, size_t i, size_t j)
{
	struct memz_inspect_map t = ins->maps[i];

	ins->maps[i] = ins->maps[j];
	ins->maps[j] = t;
}

static void sift_down(struct memz_inspect *ins, size_t i, size_t n)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && after(ins, l, m))
			m = l;
		if (l + 1 < n && after(ins, l + 1, m))
			m = l + 1;
		if (m == i)
			return;
		swap_maps(ins, i, m);
		i = m;
	}
}

static void sift_up(struct memz_inspect *ins, size_t i)
{
	while (i > 0 && after(ins, i, (i - 1) / 2)) {
		swap_maps(ins, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static int keep_one(const struct memz_mapping *m, enum memz_mapcat c,
		    void *ctx)
{
	struct keep *k = ctx;
	struct memz_inspect *ins = k->ins;
	struct memz_inspect_map im;

	memz_smapscat_add(&ins->cats, m, c);
	if (!memz_mapfilter_match(&ins->keep_filter, m, c))
		return 0;
	if ((unsigned)c >= MEMZ_CAT_COUNT)
		c = MEMZ_CAT_ANON;
	im.m = *m;
	im.cat = c;
	ins->selected.count++;
	ins->selected.size += m->size;
	ins->selected.rss += m->rss;
	ins->selected.pss += m->pss;
	ins->selected.private_dirty += m->private_dirty;
	ins->selected.swap += m->swap;
	if (ins->keep_max && ins->n_maps == ins->keep_max) {
		if (!ins->keep_cmp || ins->keep_cmp(&im, &ins->maps[0]) >= 0)
			return 0;
		ins->maps[0] = im;
		sift_down(ins, 0, ins->n_maps);
		return 0;
	}
	if (memz_grow(k->a, &ins->maps, &ins->cap_maps, ins->n_maps + 1,
		      sizeof *ins->maps))
		return -ENOMEM;
	ins->maps[ins->n_maps++] = im;
	if (ins->keep_cmp)
		sift_up(ins, ins->n_maps - 1);
	return 0;
}

/* Heap sort: the heap's top, the one that sorts last, goes to the end. */
static void sort_kept(struct memz_inspect *ins)
{
	if (!ins->keep_cmp)
		return;
	for (size_t n = ins->n_maps; n > 1; n--) {
		swap_maps(ins, 0, n - 1);
		sift_down(ins, 0, n - 1);
	}
}

/* Small per-pid files go through one stack buffer. */
static int read_small(int dirfd, const char *name, char *buf, size_t cap,
		      size_t *len)
{
	return memz_read_file_at(dirfd, name, buf, cap, len);
}

static void read_system_times(int rootfd, struct memz_inspect *ins)
{
	char buf[8192];
	size_t len;
	const char *p;

	if (!read_small(rootfd, "uptime", buf, sizeof buf, &len) &&
	    memz_parse_uptime(buf, len, &ins->uptime_s))
		ins->uptime_s = 0;
	/* /proc/stat can outgrow any fixed buffer on big machines; only btime
	 * matters here and a truncated read simply leaves it unknown. */
	if (!read_small(rootfd, "stat", buf, sizeof buf, &len) &&
	    (p = strstr(buf, "\nbtime ")))
		ins->boot_time = strtoll(p + 7, NULL, 10);
}

static int read_pid(struct memz_inspect *ins, int rootfd, int dirfd,
		    const unsigned long long *start,
		    const struct memz_allocator *a, const char **what)
{
	char buf[8192];
	size_t len;
	ssize_t n;
	int rc;

	*what = "stat";
	rc = read_small(dirfd, "stat", buf, sizeof buf, &len);
	if (rc || (rc = memz_parse_stat(buf, len, &ins->stat)))
		return rc;
	/* the pid went to another process: none of its files is the asked
	 * one's, and its smaps is not to be read on that one's account */
	if (start && ins->stat.start_time != *start) {
		*what = "process";
		return -ESRCH;
	}
	*what = "status";
	rc = read_small(dirfd, "status", buf, sizeof buf, &len);
	if (rc || (rc = memz_parse_status(buf, len, &ins->status)))
		return rc;
	*what = "oom_score_adj";
	rc = read_small(dirfd, "oom_score_adj", buf, sizeof buf, &len);
	if (rc || (rc = memz_parse_oom_score_adj(buf, len, &ins->oom_score_adj)))
		return rc;
	n = readlinkat(dirfd, "exe", ins->exe, sizeof ins->exe - 1);
	ins->exe[n > 0 ? n : 0] = '\0';
	if (ins->max_rss > 0 && (double)ins->status.vm_rss > ins->max_rss) {
		ins->too_big = true;
		read_system_times(rootfd, ins);
		*what = NULL;
		return 0;
	}
	*what = "smaps_rollup";
	rc = read_small(dirfd, "smaps_rollup", buf, sizeof buf, &len);
	if (!rc && !(rc = memz_parse_rollup(buf, len, &ins->rollup)))
		ins->has_rollup = true;
	else if (rc != -ENOENT)
		return rc;
	*what = "smaps";
	struct keep k = { ins, a };
	rc = memz_smapscat_walk_file(dirfd, "smaps", ins->exe, &ins->buf,
				     &ins->buf_cap, a, keep_one, &k);
	if (rc)
		return rc;
	sort_kept(ins);
	read_system_times(rootfd, ins);
	*what = NULL;
	return 0;
}

static int inspect_read(struct memz_inspect *ins, const char *proc_root,
			int pid, const unsigned long long *start,
			const struct memz_allocator *a, const char **what)
{
	char name[24];
	int rootfd, dirfd, rc;

	ins->pid = pid;
	ins->n_maps = 0;
	memset(&ins->selected, 0, sizeof ins->selected);
	ins->has_rollup = false;
	ins->too_big = false;
	ins->exe[0] = '\0';
	ins->uptime_s = 0;
	ins->boot_time = 0;
	ins->clk_tck = sysconf(_SC_CLK_TCK);
	memz_smapscat_init(&ins->cats);
	*what = "proc root";
	rootfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	*what = "process";
	snprintf(name, sizeof name, "%d", pid);
	dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		rc = -errno;
		close(rootfd);
		return rc;
	}
	rc = read_pid(ins, rootfd, dirfd, start, a, what);
	close(dirfd);
	close(rootfd);
	return rc;
}

int memz_inspect_read(struct memz_inspect *ins, const char *proc_root,
		      int pid, const struct memz_allocator *a,
		      const char **what)
{
	return inspect_read(ins, proc_root, pid, NULL, a, what);
}

int memz_inspect_read_proc(struct memz_inspect *ins, const char *proc_root,
			   int pid, unsigned long long start,
			   const struct memz_allocator *a, const char **what)
{
	return inspect_read(ins, proc_root, pid, &start, a, what);
}

double memz_inspect_age(const struct memz_inspect *ins)
{
	double start;

	if (ins->clk_tck <= 0 || ins->uptime_s <= 0)
		return 0;
	start = (double)ins->stat.start_time / (double)ins->clk_tck;
	return ins->uptime_s > start ? ins->uptime_s - start : 0;
}
