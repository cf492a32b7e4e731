/* Time to OOM and the OOM kill named: the parsers, and whole cycles over
 * cgroup v1 and v2 trees made under a temporary SysRoot. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "memz/oom.h"
#include "memz/table.h"

#define MiB (1024.0 * 1024.0)

static char root[256];

static void put_file(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void put_dir(const char *rel)
{
	char p[512];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	CHECK(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void make_root(void)
{
	snprintf(root, sizeof root, "/tmp/memz-test-oom-XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	put_dir("fs");
	put_dir("fs/cgroup");
}

static void remove_root(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

/* A process record as the table would hand it out. */
static void proc(struct memz_proc *p, int pid, const char *name,
		 const char *memcg, bool v1, double pss, double rate, bool leak,
		 int conf)
{
	memset(p, 0, sizeof *p);
	memz_detector_init(&p->det);
	p->pid = pid;
	p->name = name;
	p->memcg = memcg;
	p->memcg_v1 = v1;
	p->mem.pss = (uint64_t)pss;
	p->has_sample = true;
	p->det.verdict.rate_bps = rate;
	p->det.verdict.leak = leak;
	p->det.verdict.confidence = conf;
}

struct world {
	struct memz_meminfo mem;
	struct memz_vmstat vm;
	struct memz_table_view view;
	const struct memz_proc *procs[4];
	const struct memz_proc *gone[4];
	struct memz_oom_input in;
	struct memz_settings s;
};

static void world_init(struct world *w)
{
	memset(w, 0, sizeof *w);
	memz_table_view_init(&w->view);
	w->mem.mem_total = (uint64_t)(1024 * MiB);
	w->mem.mem_available = (uint64_t)(300 * MiB);
	w->mem.swap_total = (uint64_t)(100 * MiB);
	w->mem.swap_free = (uint64_t)(70 * MiB);
	w->vm.has_oom_kill = true;
	w->vm.oom_kill = 5;
	w->view.procs = w->procs;
	w->view.gone = w->gone;
	w->in.mem = &w->mem;
	w->in.vm = &w->vm;
	w->in.view = &w->view;
	w->in.grouped = false;
	w->in.sys_root = root;
	/* verdicts count from their first cycle here: the forecast's
	 * arithmetic is what these cases check (sustained() has its own) */
	memz_settings_init(&w->s);
	w->s.leak_alarm_after = 0;
	w->in.s = &w->s;
}

static void cycle(struct memz_oom *o, struct world *w, double t)
{
	w->in.t = t;
	memz_oom_read_cgroups(o, root);
	memz_oom_update(o, &w->in);
}

static const struct memz_oom_scope *scope(const struct memz_oom *o,
					  const char *path)
{
	for (size_t i = 0; i < o->view.n_scopes; i++)
		if (!strcmp(o->view.scope[i].path, path))
			return &o->view.scope[i];
	return NULL;
}

