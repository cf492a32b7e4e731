/*
 * report.h - what every host publishes: the one view collectd, netdata, the
 * JSON writer and `memz top` format.
 *
 * A snapshot holds everything one cycle measured; a host must not decide on
 * its own which of it goes out, or the hosts drift apart (a small leaking
 * group charted in one and missing in another, two colliding names kept in
 * one and dropped in the other). This module decides once:
 *
 *   - the series: tables of (name, unit, accessor) for the RAM breakdown,
 *     the kernel's named pieces, memory pressure, each NUMA node, the
 *     snapshot's counts and each published group.
 *     A host iterates a table; a series added to a table appears in every
 *     host. Values come out through memz_series_value(), which is finite
 *     whatever the snapshot holds (a NaN or an infinity becomes 0).
 *   - the groups published: those the table reports (TopGroups once
 *     PublishAfter old, Process, ProcessMatch: table.h) or flags as leaking, in the snapshot's order (largest PSS
 *     first), at most MEMZ_REPORT_MAX_GROUPS. Suspects come first: the
 *     leaking groups take the places they need (up to the cap) and the
 *     reported ones share what is left, so TopGroups 1000 never hides a
 *     small leaking group.
 *   - their ids: memz_sanitize_id() of the name (under GroupBy cgroup, of
 *     the name an operator uses, cgroup.h: "nginx.service", not the path), cut to MEMZ_REPORT_ID_MAX,
 *     made unique by appending "_2", "_3", ... in the order names were first
 *     published. An id stays with its name while the report remembers it
 *     (MEMZ_REPORT_MAX_KNOWN names, the longest unpublished forgotten
 *     first), so a group that comes back gets its old id. Display labels go
 *     through memz_sanitize_label() and are made unique with " #2", " #3".
 *   - the users published: per-user totals (users.h) the table reports,
 *     largest PSS first, at most MEMZ_REPORT_MAX_USERS. A user's id and
 *     label are its name, already an identifier and unique among users.
 *   - the clock: when to sample (the pace) and when to publish (the host's
 *     interval), on a grid that survives a late callback and a stall.
 *
 * For example, three groups "a b" (10 MiB, reported), "a/b" (5 MiB, leaking,
 * not in TopGroups) and "idle" (1 MiB, neither) publish as
 *
 *   groups[0] = { .g = "a b", .id = "a_b",   .label = "a b" }
 *   groups[1] = { .g = "a/b", .id = "a_b_2", .label = "a/b" }
 *
 * and every host shows memz-a_b and memz-a_b_2 (collectd), dimensions a_b and
 * a_b_2 (netdata), "id": "a_b" and "id": "a_b_2" (JSON); "idle" is in the
 * JSON's list of groups with "published": false and nowhere else.
 *
 * Ownership: a report is created with an allocator and owns the names it
 * remembers. memz_report_update() reads the snapshot and returns a view
 * into the report; the view and every string in it stay valid until the
 * next update or memz_report_free(). Its groups point into the snapshot, so
 * the snapshot must outlive the view too. An update allocates only when a
 * name is published for the first time.
 */
#ifndef MEMZ_REPORT_H
#define MEMZ_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "memz/alloc.h"
#include "memz/sampler.h"

/* A cap on what any host receives per interval, whatever the settings
 * select (ProcessMatch ".*" selects every group): a chart of more lines
 * than this is not read by anyone, and netdata keeps every dimension a
 * chart ever had. */
#define MEMZ_REPORT_MAX_GROUPS MEMZ_TABLE_MAX_PUBLISHED
/* Names remembered: more than two intervals' worth of published groups, so
 * an id is never forgotten while a host may still show it. */
#define MEMZ_REPORT_MAX_KNOWN 512
/* collectd's plugin_instance is 128 bytes; a short id keeps graph and file
 * names readable, and fits every host. */
#define MEMZ_REPORT_ID_MAX 64
/* Users published at most, whatever TopUsers and PublishHold keep: a
 * login server's hundreds of users would otherwise each take a line. */
#define MEMZ_REPORT_MAX_USERS 100
#define MEMZ_REPORT_LABEL_MAX 96

