/*
 * pidfiles.h - reading the files of ProcRoot/PID, for the cycle's probes
 * and the exact reads alike.
 *
 * A file memz reads every cycle (statm, and smaps_rollup of a process read
 * on consecutive cycles) is kept open and re-read with one pread(): the
 * kernel formats these files whole on each read, so a read that leaves the
 * buffer room has all of it, and a second read to see the end would cost a
 * system call per process per cycle. Kept fds are bounded by a budget
 * (MaxOpenFiles within the process's fd limit, less a reserve for the
 * host's own files); the caller decides which process keeps one, and how
 * much of the budget a kind of file may take.
 *
 * Every read and open is counted, so a cycle can say what it cost. The
 * record read last is in f->buf (NUL-ended), valid until the next read.
 */
#ifndef MEMZ_PIDFILES_H
#define MEMZ_PIDFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "memz/alloc.h"

struct memz_pidfiles {
	int proc_fd;   /* ProcRoot, or -1 */
	int fd_budget; /* the most it may keep */
	int open_fds;  /* kept now */
	unsigned files_read, files_opened; /* since the caller zeroed them */
	char buf[8192];
	char *big;     /* a file that may be any size (smaps) */
	size_t big_cap;
	const struct memz_allocator *a;
	/* Out of fds (EMFILE, ENFILE), spare(spare_ctx) is asked, once, to
	 * give up fds of its own (it returns how many), and the open is tried
	 * again; what still cannot be opened is counted in fd_short (zeroed
	 * by the caller, like files_read) and the first of it named in failed
	 * ("PID/name"). */
	unsigned (*spare)(void *ctx);
	void *spare_ctx;
	bool spared;
	unsigned fd_short;
	char failed[64];
};

/* Opens nothing and never fails; _release may follow. */
void memz_pidfiles_init(struct memz_pidfiles *f, const struct memz_allocator *a);
/* Open proc_root; the budget is max_open_files, less what the fd limit
 * leaves after the reserve. 0 or -errno. */
int memz_pidfiles_open(struct memz_pidfiles *f, const char *proc_root,
		       int max_open_files);
/* Closes proc_root and frees the large buffer; the caller closes the fds
 * it keeps (memz_pidfiles_close) before. */
void memz_pidfiles_release(struct memz_pidfiles *f);

/* The whole record of a kept fd into f->buf. 0 or -errno. */
int memz_pidfiles_pread(struct memz_pidfiles *f, int fd, size_t *len);
/* Open PID/name, read it into f->buf, close it. 0 or -errno. */
int memz_pidfiles_read(struct memz_pidfiles *f, int pid, const char *name,
		       size_t *len);
/* The same into f->big, grown to fit: for smaps. */
int memz_pidfiles_read_big(struct memz_pidfiles *f, int pid, const char *name,
			   size_t *len);
/* Open PID/name to keep, if fewer than `limit` (at most the budget) are
 * kept now: the fd, or -1 when over the limit or the open failed. */
int memz_pidfiles_keep(struct memz_pidfiles *f, int pid, const char *name,
		       int limit);
/* Close a kept fd (-1 is left alone) and set it to -1. */
void memz_pidfiles_close(struct memz_pidfiles *f, int *fd);

#endif
