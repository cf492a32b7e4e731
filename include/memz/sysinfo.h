/*
 * sysinfo.h - system-wide readers: meminfo (with zoneinfo's per-CPU free
 * pages), PSI, NUMA nodes, vmstat.
 *
 * Each file has a pure parser (buffer in, struct out, used directly by the
 * unit tests on garbled input) and a reader that goes through struct
 * memz_sysfiles, which keeps the files open across cycles.
 *
 * All sizes are bytes (the kernel's "kB" is multiplied by 1024 while
 * parsing). A file the kernel does not have (no PSI before 4.20 or with
 * psi=0, a machine with one NUMA node and no node directory) is "absent":
 * its struct has present = false and the read returns 0. A file that exists
 * but is malformed (a required field missing, a number that does not parse)
 * is an error: -EINVAL (or -ERANGE), never a guess.
 */
#ifndef MEMZ_SYSINFO_H
#define MEMZ_SYSINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMZ_MAX_NODES 64

struct memz_meminfo {
	/* required: a meminfo without these is malformed */
	uint64_t mem_total, mem_free, buffers, cached, slab, page_tables;
	/* optional: 0 when the kernel does not report them */
	uint64_t mem_available, swap_cached, kernel_stack, vmalloc_used, percpu,
		anon_pages, shmem, s_reclaimable, s_unreclaim, swap_total,
		swap_free;
	bool has_mem_available, has_percpu, has_anon_pages;
	/* not meminfo's: free pages on the per-CPU lists (zoneinfo's
	 * pagesets), which MemFree leaves out; 0 and has_pcp_free false
	 * when zoneinfo is absent or unreadable */
	uint64_t pcp_free;
	bool has_pcp_free;
};

struct memz_psi_line {
	double avg10, avg60, avg300; /* percent */
	uint64_t total;              /* microseconds stalled since boot */
};

struct memz_psi {
	bool present;
	bool has_full; /* "full" appeared in 5.2 for memory; older kernels lack it */
	struct memz_psi_line some, full;
};

struct memz_numa_node {
	int id;
	uint64_t total, free, used;
};

struct memz_numa {
	unsigned n; /* 0: no node directory (absent) */
	struct memz_numa_node node[MEMZ_MAX_NODES];
};

/* A vmstat without pswpin and pswpout (a kernel built without VM event
 * counters) is absent; one of the two alone is malformed. */
struct memz_vmstat {
	bool present;
	uint64_t pswpin, pswpout; /* pages since boot */
	/* processes the OOM killer killed since boot (Linux 4.13 on; absent
	 * before, which is no error) */
	uint64_t oom_kill;
	bool has_oom_kill;
};

/*
 * /proc/zoneinfo's per-CPU page lists: each populated zone's "pagesets"
 * section has, per online CPU, a "cpu: N" line and a "count: N" line, the
 * free pages that CPU holds for quick allocation. The kernel takes them out
 * of MemFree in batches of hundreds of KiB, and under churn they swing by
 * tens of MiB between cycles. pages is their sum over every zone and CPU;
 * zones and cpus count the "Node" headers and "cpu:" lines. Other lines are
 * skipped (the kernel adds fields). Malformed (-EINVAL): no zone, text
 * before the first zone, a cpu line outside pagesets or without its count,
 * a count without its cpu line, a number that does not parse; -ERANGE when
 * the sum overflows.
 */
struct memz_zoneinfo {
	uint64_t pages;
	unsigned zones, cpus;
};

int memz_parse_meminfo(const char *buf, size_t len, struct memz_meminfo *out);
int memz_parse_zoneinfo(const char *buf, size_t len, struct memz_zoneinfo *out);
int memz_parse_psi(const char *buf, size_t len, struct memz_psi *out);
/* One node's meminfo ("Node 0 MemTotal: ... kB"); id must match. */
int memz_parse_node_meminfo(const char *buf, size_t len, int id,
			    struct memz_numa_node *out);
int memz_parse_vmstat(const char *buf, size_t len, struct memz_vmstat *out);

/*
 * The system files, opened once and re-read each cycle. _init opens nothing
 * and never fails; _open finds and opens the files under proc_root and
 * sys_root (absent files stay closed and are reported absent); _release
 * closes everything and leaves the struct as _init does, so _open may be
 * called again. _open needs an _init'ed struct and closes what it held.
 * meminfo is required (-ENOENT without it). PSI that answers EOPNOTSUPP
 * (booted with psi=0) is absent. So is a zoneinfo missing or not readable
 * (EACCES, EPERM: a hardened or a container's /proc): has_zoneinfo is
 * false and the meminfo read gives pcp_free 0, has_pcp_free false. NUMA
 * nodes are the node<N> directories
 * with a meminfo, sorted by id, listed once at _open; past MEMZ_MAX_NODES
 * the lowest ids are kept. A read error leaves *out unspecified except that
 * a failed NUMA read sets n = 0. After a failed _open or read, failed holds
 * the path of the file it is about.
 */
struct memz_sysfiles {
	int meminfo_fd, psi_fd, vmstat_fd, zoneinfo_fd;
	unsigned n_nodes;
	int node_id[MEMZ_MAX_NODES];
	int node_fd[MEMZ_MAX_NODES];
	bool has_psi, has_vmstat, has_zoneinfo; /* present, kept open or not */
	uint64_t page_size; /* zoneinfo counts pages */
	bool unkept;        /* short of fds: the optional files are opened per read */
	unsigned reads;     /* files read whole since _init (the caller may zero it) */
	char proc_root[PATH_MAX], sys_root[PATH_MAX];
	char failed[PATH_MAX + 64]; /* the file the last failed _open or read is about */
	char buf[16384]; /* vmstat is the largest, ~5 KiB today */
};

void memz_sysfiles_init(struct memz_sysfiles *f);
int memz_sysfiles_open(struct memz_sysfiles *f, const char *proc_root,
		       const char *sys_root);
void memz_sysfiles_release(struct memz_sysfiles *f);
/*
 * Short of file descriptors: close the optional files (PSI, vmstat,
 * zoneinfo, the nodes' meminfo), which from now on are opened, read and
 * closed on each read, so that a process that owns few fds still has one to read with.
 * Returns how many fds it closed.
 */
unsigned memz_sysfiles_unkeep(struct memz_sysfiles *f);

/* meminfo, then zoneinfo's per-CPU free pages into out->pcp_free (bytes),
 * right after it so that the two are of nearly one moment. zoneinfo is
 * read in buf-sized pieces (it grows with the CPUs: some 200 bytes per CPU
 * and populated zone, 150 KiB on 256 CPUs), at most MEMZ_ZONEINFO_MAX
 * bytes (-EFBIG past it); a line longer than buf is malformed. A malformed
 * zoneinfo fails the read as a malformed meminfo does, failed naming it. */
#define MEMZ_ZONEINFO_MAX (16u << 20)
int memz_sysfiles_read_meminfo(struct memz_sysfiles *f,
			       struct memz_meminfo *out);
int memz_sysfiles_read_psi(struct memz_sysfiles *f, struct memz_psi *out);
int memz_sysfiles_read_numa(struct memz_sysfiles *f, struct memz_numa *out);
int memz_sysfiles_read_vmstat(struct memz_sysfiles *f, struct memz_vmstat *out);

#endif
