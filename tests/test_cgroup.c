/*
 * cgroup memory files and the cache, on the cgroup-v2 and cgroup-v1
 * fixtures: both hierarchies, hostile paths refused, the names the cache
 * gives (cgname.h's, with docker's file: test_docker.c tests its reader),
 * the refresh honoured and a steady cache allocating nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cgpaths.h"
#include "counting_alloc.h"
#include "memz/cgroup.h"
#include "memz/json.h"
#include "memz/report.h"
#include "memz/sampler.h"

/* /proc/PID/cgroup: v1's memory line first (v2 then has no memory
 * controller), else v2's, else the first. */
static void proc_lines(void)
{
	const char *hybrid = "9:name=systemd:/\n4:memory:/api/x\n1:cpu:/\n0::/\n";
	const char *v2 = "0::/system.slice/nginx.service\n";
	const char *joined = "3:cpu,memory:/j\n";
	char out[64];
	int version = -1;

	CHECK_INT(memz_cgroup_of_proc(hybrid, strlen(hybrid), out, sizeof out,
				      &version), 0);
	CHECK_STR(out, "/api/x");
	CHECK_INT(version, 1);
	CHECK_INT(memz_cgroup_of_proc(v2, strlen(v2), out, sizeof out,
				      &version), 0);
	CHECK_STR(out, "/system.slice/nginx.service");
	CHECK_INT(version, 2);
	CHECK_INT(memz_cgroup_of_proc(joined, strlen(joined), out, sizeof out,
				      &version), 0);
	CHECK_STR(out, "/j");
	CHECK_INT(version, 1);
	/* no memory controller anywhere: a path to group by, no memcg */
	CHECK_INT(memz_cgroup_of_proc("2:pids:/p\n1:cpu:/\n", 18, out,
				      sizeof out, &version), 0);
	CHECK_STR(out, "/p");
	CHECK_INT(version, 0);
	CHECK_INT(memz_cgroup_of_proc("x\n", 2, out, sizeof out, &version),
		  -EINVAL);
	CHECK_INT(memz_cgroup_of_proc("1:cpu\n", 6, out, sizeof out, &version),
		  -EINVAL);
	CHECK_INT(memz_cgroup_of_proc("", 0, out, sizeof out, &version),
		  -EINVAL);
	CHECK_INT(memz_cgroup_of_proc(v2, strlen(v2), out, 8, &version),
		  -ENAMETOOLONG);
	/* the kernel names a cgroup from its root */
	CHECK_INT(memz_cgroup_of_proc("0::x\n", 5, out, sizeof out, &version),
		  -EINVAL);
	CHECK_INT(memz_cgroup_of_proc("0::\n", 4, out, sizeof out, &version),
		  -EINVAL);
}

/* A path longer than the buffer: a key of its own, "#<hash>:<head>", no
 * path (not an ancestor's, not a shorter cgroup's), and two long paths
 * that share their head still two keys. */
static void long_paths(void)
{
	char a[400], b[400], out[256], out2[256];
	int version = -1;

	memset(a, 'x', sizeof a);
	memcpy(a, "0::/system.slice/", 17);
	a[sizeof a - 1] = '\n';
	memcpy(b, a, sizeof b);
	b[sizeof b - 2] = 'y';
	CHECK_INT(memz_cgroup_of_proc(a, sizeof a, out, sizeof out, &version),
		  0);
	CHECK_INT(version, 2);
	CHECK_INT(strlen(out), sizeof out - 1);
	CHECK_INT(out[0], '#');
	CHECK_INT(out[17], ':');
	CHECK(!strncmp(out + 18, "/system.slice/xxx", 17));
	CHECK_INT(memz_cgroup_of_proc(b, sizeof b, out2, sizeof out2,
				      &version), 0);
	CHECK(strcmp(out, out2) != 0);
	CHECK(!strcmp(out + 17, out2 + 17));
	/* the same path, the same key */
	CHECK_INT(memz_cgroup_of_proc(b, sizeof b, out, sizeof out, &version),
		  0);
	CHECK_STR(out, out2);
	/* one that just fits is itself */
	CHECK_INT(memz_cgroup_of_proc(a, 3 + 255, out, sizeof out, &version),
		  0);
	CHECK_INT(out[0], '/');
	CHECK_INT(memz_cgroup_of_proc(a, 3 + 256, out, sizeof out, &version),
		  0);
	CHECK_INT(out[0], '#');
	CHECK_INT(memz_cgroup_of_proc(a, sizeof a, out, MEMZ_CGROUP_CUT_MIN,
				      &version), 0);
	CHECK_INT(strlen(out), MEMZ_CGROUP_CUT_MIN - 1);
	CHECK_INT(memz_cgroup_of_proc(a, sizeof a, out, MEMZ_CGROUP_CUT_MIN - 1,
				      &version), -ENAMETOOLONG);
}

