/*
 * cgname.h - what an operator calls a cgroup path.
 *
 * Invariants and ownership first:
 *  - Everything here is pure: it reads no file, allocates nothing that
 *    outlives a call, and keeps no state. The one reader that opens a
 *    runtime's file for a name is the cgroup cache (cgroup.h), which hands
 *    the bytes to memz_cgname_docker().
 *  - A struct memz_cgname is the caller's, filled whole by
 *    memz_cgname_parse() (zeroed first, so a failed parse leaves no
 *    stale field), and every string in it is NUL-ended and cut to fit,
 *    never inside a UTF-8 sequence.
 *  - A name holds raw bytes of the path or of a runtime's file: hostile.
 *    It is sanitised where it is shown (sanitize.h), not here.
 *
 * GroupBy cgroup groups processes by the path /proc/PID/cgroup gives
 * (procfs.h). A path such as
 *   /system.slice/docker-3f2a...e1.scope
 * is not what anyone calls the thing; "docker:web" is. memz_cgname_parse()
 * turns a path into a kind and a display name:
 *
 *   /system.slice/nginx.service                    unit  nginx.service
 *   /user.slice/user-1000.slice/user@1000.service/init.scope
 *                                                  unit  user@1000.service
 *   /user.slice/user-1000.slice/session-3.scope    unit  session-3.scope
 *   /system.slice/docker-<64 hex>.scope            container docker:<12 hex>
 *   /docker/<64 hex>                               container docker:<12 hex>
 *   /machine.slice/libpod-<64 hex>.scope[/container]
 *                                                  container podman:<12 hex>
 *   .../cri-containerd-<64 hex>.scope, crio-<64 hex>.scope
 *                                                  container containerd: / crio:
 *   /kubepods.slice/kubepods-burstable.slice/
 *     kubepods-burstable-pod<uid>.slice/cri-containerd-<64 hex>.scope
 *                                                  pod   k8s:<uid>/<12 hex>
 *   /kubepods/besteffort/pod<uid>/<64 hex>         pod   k8s:<uid>/<12 hex>
 *
 * The deepest unit is the name (a service's own scopes and sub-cgroups are
 * the service's), except init.scope, which is its parent's manager. A path
 * that names nothing known keeps the path as its name.
 *
 * A docker container's name comes from the runtime's own file,
 * DockerRoot/containers/<id>/config.v2.json ("Name"), which the cache reads
 * once, when the cgroup is first seen, and only if it is a regular file
 * (never waiting on a FIFO) of at most MEMZ_CGNAME_CONFIG_MAX bytes (a larger file is skipped, not cut, and the
 * short id stays); a name docker gave a Kubernetes container,
 * k8s_<container>_<pod>_<namespace>_..., gives the pod's namespace and
 * name. podman and containerd keep their names in databases memz does not
 * open (no network call, no bolt or sqlite), so their containers keep the
 * short id.
 */
#ifndef MEMZ_CGNAME_H
#define MEMZ_CGNAME_H

#include <stddef.h>

#define MEMZ_CGNAME_MAX 96
#define MEMZ_CGNAME_CONFIG_MAX (256 * 1024)

enum memz_cgname_kind {
	MEMZ_CGNAME_PATH,      /* nothing known: the name is the path */
	MEMZ_CGNAME_UNIT,      /* a systemd service, scope or slice */
	MEMZ_CGNAME_CONTAINER, /* docker, podman, containerd, cri-o */
	MEMZ_CGNAME_POD,       /* a Kubernetes pod, or a container in one */
};

struct memz_cgname {
	enum memz_cgname_kind kind;
	char name[MEMZ_CGNAME_MAX]; /* raw bytes of the path: hostile */
	char runtime[16];   /* "docker", "podman", "containerd", "crio", "" */
	char id[65];        /* the container's full id, or "" */
	char pod_uid[40];   /* the pod's uid with dashes, or "" */
};

/* The kind as a word: "path", "unit", "container", "pod". */
const char *memz_cgname_kind_name(enum memz_cgname_kind k);

/* path's kind and name. -EINVAL for an empty path or one not starting
 * with '/'; a name too long for the buffer is cut (never inside a UTF-8
 * sequence). */
int memz_cgname_parse(const char *path, struct memz_cgname *out);

/* The container name in a docker config.v2.json (buf, len; buf[len] is
 * NUL): "Name" without its leading '/'. -EINVAL if it has none or does not
 * parse. */
int memz_cgname_docker(const char *buf, size_t len, char *out, size_t outlen);

/* Refines n with a docker container's name: a k8s_ name makes n a pod's
 * container named k8s:<namespace>/<pod>/<container>; another name makes it
 * docker:<name>. */
void memz_cgname_apply_docker(struct memz_cgname *n, const char *docker_name);

#endif