static void v2_tree(void)
{
	put_file("fs/cgroup/cgroup.controllers", "cpu memory pids\n");
	put_dir("fs/cgroup/app.slice");
	put_file("fs/cgroup/app.slice/memory.max", "104857600\n");
	put_file("fs/cgroup/app.slice/memory.current", "62914560\n");
	put_file("fs/cgroup/app.slice/memory.stat",
		 "anon 52428800\nfile 10485760\ninactive_file 10485760\n");
	put_file("fs/cgroup/app.slice/memory.events",
		 "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	put_dir("fs/cgroup/app.slice/web.service");
	put_file("fs/cgroup/app.slice/web.service/memory.max", "max\n");
	put_file("fs/cgroup/app.slice/web.service/memory.current", "1\n");
	put_file("fs/cgroup/app.slice/web.service/memory.events", "oom_kill 0\n");
	put_dir("fs/cgroup/idle.slice");
	put_file("fs/cgroup/idle.slice/memory.max", "max\n");
	put_file("fs/cgroup/idle.slice/memory.current", "1\n");
	put_file("fs/cgroup/idle.slice/memory.events", "oom_kill 0\n");
}

static void forecast_v2(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker, noisy, other;
	const struct memz_oom_scope *m, *a;

	make_root();
	v2_tree();
	world_init(&w);
	/* 1 MiB/s leaking in web.service, 3 MiB/s elsewhere on the machine;
	 * a process that grows without a verdict is noise and counts for
	 * nothing */
	proc(&leaker, 10, "leaker", "/app.slice/web.service", false, 40 * MiB,
	     1 * MiB, true, 80);
	proc(&other, 11, "other", "/user.slice", false, 20 * MiB, 3 * MiB, true,
	     60);
	proc(&noisy, 12, "noisy", "/app.slice/web.service", false, 20 * MiB,
	     50 * MiB, false, 10);
	w.procs[0] = &leaker;
	w.procs[1] = &other;
	w.procs[2] = &noisy;
	w.view.n_procs = 3;

	w.in.warn_s = 60;
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	CHECK_INT(o.view.n_scopes, 2); /* the machine and app.slice */
	CHECK(!o.view.scope[0].warn);
	CHECK(!o.view.scope[0].warn_changed);
	m = &o.view.scope[0];
	CHECK_STR(m->id, "machine");
	CHECK_U64(m->available, (uint64_t)(370 * MiB));
	CHECK_NEAR(m->growth_bps, 4 * MiB, 1);
	CHECK_NEAR(m->seconds, 370.0 / 4, 1e-6);
	CHECK_INT(m->confidence, 65); /* (1*80 + 3*60) / 4 */
	CHECK_INT(m->n_drivers, 2);
	CHECK_STR(m->drivers[0].name, "other");
	CHECK_NEAR(m->drivers[0].share, 0.75, 1e-9);
	CHECK_STR(m->drivers[1].name, "leaker");
	CHECK_INT(m->drivers[1].pid, 10);

	a = scope(&o, "/app.slice");
	CHECK(a != NULL);
	if (a) {
		CHECK_STR(a->id, "cg_app.slice");
		CHECK_U64(a->limit, 104857600);
		/* 100 MiB - (60 MiB - 10 MiB inactive file) */
		CHECK_U64(a->available, (uint64_t)(50 * MiB));
		CHECK_NEAR(a->growth_bps, 1 * MiB, 1);
		CHECK_NEAR(a->seconds, 50, 1e-6);
		CHECK_INT(a->confidence, 80);
		CHECK_INT(a->n_drivers, 1);
		CHECK_STR(a->drivers[0].name, "leaker");
		CHECK_NEAR(a->drivers[0].share, 1, 1e-9);
		CHECK(a->warn); /* 50 s, under OomWarn's 60 */
		CHECK(a->warn_changed);
	}

	/* the forecast falls as the cgroup fills */
	put_file("fs/cgroup/app.slice/memory.current", "83886080\n");
	cycle(&o, &w, 2);
	a = scope(&o, "/app.slice");
	CHECK(a && fabs(a->seconds - 30) < 1e-6);
	CHECK(a && a->warn && !a->warn_changed);

	/* the verdicts clear: no forecast anywhere */
	leaker.det.verdict.leak = false;
	other.det.verdict.leak = false;
	cycle(&o, &w, 3);
	CHECK(isnan(o.view.scope[0].seconds));
	CHECK_INT(o.view.scope[0].confidence, 0);
	CHECK_INT(o.view.scope[0].n_drivers, 0);
	a = scope(&o, "/app.slice");
	CHECK(a && isnan(a->seconds));
	CHECK(a && !a->warn && a->warn_changed); /* cleared: OKAY */

	remove_root();
}

/* Groups: a flagged group counts once, its flagged members not again. */
static void forecast_groups(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_group g;
	const struct memz_group *groups[1] = { &g };
	struct memz_proc a, b;

	make_root();
	world_init(&w);
	memset(&g, 0, sizeof g);
	g.name = "pool";
	g.det.verdict.leak = true;
	g.det.verdict.rate_bps = 2 * MiB;
	g.det.verdict.confidence = 70;
	proc(&a, 20, "pool", NULL, false, 10 * MiB, 1 * MiB, true, 90);
	proc(&b, 21, "lone", NULL, false, 10 * MiB, 1 * MiB, true, 50);
	a.group = &g;
	w.procs[0] = &a;
	w.procs[1] = &b;
	w.view.n_procs = 2;
	w.view.groups = groups;
	w.view.n_groups = 1;
	w.in.grouped = true;
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	CHECK_INT(o.view.n_scopes, 1); /* no hierarchy under this SysRoot */
	CHECK_NEAR(o.view.scope[0].growth_bps, 3 * MiB, 1);
	CHECK_STR(o.view.scope[0].drivers[0].name, "pool");
	CHECK_INT(o.view.scope[0].drivers[0].pid, 0);
	remove_root();
}

static void kills_v2(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker, bystander, big;
	const struct memz_oom_kill *k;

	make_root();
	v2_tree();
	world_init(&w);
	proc(&leaker, 10, "leaker", "/app.slice/web.service", false, 90 * MiB,
	     1 * MiB, true, 80);
	proc(&bystander, 30, "cron", "/system.slice/cron.service", false,
	     200 * MiB, 0, false, 0);
	w.procs[0] = &leaker;
	w.procs[1] = &bystander;
	w.view.n_procs = 2;
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	cycle(&o, &w, 2);
	CHECK_INT(o.view.n_kills, 0);

	/* the cgroup's kill: web.service's leaker left, and so did a bigger
	 * process outside the cgroup, which does not fit; vmstat counts the
	 * same kill, which is not reported twice */
	w.view.n_procs = 0;
	w.gone[0] = &leaker;
	w.gone[1] = &bystander;
	w.view.n_gone = 2;
	put_file("fs/cgroup/app.slice/memory.events", "oom 1\noom_kill 1\n");
	w.vm.oom_kill = 6;
	cycle(&o, &w, 3);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_INT(o.view.n_kills, 1);
	k = &o.view.kill[0];
	CHECK(k->known);
	CHECK_STR(k->name, "leaker");
	CHECK_INT(k->pid, 10);
	CHECK_U64(k->pss, (uint64_t)(90 * MiB));
	CHECK(k->leak);
	CHECK_INT(k->leak_confidence, 80);
	CHECK_INT(k->sure, 90);
	CHECK_INT(k->candidates, 1);
	CHECK_STR(k->scope, "/app.slice");
	CHECK_STR(k->scope_id, "cg_app.slice");
	CHECK_U64(scope(&o, "/app.slice")->kills, 1);
	CHECK_U64(o.view.scope[0].kills, 1);
	w.view.n_gone = 0;
	cycle(&o, &w, 4);
	cycle(&o, &w, 5);
	CHECK_INT(o.view.new_kills, 0);
	CHECK_INT(o.view.n_kills, 1);

	/* a machine-wide kill: after a cycle's grace, the likeliest of those
	 * that left, and less sure for there being two */
	proc(&big, 40, "big", "/user.slice", false, 300 * MiB, 0, false, 0);
	proc(&bystander, 31, "small", "/user.slice", false, 100 * MiB, 0, false,
	     0);
	w.gone[0] = &bystander;
	w.gone[1] = &big;
	w.view.n_gone = 2;
	w.vm.oom_kill = 7;
	cycle(&o, &w, 6);
	CHECK_INT(o.view.new_kills, 0);
	w.view.n_gone = 0;
	cycle(&o, &w, 7);
	CHECK_INT(o.view.new_kills, 1);
	k = &o.view.kill[0];
	CHECK_STR(k->name, "big");
	CHECK_STR(k->scope, "");
	CHECK_STR(k->scope_id, "machine");
	CHECK_INT(k->candidates, 2);
	/* 50 + 40 * (300 - 100) / 300 */
	CHECK_INT(k->sure, 77);
	CHECK(!k->leak);
	CHECK_STR(o.view.kill[1].name, "leaker");

	/* a kill nothing fits: unknown, once the victim had time to leave */
	w.vm.oom_kill = 8;
	for (int i = 0; i < 3; i++) {
		cycle(&o, &w, 8 + i);
		CHECK_INT(o.view.new_kills, 0);
	}
	cycle(&o, &w, 11);
	CHECK_INT(o.view.new_kills, 1);
	CHECK(!o.view.kill[0].known);
	CHECK_INT(o.view.kill[0].sure, 0);
	CHECK_STR(o.view.kill[0].name, "");
	CHECK_INT(o.view.n_kills, 3);
	cycle(&o, &w, 12);
	CHECK_INT(o.view.new_kills, 0);
	remove_root();
}

/* A file written beside and renamed over: a new inode, as a cgroup made
 * again gives its files. */
static void put_new_file(const char *rel, const char *text)
{
	char tmp[300], a[600], b[600];

	snprintf(tmp, sizeof tmp, "%s.new", rel);
	put_file(tmp, text);
	snprintf(a, sizeof a, "%s/%s", root, tmp);
	snprintf(b, sizeof b, "%s/%s", root, rel);
	CHECK_INT(rename(a, b), 0);
}

/* A service restarted makes its cgroup again, whose counter starts from 0:
 * its kills are named at once, not once the counter passes the old one's;
 * a cgroup made again with a counter above the old one's (the inode tells)
 * has every kill it counts new. */
static void kills_restart(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc a, b, c, d;

	make_root();
	v2_tree();
	put_file("fs/cgroup/app.slice/memory.events", "oom_kill 5\n");
	world_init(&w);
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	cycle(&o, &w, 2);
	put_new_file("fs/cgroup/app.slice/memory.events", "oom_kill 0\n");
	cycle(&o, &w, 3);
	CHECK_INT(o.view.n_kills, 0);
	CHECK_U64(scope(&o, "/app.slice")->kills, 0);

	proc(&a, 10, "leaker", "/app.slice/web.service", false, 90 * MiB, 0,
	     false, 0);
	w.gone[0] = &a;
	w.view.n_gone = 1;
	put_file("fs/cgroup/app.slice/memory.events", "oom_kill 1\n");
	w.vm.oom_kill = 6;
	cycle(&o, &w, 4);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_STR(o.view.kill[0].name, "leaker");
	CHECK_STR(o.view.kill[0].scope, "/app.slice");
	CHECK_U64(scope(&o, "/app.slice")->kills, 1);

	/* again, the new cgroup's counter already at 3 (above 1) */
	proc(&b, 11, "b", "/app.slice", false, 30 * MiB, 0, false, 0);
	proc(&c, 12, "c", "/app.slice", false, 20 * MiB, 0, false, 0);
	proc(&d, 13, "d", "/app.slice", false, 10 * MiB, 0, false, 0);
	w.gone[0] = &b;
	w.gone[1] = &c;
	w.gone[2] = &d;
	w.view.n_gone = 3;
	put_new_file("fs/cgroup/app.slice/memory.events", "oom_kill 3\n");
	w.vm.oom_kill = 9;
	cycle(&o, &w, 5);
	CHECK_INT(o.view.new_kills, 3);
	CHECK_U64(scope(&o, "/app.slice")->kills, 4);
	w.view.n_gone = 0;
	for (int i = 6; i < 10; i++) {
		cycle(&o, &w, i);
		CHECK_INT(o.view.new_kills, 0);
	}
	CHECK_INT(o.view.n_kills, 4);
	CHECK_U64(o.view.scope[0].kills, 4);
	remove_root();
}

/* A counter that jumps by 2^32 is 2^32 kills, not none (a 32-bit
 * difference), and one that jumps by 3e9 counts 3e9 but names at most
 * MEMZ_OOM_MAX_KILLS, without a record per kill (3e9 records took
 * minutes); the machine, which counted the same kills, names none of
 * them. The alarm turns such a loop into a failure. */
static void kills_flood(uint64_t jump)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc a;
	char ev[64];

	make_root();
	v2_tree();
	world_init(&w);
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	proc(&a, 10, "leaker", "/app.slice/web.service", false, 90 * MiB, 0,
	     false, 0);
	w.gone[0] = &a;
	w.view.n_gone = 1;
	snprintf(ev, sizeof ev, "oom_kill %llu\n", (unsigned long long)jump);
	put_file("fs/cgroup/app.slice/memory.events", ev);
	w.vm.oom_kill = 5 + jump;
	alarm(30);
	cycle(&o, &w, 2);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_STR(o.view.kill[0].name, "leaker");
	CHECK_U64(scope(&o, "/app.slice")->kills, jump);
	CHECK_U64(o.view.scope[0].kills, jump);
	w.view.n_gone = 0;
	for (int i = 3; i < 9; i++)
		cycle(&o, &w, i);
	CHECK_INT(o.view.n_kills, MEMZ_OOM_MAX_KILLS);
	for (size_t i = 0; i < o.view.n_kills; i++)
		CHECK_STR(o.view.kill[i].scope, "/app.slice");
	CHECK_U64(scope(&o, "/app.slice")->kills, jump);

	/* the machine's own counter likewise */
	w.vm.oom_kill += jump;
	for (int i = 9; i < 15; i++)
		cycle(&o, &w, i);
	alarm(0);
	CHECK_U64(o.view.scope[0].kills, 2 * jump);
	CHECK_INT(o.view.n_kills, MEMZ_OOM_MAX_KILLS);
	CHECK_STR(o.view.kill[0].scope, "");
	CHECK(!o.view.kill[0].known);
	CHECK_STR(o.view.kill[MEMZ_OOM_MAX_KILLS - 1].scope, "");
	cycle(&o, &w, 15);
	CHECK_INT(o.view.new_kills, 0);
	remove_root();
}