enum memz_unit {
	MEMZ_UNIT_BYTES,
	MEMZ_UNIT_BYTES_PER_S, /* may be negative */
	MEMZ_UNIT_PERCENT,     /* 0..100, of time or of a whole */
	MEMZ_UNIT_SCORE,       /* 0..100, a judgement (leak confidence) */
	MEMZ_UNIT_USEC,
	MEMZ_UNIT_SECONDS,
	MEMZ_UNIT_TIME_LEFT,   /* s until something runs out, >= 0 */
	MEMZ_UNIT_COUNT,
	MEMZ_UNIT_LEVEL,       /* a state: 0, 1, 2, ... (an alarm's level) */
	MEMZ_UNIT_PROCESSES,   /* a group's members */
	MEMZ_UNIT_THREADS,
	MEMZ_UNIT_FLAG,        /* 0 or 1 */
};

/* The series' flags. */
enum {
	/* a figure of the detector's verdict: the JSON writes the verdict
	 * whole instead */
	MEMZ_SERIES_VERDICT = 1,
	/* a detail of the record, not a time series: JSON only */
	MEMZ_SERIES_DETAIL = 2,
	/* values of different objects may overlap (a cgroup's usage holds
	 * its children's): drawn as lines, never stacked */
	MEMZ_SERIES_OVERLAP = 4,
	/* may have no value (time to OOM when nothing grows): get returns
	 * NAN, memz_series_none() says so, and a host shows a gap (collectd:
	 * NaN, netdata: no SET, JSON: null), never a number */
	MEMZ_SERIES_NONE = 8,
};

struct memz_series {
	const char *name;  /* an id already: a collectd type instance, a
			    * netdata dimension, a JSON key */
	const char *label; /* a few words for a person */
	enum memz_unit unit;
	unsigned flags;
	/* for hosts that draw one chart per series: its id and title (NULL:
	 * the series is not charted on its own) */
	const char *chart, *title;
	double (*get)(const void *obj);
	/* NULL: every object has the series; else whether obj has it (a
	 * group has a cgroup limit only under GroupBy cgroup, and only if one
	 * is set). A host leaves out what an object lacks: no value, no key,
	 * no dimension set. */
	bool (*has)(const void *obj);
};

struct memz_series_table {
	const struct memz_series *s;
	size_t n;
};

/* MemTotal's parts, in the order they stack (obj: struct memz_breakdown);
 * they add up to mem_total. */
extern const struct memz_series_table memz_series_breakdown;
/* The kernel's share: the residual beside the pieces the kernel names
 * (obj: struct memz_breakdown). */
extern const struct memz_series_table memz_series_kernel;
/* One line of memory pressure, "some" or "full" (obj: struct
 * memz_psi_line). */
extern const struct memz_series_table memz_series_psi;
/* One NUMA node (obj: struct memz_numa_node). */
extern const struct memz_series_table memz_series_node;
/* One group (obj: struct memz_group). */
extern const struct memz_series_table memz_series_group;
/* One user's processes summed (obj: struct memz_user_total). */
extern const struct memz_series_table memz_series_user;
/* The whole snapshot's counts: suspects, the pace's interval (obj: struct
 * memz_snapshot). */
extern const struct memz_series_table memz_series_counts;

/* One OOM scope, the machine or a memory-limited cgroup (obj: struct
 * memz_oom_scope, the snapshot's oom.scope[]): time to OOM, what is
 * available, the growth it rests on, its confidence, the kills counted. */
extern const struct memz_series_table memz_series_oom;

/* The OOM scope whose forecast covers what is in the cgroup at path: the
 * deepest watched cgroup that is path or holds it (a scope's growth counts
 * what is in it and below it, oom.h), never the machine's. NULL for a NULL
 * path or when no watched cgroup holds it. A process's is that of its
 * memory cgroup (memz_proc.memcg); a group's (GroupBy cgroup) that of its
 * cgroup's path, which is the memory cgroup on a v2 machine only. */
const struct memz_oom_scope *
memz_report_scope_of(const struct memz_oom_view *o, const char *path);

/* Whether s has no value for obj (only MEMZ_SERIES_NONE series may). */
bool memz_series_none(const struct memz_series *s, const void *obj);

