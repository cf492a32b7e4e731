/*
 * cgroup.h - a cgroup's memory limit and usage, and the cache of the
 * cgroups a sample publishes.
 *
 * What an operator calls a cgroup path ("nginx.service", "docker:web",
 * "k8s:prod/envoy/proxy") is cgname.h's; this reads the cgroup's files and
 * keeps, per path, its name and figures.
 *
 * Memory figures are the cgroup's own files under SysRoot/fs/cgroup: v2
 * memory.max and memory.current (also under fs/cgroup/unified on a hybrid
 * machine), else v1 memory/<path>/memory.limit_in_bytes and
 * memory.usage_in_bytes. "max" (v2) and v1's "no limit" (a page-rounded
 * LLONG_MAX) are no limit. A path with a "." or ".." component (a reader in
 * another cgroup namespace sees "/../x") is never read.
 *
 * The cache (memz_cgroups) keeps one entry per path it was asked about,
 * names it once (memz_cgname_parse(), and for a docker container docker's
 * own file for it: docker.h's memz_docker_name()), re-reads an entry's two files at
 * most once every CgroupRefresh seconds and forgets entries not asked
 * about for a while, so a steady set of cgroups costs two small reads each
 * per refresh and allocates nothing.
 * Entries stay valid until the next memz_cgroups_sweep() or
 * memz_cgroups_free().
 */
#ifndef MEMZ_CGROUP_H
#define MEMZ_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memz/alloc.h"
#include "memz/cgname.h"

/* entries the cache holds: more cgroups than this are not looked up (their
 * groups carry no name, limit or usage) */
#define MEMZ_CGROUP_MAX 1024

struct memz_cgroup_mem {
	int version;      /* 2, 1, or 0: no memory files found */
	bool limited;     /* a limit is set */
	uint64_t limit;   /* bytes, when limited */
	uint64_t usage;   /* bytes */
};

/* Reads path's memory files under sys_root. -ENOENT when neither
 * hierarchy has them, -EINVAL for a path that is not safe to join. */
int memz_cgroup_read_mem(const char *sys_root, const char *path,
			 struct memz_cgroup_mem *out);

/* ---- the memory hierarchy: the one reader of cgroup memory files ---- */

/*
 * The memory cgroup in /proc/PID/cgroup (buf, len) into out, and the
 * hierarchy it is in (*version): the v1 line whose controllers include
 * memory (1), else the v2 line "0::/path" (2), else the first line (0: no
 * memory controller anywhere; GroupBy cgroup still groups by it).
 *
 * Why v1 first: the kernel binds a controller to one hierarchy, so a v1
 * memory line means the v2 hierarchy's cgroup.controllers lacks memory.
 * On such a hybrid host systemd leaves every process at "0::/" in v2, and
 * only the memory line says where its memory is limited and counted.
 * Without a v1 memory line, memory is v2's (or nobody's). This reads no
 * file. 0, -EINVAL (malformed, no line, or a path not from the root),
 * -ENAMETOOLONG when outlen < MEMZ_CGROUP_CUT_MIN.
 *
 * A path that does not fit in outlen is given cut, as
 * "#<16 hex digits>:<as much of its head as fits>", the digits a 64-bit
 * hash of the whole path: still the cgroup's own key (GroupBy cgroup must
 * never fall back to something the process chose, such as its comm), but
 * never a cgroup path, so nothing reads it as one (no name, no memory
 * files; memz_cgroup_memcg_of_proc() is what the OOM watch counts it
 * under).
 */
#define MEMZ_CGROUP_CUT_MIN 32
int memz_cgroup_of_proc(const char *buf, size_t len, char *out,
			size_t outlen, int *version);

/*
 * The same memory cgroup, for its limits rather than as a key: a path that
 * does not fit in outlen is given as its deepest ancestor that does ("/" at
 * least). A limit set on an ancestor limits every cgroup below it, so a
 * process in a cgroup too deep to name is still counted in the forecast
 * of the limits above it. 0, -EINVAL as memz_cgroup_of_proc(), or
 * -ENAMETOOLONG when outlen < 2.
 */
int memz_cgroup_memcg_of_proc(const char *buf, size_t len, char *out,
			      size_t outlen, int *version);

/* A limit file: v2's memory.max ("max": UINT64_MAX) or v1's
 * memory.limit_in_bytes (2^62 and above: UINT64_MAX, v1's "unlimited" is a
 * page-rounded LONG_MAX). 0 or -EINVAL. */
int memz_cgroup_parse_limit(const char *buf, size_t len, uint64_t *out);
/* The value of key in a "key value" per line file (memory.events,
 * memory.oom_control, memory.stat). 0, -ENOENT without the key, -EINVAL. */
int memz_cgroup_parse_key(const char *buf, size_t len, const char *key,
			  uint64_t *out);

/* A memory hierarchy under SysRoot. */
struct memz_cgroup_root {
	int version; /* 1 or 2; 0: none */
	char dir[320];
};

/* The machine's memory hierarchy: v1's memory controller
 * (fs/cgroup/memory) when mounted, else v2 (fs/cgroup, or fs/cgroup/unified
 * on a hybrid host) where its cgroup.controllers lists memory. 0 or
 * -ENOENT (r->version 0). */