/* A cgroup's kill ranks by oom_score_adj thousandths of what the cgroup
 * may use (its limit and the swap it may use), as the kernel's
 * mem_cgroup_get_max, not of the machine's memory: with 100 MiB and no
 * swap, 500 is 50 MiB and the 90 MiB process goes first; the machine's
 * 1124 MiB made it 562 MiB and named the small one. */
static void kills_scaled_one(int version, const char *swap, const char *want)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc big, small;
	const char *cg = version == 1 ? "fs/cgroup/memory/box" : "fs/cgroup/app.slice";
	const char *path = version == 1 ? "/box" : "/app.slice";
	char f[128];

	make_root();
	if (version == 1) {
		put_dir("fs/cgroup/memory");
		put_dir("fs/cgroup/memory/box");
		put_file("fs/cgroup/memory/box/memory.limit_in_bytes",
			 "104857600\n");
		put_file("fs/cgroup/memory/box/memory.usage_in_bytes", "1\n");
		put_file("fs/cgroup/memory/box/memory.oom_control",
			 "oom_kill 0\n");
	} else {
		v2_tree();
	}
	if (swap) {
		snprintf(f, sizeof f, "%s/%s", cg,
			 version == 1 ? "memory.memsw.limit_in_bytes"
				      : "memory.swap.max");
		put_file(f, swap);
	}
	world_init(&w);
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	proc(&big, 10, "big", path, version == 1, 90 * MiB, 0, false, 0);
	proc(&small, 11, "small", path, version == 1, 20 * MiB, 0, false, 0);
	small.oom_score_adj = 500;
	w.gone[0] = &big;
	w.gone[1] = &small;
	w.view.n_gone = 2;
	snprintf(f, sizeof f, "%s/%s", cg,
		 version == 1 ? "memory.oom_control" : "memory.events");
	put_file(f, "oom_kill 1\n");
	w.vm.oom_kill = 6;
	cycle(&o, &w, 2);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_STR(o.view.kill[0].name, want);
	CHECK_STR(o.view.kill[0].scope, path);
	remove_root();
}

