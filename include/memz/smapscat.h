/*
 * smapscat.h - one process's memory by mapping category, from full smaps.
 *
 * Pure (text in, categories out). Shared by `memz inspect` and the netdata
 * plugin's memz-inspect function through inspect.h, so both name the same
 * bytes the same way.
 *
 * Every mapping lands in exactly one category: the first rule that matches,
 * in this order (the enum's order is the precedence):
 *
 *  1. kernel  [vdso], [vvar], [vvar_vclock], [vsyscall], [uprobes]: pages the
 *             kernel maps into every process; tiny, not the process's doing.
 *  2. heap    [heap] (brk), and [anon:libc_malloc*] names.
 *  3. stack   [stack] (the main thread), [stack:N] (old kernels),
 *             [anon:stack*] / [anon:thread stack*] names, VmFlags "gd"
 *             (grows down), and the thread-stack shape below.
 *  4. exe     a file mapping whose path is the executable's (exe_path given
 *             by the caller; a " (deleted)" suffix is ignored on both).
 *  5. shmem   /dev/shm/, /SYSV (SysV segments), /memfd: and memfd:,
 *             [anon_shmem*], /dev/zero and every shared ('s') mapping
 *             without a file: memory meant to be shared between processes.
 *  6. device  any other /dev/ path (/dev/dri render nodes, /dev/nvidia*,
 *             /dev/kgsl*, ...), /drm mm object, /dmabuf:, anon_inode:*
 *             (dmabuf, perf and io_uring rings): driver and graphics memory.
 *  7. lib     a path whose last component holds ".so" at its end or before
 *             a '.' ("libc.so.6", "x.so (deleted)"), or starts "ld-".
 *  8. file    any other path starting with '/': data files, fonts, locales.
 *  9. anon    everything else: no path, or a named anonymous region.
 *
 * Thread stacks: pthread stacks are anonymous, so smaps only shows their
 * shape. glibc and musl mmap the stack and mprotect its lowest page(s) to
 * PROT_NONE as a guard, which gives a small "---p" anonymous mapping
 * (at most MEMZ_GUARD_MAX) immediately followed, at the adjacent address, by
 * a private writable anonymous mapping. The writable part and its guard are
 * both stack. malloc arenas have the opposite order (the writable part below
 * its PROT_NONE reserve, which is also much larger than a guard), so they
 * stay anon.
 */
#ifndef MEMZ_SMAPSCAT_H
#define MEMZ_SMAPSCAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memz/alloc.h"
#include "memz/procfs.h"

#define MEMZ_GUARD_MAX (64 * 1024)

enum memz_mapcat {
	MEMZ_CAT_KERNEL,
	MEMZ_CAT_HEAP,
	MEMZ_CAT_STACK,
	MEMZ_CAT_EXE,
	MEMZ_CAT_SHMEM,
	MEMZ_CAT_DEVICE,
	MEMZ_CAT_LIB,
	MEMZ_CAT_FILE,
	MEMZ_CAT_ANON,
	MEMZ_CAT_COUNT
};

/* Short stable name ("heap", "stack", "lib", ...) and a human label. */
const char *memz_mapcat_name(enum memz_mapcat c);
const char *memz_mapcat_label(enum memz_mapcat c);
/* By short name; -1 when unknown. */
int memz_mapcat_parse(const char *name);

/*
 * Classify m. prev and next are the mappings just below and above it in
 * smaps order (NULL at either end); only the thread-stack rule looks at
 * them. exe_path may be NULL or "" (then nothing is exe).
 */
enum memz_mapcat memz_mapcat_classify(const struct memz_mapping *m,
				      const struct memz_mapping *prev,
				      const struct memz_mapping *next,
				      const char *exe_path);

struct memz_catsum {
	unsigned count;
	uint64_t size, rss, pss, private_dirty, swap;
};

struct memz_smapscat {
	struct memz_catsum cat[MEMZ_CAT_COUNT];
	struct memz_catsum total;
};

void memz_smapscat_init(struct memz_smapscat *s);
void memz_smapscat_add(struct memz_smapscat *s, const struct memz_mapping *m,
		       enum memz_mapcat c);

/*
 * memz_smapscat_walk over the file name below dirfd, read in windows of at
 * most MEMZ_SMAPS_WINDOW bytes through *buf (grown with a, to no more than
 * that, and kept across calls): the memory used does not grow with the
 * file. A record larger than the window is -EFBIG.
 */
#define MEMZ_SMAPS_WINDOW (256 * 1024)
int memz_smapscat_walk_file(int dirfd, const char *name, const char *exe_path,
			    char **buf, size_t *cap,
			    const struct memz_allocator *a,
			    int (*fn)(const struct memz_mapping *m,
				      enum memz_mapcat c, void *ctx),
			    void *ctx);

/*
 * Parse a full smaps text and call fn(m, category, ctx) for every mapping in
 * file order (the classification needs each mapping's neighbours, so fn runs
 * one mapping behind the parser). Stops and returns fn's value if non-zero;
 * otherwise 0 or -EINVAL on malformed smaps. Allocates nothing.
 */
int memz_smapscat_walk(const char *buf, size_t len, const char *exe_path,
		       int (*fn)(const struct memz_mapping *m,
				 enum memz_mapcat c, void *ctx),
		       void *ctx);

/*
 * Which mappings a viewer asked for. Category flags (bits of 1 << cat) are
 * alternatives: a mapping in any of them passes; 0 means every category.
 * Permission requirements must all hold.
 */
enum {
	MEMZ_MAPF_WRITABLE = 1 << 0,
	MEMZ_MAPF_EXEC = 1 << 1,
	MEMZ_MAPF_SHARED = 1 << 2,
	MEMZ_MAPF_PRIVATE = 1 << 3,
};

struct memz_mapfilter {
	unsigned cats;  /* 1u << MEMZ_CAT_*, ORed */
	unsigned perms; /* MEMZ_MAPF_*, ORed */
};

/* The category bits --anon and --file stand for. */
#define MEMZ_CATS_ANON                                                       \
	((1u << MEMZ_CAT_HEAP) | (1u << MEMZ_CAT_STACK) | (1u << MEMZ_CAT_ANON))
#define MEMZ_CATS_FILE                                                       \
	((1u << MEMZ_CAT_EXE) | (1u << MEMZ_CAT_LIB) | (1u << MEMZ_CAT_FILE))

bool memz_mapfilter_match(const struct memz_mapfilter *f,
			  const struct memz_mapping *m, enum memz_mapcat c);

/*
 * What a leak is made of: how each category's PSS moved from `then` to
 * `now` (two reads of one process, minutes apart). out gets the categories
 * that moved, largest growth first and shrinking ones after, then heap,
 * thread stacks and other anonymous if they did not move (where a leak
 * usually lives, so "+0" there is news too). Returns how many (at most
 * MEMZ_CAT_COUNT).
 */
struct memz_catdiff {
	enum memz_mapcat cat;
	int64_t pss; /* now - then, bytes */
};

size_t memz_smapscat_diff(const struct memz_smapscat *then,
			  const struct memz_smapscat *now,
			  struct memz_catdiff out[MEMZ_CAT_COUNT]);

/* The diff as a line for a person, e.g.
 *   heap +12.0 MiB, other anonymous +3.5 MiB, thread stacks +0 B
 * cut at a whole entry (then ", ...") if len is short. Returns buf. */
const char *memz_smapscat_diff_format(const struct memz_catdiff *d, size_t n,
				      char *buf, size_t len);

#endif
