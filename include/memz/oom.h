/*
 * oom.h - time to OOM, and the OOM kill named.
 *
 * Time to OOM. A scope is the machine or a memory-limited cgroup. Its
 * forecast is what it has left over what grows in it:
 *
 *   machine: (MemAvailable + SwapFree) / growth of the flagged groups (and
 *            of flagged processes whose group is not flagged, so nothing
 *            counts twice), or of the flagged processes under GroupBy none;
 *   cgroup:  (limit - (usage - inactive file)) / growth of the flagged
 *            processes in it or below it. inactive file is what kubelet
 *            leaves out of a working set too: the kernel reclaims it
 *            before it kills anyone.
 *
 * Only sustained leak verdicts count as growth (those that have stood for
 * LeakAlarmAfter: alarm.h), so noise (a cache warming, a spike, a climb
 * that looked like a leak for half a minute) never makes a forecast, and a
 * forecast clears when its verdicts do. The growth is smoothed over
 * GROWTH_TAU_S, so the forecast is steady from one cycle to the next as
 * verdicts renew their rates. Its confidence is the growth-weighted mean
 * of theirs; its drivers are the largest growers, with their share of the
 * growth.
 *
 * The OOM kill named. /proc/vmstat's oom_kill counts every kill; a
 * cgroup's (v2 memory.events, hierarchical; v1 memory.oom_control, the
 * victim's own cgroup only) counts the kills of its processes. When one
 * rises, the victim is looked for among the processes that left no more
 * than a cycle before the cycle the kill was seen in, or since (a victim
 * may exit a cycle before or after the counter is read; the kernel kills
 * a live process, so one gone earlier is not its victim) and, for a
 * cgroup, were in it: the one the kernel would pick
 * first (PSS plus swap, moved by oom_score_adj thousandths of what the
 * kill's scope may use, as the kernel moves oom_score: MemTotal +
 * SwapTotal for the machine, a cgroup's limit plus the swap it may use,
 * mem_cgroup_get_max, for a cgroup's kill), with its name, pid, PSS (the largest of its last samples:
 * the OOM reaper frees a victim's memory before it exits) and whether it
 * was a leak suspect. `sure` says how sure: 90 when exactly as many
 * processes left as were killed, less as the best candidate stands less
 * clearly above the next, and 50 when only its oom_score_adj puts it
 * above the next (any process may set its own); a kill nothing fits
 * for two cycles is reported with known = false ("unknown"). A kill a
 * watched cgroup counted is reported once, in the deepest such cgroup;
 * the machine reports the rest, a cycle later, so that a cgroup's counter
 * read a moment after the machine's can claim its kill first. A counter
 * that falls, or whose file has a new inode, is a cgroup made again under
 * the path (a restarted service), whose kills are all new. Every kill is
 * counted (kills), but at most MEMZ_OOM_MAX_KILLS wait to be named per
 * scope: the rest are not named, by the cgroup or by the machine.
 *
 * A victim whose parent has not reaped it yet is a zombie: still in the
 * table, but with no memory (statm all zeros: RSS and swap 0). It counts
 * as having left in the cycle its memory went, with its last samples'
 * peak, and not again when it is reaped and leaves the table.
 *
 * The cgroups watched are found by walking the memory hierarchy under
 * SysRoot (memz_cgroup_find_root: v1's memory controller when mounted,
 * else v2; cgroup.c reads every file) every
 * MEMZ_OOM_RESCAN_CYCLES cycles: at most MEMZ_OOM_MAX_SCOPES limited ones,
 * those with least room (limit - usage) first, and first of all those
 * live (v2's cgroup.events populated, and MEMZ_OOM_LIVE_MIN charged), so
 * empty cgroups with tiny limits, which anyone allowed to make cgroups may
 * make, cannot push the real ones out. A process's memory cgroup is read once, when
 * it is first seen (a process moved later keeps its first one).
 *
 * Cost per cycle: 2 reads per watched cgroup (usage, kill counter), a
 * third (memory.stat) for one that grows, the limit and swap limit once
 * per rescan; the rescan reads one limit file per cgroup directory (at
 * most MEMZ_OOM_MAX_WALK), and the usage and cgroup.events of each limited
 * one. Nothing is allocated: the state is fixed-size and
 * the names of victims are copied into it; a scope's id is made once, when
 * its cgroup is found (README, "The OOM kill named", has the figures).
 */