static void kills_scaled(void)
{
	/* 100 MiB and no swap: small 20 + 50 < big 90 */
	kills_scaled_one(2, "0\n", "big");
	kills_scaled_one(1, "104857600\n", "big");
	/* swap up to the machine's 100 MiB: small 20 + 100 > 90 */
	kills_scaled_one(2, "max\n", "small");
	kills_scaled_one(2, NULL, "small");
	kills_scaled_one(1, "314572800\n", "small");
}

static void limited(const char *name, const char *max, const char *current,
		    const char *populated)
{
	char rel[200];

	snprintf(rel, sizeof rel, "fs/cgroup/%s", name);
	put_dir(rel);
	snprintf(rel, sizeof rel, "fs/cgroup/%s/memory.max", name);
	put_file(rel, max);
	snprintf(rel, sizeof rel, "fs/cgroup/%s/memory.current", name);
	put_file(rel, current);
	if (populated) {
		snprintf(rel, sizeof rel, "fs/cgroup/%s/cgroup.events", name);
		put_file(rel, populated);
	}
}

/* Eight empty cgroups limited to a page were tighter than any real one
 * and pushed the real ones out of the watch: the live (populated, at
 * least 1 MiB charged) go first, an empty or near-empty one only where
 * there is room; among the live, least room first, so a large cgroup
 * about full is watched before small ones with plenty left. */