/* The memory cgroup of a path too long to keep: its deepest ancestor that
 * fits, whose limits are its own too; "/" when only the root does. */
static void long_memcg(void)
{
	char a[400], out[256];
	int version = -1;

	memset(a, 'x', sizeof a);
	memcpy(a, "4:memory:/system.slice/", 23);
	a[sizeof a - 1] = '\n';
	CHECK_INT(memz_cgroup_memcg_of_proc(a, sizeof a, out, sizeof out,
					    &version), 0);
	CHECK_STR(out, "/system.slice");
	CHECK_INT(version, 1);
	/* a '/' just at the end of what fits: all of what precedes it */
	a[9 + 255] = '/';
	CHECK_INT(memz_cgroup_memcg_of_proc(a, sizeof a, out, sizeof out,
					    &version), 0);
	CHECK_INT(strlen(out), 255);
	CHECK(!strncmp(out, a + 9, 255));
	a[9 + 255] = 'x';
	a[9 + 256] = '/';
	CHECK_INT(memz_cgroup_memcg_of_proc(a, sizeof a, out, sizeof out,
					    &version), 0);
	CHECK_STR(out, "/system.slice");
	/* one that fits is itself, as the key has it */
	CHECK_INT(memz_cgroup_memcg_of_proc(a, 9 + 255, out, sizeof out,
					    &version), 0);
	CHECK_INT(strlen(out), 255);
	memcpy(a, "0::/xxxxxxxxxxxxxxxxxxxxxx", 23);
	CHECK_INT(memz_cgroup_memcg_of_proc(a, sizeof a, out, sizeof out,
					    &version), 0);
	CHECK_STR(out, "/");
	CHECK_INT(version, 2);
	CHECK_INT(memz_cgroup_memcg_of_proc(a, sizeof a, out, 1, &version),
		  -ENAMETOOLONG);
	CHECK_INT(memz_cgroup_memcg_of_proc("0::x\n", 5, out, sizeof out,
					    &version), -EINVAL);
}

static void parse_files(void)
{
	uint64_t v = 0;
	const char *ev = "low 0\nhigh 3\nmax 7\noom 2\noom_kill 1\n";

	CHECK_INT(memz_cgroup_parse_limit("max\n", 4, &v), 0);
	CHECK_U64(v, UINT64_MAX);
	CHECK_INT(memz_cgroup_parse_limit("104857600\n", 10, &v), 0);
	CHECK_U64(v, 104857600);
	CHECK_INT(memz_cgroup_parse_limit("9223372036854771712\n", 20, &v), 0);
	CHECK_U64(v, UINT64_MAX);
	CHECK_INT(memz_cgroup_parse_limit("12k\n", 4, &v), -EINVAL);
	CHECK_INT(memz_cgroup_parse_limit("\n", 1, &v), -EINVAL);

	CHECK_INT(memz_cgroup_parse_key(ev, strlen(ev), "oom_kill", &v), 0);
	CHECK_U64(v, 1);
	CHECK_INT(memz_cgroup_parse_key(ev, strlen(ev), "oom", &v), 0);
	CHECK_U64(v, 2);
	CHECK_INT(memz_cgroup_parse_key(ev, strlen(ev), "nope", &v), -ENOENT);
	CHECK_INT(memz_cgroup_parse_key("oom_kill x\n", 11, "oom_kill", &v),
		  -EINVAL);
}

static void gather(void *ctx, const char *path, uint64_t limit)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 1024 - n, "%s=%llu;", path,
		 limit == UINT64_MAX ? 0ull : (unsigned long long)limit >> 20);
}

/* The memory hierarchy of each fixture, and a walk of it: every cgroup
 * with its limit (MiB, 0: none), parents before children. */