/* s's value for obj: finite, 0 in place of a NaN or an infinity. */
double memz_series_value(const struct memz_series *s, const void *obj);
/* Whether obj has s (see memz_series.has). */
bool memz_series_has(const struct memz_series *s, const void *obj);
/* t's series named name, or NULL. */
const struct memz_series *memz_series_find(const struct memz_series_table *t,
					   const char *name);
/* A finite double: x, or 0. */
double memz_finite(double x);

/* The rule every host follows, walked over the snapshot's groups in
 * order: memz_publish_init() counts the suspects once, then
 * memz_publish_next() says for each group in turn whether it is published.
 * Plain counters: _init allocates nothing and there is nothing to release. */
struct memz_publish {
	size_t leak_left;  /* places still kept for leaking groups */
	size_t other_left; /* places left for reported, non-leaking ones */
};
void memz_publish_init(struct memz_publish *p, const struct memz_table_view *v);
bool memz_publish_next(struct memz_publish *p, const struct memz_group *g);

/* The same for users: *n counts those published so far (start at 0). */
bool memz_publish_user_next(size_t *n, const struct memz_user_total *u);

struct memz_report_group {
	const struct memz_group *g;
	const char *id;    /* [A-Za-z0-9_.-]+, shorter than MEMZ_REPORT_ID_MAX */
	const char *label; /* label-safe, shorter than MEMZ_REPORT_LABEL_MAX */
	/* where the report keeps the name, < MEMZ_REPORT_MAX_KNOWN; a slot
	 * given to another name gets a new gen */
	unsigned slot, gen;
};

struct memz_report_view {
	const struct memz_snapshot *snap;
	const struct memz_report_group *groups; /* published, snapshot order */
	size_t n_groups;
	/* published users, largest PSS first; u->name is the id */
	const struct memz_user_total *const *users;
	size_t n_users;
};

struct memz_report;

int memz_report_new(struct memz_report **out, const struct memz_allocator *a);
void memz_report_free(struct memz_report **r);

/* The view of s: which groups go out, under which ids. 0 or -ENOMEM (then
 * *out is a view of the groups that fitted). */
int memz_report_update(struct memz_report *r, const struct memz_snapshot *s,
		       const struct memz_report_view **out);

/* The id the report gave a name (raw bytes, NUL-ended), NULL if never
 * published or forgotten. */
const char *memz_report_id(const struct memz_report *r, const char *name);

/* A slot's id, label and gen, for hosts that keep state per published
 * group (netdata's dimensions). false: the slot holds no name. */
bool memz_report_slot(const struct memz_report *r, unsigned slot,
		      const char **id, const char **label, unsigned *gen);

/*
 * When to sample and when to publish. A host calls in at least every tick
 * (collectd: its read callback's interval; netdata: whenever its wait
 * ends). The sampler runs when the pace's interval has passed; values go
 * out every publish interval. A call up to half a tick early counts as on
 * time, so the scheduler's jitter does not push a sample a whole tick late.
 * The first publish follows the first sample and sets the grid, so a slow
 * first sample (every process read exactly) does not make the second
 * publish come early; a late publish stays on the grid, and after a stall
 * longer than an interval the grid starts afresh.
 */
struct memz_clock {
	double tick, interval; /* s */
	double next_sample, next_publish, last_publish;
	bool tried, sampled, published;
};

void memz_clock_init(struct memz_clock *c, double tick, double interval);
bool memz_clock_sample_due(const struct memz_clock *c, double now);
/* now: when the sample started; interval_ms: what the pace asks next (0:
 * one second) */
void memz_clock_sampled(struct memz_clock *c, double now, unsigned interval_ms);
/* A sample failed at now: the next is due a second later. */
void memz_clock_failed(struct memz_clock *c, double now);
/* now: the time the values would carry (after any sample this call) */
bool memz_clock_publish_due(const struct memz_clock *c, double now);
/* Returns the seconds since the previous publish, 0 on the first. */
double memz_clock_published(struct memz_clock *c, double now);
/* The earliest time something is due, for hosts that sleep until then. */
double memz_clock_next(const struct memz_clock *c);

#endif