static void decoys(void)
{
	static struct memz_oom o;
	struct world w;
	char name[32];

	make_root();
	v2_tree();
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "decoy%d", i);
		limited(name, "4096\n", i < 4 ? "0\n" : "4096\n",
			i < 4 ? "populated 0\nfrozen 0\n"
			      : "populated 1\nfrozen 0\n");
	}
	world_init(&w);
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	CHECK_INT(o.view.n_scopes, 1 + MEMZ_OOM_MAX_SCOPES);
	CHECK_STR(o.view.scope[1].path, "/app.slice");
	CHECK(scope(&o, "/app.slice") != NULL);
	remove_root();

	make_root();
	v2_tree(); /* 100 MiB, 60 MiB used: 40 MiB of room */
	limited("full", "10737418240\n", "10726932480\n",
		"populated 1\nfrozen 0\n"); /* 10 MiB of room */
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "svc%d", i);
		limited(name, "1073741824\n", "104857600\n",
			"populated 1\nfrozen 0\n");
	}
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "decoy%d", i);
		limited(name, "4096\n", "0\n", "populated 0\nfrozen 0\n");
	}
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	CHECK_INT(o.view.n_scopes, 1 + MEMZ_OOM_MAX_SCOPES);
	CHECK_STR(o.view.scope[1].path, "/full");
	CHECK_STR(o.view.scope[2].path, "/app.slice");
	for (size_t i = 3; i < o.view.n_scopes; i++)
		CHECK(!strncmp(o.view.scope[i].path, "/svc", 4));
	remove_root();
}

/* v1: limit_in_bytes, usage_in_bytes, oom_control; the victim left a
 * cycle before its cgroup's counter rose. */