static void hierarchy(const char *tree, int version, const char *rel)
{
	struct memz_cgroup_root r;
	char sys[256], want[400], got[1024] = "", buf[256];
	uint64_t v, id = 1;
	unsigned n;

	snprintf(sys, sizeof sys, "%s/%s/sys", MEMZ_FIXTURES, tree);
	CHECK_INT(memz_cgroup_find_root(sys, &r), 0);
	CHECK_INT(r.version, version);
	snprintf(want, sizeof want, "%s%s", sys, rel);
	CHECK_STR(r.dir, want);
	CHECK_INT(memz_cgroup_usage(&r, paths[0], buf, sizeof buf, &v), 0);
	CHECK_U64(v, 8ull << 20);
	CHECK_INT(memz_cgroup_limit(&r, paths[0], buf, sizeof buf, &v), 0);
	CHECK_U64(v, 64ull << 20);
	CHECK_INT(memz_cgroup_limit(&r, paths[1], buf, sizeof buf, &v), 0);
	CHECK_U64(v, UINT64_MAX);
	CHECK_INT(memz_cgroup_limit(&r, "/../x", buf, sizeof buf, &v), -EINVAL);
	CHECK_INT(memz_cgroup_limit(&r, "x", buf, sizeof buf, &v), -EINVAL);
	CHECK_INT(memz_cgroup_oom_kills(&r, paths[0], buf, sizeof buf, &v,
					&id), -ENOENT);
	CHECK_U64(id, 0);

	n = memz_cgroup_walk(&r, 100, 8, 192, buf, sizeof buf, gather, got);
	CHECK_INT(n, 18); /* 6 cgroups and their 12 ancestors */
	CHECK(strstr(got, "/system.slice/nginx.service=64;") != NULL);
	CHECK(strstr(got, paths[3]) != NULL);
	CHECK(strstr(got, "/system.slice/docker-" DOCKER_ID ".scope=192;"));
	/* a walk stops at its bound */
	got[0] = '\0';
	CHECK_INT(memz_cgroup_walk(&r, 2, 8, 192, buf, sizeof buf, gather, got),
		  2);
}

static void mem_files(const char *tree, int version)
{
	char sys[256];
	struct memz_cgroup_mem m;

	snprintf(sys, sizeof sys, "%s/%s/sys", MEMZ_FIXTURES, tree);
	CHECK_INT(memz_cgroup_read_mem(sys, paths[0], &m), 0);
	CHECK_INT(m.version, version);
	CHECK(m.limited);
	CHECK_U64(m.limit, 64ull << 20);
	CHECK_U64(m.usage, 8ull << 20);
	/* "max", or v1's page-rounded LLONG_MAX: no limit */
	CHECK_INT(memz_cgroup_read_mem(sys, paths[1], &m), 0);
	CHECK(!m.limited);
	CHECK_U64(m.limit, 0);
	CHECK_U64(m.usage, 16ull << 20);
	CHECK_INT(memz_cgroup_read_mem(sys, paths[4], &m), 0);
	CHECK_U64(m.limit, 5 * (64ull << 20));
	CHECK_U64(m.usage, 5 * (8ull << 20));
	CHECK_INT(memz_cgroup_read_mem(sys, "/nowhere.service", &m), -ENOENT);
	CHECK_INT(m.version, 0);
	CHECK_INT(memz_cgroup_read_mem(sys, "/../system.slice/nginx.service",
				       &m), -EINVAL);
	CHECK_INT(memz_cgroup_read_mem(sys, "/system.slice/./nginx.service",
				       &m), -EINVAL);
}

