/*
 * table.h - the process table, groups and verdict events.
 *
 * A process is (pid, start time): a pid reused by a new process is a new
 * entry with a fresh history. Names are interned: every entry with the same
 * name points at one copy. Each cycle the caller (the live sampler, or trace
 * replay) brackets its updates with memz_table_begin()/memz_table_end():
 *
 *   memz_table_begin(t, now);
 *   for each process seen:  p = memz_table_get(t, pid, start, &is_new);
 *                           fill p's figures, set p->has_sample
 *   memz_table_end(t, &snap);
 *
 * _end sweeps entries not seen this cycle, sums groups, feeds every
 * process's and group's detector, and appends start/clear events. Groups are
 * fed so that membership changes are not growth: a member joining or leaving
 * rebases the group's history instead of moving it. A process that is the
 * only member of its group has the group's series: its leak is announced
 * once, as the group's, so a host raises one alarm for one leak.
 *
 * Entries are allocated once, in slabs of 32, and recycled through a free
 * list, so a table whose process count does not grow past its high-water
 * mark allocates nothing. The table owns its entries, groups, names and the view's arrays;
 * pointers to them stay valid until the next memz_table_begin() (which the
 * sampler calls at the start of each run: sampler.h tells the snapshot's
 * side of this).
 */
#ifndef MEMZ_TABLE_H
#define MEMZ_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memz/alarm.h"
#include "memz/alloc.h"
#include "memz/detector.h"
#include "memz/procfs.h"
#include "memz/settings.h"
#include "memz/users.h"

struct memz_group;
struct memz_cgroup;

/* What hosts and the table's callers read of a process. The table keeps
 * more beside it (core/table_int.h): what the sampler needs between cycles
 * is nobody else's business. */
struct memz_proc {
	/* (ordered to leave no holes: 1,000 processes keep one each) */
	int pid;
	int ppid;
	unsigned long long start;
	const char *name;   /* interned comm, raw bytes */
	const char *exe;    /* interned basename of exe, or NULL */
	const char *cgroup; /* interned cgroup path, or NULL */
	/* interned path of its memory cgroup (v1's memory controller when it
	 * is mounted, else v2's), or NULL; read once, when first seen */
	const char *memcg;
	bool memcg_v1;
	char state;
	uint32_t uid;
	long threads;

	/* Memory: exact at the last smaps_rollup read, moved since by what
	 * statm says changed (see pss_age). */
	struct memz_rollup mem;
	uint64_t vm_hwm, vm_swap; /* status */
	/* the address space's size (statm's size, VmSize), bytes; 0: not
	 * known (a trace before version 5) */
	uint64_t vm_size;
	uint64_t rss_max_seen;    /* the largest rss memz has seen */
	double pss_age;           /* s since the last exact read; 0 = this cycle */
	/* when it started, on the table's clock: -INFINITY when not known
	 * (the table's default; the sampler and replay set it when it is
	 * first seen) */
	double born;
	int oom_score_adj;
	bool has_sample;          /* figures this cycle are valid */
	bool denied;              /* smaps_rollup not readable: EACCES */
	bool kernel_thread;       /* no mm: never sampled */
	/* not judged yet: younger than LeakWarmup and its PSS never held
	 * still for LeakSettle (or ignored: LeakIgnore, memz's own); its
	 * detector keeps its history but no verdict stands, and in a group
	 * its growth counts as joining */
	bool warming;
	/* above ExactMaxRss: never read by smaps_rollup. Resident and its
	 * split (pss_anon, pss_file, pss_shmem: upper bounds) come from
	 * status each read; PSS and USS from status and the last pagemap
	 * walk (pagemap.h): USS = resident less what the walk saw shared,
	 * PSS = USS + a quarter of that. Before the first walk completes,
	 * PSS is resident (an upper bound) and USS RssAnon. swap_pss and
	 * shared_* are 0. */
	bool estimated;
	/* |smaps_rollup's Pss - mem.pss| <= pss_error, in bytes, as of the
	 * last walk; 0 when read exactly, mem.pss before a first walk */
	uint64_t pss_error;

	/* accounting */
	uint64_t subtree_pss; /* own + all descendants' PSS */
	unsigned descendants;
	struct memz_group *group;

	struct memz_detector det;
};

/* The most groups hosts publish (report.h's MEMZ_REPORT_MAX_GROUPS): a
 * chart of more lines is read by no one. Leak suspects come first; the
 * reported groups past what they leave are not reported. */
#define MEMZ_TABLE_MAX_PUBLISHED 250

/* GroupBy cgroup: the group of the processes whose cgroup is unknown (its
 * file unread or malformed). Not a cgroup path, nor ever a process's name:
 * a comm is never a group's key there. */