static void kills_v1(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker;
	const struct memz_oom_scope *s;

	make_root();
	put_dir("fs/cgroup/memory");
	put_file("fs/cgroup/memory/memory.usage_in_bytes", "1000\n");
	put_file("fs/cgroup/memory/memory.limit_in_bytes",
		 "9223372036854771712\n");
	put_dir("fs/cgroup/memory/box");
	put_file("fs/cgroup/memory/box/memory.limit_in_bytes", "67108864\n");
	put_file("fs/cgroup/memory/box/memory.usage_in_bytes", "33554432\n");
	put_file("fs/cgroup/memory/box/memory.stat",
		 "cache 0\ntotal_inactive_file 0\n");
	put_file("fs/cgroup/memory/box/memory.oom_control",
		 "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	world_init(&w);
	w.vm.has_oom_kill = false; /* a kernel without the machine's counter */
	proc(&leaker, 50, "leaker", "/box", true, 30 * MiB, 2 * MiB, true, 95);
	w.procs[0] = &leaker;
	w.view.n_procs = 1;
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	s = scope(&o, "/box");
	CHECK(s != NULL);
	if (s) {
		CHECK(s->v1);
		CHECK_STR(s->id, "cg_box");
		CHECK_NEAR(s->seconds, 16, 1e-6); /* 32 MiB at 2 MiB/s */
		CHECK_INT(s->confidence, 95);
	}
	/* a process in a v2 cgroup of the same path is not in this one */
	leaker.memcg_v1 = false;
	cycle(&o, &w, 2);
	CHECK(isnan(scope(&o, "/box")->seconds));
	leaker.memcg_v1 = true;

	w.view.n_procs = 0;
	w.gone[0] = &leaker;
	w.view.n_gone = 1;
	put_file("fs/cgroup/memory/box/memory.oom_control",
		 "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
	cycle(&o, &w, 3);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_STR(o.view.kill[0].name, "leaker");
	CHECK_STR(o.view.kill[0].scope, "/box");
	CHECK_INT(o.view.kill[0].sure, 90);
	CHECK_U64(scope(&o, "/box")->kills, 1);
	remove_root();
}

/* OomWarn warns again at each halving of the forecast, clears once, and
 * a forecast hovering about a threshold does not flap. */
static void rewarn(void)
{
	static const struct {
		double seconds;
		unsigned level;
		bool changed;
	} step[] = {
		{ 4000, 0, false }, { 3000, 1, true },	{ 2000, 1, false },
		{ 1700, 2, true },  { 1900, 2, false }, { 1700, 2, false },
		{ 800, 3, true },   { 2000, 2, false }, /* back past a halving */
		{ 1700, 2, false }, { 850, 3, true },	{ 100, 6, true },
		/* halvings stop at 5 s: 7.03 s is the last warned (level 10) */
		{ 6, 10, true },    { 1, 10, false },   { 4000, 0, true },
		{ 4000, 0, false }, { 3500, 1, true },
	};
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker;
	const struct memz_oom_scope *m = &o.view.scope[0];

	make_root();
	world_init(&w);
	proc(&leaker, 10, "leaker", NULL, false, 40 * MiB, 1, true, 80);
	w.procs[0] = &leaker;
	w.view.n_procs = 1;
	w.in.warn_s = 3600;
	memz_oom_init(&o);
	for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
		/* 370 MiB available */
		leaker.det.verdict.rate_bps = 370 * MiB / step[i].seconds;
		/* far enough apart that the smoothing takes the new rate
		 * whole */
		cycle(&o, &w, 1 + 100.0 * (double)i);
		CHECK_NEAR(m->seconds, step[i].seconds, 1e-6);
		CHECK_INT(m->warn_level, step[i].level);
		CHECK_INT(m->warn, step[i].level > 0);
		CHECK_INT(m->warn_changed, step[i].changed);
	}
	/* without OomWarn, never */
	w.in.warn_s = 0;
	cycle(&o, &w, 1700);
	CHECK_INT(m->warn_level, 0);
	CHECK(!m->warn);
	/* an OomWarn under 5 s still warns, once */
	w.in.warn_s = 4;
	leaker.det.verdict.rate_bps = 370 * MiB / 1;
	cycle(&o, &w, 1800);
	CHECK_INT(m->warn_level, 1);
	CHECK(m->warn_changed);
	leaker.det.verdict.rate_bps = 370 * MiB / 0.5;
	cycle(&o, &w, 1900);
	CHECK_INT(m->warn_level, 1);
	CHECK(!m->warn_changed);
	remove_root();
}

/*
 * The forecast is steady and is not driven by what is not a sustained
 * leak: a verdict younger than LeakAlarmAfter counts for nothing (a
 * compiler's climb that looked like a leak for half a minute), and a
 * verdict renewing its rate each second, 10% either way, moves the
 * forecast by little.
 */
static void steady(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker, young;
	const struct memz_oom_scope *m = &o.view.scope[0];
	double lo = INFINITY, hi = 0;

	make_root();
	world_init(&w);
	w.s.leak_alarm_after = 60;
	proc(&leaker, 10, "leaker", NULL, false, 40 * MiB, MiB, true, 80);
	proc(&young, 11, "cc1", NULL, false, 40 * MiB, 50 * MiB, true, 80);
	w.procs[0] = &leaker;
	w.procs[1] = &young;
	w.view.n_procs = 2;
	w.in.warn_s = 3600;
	memz_oom_init(&o);
	for (int t = 100; t < 400; t++) {
		leaker.det.verdict.rate_bps = MiB * (t % 2 ? 1.1 : 0.9);
		young.det.verdict.since = t - 30;
		cycle(&o, &w, t);
		CHECK_INT(m->n_drivers, 1);
		CHECK_STR(m->drivers[0].name, "leaker");
		if (t >= 200) {
			lo = m->seconds < lo ? m->seconds : lo;
			hi = m->seconds > hi ? m->seconds : hi;
		}
	}
	/* 370 MiB at 1 MiB/s; unsmoothed it would swing 336 to 411 s */
	CHECK(lo > 370 * 0.97 && hi < 370 * 1.03);
	/* nothing sustained: no forecast, at once */
	leaker.det.verdict.since = 399;
	cycle(&o, &w, 400);
	CHECK(isnan(m->seconds));
	remove_root();
}

/* A victim its parent has not reaped is a zombie: still in the table,
 * its memory gone. It is named with its last samples' peak, and not
 * again when it is reaped. */
static void zombie(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc z, idle;

	make_root();
	world_init(&w);
	proc(&z, 50, "zombie", NULL, false, 0, 0, true, 70);
	z.start = 5000;
	z.det.base = 60 * MiB;
	z.det.runit = 128; /* bytes (detector.h): 2 MiB is 16,384 of them */
	z.det.rv[0] = 0;
	z.det.rv[1] = 16384;
	z.det.rcount = 2;
	/* a process that merely has no sample this cycle is not emptied */
	proc(&idle, 51, "idle", NULL, false, 0, 0, false, 0);
	idle.det.base = 90 * MiB;
	idle.det.rcount = 1;
	idle.has_sample = false;
	w.procs[0] = &idle;
	w.view.n_procs = 1;
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	/* emptied in the cycle its kill is counted in: the counter rises
	 * before the victim is signalled */
	w.procs[0] = &z;
	w.procs[1] = &idle;
	w.view.n_procs = 2;
	w.vm.oom_kill = 6;
	cycle(&o, &w, 2); /* the machine waits a cycle */
	CHECK_INT(o.view.new_kills, 0);
	cycle(&o, &w, 3);
	CHECK_INT(o.view.new_kills, 1);
	CHECK(o.view.kill[0].known);
	CHECK_STR(o.view.kill[0].name, "zombie");
	CHECK_INT(o.view.kill[0].pid, 50);
	CHECK_U64(o.view.kill[0].pss, (uint64_t)(62 * MiB));
	CHECK(o.view.kill[0].leak);
	CHECK_INT(o.view.kill[0].sure, 90);

	/* reaped: it leaves the table, and is no candidate for a next kill */
	w.view.n_procs = 1;
	w.procs[0] = &idle;
	w.gone[0] = &z;
	w.view.n_gone = 1;
	w.vm.oom_kill = 7;
	for (int i = 0; i < 4; i++)
		cycle(&o, &w, 4 + i);
	CHECK_INT(o.view.n_kills, 2);
	CHECK(!o.view.kill[0].known);
	remove_root();
}

/* A long path keeps its end in the id, which stays an identifier. */
static void long_ids(void)
{
	static struct memz_oom o;
	struct world w;
	char rel[300], path[200];

	make_root();
	put_file("fs/cgroup/cgroup.controllers", "memory\n");
	snprintf(path, sizeof path, "/%s",
		 "kubepods.slice-with-a-rather-long-name-of-its-own-x"
		 "kubepods-burstable-pod0123456789abcdef.slice");
	snprintf(rel, sizeof rel, "fs/cgroup%s", path);
	put_dir(rel);
	snprintf(rel, sizeof rel, "fs/cgroup%s/memory.max", path);
	put_file(rel, "1048576\n");
	snprintf(rel, sizeof rel, "fs/cgroup%s/memory.current", path);
	put_file(rel, "0\n");
	world_init(&w);
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	CHECK_INT(o.view.n_scopes, 2);
	CHECK_INT(strlen(o.view.scope[1].id), MEMZ_OOM_ID_MAX - 1);
	CHECK(!strncmp(o.view.scope[1].id, "cg", 2));
	CHECK(strstr(o.view.scope[1].id, "pod0123456789abcdef.slice") != NULL);
	CHECK_U64(o.view.scope[1].available, 1048576);
	CHECK(!o.view.scope[1].has_kills); /* no memory.events */
	remove_root();
}

/* /app.slice of v2_tree with no swap, and in it a 90 MiB leaker. */
static void app_leaker(struct world *w, struct memz_proc *leaker)
{
	make_root();
	v2_tree();
	put_file("fs/cgroup/app.slice/memory.swap.max", "0\n");
	world_init(w);
	proc(leaker, 10, "leaker", "/app.slice", false, 90 * MiB, 1 * MiB,
	     true, 80);
}

/* A process with oom_score_adj 1000 that exited just before a cgroup's
 * kill. Gone two cycles or more before the cycle the kill is seen in, it
 * cannot be the victim (the kernel kills a live process); gone a cycle
 * before, it gives way to one that left in the kill's cycle (the kill is
 * counted before its victim is signalled). */
static void decoy_exit_one(int gap, const char *want, int sure, int fitted)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker, decoy;
	int t = 1;

	app_leaker(&w, &leaker);
	proc(&decoy, 11, "decoy", "/app.slice", false, 0.1 * MiB, 0, false, 0);
	decoy.oom_score_adj = 1000;
	w.procs[0] = &leaker;
	w.procs[1] = &decoy;
	w.view.n_procs = 2;
	memz_oom_init(&o);
	cycle(&o, &w, t++);
	w.view.n_procs = 1;
	w.gone[0] = &decoy;
	w.view.n_gone = 1;
	for (int i = 0; i < gap; i++) {
		cycle(&o, &w, t++);
		CHECK_INT(o.view.new_kills, 0);
		w.view.n_gone = 0;
	}
	w.view.n_procs = 0;
	w.gone[0] = &leaker;
	w.view.n_gone = 1;
	put_file("fs/cgroup/app.slice/memory.events", "oom 1\noom_kill 1\n");
	w.vm.oom_kill = 6;
	cycle(&o, &w, t++);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_STR(o.view.kill[0].name, want);
	CHECK_INT(o.view.kill[0].sure, sure);
	CHECK_INT(o.view.kill[0].candidates, fitted);
	remove_root();
}