#ifndef MEMZ_OOM_H
#define MEMZ_OOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memz/cgroup.h"
#include "memz/settings.h"
#include "memz/sysinfo.h"
#include "memz/table.h"

#define MEMZ_OOM_MAX_SCOPES 8  /* cgroups, beside the machine */
#define MEMZ_OOM_MAX_DRIVERS 3
#define MEMZ_OOM_MAX_KILLS 8   /* the last kills, newest first */
#define MEMZ_OOM_NAME_MAX 64
#define MEMZ_OOM_PATH_MAX 192
#define MEMZ_OOM_ID_MAX 64
#define MEMZ_OOM_CANDS 16      /* processes that left, per cycle, kept */
#define MEMZ_OOM_RESCAN_CYCLES 32
#define MEMZ_OOM_MAX_WALK 1024 /* cgroup directories one rescan visits */
#define MEMZ_OOM_MAX_DEPTH 8
#define MEMZ_OOM_LIVE_MIN (1u << 20) /* a watched cgroup's usage, at least */
#define MEMZ_OOM_WARN_LEVELS 16
#define MEMZ_OOM_REWARN_MIN_S 5.0 /* no halving warned below this */
/* a watched cgroup within this many cycles of its limit, at the rate its
 * usage grew over the last, has no process rest (memz_oom_restless) */
#define MEMZ_OOM_NEAR_CYCLES 8

struct memz_oom_driver {
	char name[MEMZ_OOM_NAME_MAX]; /* raw bytes, NUL-ended */
	int pid;                      /* a process's; 0 for a group */
	double rate_bps;
	double share;                 /* of the scope's growth, 0..1 */
};

struct memz_oom_scope {
	/* "" for the machine, else the cgroup's path in its hierarchy (raw
	 * bytes) */
	char path[MEMZ_OOM_PATH_MAX];
	/* "machine", or "cg" + the path made an identifier (its end kept
	 * when too long) */
	char id[MEMZ_OOM_ID_MAX];
	bool v1;
	uint64_t limit;     /* machine: MemTotal + SwapTotal */
	uint64_t available; /* what may still grow before the OOM killer */
	double growth_bps;  /* summed verdict-grade growth; 0: nothing grows */
	double seconds;     /* available / growth; NAN: no forecast */
	int confidence;     /* 0..100; 0 without a forecast */
	struct memz_oom_driver drivers[MEMZ_OOM_MAX_DRIVERS];
	unsigned n_drivers;
	bool has_kills;     /* the counter is readable */
	uint64_t kills;     /* OOM kills it counted since memz started */
	/* the forecast is under OomWarn; warn_changed: a host notifies now
	 * (WARNING with the new figure, or OKAY when it clears) */
	bool warn, warn_changed;
	/* 0, or k: the forecast fell under OomWarn / 2^(k-1). It rises at
	 * each halving (warn_changed: a host warns again, the sooner OOM in
	 * the message), and falls back, silently, only when the forecast
	 * grows back past a whole halving, so one hovering about a
	 * threshold does not flap. At most MEMZ_OOM_WARN_LEVELS, and no
	 * halving under MEMZ_OOM_REWARN_MIN_S (5 s) is warned. */
	unsigned warn_level;
	/* OomWarn, which the warning is judged against (netdata's alarm
	 * reads it as the chart variable oom_warn) */
	double warn_s;
};

struct memz_oom_kill {
	double t;
	char scope[MEMZ_OOM_PATH_MAX]; /* "": the machine */
	char scope_id[MEMZ_OOM_ID_MAX];
	bool known;
	char name[MEMZ_OOM_NAME_MAX];  /* raw bytes; "" when unknown */
	int pid;
	uint64_t pss;
	bool leak;                     /* it was flagged as leaking */
	int leak_confidence;
	int sure;                      /* 0..100; 0 when unknown */
	unsigned candidates;           /* processes that fitted */
};

struct memz_oom_view {
	struct memz_oom_scope scope[1 + MEMZ_OOM_MAX_SCOPES]; /* [0]: machine */
	size_t n_scopes;
	struct memz_oom_kill kill[MEMZ_OOM_MAX_KILLS]; /* newest first */
	size_t n_kills;
	unsigned new_kills; /* kill[0 .. new_kills) were found this cycle */
};

