/*
 * What a leak is made of: a copy of the cli fixture's pid 100 whose heap
 * grows 12 MiB between two reads (a smaps pair), driven by hand-made views
 * and events: the finding comes LeakPartsDelay after the verdict, once; a
 * group's largest member is read; a big process is never read; a vanished
 * or reused one gives nothing; the reads wait for CpuBudget's room and are
 * charged to it; and the JSON carries it. A finding is kept for later
 * tables as long as the process and its verdict stand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/inspect.h"
#include "memz/budget.h"
#include "memz/json.h"
#include "memz/leakparts.h"

#define FIX MEMZ_FIXTURES "/cli/proc"

static char root[] = "/tmp/memz-leakparts-XXXXXX";
static char smaps_then[1 << 16];

static void link_to(const char *from, const char *to)
{
	CHECK_INT(symlink(from, to), 0);
}

/* root/100 links every fixture file but smaps, which the test writes. */
static void make_tree(void)
{
	static const char *const top[] = { "uptime", "stat", "meminfo", NULL };
	static const char *const pid[] = { "cgroup", "exe", "oom_score_adj",
					   "smaps_rollup", "stat", "statm",
					   "status", NULL };
	char a[512], b[512];
	FILE *f;
	size_t n;

	CHECK(mkdtemp(root) != NULL);
	for (int i = 0; top[i]; i++) {
		snprintf(a, sizeof a, "%s/%s", FIX, top[i]);
		snprintf(b, sizeof b, "%s/%s", root, top[i]);
		link_to(a, b);
	}
	snprintf(b, sizeof b, "%s/100", root);
	CHECK_INT(mkdir(b, 0700), 0);
	for (int i = 0; pid[i]; i++) {
		snprintf(a, sizeof a, "%s/100/%s", FIX, pid[i]);
		snprintf(b, sizeof b, "%s/100/%s", root, pid[i]);
		link_to(a, b);
	}
	f = fopen(FIX "/100/smaps", "r");
	CHECK(f != NULL);
	n = f ? fread(smaps_then, 1, sizeof smaps_then - 1, f) : 0;
	smaps_then[n] = '\0';
	if (f)
		fclose(f);
}

/* smaps as the fixture has it, or with the heap grown by 12 MiB. */
static void write_smaps(bool grown)
{
	char path[512], *text = strdup(smaps_then), *heap;
	FILE *f;

	CHECK(text != NULL);
	heap = strstr(text, "[heap]");
	CHECK(heap != NULL);
	if (grown && heap) {
		/* the three figures the heap block starts with, same widths */
		char *rss = strstr(heap, "Rss:                1024 kB");
		char *pss = strstr(heap, "Pss:                1024 kB");
		char *size = strstr(heap, "Size:               1024 kB");

		CHECK(rss && pss && size);
		if (rss && pss && size) {
			memcpy(size, "Size:              13312 kB", 27);
			memcpy(rss, "Rss:               13312 kB", 27);
			memcpy(pss, "Pss:               13312 kB", 27);
		}
	}
	snprintf(path, sizeof path, "%s/100/smaps", root);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(text);
}