static void decoy_exit(void)
{
	/* a cycle before: decoy 0.1 + 100 MiB against the leaker's 90, but
	 * the counters are read before the processes, so the decoy left
	 * before the kill was counted, and the leaker after */
	decoy_exit_one(1, "leaker", 90, 1);
	decoy_exit_one(2, "leaker", 90, 1);
	decoy_exit_one(3, "leaker", 90, 1);
}

/* A victim killed between the cycle's counter reads and its own read is
 * seen gone the cycle before its kill is: named, but not in the kill's
 * cycle (one leaving then would be likelier) and not sure. */
static void victim_early(void)
{
	static struct memz_oom o;
	struct world w;
	struct memz_proc leaker, other;

	app_leaker(&w, &leaker);
	proc(&other, 12, "other", "/app.slice", false, 5 * MiB, 0, false, 0);
	w.procs[0] = &leaker;
	w.procs[1] = &other;
	w.view.n_procs = 2;
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	w.procs[0] = &other;
	w.view.n_procs = 1;
	w.gone[0] = &leaker;
	w.view.n_gone = 1;
	cycle(&o, &w, 2);
	w.view.n_gone = 0;
	put_file("fs/cgroup/app.slice/memory.events", "oom 1\noom_kill 1\n");
	w.vm.oom_kill = 6;
	cycle(&o, &w, 3);
	CHECK_INT(o.view.new_kills, 0);
	cycle(&o, &w, 4);
	CHECK_INT(o.view.new_kills, 1);
	CHECK_STR(o.view.kill[0].name, "leaker");
	CHECK_INT(o.view.kill[0].sure, 50);
	remove_root();
}