#define MEMZ_TABLE_NO_CGROUP "(no cgroup)"

struct memz_group {
	/* interned; for GroupBy=none the process name, for GroupBy cgroup
	 * the cgroup path (or cgroup.h's cut form of a long one) */
	const char *name;
	unsigned members;
	long threads;
	uint64_t pss, uss, rss, swap, anon; /* anon = Pss_Anon */
	/* selected by Process/ProcessMatch, or among the TopGroups largest
	 * and PublishAfter old (and since, until PublishHold after it fell
	 * out), and within MEMZ_TABLE_MAX_PUBLISHED with the suspects: what
	 * every host publishes besides leak suspects (report.h) */
	bool reported;
	struct memz_detector det;
	/* whether its leak (or its most urgent member's) is worth a host
	 * alarm (alarm.h); kept by the sampler */
	struct memz_alarm alarm;
	/* GroupBy cgroup, published groups only: the cgroup's name, limit and
	 * usage (cgroup.h), valid as long as the group; NULL otherwise */
	const struct memz_cgroup *cgroup;
};

enum memz_event_kind { MEMZ_EVENT_LEAK, MEMZ_EVENT_CLEAR };

struct memz_event {
	enum memz_event_kind kind;
	bool is_group;
	int pid;                  /* a group's only member's, or 0 */
	unsigned long long start; /* likewise */
	const char *name;
	double t;
	struct memz_verdict verdict; /* at the moment of the change */
	/* a CLEAR of a group that went (no members left): the alarm level
	 * (alarm.h) it held, which ends with it; 0 otherwise */
	uint8_t alarm_level;
};

/* Per-cycle view the table fills (the sampler's snapshot embeds it). It
 * owns nothing: the arrays belong to the table and stay valid until the
 * next begin (see "Ownership" in sampler.h). */
struct memz_table_view {
	double t;
	const struct memz_proc *const *procs; /* every live, sampled process */
	size_t n_procs;
	const struct memz_group *const *groups; /* sorted by PSS, largest first */
	size_t n_groups;
	/* every uid with a process, its processes summed whatever GroupBy
	 * is (users.h), sorted by PSS, largest first */
	const struct memz_user_total *const *users;
	size_t n_users;
	const struct memz_event *events; /* this cycle's */
	size_t n_events;
	unsigned leak_suspects; /* processes and groups flagged now */
	unsigned vanished;      /* entries swept this cycle */
	/* the processes that left since the last cycle, their figures as last
	 * sampled (kernel threads left out) */
	const struct memz_proc *const *gone;
	size_t n_gone;
};

struct memz_table;

int memz_table_new(struct memz_table **out, const struct memz_settings *s,
		   const struct memz_allocator *a);
/* Frees the table and every entry, name and group; *t = NULL. */
void memz_table_free(struct memz_table **t);

void memz_table_begin(struct memz_table *t, double now);
/*
 * Find (pid, start) or create it; marks it seen this cycle. A different
 * start for a known pid retires the old entry (its flagged verdict clears).
 * Returns NULL only on -ENOMEM.
 */
struct memz_proc *memz_table_get(struct memz_table *t, int pid,
				 unsigned long long start, bool *is_new);
/* Find without creating or marking; NULL if unknown. */
struct memz_proc *memz_table_find(struct memz_table *t, int pid);
/* Set p's name (and exe, cgroup) to interned copies. -ENOMEM on failure. */
int memz_table_set_name(struct memz_table *t, struct memz_proc *p,
			const char *name, size_t len);
int memz_table_set_exe(struct memz_table *t, struct memz_proc *p,
		       const char *exe);
int memz_table_set_cgroup(struct memz_table *t, struct memz_proc *p,
			  const char *cgroup);
int memz_table_set_memcg(struct memz_table *t, struct memz_proc *p,
			 const char *memcg);
/* Called by the table before an entry is recycled (the sampler closes the
 * entry's fds here). */
void memz_table_on_retire(struct memz_table *t,
			  void (*fn)(struct memz_proc *p, void *ctx), void *ctx);

int memz_table_end(struct memz_table *t, struct memz_table_view *v);

/* An empty view: no processes, groups or events. */
void memz_table_view_init(struct memz_table_view *v);

/* The view's i-th group, for the caller that fills what the table does not
 * know (the sampler: a group's cgroup). */
struct memz_group *memz_table_group(struct memz_table *t, size_t i);

/* Every entry, for callers that walk the whole table (the sampler). */
struct memz_proc *memz_table_first(struct memz_table *t);
struct memz_proc *memz_table_next(struct memz_proc *p);

#endif