static void cache(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	struct memz_cgroups *cg;
	const struct memz_cgroup *e, *e2;
	char sys[256], docker[256];
	unsigned long reads, allocs;

	snprintf(sys, sizeof sys, "%s/cgroup-v2/sys", MEMZ_FIXTURES);
	snprintf(docker, sizeof docker, "%s/cgroup-v2/docker", MEMZ_FIXTURES);
	CHECK_INT(memz_cgroups_new(&cg, sys, docker, 10, &a), 0);
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		CHECK_INT(memz_cgroups_get(cg, paths[i], 100, &e), 0);
		CHECK(e != NULL);
		CHECK(e && e->has_mem);
	}
	CHECK_INT(memz_cgroups_count(cg), 6);
	/* docker's own file names its containers, a k8s one by pod */
	memz_cgroups_get(cg, paths[2], 100, &e);
	CHECK_STR(e->n.name, "docker:web");
	memz_cgroups_get(cg, paths[5], 100, &e);
	CHECK_STR(e->n.name, "k8s:prod/envoy-7d9f/proxy");
	CHECK_U64(e->mem.usage, 6 * (8ull << 20));

	/* within the refresh nothing is read again, nor allocated */
	reads = memz_cgroups_reads(cg);
	allocs = c.allocs;
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		memz_cgroups_get(cg, paths[i], 109, &e);
	CHECK_INT(memz_cgroups_reads(cg), reads);
	memz_cgroups_get(cg, paths[0], 110, &e);
	CHECK_INT(memz_cgroups_reads(cg), reads + 1);
	CHECK(e->read_t == 110);

	/* not a cgroup path: no entry */
	CHECK_INT(memz_cgroups_get(cg, "nope", 110, &e), 0);
	CHECK(e == NULL);

	/* a sweep keeps what was asked for since the last, the next forgets
	 * the rest; the freed entry is reused */
	memz_cgroups_sweep(cg);
	memz_cgroups_get(cg, paths[0], 111, &e);
	memz_cgroups_sweep(cg);
	CHECK_INT(memz_cgroups_count(cg), 1);
	CHECK_INT(memz_cgroups_get(cg, paths[3], 112, &e2), 0);
	CHECK_STR(e2->n.name, "podman:a1b2c3d4e5f6");
	CHECK_INT(memz_cgroups_count(cg), 2);
	CHECK_INT(c.allocs, allocs);

	memz_cgroups_free(&cg);
	CHECK(cg == NULL);
	CHECK_INT(c.live, 0);
}

static double series(const struct memz_group *g, const char *name, bool *has)
{
	for (size_t i = 0; i < memz_series_group.n; i++)
		if (!strcmp(memz_series_group.s[i].name, name)) {
			*has = memz_series_has(&memz_series_group.s[i], g);
			return memz_series_value(&memz_series_group.s[i], g);
		}
	*has = false;
	return -1;
}

/* GroupBy cgroup on a fixture, through the sampler and the report: each
 * published group's id is the operator's name, and it carries its
 * cgroup's limit and usage where the files give them. */
static void published(const char *tree)
{
	static const struct {
		const char *id;
		uint64_t limit, usage; /* MiB; limit 0: none */
	} want[] = {
		{ "nginx.service", 64, 8 },
		{ "user_1000.service", 0, 16 },
		{ "docker_web", 192, 24 },
		{ "podman_a1b2c3d4e5f6", 0, 32 },
		{ "k8s_" POD "_0c0ffee00123", 320, 40 },
		{ "k8s_prod_envoy-7d9f_proxy", 0, 48 },
	};
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct memz_report *r;
	const struct memz_report_view *v;
	char path[256];
	yajl_gen g;
	const unsigned char *buf;
	size_t len;

	memz_settings_init(&set);
	snprintf(path, sizeof path, "%s/%s/proc", MEMZ_FIXTURES, tree);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/%s/sys", MEMZ_FIXTURES, tree);
	CHECK_INT(memz_settings_set(&set, "SysRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/%s/docker", MEMZ_FIXTURES, tree);
	CHECK_INT(memz_settings_set(&set, "DockerRoot", path, NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "GroupBy", "cgroup", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1000, &snap), 0);
	CHECK_INT(memz_report_update(r, &snap, &v), 0);
	CHECK_INT(v->n_groups, 6);
	for (size_t i = 0; i < 6 && i < v->n_groups; i++) {
		/* largest first: pid 15 (6 MiB) down to pid 10 */
		size_t w = 5 - i;
		const struct memz_group *gr = v->groups[i].g;
		bool has;
		double x;

		CHECK_STR(v->groups[i].id, want[w].id);
		CHECK(gr->cgroup != NULL);
		x = series(gr, "cgroup_usage", &has);
		CHECK(has);
		CHECK_U64(x, want[w].usage << 20);
		x = series(gr, "cgroup_limit", &has);
		CHECK_INT(has, want[w].limit != 0);
		CHECK_U64(x, want[w].limit << 20);
	}

	g = yajl_gen_alloc(NULL);
	CHECK_INT(memz_json_report(g, v), 0);
	yajl_gen_get_buf(g, &buf, &len);
	CHECK(strstr((const char *)buf,
		     "\"cgroup\":{\"name\":\"docker:web\",\"kind\":\"container\","
		     "\"runtime\":\"docker\",\"container_id\":\"" DOCKER_ID "\""));
	CHECK(strstr((const char *)buf, "\"cgroup_limit\":201326592") != NULL);
	yajl_gen_free(g);

	memz_report_free(&r);
	memz_sampler_free(&s);
}

/* Under another grouping no group has a cgroup, nor its series. */
static void not_by_cgroup(void)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	char path[256];
	bool has;

	memz_settings_init(&set);
	snprintf(path, sizeof path, "%s/cgroup-v2/proc", MEMZ_FIXTURES);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/cgroup-v2/sys", MEMZ_FIXTURES);
	CHECK_INT(memz_settings_set(&set, "SysRoot", path, NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1000, &snap), 0);
	CHECK(snap.view.n_groups > 0);
	for (size_t i = 0; i < snap.view.n_groups; i++) {
		CHECK(snap.view.groups[i]->cgroup == NULL);
		series(snap.view.groups[i], "cgroup_usage", &has);
		CHECK(!has);
	}
	memz_sampler_free(&s);
}