int memz_cgroup_find_root(const char *sys_root, struct memz_cgroup_root *r);
/* The v2 or v1 hierarchy at sys_root + rel, unchecked (a reader that tries
 * each in turn). -ENAMETOOLONG. */
int memz_cgroup_root_at(const char *sys_root, const char *rel, int version,
			struct memz_cgroup_root *r);

enum memz_cgroup_file {
	MEMZ_CGF_LIMIT,  /* memory.max, memory.limit_in_bytes */
	MEMZ_CGF_USAGE,  /* memory.current, memory.usage_in_bytes */
	MEMZ_CGF_EVENTS, /* memory.events, memory.oom_control */
	MEMZ_CGF_STAT,   /* memory.stat */
	MEMZ_CGF_SWAP_MAX, /* memory.swap.max, memory.memsw.limit_in_bytes */
	MEMZ_CGF_CGEVENTS, /* cgroup.events (v2 only) */
};

/* The file of path's cgroup in r (named as r's version names it) into
 * buf[cap], NUL-ended. -EINVAL for a path that is not safe to join (not
 * starting with '/', or with a "." or ".." component), -ENAMETOOLONG, or
 * the read's error. "/" and "" are r's root. */
int memz_cgroup_read_file(const struct memz_cgroup_root *r, const char *path,
			  enum memz_cgroup_file f, char *buf, size_t cap,
			  size_t *len);

/* The figures, read and parsed; buf[cap] is scratch (8 KiB holds any
 * memory.stat). limit: UINT64_MAX when unlimited; kills: the oom_kill
 * counter; inactive: the inactive file pages' bytes (v1's hierarchical
 * total_inactive_file), which the kernel reclaims before it kills. */
int memz_cgroup_limit(const struct memz_cgroup_root *r, const char *path,
		      char *buf, size_t cap, uint64_t *limit);
int memz_cgroup_usage(const struct memz_cgroup_root *r, const char *path,
		      char *buf, size_t cap, uint64_t *usage);
/* Whether path's cgroup or one below it has a process: v2's
 * cgroup.events "populated". -ENOENT on v1, which has no such file. */
int memz_cgroup_populated(const struct memz_cgroup_root *r, const char *path,
			  char *buf, size_t cap, bool *populated);
/* The swap path's cgroup may use: v2's memory.swap.max, v1's
 * memory.memsw.limit_in_bytes less its memory limit; UINT64_MAX when
 * unlimited. -ENOENT without swap accounting. */
int memz_cgroup_swap_max(const struct memz_cgroup_root *r, const char *path,
			 char *buf, size_t cap, uint64_t *swap);
/* kills with id, the counter file's inode: a cgroup removed and made
 * again under the same path has a new one, and a counter from 0. */
int memz_cgroup_oom_kills(const struct memz_cgroup_root *r, const char *path,
			  char *buf, size_t cap, uint64_t *kills, uint64_t *id);
int memz_cgroup_inactive_file(const struct memz_cgroup_root *r,
			      const char *path, char *buf, size_t cap,
			      uint64_t *inactive);

/* Called for each cgroup a walk finds, with its limit (UINT64_MAX: none). */
typedef void memz_cgroup_walk_fn(void *ctx, const char *path, uint64_t limit);

/* Visits r's cgroups below its root, parents before children, at most
 * max_dirs of them and max_depth deep; a path longer than path_max - 1 is
 * not visited. One limit file read per cgroup; buf[cap] is scratch. The
 * number visited. */
unsigned memz_cgroup_walk(const struct memz_cgroup_root *r, unsigned max_dirs,
			  unsigned max_depth, size_t path_max, char *buf,
			  size_t cap, memz_cgroup_walk_fn *fn, void *ctx);

struct memz_cgroup {
	const char *path;
	struct memz_cgname n;
	struct memz_cgroup_mem mem;
	bool has_mem;    /* mem was read (the files exist) */
	double read_t;   /* when mem was last read */
	unsigned long used; /* the sweep that last asked for it */
};

struct memz_cgroups;

/* sys_root and docker_root are copied; refresh in seconds. */
int memz_cgroups_new(struct memz_cgroups **out, const char *sys_root,
		     const char *docker_root, double refresh,
		     const struct memz_allocator *a);
void memz_cgroups_free(struct memz_cgroups **c);

/*
 * The entry for path at time now: found, or made (parsing its name and
 * reading the container's name once), its memory re-read if refresh has
 * passed. *out is NULL when the path is not a cgroup path or the cache is
 * full. Docker's file is read and parsed as docker.h says. 0, -ENOMEM,
 * or -EPERM when the capabilities could not be put back after the parse.
 */
int memz_cgroups_get(struct memz_cgroups *c, const char *path, double now,
		     const struct memz_cgroup **out);

/* Forgets entries not asked for since the previous sweep. */
void memz_cgroups_sweep(struct memz_cgroups *c);

/* Entries held, and memory files and docker's files read so far, for
 * tests and stats. */
size_t memz_cgroups_count(const struct memz_cgroups *c);
unsigned long memz_cgroups_reads(const struct memz_cgroups *c);

#endif
