/*
 * procfs.h - per-process readers: stat, statm, status, smaps_rollup, smaps,
 * cgroup, oom_score_adj, exe.
 *
 * Pure parsers take a NUL-terminated buffer and its length; they never read
 * past len. Fields are bytes unless said otherwise. A parser that misses a
 * field the struct promises returns -EINVAL with nothing guessed.
 *
 * The process's name (comm) is hostile: it may hold spaces, parentheses,
 * newlines, any byte but NUL. stat is parsed from the LAST ')' so no name can
 * shift the fields after it.
 */
#ifndef MEMZ_PROCFS_H
#define MEMZ_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMZ_COMM_MAX 64 /* the kernel's limit is 16 with the NUL; kthreads' may be longer */

struct memz_pstat {
	char comm[MEMZ_COMM_MAX]; /* raw bytes, NUL-terminated, not sanitised */
	char state;
	int ppid;
	unsigned long long flags; /* field 9, the kernel's PF_*: 0x4 exiting */
	unsigned long long start_time; /* clock ticks since boot (field 22) */
	long num_threads;              /* field 20 */
	unsigned long long utime, stime; /* clock ticks (fields 14, 15) */
};

struct memz_statm { /* bytes (the file is in pages; the parser multiplies) */
	uint64_t size, resident, shared, text, data;
};

struct memz_pstatus {
	uint64_t vm_hwm, vm_rss, vm_swap; /* bytes; 0 for kernel threads */
	/* bytes; the kernel counts them per process without walking page
	 * tables (so reading them takes no mmap lock); 0 before 4.5 */
	uint64_t rss_anon, rss_file, rss_shmem;
	uint32_t uid;                     /* real uid */
	int tgid;                         /* 0 when the file has no Tgid */
	bool has_vm;                      /* false for kernel threads */
	bool has_rss_split;               /* RssAnon, RssFile, RssShmem */
};

/*
 * smaps_rollup, or the sum of every mapping of smaps. has_pss_anon is false
 * on kernels before 5.x that lack Pss_Anon/Pss_File/Pss_Shmem: pss_anon then
 * holds Anonymous (an upper bound: shared anonymous pages counted whole) and
 * pss_file, pss_shmem are 0 (unknown, not guessed). A sum of smaps always
 * takes that fallback: the kernel prints Pss_Anon only in smaps_rollup.
 * Reading a kernel thread's smaps_rollup fails with ESRCH although the
 * thread lives: tell kernel threads apart first (status without Vm*).
 */
struct memz_rollup {
	uint64_t rss, pss, pss_anon, pss_file, pss_shmem;
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t anonymous, swap, swap_pss;
	bool has_pss_anon;
};

/* USS: what would be freed if the process exited. */
static inline uint64_t memz_rollup_uss(const struct memz_rollup *r)
{
	return r->private_clean + r->private_dirty;
}

/* uptime: its first field, seconds since boot (the clock stat's start
 * times count on), a decimal; -EINVAL for anything else. */
int memz_parse_uptime(const char *buf, size_t len, double *out);

/* stat: fields up to 22 are required; a comm longer than MEMZ_COMM_MAX - 1
 * bytes is cut (kernel threads' names can be). */
int memz_parse_stat(const char *buf, size_t len, struct memz_pstat *out);
int memz_parse_statm(const char *buf, size_t len, uint64_t page_size,
		     struct memz_statm *out);
/* status: VmHWM, VmRSS, VmSwap all or none (none: a kernel thread); Uid
 * required. */
int memz_parse_status(const char *buf, size_t len, struct memz_pstatus *out);
/* smaps_rollup: the "[rollup]" header line first; Rss and Pss required. */
int memz_parse_rollup(const char *buf, size_t len, struct memz_rollup *out);
/* Sum all mappings of a full smaps into one rollup (kernels before 4.14). */
int memz_parse_smaps_sum(const char *buf, size_t len, struct memz_rollup *out);
/* oom_score_adj: -1000..1000. */
int memz_parse_oom_score_adj(const char *buf, size_t len, int *out);
/*
 * cgroup: memz_cgroup_of_proc (cgroup.h): the memory controller's v1
 * line if there is one, else the v2 line ("0::/path"), else the first
 * line's path. out gets the path; one that does not fit in outlen is
 * given in cgroup.h's cut form ("#<hash>:<head>"), never as a cut path.
 */
int memz_parse_cgroup(const char *buf, size_t len, char *out, size_t outlen);

/* One mapping of /proc/PID/smaps. */
struct memz_mapping {
	uint64_t start, end, offset, inode;
	char perms[5];       /* "rw-p" */
	char dev[16];        /* "fd:01" */
	char path[512];      /* "" for anonymous; "[heap]"; truncated if longer */
	uint64_t size, rss, pss, pss_anon, pss_file, pss_shmem;
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t anonymous, swap, swap_pss, locked;
	char vm_flags[96];   /* "rd wr mr mw me ac sd" */
};

/* Call fn once per mapping, in file order. Stops and returns fn's value if
 * it is non-zero. Returns 0 or -EINVAL on a malformed record (a field before
 * any header, a record without Size, Rss or Pss). path keeps " (deleted)". */
int memz_parse_smaps(const char *buf, size_t len,
		     int (*fn)(const struct memz_mapping *m, void *ctx),
		     void *ctx);

/*
 * Reading through a pid directory fd (openat(proc_root_fd, "1234",
 * O_DIRECTORY)). These open the file, read it once and close it; the
 * sampler's kept-fd path uses memz_pread_file on its own fds instead.
 * A vanished process gives -ENOENT or -ESRCH; a private one -EACCES.
 *
 * exe name: the basename of the exe link without " (deleted)"; cut to
 * outlen - 1 bytes like comm (it is a display name). Kernel threads have no
 * exe: -ENOENT.
 */
int memz_read_exe_name(int piddir_fd, char *out, size_t outlen);

/*
 * Read a whole, possibly large file (smaps) into *buf, growing it with the
 * allocator; *cap is its capacity, kept across calls so steady state does
 * not allocate.
 */
struct memz_allocator;
int memz_read_file_grow(const struct memz_allocator *a, int dirfd,
			const char *name, char **buf, size_t *cap, size_t *len);

/*
 * A pid as /proc names its directories: decimal digits only (no sign, no
 * space: strtol's " +12" is not a pid), 1 to INT_MAX. The one rule for
 * /proc's listing, a command line and a netdata function's argument.
 * Returns 0, -EINVAL or -ERANGE; *pid is set only on success.
 */
int memz_parse_pid(const char *s, size_t len, int *pid);

#endif