/* Writes text to dir/rel. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* A copy of the cgroup-v2 fixture's /proc and /sys in a new directory
 * under /tmp (into dir), its processes removed unless keep. */
static void fixture_copy(char *dir, bool keep)
{
	char cmd[1024];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof cmd,
		 "cp -r '%s/cgroup-v2/proc' '%s/cgroup-v2/sys' '%s/' && "
		 "{ %s rm -r '%s'/proc/1?; }",
		 MEMZ_FIXTURES, MEMZ_FIXTURES, dir, keep ? "true ||" : "", dir);
	CHECK_INT(system(cmd), 0);
}

/* Process pid called comm in cgroup (the text of its cgroup file), its
 * other files as cgroup-v2's pid 10 has them. */
static void add_proc(const char *dir, int pid, const char *comm,
		     const char *cgroup)
{
	static const char *const same[] = { "statm", "smaps_rollup",
					    "oom_score_adj" };
	char rel[512], text[1024], from[512];
	FILE *f;
	size_t n;

	snprintf(rel, sizeof rel, "%s/proc/%d", dir, pid);
	CHECK_INT(mkdir(rel, 0755), 0);
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		snprintf(from, sizeof from, "%s/cgroup-v2/proc/10/%s",
			 MEMZ_FIXTURES, same[i]);
		f = fopen(from, "r");
		CHECK(f != NULL);
		if (!f)
			continue;
		n = fread(text, 1, sizeof text - 1, f);
		text[n] = '\0';
		fclose(f);
		snprintf(rel, sizeof rel, "proc/%d/%s", pid, same[i]);
		put(dir, rel, text);
	}
	snprintf(text, sizeof text,
		 "%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 10 10 0 0 20 0 1 0 "
		 "110 3145728 256 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
		 "17 0 0 0 0 0 0 0 0 0 0 0 0 0\n", pid, comm, pid, pid);
	snprintf(rel, sizeof rel, "proc/%d/stat", pid);
	put(dir, rel, text);
	snprintf(text, sizeof text,
		 "Name:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t1\n"
		 "Uid:\t0\t0\t0\t0\nVmSize:\t    3072 kB\n"
		 "VmRSS:\t    1024 kB\nThreads:\t1\n", comm, pid, pid);
	snprintf(rel, sizeof rel, "proc/%d/status", pid);
	put(dir, rel, text);
	snprintf(rel, sizeof rel, "proc/%d/cgroup", pid);
	put(dir, rel, cgroup);
}

static void fixture_remove(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
}

static void sampler_on(struct memz_sampler **s, const char *dir,
		       const char *top_groups)
{
	struct memz_settings set;
	char path[256];

	memz_settings_init(&set);
	snprintf(path, sizeof path, "%s/proc", dir);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/sys", dir);
	CHECK_INT(memz_settings_set(&set, "SysRoot", path, NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "GroupBy", "cgroup", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "TopGroups", top_groups, NULL, 0),
		  0);
	CHECK_INT(memz_sampler_new(s, &set, memz_allocator_libc()), 0);
}

static const struct memz_group *group_of(const struct memz_snapshot *s,
					 int pid)
{
	for (size_t i = 0; i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i]->group;
	return NULL;
}

/*
 * GroupBy cgroup through the sampler: a process in a cgroup whose path is
 * 256 bytes or more, and one whose cgroup file is malformed, both calling
 * themselves "/system.slice" (comm is theirs to set), never join the real
 * /system.slice group: the first is grouped by its own cgroup's cut key,
 * the second apart from every cgroup.
 */
