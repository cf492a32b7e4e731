/*
 * cgpaths.h - the cgroup paths test_cgname, test_cgroup and test_docker
 * share: one of each kind of name, and the ids in them. The cgroup-v1,
 * -v2 and -hybrid fixtures under tests/fixtures hold the same paths.
 */
#ifndef MEMZ_TEST_CGPATHS_H
#define MEMZ_TEST_CGPATHS_H

#define DOCKER_ID "3f2a9c0b7d1e4444444444444444444444444444444444444444444444444444"
#define K8S_DOCKER_ID "9e8d7c6b5a412222222222222222222222222222222222222222222222222222"
#define PODMAN_ID "a1b2c3d4e5f67777777777777777777777777777777777777777777777777777"
#define CTRD_ID "0c0ffee001238888888888888888888888888888888888888888888888888888"
#define POD "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define POD_ "0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0"

static const char *const paths[] = {
	"/system.slice/nginx.service",
	"/user.slice/user-1000.slice/user@1000.service/init.scope",
	"/system.slice/docker-" DOCKER_ID ".scope",
	"/machine.slice/libpod-" PODMAN_ID ".scope/container",
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	".slice/cri-containerd-" CTRD_ID ".scope",
	"/kubepods/besteffort/pod" POD "/" K8S_DOCKER_ID,
};

#endif