struct memz_oom_cand {
	char name[MEMZ_OOM_NAME_MAX];
	unsigned long long start;
	char memcg[MEMZ_OOM_PATH_MAX];
	bool has_memcg, v1, leak, used;
	int pid, leak_confidence;
	unsigned age; /* cycles since it left */
	uint64_t pss;
	double points; /* PSS + swap, what the kernel's oom_badness counts */
	int adj;       /* oom_score_adj */
	double badness; /* scaled by the machine's memory: the pool's order */
};

struct memz_oom_watch {
	char path[MEMZ_OOM_PATH_MAX];
	char id[MEMZ_OOM_ID_MAX]; /* made once: the scope's id */
	uint64_t limit;
	uint64_t swap_max; /* the swap it may use; UINT64_MAX: no limit */
	uint64_t kills;   /* the counter at the last read */
	uint64_t ino;     /* its file's inode (0: unknown): the cgroup's */
	uint64_t counted; /* kills counted since it was first read */
	uint64_t dropped; /* kills this cycle past MEMZ_OOM_MAX_KILLS pending */
	uint64_t usage;
	uint64_t prev_usage; /* the read before, when has_prev */
	bool has_prev, near; /* near: see MEMZ_OOM_NEAR_CYCLES */
	/* kills not yet named (at most MEMZ_OOM_MAX_KILLS), cycles waited */
	unsigned pending, wait;
	bool has_kills, primed, ok;
	unsigned warn_level;
	double growth; /* smoothed, B/s */
};

/* The state, fixed-size, embedded in its owner (the sampler). */
struct memz_oom {
	struct memz_oom_view view;
	struct memz_oom_watch w[MEMZ_OOM_MAX_SCOPES];
	size_t n_w;
	struct memz_cgroup_root root; /* the hierarchy walked (cgroup.h) */
	unsigned cycle;
	bool vm_primed;
	uint64_t vm_kills0, vm_named; /* machine counter at start; kills named */
	unsigned vm_wait;
	unsigned machine_warn_level;
	double machine_growth; /* smoothed, B/s */
	double t_last;         /* of the last update, for the smoothing */
	struct memz_oom_cand cand[3 * MEMZ_OOM_CANDS];
	size_t n_cand;
	/* the emptied (zombie) processes made candidates, not to be made
	 * candidates again when they leave the table */
	struct { int pid; unsigned long long start; } emptied[MEMZ_OOM_CANDS];
	unsigned n_emptied; /* the next slot, round robin */
	unsigned files_read; /* this cycle */
	char buf[8192];
};

/* Empty state; reads nothing. */
void memz_oom_init(struct memz_oom *o);

/* Read the watched cgroups' counters and usage (rescanning the hierarchy
 * when due). Called before the machine's vmstat is read, so that the
 * machine's count is never behind its cgroups'. */
void memz_oom_read_cgroups(struct memz_oom *o, const char *sys_root);

struct memz_oom_input {
	double t;
	const struct memz_meminfo *mem;
	const struct memz_vmstat *vm;
	const struct memz_table_view *view;
	bool grouped; /* GroupBy is not none */
	double warn_s; /* OomWarn */
	const struct memz_settings *s; /* LeakAlarmAfter: sustained verdicts */
	const char *sys_root;
};

/*
 * After memz_oom_read_cgroups and the read of vm (NULL: not read): should
 * no quiet process rest this cycle (sampler.c), so that every exit is
 * seen, and timed, in the cycle it happens? An exit frees no task until
 * the parent reaps it, so a zombie that rests is found emptied only at its
 * next probe, up to three cycles late, and a process with oom_score_adj
 * 1000 that exited 3 s before a kill was made a candidate a cycle before
 * it. True while a watched cgroup is within MEMZ_OOM_NEAR_CYCLES cycles of
 * its limit at the rate its usage grew over the last, and while a kill
 * waits to be named (its victim may be resting as a zombie).
 */
bool memz_oom_restless(const struct memz_oom *o, const struct memz_vmstat *vm);

/* The forecasts and the kills of this cycle, into o->view. Never fails: a
 * file that cannot be read leaves its scope without figures. */
void memz_oom_update(struct memz_oom *o, const struct memz_oom_input *in);

/*
 * The scope that limits a process in memory cgroup memcg (v1: of the v1
 * memory controller): of the machine and the watched cgroups that hold it,
 * the one with the least room. memcg NULL: the machine.
 */
const struct memz_oom_scope *memz_oom_limiting(const struct memz_oom_view *v,
					       const char *memcg, bool v1);

#endif
