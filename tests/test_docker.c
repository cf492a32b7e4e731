/*
 * docker's config.v2.json, read for a container's name (docker.h): named
 * straight from the module and through the cgroup cache that uses it, a
 * FIFO in its place never waited on, and the parse done with no capability
 * in effect, all put back after.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "check.h"
#include "cgpaths.h"
#include "counting_alloc.h"
#include "memz/cgname.h"
#include "memz/cgroup.h"
#include "memz/docker.h"
#include "memz/privilege.h"

/* Which cgroups' files are read, what names them, and that reads are
 * counted and the buffer is the struct's own. */
static void direct(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	struct memz_docker d;
	struct memz_cgname n;
	char docker[256];

	snprintf(docker, sizeof docker, "%s/cgroup-v2/docker", MEMZ_FIXTURES);
	memz_docker_init(&d, docker, &a);
	CHECK_INT(c.allocs, 0);
	CHECK_INT(memz_cgname_parse(paths[2], &n), 0);
	CHECK_INT(memz_docker_name(&d, &n), 0);
	CHECK_STR(n.name, "docker:web");
	CHECK_STR(n.runtime, "docker");
	CHECK_INT(d.reads, 1);
	/* podman's containers are never looked up in docker's directory */
	CHECK_INT(memz_cgname_parse(paths[3], &n), 0);
	CHECK_INT(memz_docker_name(&d, &n), 0);
	CHECK_STR(n.name, "podman:a1b2c3d4e5f6");
	CHECK_INT(d.reads, 1);
	/* a bare id under a pod: docker's file says it is docker's */
	CHECK_INT(memz_cgname_parse(paths[5], &n), 0);
	CHECK_STR(n.runtime, "");
	CHECK_INT(memz_docker_name(&d, &n), 0);
	CHECK_STR(n.name, "k8s:prod/envoy-7d9f/proxy");
	CHECK_STR(n.runtime, "docker");
	CHECK_INT(d.reads, 2);
	/* no unit, no id: nothing to read */
	CHECK_INT(memz_cgname_parse(paths[0], &n), 0);
	CHECK_INT(memz_docker_name(&d, &n), 0);
	CHECK_STR(n.name, "nginx.service");
	CHECK_INT(d.reads, 2);
	CHECK_INT(c.allocs, 1);
	memz_docker_release(&d);
	CHECK(d.cfg == NULL);
	CHECK_INT(c.live, 0);

	/* DockerRoot "": never read, nothing allocated */
	memz_docker_init(&d, "", &a);
	CHECK_INT(memz_cgname_parse(paths[2], &n), 0);
	CHECK_INT(memz_docker_name(&d, &n), 0);
	CHECK_STR(n.name, "docker:3f2a9c0b7d1e");
	CHECK_INT(d.reads, 0);
	CHECK(d.cfg == NULL);
	memz_docker_release(&d);
	CHECK_INT(c.live, 0);
}

/* A FIFO where docker's file should be: opening it for a read would wait
 * for a writer that never comes, stopping the sampler. The alarm turns such
 * a hang into a failed test; the container keeps its short id. */
static void fifo_config(void)
{
	struct memz_allocator a = { counting_realloc, &(struct counting){ 0 } };
	char tmp[] = "/tmp/memz-cgroup-XXXXXX", sys[256], p[512];
	struct memz_cgroups *cg;
	const struct memz_cgroup *e = NULL;

	CHECK(mkdtemp(tmp) != NULL);
	snprintf(p, sizeof p, "%s/containers", tmp);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/containers/%s", tmp, DOCKER_ID);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/containers/%s/config.v2.json", tmp, DOCKER_ID);
	CHECK_INT(mkfifo(p, 0644), 0);
	snprintf(sys, sizeof sys, "%s/cgroup-v2/sys", MEMZ_FIXTURES);
	CHECK_INT(memz_cgroups_new(&cg, sys, tmp, 10, &a), 0);
	signal(SIGALRM, SIG_DFL);
	alarm(10);
	CHECK_INT(memz_cgroups_get(cg, paths[2], 100, &e), 0);
	alarm(0);
	CHECK(e != NULL);
	if (e)
		CHECK_STR(e->n.name, "docker:3f2a9c0b7d1e");
	memz_cgroups_free(&cg);
	snprintf(p, sizeof p, "rm -rf '%s'", tmp);
	CHECK_INT(system(p), 0);
}

/* The linker routes the library's calls to yajl_tree_parse here (mk/core.mk,
 * --wrap): what is in effect while docker's JSON is parsed. */
yajl_val __real_yajl_tree_parse(const char *input, char *err, size_t n);
yajl_val __wrap_yajl_tree_parse(const char *input, char *err, size_t n);
static unsigned parses;
static uint64_t parse_effective;

yajl_val __wrap_yajl_tree_parse(const char *input, char *err, size_t n)
{
	struct memz_caps c;

	parses++;
	parse_effective = memz_caps_get(&c) ? UINT64_MAX : c.effective;
	return __real_yajl_tree_parse(input, err, n);
}

/* docker's file is read with what the sampler runs with, and parsed with
 * nothing in effect; after the parse it is all back. Without capabilities
 * (not root) there is nothing to lower, and the test says little. */
static void parse_unprivileged(void)
{
	struct memz_allocator a = { counting_realloc, &(struct counting){ 0 } };
	struct memz_cgroups *cg;
	const struct memz_cgroup *e = NULL;
	struct memz_caps before, after;
	char sys[256], docker[256];

	snprintf(sys, sizeof sys, "%s/cgroup-v2/sys", MEMZ_FIXTURES);
	snprintf(docker, sizeof docker, "%s/cgroup-v2/docker", MEMZ_FIXTURES);
	CHECK_INT(memz_caps_get(&before), 0);
	if (!before.effective)
		printf("# no capabilities in effect: the parse's lowering is "
		       "not seen\n");
	CHECK_INT(memz_cgroups_new(&cg, sys, docker, 10, &a), 0);
	parses = 0;
	parse_effective = UINT64_MAX;
	CHECK_INT(memz_cgroups_get(cg, paths[2], 100, &e), 0);
	CHECK(e != NULL);
	if (e)
		CHECK_STR(e->n.name, "docker:web");
	CHECK_INT(parses, 1);
	CHECK_U64(parse_effective, 0);
	CHECK_INT(memz_caps_get(&after), 0);
	CHECK_U64(after.effective, before.effective);
	CHECK_U64(after.permitted, before.permitted);
	memz_cgroups_free(&cg);
}

int main(void)
{
	direct();
	fifo_config();
	parse_unprivileged();
	return check_status();
}