/* Quiet processes are all probed (none rests) while a watched cgroup is
 * within 8 cycles of its limit at its last cycle's growth, and while a
 * kill waits to be named: an exit is then seen in its cycle. */
static void restless(void)
{
	static struct memz_oom o;
	struct world w;

	make_root();
	v2_tree(); /* /app.slice: 100 MiB, 60 MiB used */
	world_init(&w);
	memz_oom_init(&o);
	cycle(&o, &w, 1);
	CHECK(!memz_oom_restless(&o, &w.vm));
	/* +2 MiB: 38 MiB left is 19 such cycles */
	put_file("fs/cgroup/app.slice/memory.current", "65011712\n");
	cycle(&o, &w, 2);
	CHECK(!memz_oom_restless(&o, &w.vm));
	/* +8 MiB: 30 MiB left, under 4 cycles of it */
	put_file("fs/cgroup/app.slice/memory.current", "73400320\n");
	cycle(&o, &w, 3);
	CHECK(memz_oom_restless(&o, &w.vm));
	/* full of page cache and flat: nothing to time */
	put_file("fs/cgroup/app.slice/memory.current", "104857600\n");
	cycle(&o, &w, 4);
	CHECK(memz_oom_restless(&o, &w.vm));
	cycle(&o, &w, 5);
	CHECK(!memz_oom_restless(&o, &w.vm));
	/* a cgroup's kill, until named or given up */
	put_file("fs/cgroup/app.slice/memory.events", "oom 1\noom_kill 1\n");
	memz_oom_read_cgroups(&o, root);
	CHECK(memz_oom_restless(&o, &w.vm));
	w.in.t = 6;
	memz_oom_update(&o, &w.in);
	for (int t = 7; t < 10; t++)
		cycle(&o, &w, t);
	CHECK_INT(o.view.n_kills, 1);
	/* a kill outside the cgroups: the machine names it a cycle later */
	w.vm.oom_kill = 7;
	memz_oom_read_cgroups(&o, root);
	CHECK(memz_oom_restless(&o, &w.vm));
	CHECK(!memz_oom_restless(&o, NULL));
	w.in.t = 10;
	memz_oom_update(&o, &w.in);
	for (int t = 11; t < 14; t++) {
		cycle(&o, &w, t);
		CHECK(memz_oom_restless(&o, &w.vm) == (o.view.n_kills == 1));
	}
	CHECK_INT(o.view.n_kills, 2); /* unknown: nothing left */
	cycle(&o, &w, 14);
	CHECK(!memz_oom_restless(&o, &w.vm));
	remove_root();
}

/* The table hands out the processes that left, as last sampled. */
static void table_gone(void)
{
	struct memz_settings s;
	struct memz_table *t;
	struct memz_table_view v;
	struct memz_proc *p;
	bool is_new;

	memz_settings_init(&s);
	CHECK_INT(memz_table_new(&t, &s, memz_allocator_libc()), 0);
	memz_table_begin(t, 0);
	p = memz_table_get(t, 7, 1, &is_new);
	memz_table_set_name(t, p, "victim", 6);
	CHECK_INT(memz_table_set_memcg(t, p, "/box"), 0);
	p->mem.pss = 12345;
	p->has_sample = true;
	CHECK_INT(memz_table_end(t, &v), 0);
	CHECK_INT(v.n_gone, 0);
	memz_table_begin(t, 1);
	CHECK_INT(memz_table_end(t, &v), 0);
	CHECK_INT(v.n_gone, 1);
	if (v.n_gone) {
		CHECK_STR(v.gone[0]->name, "victim");
		CHECK_STR(v.gone[0]->memcg, "/box");
		CHECK_U64(v.gone[0]->mem.pss, 12345);
	}
	memz_table_begin(t, 2);
	CHECK_INT(memz_table_end(t, &v), 0);
	CHECK_INT(v.n_gone, 0);
	memz_table_free(&t);
}

int main(void)
{
	forecast_v2();
	forecast_groups();
	kills_v2();
	kills_v1();
	kills_restart();
	kills_scaled();
	decoys();
	kills_flood(1ull << 32);
	kills_flood(3000000000ull);
	long_ids();
	rewarn();
	steady();
	zombie();
	decoy_exit();
	victim_early();
	restless();
	table_gone();
	return check_status();
}