static void posing_comm(void)
{
	char tmp[] = "/tmp/memz-cgpose-XXXXXX", cg[400];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	const struct memz_group *g16, *g17, *g18;

	fixture_copy(tmp, true);
	memset(cg, 'a', sizeof cg);
	memcpy(cg, "0::/user.slice/user-1000.slice/user@1000.service/", 49);
	memcpy(cg + 320, "\n", 2);
	add_proc(tmp, 16, "/system.slice", cg);
	add_proc(tmp, 17, "/system.slice", "0::/system.slice\n");
	add_proc(tmp, 18, "/system.slice", "garbage\n");
	sampler_on(&s, tmp, "10");
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1000, &snap), 0);
	g16 = group_of(&snap, 16);
	g17 = group_of(&snap, 17);
	g18 = group_of(&snap, 18);
	CHECK(g16 && g17 && g18);
	if (g16 && g17 && g18) {
		CHECK_STR(g17->name, "/system.slice");
		CHECK_INT(g17->members, 1);
		CHECK_INT(g16->name[0], '#');
		CHECK(strstr(g16->name, ":/user.slice/user-1000.slice/") != NULL);
		CHECK_INT(g16->members, 1);
		CHECK(g16->cgroup == NULL);
		CHECK_STR(g18->name, MEMZ_TABLE_NO_CGROUP);
		CHECK_INT(g18->members, 1);
	}
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
	fixture_remove(tmp);
}

/*
 * TopGroups 1000 over 300 cgroups: at most MEMZ_REPORT_MAX_GROUPS groups
 * are published, and only theirs have their cgroup's files read (a group
 * carries its cgroup once it was looked up, which reads them).
 */
static void reads_published_only(void)
{
	char tmp[] = "/tmp/memz-cgmany-XXXXXX", rel[64], cg[64];
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct memz_report *r;
	const struct memz_report_view *v;
	size_t attached = 0, reported = 0;

	fixture_copy(tmp, false);
	snprintf(rel, sizeof rel, "%s/sys/fs/cgroup/t", tmp);
	CHECK_INT(mkdir(rel, 0755), 0);
	for (int p = 100; p < 400; p++) {
		snprintf(cg, sizeof cg, "0::/t/c%d\n", p);
		snprintf(rel, sizeof rel, "c%d", p);
		add_proc(tmp, p, rel, cg);
		snprintf(rel, sizeof rel, "%s/sys/fs/cgroup/t/c%d", tmp, p);
		CHECK_INT(mkdir(rel, 0755), 0);
		snprintf(rel, sizeof rel, "sys/fs/cgroup/t/c%d/memory.current", p);
		put(tmp, rel, "1048576\n");
		snprintf(rel, sizeof rel, "sys/fs/cgroup/t/c%d/memory.max", p);
		put(tmp, rel, "max\n");
	}
	sampler_on(&s, tmp, "1000");
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 1000, &snap), 0);
	CHECK_INT(memz_report_update(r, &snap, &v), 0);
	CHECK_INT(snap.view.n_groups, 300);
	CHECK_INT(v->n_groups, MEMZ_REPORT_MAX_GROUPS);
	for (size_t i = 0; i < snap.view.n_groups; i++) {
		attached += snap.view.groups[i]->cgroup != NULL;
		reported += snap.view.groups[i]->reported;
	}
	CHECK_INT(attached, MEMZ_REPORT_MAX_GROUPS);
	CHECK_INT(reported, MEMZ_REPORT_MAX_GROUPS);
	for (size_t i = 0; i < v->n_groups; i++)
		CHECK(v->groups[i].g->cgroup != NULL);
	memz_report_free(&r);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
	fixture_remove(tmp);
}

/* Process pid's statm and smaps_rollup at kb KiB, all of it anonymous. */
static void proc_at(const char *dir, int pid, unsigned long kb)
{
	char rel[64], text[1024];

	snprintf(rel, sizeof rel, "proc/%d/statm", pid);
	snprintf(text, sizeof text, "%lu %lu 0 1 0 %lu 0\n", kb / 4 + 512,
		 kb / 4, kb / 4);
	put(dir, rel, text);
	snprintf(rel, sizeof rel, "proc/%d/smaps_rollup", pid);
	snprintf(text, sizeof text,
		 "00400000-7ffd00000000 ---p 00000000 00:00 0 [rollup]\n"
		 "Rss: %lu kB\nPss: %lu kB\nPss_Anon: %lu kB\n"
		 "Pss_File: 0 kB\nPss_Shmem: 0 kB\nShared_Clean: 0 kB\n"
		 "Shared_Dirty: 0 kB\nPrivate_Clean: 0 kB\n"
		 "Private_Dirty: %lu kB\nAnonymous: %lu kB\nSwap: 0 kB\n"
		 "SwapPss: 0 kB\n", kb, kb, kb, kb, kb);
	put(dir, rel, text);
}

