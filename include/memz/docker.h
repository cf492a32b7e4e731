/*
 * docker.h - a docker container's name, from docker's own file for it,
 * DockerRoot/containers/<id>/config.v2.json ("Name").
 *
 * Invariants:
 *  - root "" means the file is never read.
 *  - cfg is NULL until the first read, then MEMZ_CGNAME_CONFIG_MAX + 1
 *    bytes kept for every later read: naming allocates once.
 *  - reads counts the files read (opened, found regular, read), whatever
 *    the read and the parse gave.
 *  - A name is taken only from a whole file: a larger one, a FIFO, a
 *    device, a symlink, JSON nested too deep, or anything else but a
 *    string Name leaves n as memz_cgname_parse() made it.
 *
 * Ownership: struct memz_docker is the caller's, usually a member of its
 * own (the cgroup cache's, cgroup.h). memz_docker_init() copies root and
 * keeps a, which must outlive it; cfg is the struct's own, given back by
 * memz_docker_release(). Not for two threads at once: cfg is one buffer.
 *
 * Why the read is guarded so: DockerRoot is a directory whoever runs
 * containers writes (its trust is privilege.h's memz_priv_trusted_dir(),
 * checked by the host), and the file is read with the capabilities the
 * sampler runs with, since docker's directory is root's alone. So the file
 * is opened O_NONBLOCK | O_NOFOLLOW (a FIFO there would otherwise block
 * open() and the read, stopping every cycle), read only when fstat() says
 * it is a regular file, and at most MEMZ_CGNAME_CONFIG_MAX bytes;
 * cgname.h's memz_cgname_docker() checks the JSON's depth before yajl
 * parses it, and the parse of those bytes runs with no capability in
 * effect (privilege.h's memz_priv_suspend()), the sets put back after.
 */
#ifndef MEMZ_DOCKER_H
#define MEMZ_DOCKER_H

#include "memz/alloc.h"
#include "memz/cgname.h"

struct memz_docker {
	const struct memz_allocator *a;
	char root[256];      /* DockerRoot, cut to fit; "": never read */
	char *cfg;           /* the file's bytes; NULL until first read */
	unsigned long reads; /* files read */
};

/* root is copied; a is kept. Allocates nothing. */
void memz_docker_init(struct memz_docker *d, const char *root,
		      const struct memz_allocator *a);
/* Frees cfg; d may be initialised again. */
void memz_docker_release(struct memz_docker *d);

/*
 * Names n (memz_cgname_parse()'s) from docker's file when n is a container
 * with an id whose runtime is docker or not known (a bare id under a pod
 * has no runtime in its path: the file tells whether it is docker's); n's
 * runtime is then "docker", and its name cgname.h's
 * memz_cgname_apply_docker() of the file's Name. Otherwise, or when there
 * is no such name (see the invariants), n is left as it was. 0, or -EPERM
 * when the capabilities could not be put back after the parse (n may
 * then be named: the caller must not go on with it).
 */
int memz_docker_name(struct memz_docker *d, struct memz_cgname *n);

#endif