static void remove_tree(void)
{
	static const char *const names[] = {
		"100/cgroup", "100/exe", "100/oom_score_adj", "100/smaps_rollup",
		"100/stat", "100/statm", "100/status", "100/smaps", "uptime",
		"stat", "meminfo", NULL };
	char p[512];

	for (int i = 0; names[i]; i++) {
		snprintf(p, sizeof p, "%s/%s", root, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/100", root);
	rmdir(p);
	rmdir(root);
}

struct world {
	struct memz_proc p[2];
	const struct memz_proc *pp[2];
	struct memz_group g;
	struct memz_event e;
	struct memz_table_view v;
};

static void world_init(struct world *w, unsigned long long start)
{
	memset(w, 0, sizeof *w);
	w->g.name = "app";
	w->p[0].pid = 100;
	w->p[0].start = start;
	w->p[0].name = "app";
	w->p[0].mem.rss = 50ull << 20;
	w->p[0].mem.pss = 50ull << 20;
	w->p[0].group = &w->g;
	/* a smaller member of the same group, never read */
	w->p[1].pid = 300;
	w->p[1].start = 1;
	w->p[1].name = "app";
	w->p[1].mem.pss = 1 << 20;
	w->p[1].group = &w->g;
	w->pp[0] = &w->p[0];
	w->pp[1] = &w->p[1];
	w->v.procs = w->pp;
	w->v.n_procs = 2;
	w->e.kind = MEMZ_EVENT_LEAK;
	w->e.name = "app";
	w->v.events = &w->e;
}

static size_t cycle(struct memz_leakparts *lp, struct world *w, double t,
		    bool event, const struct memz_leakpart **d)
{
	size_t n = 99;

	w->v.n_events = event ? 1 : 0;
	CHECK_INT(memz_leakparts_cycle(lp, &w->v, t, d, &n), 0);
	return n;
}

/* A finding is kept by the process read: it goes when that process does,
 * or when the verdict it was found for clears (the group's for a group's
 * finding); the same process found again replaces its entry, and the
 * oldest gives way when more than the table holds arrive. The finding
 * shown for a group is its own, else a member's. */
static void kept(void)
{
	struct memz_leakparts_kept k;
	struct memz_leakpart lp[MEMZ_LEAKPARTS_KEPT + 1];
	struct memz_group g = { .name = "leaky" };
	struct memz_proc p = { .pid = 200, .name = "leaky", .group = &g };
	struct memz_proc q = { .pid = 201, .name = "leaky", .group = &g };
	const struct memz_proc *pp[] = { &p, &q }, *found[MEMZ_LEAKPARTS_KEPT];
	struct memz_table_view v = { .procs = pp, .n_procs = 2 };
	size_t used = 0;

	memset(&k, 0, sizeof k);
	memset(lp, 0, sizeof lp);
	p.det.verdict.leak = true;
	lp[0].pid = 200;
	snprintf(lp[0].text, sizeof lp[0].text, "heap +1.0 MiB");
	memz_leakparts_keep(&k, &v, lp, 1);
	memz_leakparts_keep(&k, &v, lp, 0);
	CHECK(k.p[0].used && k.p[0].pid == 200);
	memz_leakparts_kept_procs(&k, &v, found);
	CHECK(found[0] == &p);
	CHECK_STR(memz_leakparts_kept_proc(&k, found, &p), "heap +1.0 MiB");
	/* a member's finding stands for its group while it has none */
	CHECK_STR(memz_leakparts_kept_group(&k, found, &g), "heap +1.0 MiB");
	/* pid 200 is reused by another process: a new start */
	p.start = 99;
	memz_leakparts_keep(&k, &v, lp, 0);
	CHECK(!k.p[0].used);
	memz_leakparts_kept_procs(&k, &v, found);
	CHECK(memz_leakparts_kept_proc(&k, found, &p) == NULL);
	p.start = 0;
	for (int i = 0; i <= MEMZ_LEAKPARTS_KEPT; i++) {
		lp[i].pid = 200;
		lp[i].start = 0;
		lp[i].is_group = false;
	}
	/* the same process found again replaces its entry */
	memz_leakparts_keep(&k, &v, lp, MEMZ_LEAKPARTS_KEPT + 1);
	for (int i = 0; i < MEMZ_LEAKPARTS_KEPT; i++)
		used += k.p[i].used;
	CHECK_INT(used, 1);

	/* a group's finding stands while the group's verdict does, and is
	 * the group's before a member's */
	memset(&k, 0, sizeof k);
	g.det.verdict.leak = true;
	q.det.verdict.leak = true;
	lp[0].pid = 201;
	lp[1].is_group = true;
	snprintf(lp[1].text, sizeof lp[1].text, "heap +2.0 MiB");
	memz_leakparts_keep(&k, &v, lp, 2);
	memz_leakparts_kept_procs(&k, &v, found);
	CHECK_STR(memz_leakparts_kept_group(&k, found, &g), "heap +2.0 MiB");
	CHECK_STR(memz_leakparts_kept_proc(&k, found, &q), "heap +1.0 MiB");
	p.det.verdict.leak = false;
	memz_leakparts_keep(&k, &v, NULL, 0);
	memz_leakparts_kept_procs(&k, &v, found);
	CHECK_STR(memz_leakparts_kept_group(&k, found, &g), "heap +2.0 MiB");
	g.det.verdict.leak = false;
	memz_leakparts_keep(&k, &v, NULL, 0);
	memz_leakparts_kept_procs(&k, &v, found);
	CHECK_STR(memz_leakparts_kept_group(&k, found, &g), "heap +1.0 MiB");
	q.det.verdict.leak = false;
	memz_leakparts_keep(&k, &v, NULL, 0);
	memz_leakparts_kept_procs(&k, &v, found);
	CHECK(memz_leakparts_kept_group(&k, found, &g) == NULL);
	/* none kept, or no view: nothing found */
	memz_leakparts_kept_procs(NULL, &v, found);
	CHECK(found[0] == NULL);
	CHECK(memz_leakparts_kept_group(NULL, found, &g) == NULL);
}

int main(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	struct memz_leakparts *lp;
	const struct memz_leakpart *d;
	struct memz_inspect ins;
	struct world w;
	const char *what;
	unsigned long long start;
	long live;

	memz_inspect_init(&ins);
	CHECK_INT(memz_inspect_read(&ins, FIX, 100, memz_allocator_libc(), &what),
		  0);
	start = ins.stat.start_time;
	memz_inspect_release(&ins, memz_allocator_libc());
	make_tree();
	write_smaps(false);

	/* a process's verdict (here that of its group of one, which the
	 * table gives with the pid): read now, again 300 s later, once */
	CHECK_INT(memz_leakparts_new(&lp, root, 300, 1 << 30, &a), 0);
	live = c.live;
	world_init(&w, start);
	w.e.is_group = true;
	w.e.pid = 100;
	w.e.start = start;
	CHECK_INT(cycle(lp, &w, 1000, true, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 1);
	/* the smaps window is not kept between reads minutes apart */
	CHECK_INT(c.live, live);
	write_smaps(true);
	CHECK_INT(cycle(lp, &w, 1299, false, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 1);
	CHECK_INT(cycle(lp, &w, 1300, false, &d), 1);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 2);
	CHECK_STR(d[0].name, "app");
	CHECK(!d[0].is_group);
	CHECK_INT(d[0].pid, 100);
	CHECK(d[0].over_s == 300);
	CHECK_INT(d[0].d[0].cat, MEMZ_CAT_HEAP);
	CHECK_INT(d[0].d[0].pss, 12ll << 20);
	CHECK_STR(d[0].text, "heap +12.0 MiB, thread stacks +0 B, "
			     "other anonymous +0 B");
	CHECK_INT(c.live, live); /* the read's buffers were given back */
	CHECK_INT(cycle(lp, &w, 1700, false, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 2);

	/* the JSON carries it */
	{
		struct memz_snapshot s;
		yajl_gen g = yajl_gen_alloc(NULL);
		const unsigned char *buf;
		size_t len;

		memz_snapshot_init(&s);
		CHECK_INT(cycle(lp, &w, 2000, true, &d), 0);
		s.leak_parts = d;
		write_smaps(false);
		s.n_leak_parts = cycle(lp, &w, 2300, false, &s.leak_parts);
		CHECK_INT(s.n_leak_parts, 1);
		CHECK_INT(memz_json_snapshot(g, &s), 0);
		yajl_gen_get_buf(g, &buf, &len);
		CHECK(strstr((const char *)buf,
			     "\"leak_parts\":[{\"name\":\"app\",\"pid\":100,") !=
		      NULL);
		CHECK(strstr((const char *)buf,
			     "\"text\":\"heap -12.0 MiB, thread stacks +0 B, "
			     "other anonymous +0 B\",\"categories\":"
			     "[{\"category\":\"heap\",\"pss\":-12582912}") != NULL);
		yajl_gen_free(g);
	}

	/* a group's verdict reads its largest member; its process's verdict
	 * in the same cycle does not read it twice */
	world_init(&w, start);
	w.e.is_group = true;
	CHECK_INT(cycle(lp, &w, 3000, true, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 5);
	w.e.is_group = false;
	w.e.pid = 100;
	w.e.start = start;
	CHECK_INT(cycle(lp, &w, 3001, true, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 5);
	write_smaps(true);
	CHECK_INT(cycle(lp, &w, 3300, false, &d), 1);
	CHECK(d[0].is_group);
	CHECK_INT(d[0].pid, 100);
	CHECK_INT(d[0].d[0].pss, 12ll << 20);

	/* gone, or a reused pid, before the second read: nothing */
	write_smaps(false);
	CHECK_INT(cycle(lp, &w, 4000, true, &d), 0);
	w.v.n_procs = 0;
	CHECK_INT(cycle(lp, &w, 4300, false, &d), 0);
	world_init(&w, start + 1);
	w.e.pid = 100;
	w.e.start = start + 1;
	CHECK_INT(cycle(lp, &w, 5000, true, &d), 0); /* stat says otherwise */
	CHECK_INT(cycle(lp, &w, 5300, false, &d), 0);
	memz_leakparts_free(&lp);

	/* charged to CpuBudget: a read waits while the budget has no room,
	 * is taken once it has, and its CPU time is charged */
	{
		struct memz_budget b;

		memz_budget_init(&b, 1);
		memz_budget_refill(&b, 0);
		memz_budget_refill(&b, 100); /* a full bucket: 0.2 s */
		memz_budget_charge(&b, 1, false); /* and then overdrawn */
		CHECK(memz_budget_room(&b) < 0);
		CHECK_INT(memz_leakparts_new(&lp, root, 300, 1 << 30, &a), 0);
		memz_leakparts_set_budget(lp, &b);
		world_init(&w, start);
		w.e.pid = 100;
		w.e.start = start;
		write_smaps(false);
		CHECK_INT(cycle(lp, &w, 1000, true, &d), 0);
		CHECK_INT(memz_leakparts_stats(lp)->reads, 0);
		CHECK_INT(memz_leakparts_stats(lp)->deferred, 1);
		CHECK_INT(cycle(lp, &w, 1001, false, &d), 0);
		CHECK_INT(memz_leakparts_stats(lp)->deferred, 2);
		/* a minute on, the debt is paid and the window empty */
		memz_budget_refill(&b, 200);
		CHECK(memz_budget_room(&b) > 0.1);
		CHECK_INT(cycle(lp, &w, 1002, false, &d), 0);
		CHECK_INT(memz_leakparts_stats(lp)->reads, 1);
		CHECK(memz_leakparts_stats(lp)->spent_s > 0);
		CHECK_NEAR(memz_budget_room(&b),
			   0.2 - memz_leakparts_stats(lp)->spent_s, 1e-9);
		/* the second read waits LeakPartsDelay from the first, and for
		 * room again */
		write_smaps(true);
		CHECK_INT(cycle(lp, &w, 1301, false, &d), 0);
		memz_budget_charge(&b, 1, false);
		CHECK_INT(cycle(lp, &w, 1302, false, &d), 0);
		CHECK_INT(memz_leakparts_stats(lp)->reads, 1);
		CHECK_INT(memz_leakparts_stats(lp)->deferred, 3);
		memz_budget_refill(&b, 400);
		CHECK_INT(cycle(lp, &w, 1303, false, &d), 1);
		CHECK_INT(memz_leakparts_stats(lp)->reads, 2);
		CHECK(d[0].over_s == 301);
		CHECK_INT(d[0].d[0].pss, 12ll << 20);
		memz_leakparts_free(&lp);
	}

	/* too big to read: never stalled */
	CHECK_INT(memz_leakparts_new(&lp, root, 300, 10 << 20, &a), 0);
	world_init(&w, start);
	w.e.pid = 100;
	w.e.start = start;
	CHECK_INT(cycle(lp, &w, 1000, true, &d), 0);
	CHECK_INT(cycle(lp, &w, 1300, false, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 0);
	CHECK_INT(memz_leakparts_stats(lp)->too_big, 1);
	memz_leakparts_free(&lp);

	/* LeakPartsMaxRss 0: off */
	CHECK_INT(memz_leakparts_new(&lp, root, 300, 0, &a), 0);
	CHECK_INT(cycle(lp, &w, 1000, true, &d), 0);
	CHECK_INT(memz_leakparts_stats(lp)->reads, 0);
	memz_leakparts_free(&lp);
	CHECK(lp == NULL);
	CHECK_INT(c.live, 0);

	remove_tree();
	kept();
	return check_status();
}
