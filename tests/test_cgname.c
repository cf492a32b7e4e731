/*
 * cgroup names: every kind of name a path gives (units, containers of each
 * runtime, pods), look-alikes that are none, a long name cut on a UTF-8
 * boundary, and docker's config.v2.json names, Kubernetes' among them;
 * a file nested too deep for yajl's recursion is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cgpaths.h"
#include "memz/cgname.h"

static void names(void)
{
	struct memz_cgname n;
	char buf[300];

	CHECK_INT(memz_cgname_parse(paths[0], &n), 0);
	CHECK_INT(n.kind, MEMZ_CGNAME_UNIT);
	CHECK_STR(n.name, "nginx.service");
	CHECK_STR(memz_cgname_kind_name(n.kind), "unit");
	CHECK_INT(memz_cgname_parse(paths[1], &n), 0);
	CHECK_STR(n.name, "user@1000.service");
	CHECK_INT(memz_cgname_parse("/init.scope", &n), 0);
	CHECK_STR(n.name, "init.scope");
	CHECK_INT(memz_cgname_parse("/user.slice/user-1000.slice/session-3.scope",
				    &n), 0);
	CHECK_STR(n.name, "session-3.scope");
	/* a service's own sub-cgroup is still the service */
	CHECK_INT(memz_cgname_parse("/system.slice/foo.service/worker", &n), 0);
	CHECK_STR(n.name, "foo.service");
	CHECK_INT(memz_cgname_parse("/user.slice/user-1000.slice", &n), 0);
	CHECK_STR(n.name, "user-1000.slice");

	CHECK_INT(memz_cgname_parse(paths[2], &n), 0);
	CHECK_INT(n.kind, MEMZ_CGNAME_CONTAINER);
	CHECK_STR(n.name, "docker:3f2a9c0b7d1e");
	CHECK_STR(n.runtime, "docker");
	CHECK_STR(n.id, DOCKER_ID);
	CHECK_INT(memz_cgname_parse("/docker/" DOCKER_ID, &n), 0);
	CHECK_STR(n.name, "docker:3f2a9c0b7d1e");
	CHECK_INT(memz_cgname_parse(paths[3], &n), 0);
	CHECK_STR(n.name, "podman:a1b2c3d4e5f6");
	CHECK_INT(memz_cgname_parse("/system.slice/crio-" PODMAN_ID ".scope", &n),
		  0);
	CHECK_STR(n.name, "crio:a1b2c3d4e5f6");

	CHECK_INT(memz_cgname_parse(paths[4], &n), 0);
	CHECK_INT(n.kind, MEMZ_CGNAME_POD);
	CHECK_STR(n.pod_uid, POD);
	CHECK_STR(n.name, "k8s:" POD "/0c0ffee00123");
	CHECK_STR(n.runtime, "containerd");
	CHECK_INT(memz_cgname_parse(paths[5], &n), 0);
	CHECK_STR(n.name, "k8s:" POD "/9e8d7c6b5a41");
	CHECK_STR(n.runtime, "");
	CHECK_INT(memz_cgname_parse("/kubepods/besteffort/pod" POD, &n), 0);
	CHECK_STR(n.name, "k8s:" POD);

	/* look-alikes are not containers or pods */
	CHECK_INT(memz_cgname_parse("/system.slice/docker-" "abc.scope", &n), 0);
	CHECK_INT(n.kind, MEMZ_CGNAME_UNIT);
	CHECK_INT(memz_cgname_parse("/kubepods/podcast", &n), 0);
	CHECK_INT(n.kind, MEMZ_CGNAME_PATH);
	CHECK_STR(n.name, "/kubepods/podcast");
	CHECK_INT(memz_cgname_parse("/", &n), 0);
	CHECK_INT(n.kind, MEMZ_CGNAME_PATH);
	CHECK_STR(n.name, "/");
	CHECK_INT(memz_cgname_parse("", &n), -EINVAL);
	CHECK_INT(memz_cgname_parse("relative/x.service", &n), -EINVAL);

	/* a long name is cut, never inside a UTF-8 sequence */
	memset(buf, 0, sizeof buf);
	buf[0] = '/';
	for (size_t i = 1; i + 2 < 200; i += 2)
		memcpy(buf + i, "\xc3\xa9", 2);
	CHECK_INT(memz_cgname_parse(buf, &n), 0);
	CHECK(strlen(n.name) < MEMZ_CGNAME_MAX);
	CHECK_INT(strlen(n.name) % 2, 1);
}

static void docker_names(void)
{
	static const char cfg[] =
		"{\"Config\":{\"Hostname\":\"x\"},\"Name\":\"/web\","
		"\"MountPoints\":{\"/d\":{\"Name\":\"vol\"}}}";
	struct memz_cgname n;
	char name[64];

	CHECK_INT(memz_cgname_docker(cfg, strlen(cfg), name, sizeof name),
		  0);
	CHECK_STR(name, "web");
	CHECK_INT(memz_cgname_docker("{\"Name\":3}", 10, name, sizeof name),
		  -EINVAL);
	CHECK_INT(memz_cgname_docker("{\"Name\":\"/w", 11, name,
					  sizeof name), -EINVAL);
	/* a NUL inside the file is not a name's end */
	CHECK_INT(memz_cgname_docker("{\"Name\":\"/a\"}\0x", 15, name,
					  sizeof name), -EINVAL);

	memz_cgname_parse(paths[5], &n);
	memz_cgname_apply_docker(&n, "k8s_proxy_envoy-7d9f_prod_" POD "_0");
	CHECK_INT(n.kind, MEMZ_CGNAME_POD);
	CHECK_STR(n.name, "k8s:prod/envoy-7d9f/proxy");
	memz_cgname_parse(paths[2], &n);
	memz_cgname_apply_docker(&n, "k8s_short");
	CHECK_STR(n.name, "docker:k8s_short");
}

/* {"Name":"/web","x":[[...]]} with `arrays` arrays: the object makes one
 * level more. */
static char *nested(size_t arrays)
{
	static const char head[] = "{\"Name\":\"/web\",\"x\":";
	size_t hl = sizeof head - 1;
	char *b = malloc(hl + 2 * arrays + 2);

	if (!b)
		abort();
	memcpy(b, head, hl);
	memset(b + hl, '[', arrays);
	memset(b + hl + arrays, ']', arrays);
	memcpy(b + hl + 2 * arrays, "}", 2);
	return b;
}

/* yajl_tree_free recurses once per level: 131,072 arrays in a 256 KiB
 * file needed 4 MiB of stack and crashed the host's thread. Refused past
 * 64 levels, before yajl sees it; brackets in a string are no level. */
static void docker_deep(void)
{
	static const char str[] =
		"{\"Name\":\"/w\\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}";
	char name[128];
	char *b;

	b = nested(63);
	CHECK_INT(memz_cgname_docker(b, strlen(b), name, sizeof name), 0);
	CHECK_STR(name, "web");
	free(b);
	b = nested(64);
	name[0] = '\0';
	CHECK_INT(memz_cgname_docker(b, strlen(b), name, sizeof name),
		  -EINVAL);
	CHECK_STR(name, "");
	free(b);
	b = nested(131072);
	CHECK_INT(memz_cgname_docker(b, strlen(b), name, sizeof name),
		  -EINVAL);
	free(b);
	CHECK_INT(memz_cgname_docker(str, strlen(str), name, sizeof name), 0);
	CHECK(!strncmp(name, "w\"[[[[", 6));
}

int main(void)
{
	names();
	docker_names();
	docker_deep();
	return check_status();
}