/*
 * More leaking groups than are published: the first
 * MEMZ_REPORT_MAX_GROUPS suspects are, and only their cgroups' files are
 * read (a group carries its cgroup once it was looked up, which reads
 * them); the suspects past the cap are seen in the JSON alone, which
 * shows no cgroup figures.
 */
static void reads_published_leaks(void)
{
	char tmp[] = "/tmp/memz-cgleak-XXXXXX", rel[64], cg[64];
	enum { FIRST = 100, N = 280 };
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	struct memz_report *r;
	const struct memz_report_view *v = NULL;
	size_t attached = 0, leaks = 0;

	fixture_copy(tmp, false);
	snprintf(rel, sizeof rel, "%s/sys/fs/cgroup/t", tmp);
	CHECK_INT(mkdir(rel, 0755), 0);
	for (int p = FIRST; p < FIRST + N; p++) {
		snprintf(cg, sizeof cg, "0::/t/c%d\n", p);
		snprintf(rel, sizeof rel, "c%d", p);
		add_proc(tmp, p, rel, cg);
		snprintf(rel, sizeof rel, "%s/sys/fs/cgroup/t/c%d", tmp, p);
		CHECK_INT(mkdir(rel, 0755), 0);
		snprintf(rel, sizeof rel, "sys/fs/cgroup/t/c%d/memory.current", p);
		put(tmp, rel, "1048576\n");
		snprintf(rel, sizeof rel, "sys/fs/cgroup/t/c%d/memory.max", p);
		put(tmp, rel, "max\n");
	}
	memz_settings_init(&set);
	snprintf(rel, sizeof rel, "%s/proc", tmp);
	CHECK_INT(memz_settings_set(&set, "ProcRoot", rel, NULL, 0), 0);
	snprintf(rel, sizeof rel, "%s/sys", tmp);
	CHECK_INT(memz_settings_set(&set, "SysRoot", rel, NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "GroupBy", "cgroup", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "TopGroups", "0", NULL, 0), 0);
	/* judged from the first sample, every one read exactly */
	CHECK_INT(memz_settings_set(&set, "LeakWarmup", "0", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "CpuBudget", "100", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	memz_snapshot_init(&snap);
	for (int t = 0; t < 60 && leaks < N; t++) {
		for (int p = FIRST; p < FIRST + N; p++)
			proc_at(tmp, p, 2048 + 1024 * (unsigned long)t);
		CHECK_INT(memz_sampler_run(s, 1000 + t, &snap), 0);
		leaks = 0;
		for (size_t i = 0; i < snap.view.n_groups; i++)
			leaks += snap.view.groups[i]->det.verdict.leak;
	}
	CHECK_INT(leaks, N);
	CHECK_INT(memz_report_update(r, &snap, &v), 0);
	CHECK_INT(v->n_groups, MEMZ_REPORT_MAX_GROUPS);
	for (size_t i = 0; i < snap.view.n_groups; i++)
		attached += snap.view.groups[i]->cgroup != NULL;
	CHECK_INT(attached, MEMZ_REPORT_MAX_GROUPS);
	for (size_t i = 0; i < v->n_groups; i++)
		CHECK(v->groups[i].g->cgroup != NULL);
	memz_report_free(&r);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
	fixture_remove(tmp);
}

int main(void)
{
	proc_lines();
	long_paths();
	long_memcg();
	parse_files();
	hierarchy("cgroup-v2", 2, "/fs/cgroup");
	hierarchy("cgroup-v1", 1, "/fs/cgroup/memory");
	hierarchy("cgroup-hybrid", 1, "/fs/cgroup/memory");
	mem_files("cgroup-v2", 2);
	mem_files("cgroup-v1", 1);
	mem_files("cgroup-hybrid", 1);
	cache();
	published("cgroup-v2");
	published("cgroup-v1");
	published("cgroup-hybrid");
	not_by_cgroup();
	posing_comm();
	reads_published_only();
	reads_published_leaks();
	return check_status();
}
