#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memz/cgroup.h"
#include "memz/report.h"
#include "memz/sanitize.h"

double memz_finite(double x)
{
	return isfinite(x) ? x : 0;
}

bool memz_series_has(const struct memz_series *s, const void *obj)
{
	return !s->has || s->has(obj);
}

const struct memz_series *memz_series_find(const struct memz_series_table *t,
					   const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, name))
			return &t->s[i];
	return NULL;
}

double memz_series_value(const struct memz_series *s, const void *obj)
{
	return memz_finite(s->get(obj));
}

#define BR(field)                                                          \
	static double br_##field(const void *o)                            \
	{                                                                  \
		return (double)((const struct memz_breakdown *)o)->field;  \
	}
BR(free)
BR(pcp_free)
BR(buffers)
BR(cached)
BR(slab)
BR(page_tables)
BR(process_anon)
BR(hidden_anon)
BR(kernel_residual)
BR(kernel_stack)
BR(vmalloc_used)
BR(percpu)

static const struct memz_series breakdown[] = {
	{ "free", "free", MEMZ_UNIT_BYTES, 0, NULL, NULL, br_free, NULL },
	{ "pcp_free", "free on CPU lists", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_pcp_free, NULL },
	{ "buffers", "buffers", MEMZ_UNIT_BYTES, 0, NULL, NULL, br_buffers, NULL },
	{ "cached", "cached", MEMZ_UNIT_BYTES, 0, NULL, NULL, br_cached, NULL },
	{ "slab", "slab", MEMZ_UNIT_BYTES, 0, NULL, NULL, br_slab, NULL },
	{ "page_tables", "page tables", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_page_tables, NULL },
	{ "process_anon", "processes", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_process_anon, NULL },
	{ "hidden_anon", "hidden", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_hidden_anon, NULL },
	{ "kernel_residual", "kernel", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_kernel_residual, NULL },
};

static const struct memz_series kernel[] = {
	{ "kernel_residual", "kernel", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_kernel_residual, NULL },
	{ "kernel_stack", "kernel stacks", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_kernel_stack, NULL },
	{ "vmalloc_used", "vmalloc", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  br_vmalloc_used, NULL },
	{ "percpu", "per-CPU", MEMZ_UNIT_BYTES, 0, NULL, NULL, br_percpu, NULL },
};

#define PSI(field)                                                         \
	static double psi_##field(const void *o)                           \
	{                                                                  \
		return (double)((const struct memz_psi_line *)o)->field;   \
	}
PSI(avg10)
PSI(avg60)
PSI(avg300)
PSI(total)

static const struct memz_series psi[] = {
	{ "avg10", "10 s average", MEMZ_UNIT_PERCENT, 0, NULL, NULL, psi_avg10, NULL },
	{ "avg60", "1 min average", MEMZ_UNIT_PERCENT, 0, NULL, NULL, psi_avg60, NULL },
	{ "avg300", "5 min average", MEMZ_UNIT_PERCENT, 0, NULL, NULL,
	  psi_avg300, NULL },
	{ "total", "stalled since boot", MEMZ_UNIT_USEC, MEMZ_SERIES_DETAIL, NULL,
	  NULL, psi_total, NULL },
};

#define NODE(field)                                                        \
	static double node_##field(const void *o)                          \
	{                                                                  \
		return (double)((const struct memz_numa_node *)o)->field;  \
	}
NODE(total)
NODE(free)
NODE(used)

static const struct memz_series node[] = {
	{ "total", "total", MEMZ_UNIT_BYTES, MEMZ_SERIES_DETAIL, NULL, NULL,
	  node_total, NULL },
	{ "free", "free", MEMZ_UNIT_BYTES, 0, NULL, NULL, node_free, NULL },
	{ "used", "used", MEMZ_UNIT_BYTES, 0, NULL, NULL, node_used, NULL },
};

#define GR(name, expr)                                                     \
	static double gr_##name(const void *o)                             \
	{                                                                  \
		const struct memz_group *g = o;                            \
		return (double)(expr);                                     \
	}
GR(members, g->members)
GR(threads, g->threads)
GR(pss, g->pss)
GR(uss, g->uss)
GR(rss, g->rss)
GR(swap, g->swap)
GR(anon, g->anon)
GR(growth, g->det.verdict.rate_bps)
GR(confidence, g->det.verdict.confidence)
GR(leak, g->det.verdict.leak)
GR(alarm, g->alarm.level)
GR(time_left, g->alarm.time_left)

static bool gr_has_usage(const void *o)
{
	const struct memz_group *g = o;

	return g->cgroup && g->cgroup->has_mem;
}

static bool gr_has_limit(const void *o)
{
	const struct memz_group *g = o;

	return gr_has_usage(o) && g->cgroup->mem.limited;
}

GR(cgroup_usage, gr_has_usage(g) ? g->cgroup->mem.usage : 0)
GR(cgroup_limit, gr_has_limit(g) ? g->cgroup->mem.limit : 0)

static const struct memz_series group[] = {
	{ "members", "processes", MEMZ_UNIT_PROCESSES, 0, NULL, NULL,
	  gr_members, NULL },
	{ "threads", "threads", MEMZ_UNIT_THREADS, 0, NULL, NULL, gr_threads, NULL },
	{ "pss", "PSS", MEMZ_UNIT_BYTES, 0, "group_pss",
	  "Proportional set size (PSS) per process group", gr_pss, NULL },
	{ "uss", "USS", MEMZ_UNIT_BYTES, 0, "group_uss",
	  "Unique set size (USS, freed if the group exited) per process group",
	  gr_uss, NULL },
	{ "rss", "RSS", MEMZ_UNIT_BYTES, 0, NULL, NULL, gr_rss, NULL },
	{ "swap", "swap", MEMZ_UNIT_BYTES, 0, "group_swap",
	  "Swap used per process group", gr_swap, NULL },
	{ "anon", "anonymous PSS", MEMZ_UNIT_BYTES, 0, NULL, NULL, gr_anon, NULL },
	{ "growth_rate", "growth", MEMZ_UNIT_BYTES_PER_S, MEMZ_SERIES_VERDICT,
	  "group_growth", "PSS growth rate per process group", gr_growth, NULL },
	{ "leak_confidence", "leak confidence", MEMZ_UNIT_SCORE,
	  MEMZ_SERIES_VERDICT, NULL, NULL, gr_confidence, NULL },
	{ "leak", "leak suspect", MEMZ_UNIT_FLAG,
	  MEMZ_SERIES_VERDICT, "leaks",
	  "Process groups flagged as leaking (1 = suspect)", gr_leak, NULL },
	/* the host alarm's level (alarm.h: 0 none, 1 warning, 2 critical)
	 * and the time it projects */
	{ "leak_alarm", "leak alarm level", MEMZ_UNIT_LEVEL, 0, NULL, NULL,
	  gr_alarm, NULL },
	{ "leak_time_left", "time left", MEMZ_UNIT_TIME_LEFT, MEMZ_SERIES_NONE,
	  NULL, NULL, gr_time_left, NULL },
	{ "cgroup_usage", "cgroup usage", MEMZ_UNIT_BYTES, MEMZ_SERIES_OVERLAP,
	  "group_cgroup_usage",
	  "Memory the kernel charges to each group's cgroup (GroupBy cgroup)",
	  gr_cgroup_usage, gr_has_usage },
	{ "cgroup_limit", "cgroup limit", MEMZ_UNIT_BYTES, MEMZ_SERIES_OVERLAP,
	  "group_cgroup_limit",
	  "Memory limit of each group's cgroup, where one is set (GroupBy cgroup)",
	  gr_cgroup_limit, gr_has_limit },
};

#define US(name, expr)                                                     \
	static double us_##name(const void *o)                             \
	{                                                                  \
		const struct memz_user_total *u = o;                       \
		return (double)(expr);                                     \
	}
US(members, u->members)
US(threads, u->threads)
US(pss, u->pss)
US(uss, u->uss)
US(rss, u->rss)
US(swap, u->swap)
US(anon, u->anon)

static const struct memz_series user[] = {
	{ "members", "processes", MEMZ_UNIT_PROCESSES, 0, NULL, NULL,
	  us_members, NULL },
	{ "threads", "threads", MEMZ_UNIT_THREADS, 0, NULL, NULL, us_threads,
	  NULL },
	{ "pss", "PSS", MEMZ_UNIT_BYTES, 0, "user_pss",
	  "Proportional set size (PSS) per user", us_pss, NULL },
	{ "uss", "USS", MEMZ_UNIT_BYTES, 0, "user_uss",
	  "Unique set size (USS) per user", us_uss, NULL },
	{ "rss", "RSS", MEMZ_UNIT_BYTES, 0, NULL, NULL, us_rss, NULL },
	{ "swap", "swap", MEMZ_UNIT_BYTES, 0, "user_swap",
	  "Swap used per user", us_swap, NULL },
	{ "anon", "anonymous PSS", MEMZ_UNIT_BYTES, 0, "user_anon",
	  "Anonymous memory (PSS) per user", us_anon, NULL },
};

static double snap_suspects(const void *o)
{
	return ((const struct memz_snapshot *)o)->view.leak_suspects;
}

static double snap_interval(const void *o)
{
	return ((const struct memz_snapshot *)o)->interval_ms / 1000.0;
}

static const struct memz_series counts[] = {
	{ "leak_suspects", "leak suspects", MEMZ_UNIT_COUNT, 0,
	  "leak_suspects", "Processes and groups flagged as leaking",
	  snap_suspects, NULL },
	{ "interval", "sampling interval", MEMZ_UNIT_SECONDS, 0, "pace",
	  "memz sampling interval", snap_interval, NULL },
};

#define OOM(name, expr)                                                    \
	static double oom_##name(const void *o)                            \
	{                                                                  \
		const struct memz_oom_scope *sc = o;                       \
		return (double)(expr);                                     \
	}
OOM(seconds, sc->seconds)
OOM(available, sc->available)
OOM(growth, sc->growth_bps)
OOM(confidence, sc->confidence)
OOM(kills, sc->kills)
OOM(limit, sc->limit)

static const struct memz_series oom[] = {
	{ "time_to_oom", "time to OOM", MEMZ_UNIT_TIME_LEFT, MEMZ_SERIES_NONE,
	  "time_to_oom", "Time until memory runs out at the leaks' rate",
	  oom_seconds, NULL },
	{ "available", "available", MEMZ_UNIT_BYTES, 0, NULL, NULL,
	  oom_available, NULL },
	{ "oom_growth", "growth", MEMZ_UNIT_BYTES_PER_S, 0, NULL, NULL,
	  oom_growth, NULL },
	{ "oom_confidence", "forecast confidence", MEMZ_UNIT_SCORE, 0, NULL,
	  NULL, oom_confidence, NULL },
	{ "oom_kills", "OOM kills", MEMZ_UNIT_COUNT, 0, "oom_kills",
	  "Processes killed by the OOM killer since memz started", oom_kills, NULL },
	{ "limit", "limit", MEMZ_UNIT_BYTES, MEMZ_SERIES_DETAIL, NULL, NULL,
	  oom_limit, NULL },
};

const struct memz_oom_scope *
memz_report_scope_of(const struct memz_oom_view *o, const char *cg)
{
	const struct memz_oom_scope *best = NULL;
	size_t best_len = 0;

	if (!cg)
		return NULL;
	for (size_t i = 1; i < o->n_scopes; i++) {
		const char *path = o->scope[i].path;
		size_t n = strlen(path);

		/* "/a" holds "/a" and "/a/b", never "/ab" */
		if (!n || strncmp(cg, path, n) ||
		    (cg[n] && cg[n] != '/' && path[n - 1] != '/'))
			continue;
		if (!best || n > best_len) {
			best = &o->scope[i];
			best_len = n;
		}
	}
	return best;
}

bool memz_series_none(const struct memz_series *s, const void *obj)
{
	return (s->flags & MEMZ_SERIES_NONE) && isnan(s->get(obj));
}

#define TABLE(t) { t, sizeof t / sizeof t[0] }
const struct memz_series_table memz_series_breakdown = TABLE(breakdown);
const struct memz_series_table memz_series_kernel = TABLE(kernel);
const struct memz_series_table memz_series_psi = TABLE(psi);
const struct memz_series_table memz_series_node = TABLE(node);
const struct memz_series_table memz_series_group = TABLE(group);
const struct memz_series_table memz_series_counts = TABLE(counts);
const struct memz_series_table memz_series_user = TABLE(user);
const struct memz_series_table memz_series_oom = TABLE(oom);

void memz_publish_init(struct memz_publish *p, const struct memz_table_view *v)
{
	size_t leaks = 0;

	for (size_t i = 0; i < v->n_groups; i++)
		leaks += v->groups[i]->det.verdict.leak;
	p->leak_left = leaks < MEMZ_REPORT_MAX_GROUPS ? leaks
						       : MEMZ_REPORT_MAX_GROUPS;
	p->other_left = MEMZ_REPORT_MAX_GROUPS - p->leak_left;
}

bool memz_publish_next(struct memz_publish *p, const struct memz_group *g)
{
	size_t *left = g->det.verdict.leak ? &p->leak_left
		       : g->reported	   ? &p->other_left
					   : NULL;

	if (!left || !*left)
		return false;
	--*left;
	return true;
}

bool memz_publish_user_next(size_t *n, const struct memz_user_total *u)
{
	if (!u->reported || *n >= MEMZ_REPORT_MAX_USERS)
		return false;
	++*n;
	return true;
}

struct known {
	char *name; /* NULL: a free slot */
	char id[MEMZ_REPORT_ID_MAX];
	char label[MEMZ_REPORT_LABEL_MAX];
	unsigned gen;
	unsigned long seen; /* the update that last published it */
};

struct memz_report {
	const struct memz_allocator *a;
	struct known *k;
	size_t n_k, cap_k; /* slots in use (named or freed) */
	struct memz_report_group *groups;
	size_t cap_groups;
	const struct memz_user_total **users;
	size_t cap_users;
	unsigned long update;
	unsigned gen;
	struct memz_report_view view;
};

int memz_report_new(struct memz_report **out, const struct memz_allocator *a)
{
	struct memz_report *r = memz_realloc(a, NULL, sizeof *r);

	*out = NULL;
	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof *r);
	r->a = a;
	*out = r;
	return 0;
}

void memz_report_free(struct memz_report **pr)
{
	struct memz_report *r = *pr;

	if (!r)
		return;
	for (size_t i = 0; i < r->n_k; i++)
		memz_free(r->a, &r->k[i].name);
	memz_free(r->a, &r->k);
	memz_free(r->a, &r->groups);
	memz_free(r->a, &r->users);
	memz_free(r->a, pr);
}

static struct known *find(const struct memz_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_k; i++)
		if (r->k[i].name && !strcmp(r->k[i].name, name))
			return &r->k[i];
	return NULL;
}

static bool id_taken(const struct memz_report *r, const char *id)
{
	for (size_t i = 0; i < r->n_k; i++)
		if (r->k[i].name && !strcmp(r->k[i].id, id))
			return true;
	return false;
}

static bool label_taken(const struct memz_report *r, const char *label)
{
	for (size_t i = 0; i < r->n_k; i++)
		if (r->k[i].name && !strcmp(r->k[i].label, label))
			return true;
	return false;
}

/* Append fmt's number from 2 on until no other name has it, cutting the
 * base (never inside a UTF-8 sequence) so the result fits. */
static void make_unique(const struct memz_report *r, char *buf, size_t size,
			const char *fmt,
			bool (*taken)(const struct memz_report *, const char *))
{
	char base[MEMZ_REPORT_LABEL_MAX];

	if (!taken(r, buf))
		return;
	snprintf(base, sizeof base, "%s", buf);
	for (unsigned n = 2;; n++) {
		char suffix[16];
		int sl = snprintf(suffix, sizeof suffix, fmt, n);
		size_t keep = strlen(base);

		if (keep + (size_t)sl >= size)
			keep = size - 1 - (size_t)sl;
		while (keep && ((unsigned char)base[keep] & 0xc0) == 0x80)
			keep--;
		snprintf(buf, size, "%.*s%s", (int)keep, base, suffix);
		if (!taken(r, buf))
			return;
	}
}

/* A slot for a new name: a free one, a new one, or the one published
 * longest ago, if that was before the previous update (a host may still
 * show what the previous update published). */
static struct known *slot_for(struct memz_report *r)
{
	struct known *best = NULL;

	for (size_t i = 0; i < r->n_k; i++)
		if (!r->k[i].name)
			return &r->k[i];
	if (r->n_k < MEMZ_REPORT_MAX_KNOWN) {
		if (memz_grow(r->a, &r->k, &r->cap_k, r->n_k + 1, sizeof *r->k))
			return NULL;
		memset(&r->k[r->n_k], 0, sizeof *r->k);
		return &r->k[r->n_k++];
	}
	for (size_t i = 0; i < r->n_k; i++)
		if (r->k[i].seen + 1 < r->update &&
		    (!best || r->k[i].seen < best->seen))
			best = &r->k[i];
	if (best)
		memz_free(r->a, &best->name);
	return best;
}

/* name is the key; shown what the id and label are made of */
static struct known *add(struct memz_report *r, const char *name,
			 const char *shown)
{
	size_t len = strlen(name), slen = strlen(shown);
	struct known *k = slot_for(r);

	if (!k)
		return NULL;
	/* the slot has no name yet, so the checks see only the others */
	memz_sanitize_id(shown, slen, k->id, sizeof k->id);
	memz_sanitize_label(shown, slen, k->label, sizeof k->label);
	make_unique(r, k->id, sizeof k->id, "_%u", id_taken);
	make_unique(r, k->label, sizeof k->label, " #%u", label_taken);
	k->name = memz_realloc(r->a, NULL, len + 1);
	if (!k->name)
		return NULL;
	memcpy(k->name, name, len + 1);
	k->gen = ++r->gen;
	return k;
}

int memz_report_update(struct memz_report *r, const struct memz_snapshot *s,
		       const struct memz_report_view **out)
{
	const struct memz_table_view *v = &s->view;
	struct memz_publish pub;
	size_t n = 0;
	int rc = 0;

	memz_publish_init(&pub, v);
	r->update++;
	r->view.snap = s;
	r->view.n_groups = 0;
	*out = &r->view;
	for (size_t i = 0; i < v->n_groups; i++) {
		const struct memz_group *g = v->groups[i];
		const char *name = g->name ? g->name : "";
		struct known *k;

		if (!memz_publish_next(&pub, g))
			continue;
		k = find(r, name);
		if (k && k->seen == r->update)
			continue; /* the table handed one name twice */
		if (!k && !(k = add(r, name,
				    g->cgroup ? g->cgroup->n.name : name))) {
			rc = -ENOMEM;
			break;
		}
		if (memz_grow(r->a, &r->groups, &r->cap_groups, n + 1,
			      sizeof *r->groups)) {
			rc = -ENOMEM;
			break;
		}
		k->seen = r->update;
		r->groups[n++] = (struct memz_report_group){
			.g = g, .slot = (unsigned)(k - r->k), .gen = k->gen };
	}
	/* the slots may have moved while they grew */
	for (size_t i = 0; i < n; i++) {
		r->groups[i].id = r->k[r->groups[i].slot].id;
		r->groups[i].label = r->k[r->groups[i].slot].label;
	}
	r->view.groups = r->groups;
	r->view.n_groups = n;
	r->view.users = NULL;
	r->view.n_users = 0;
	if (memz_grow(r->a, &r->users, &r->cap_users, v->n_users + 1,
		      sizeof *r->users))
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < v->n_users; i++)
		if (memz_publish_user_next(&n, v->users[i]))
			r->users[n - 1] = v->users[i];
	r->view.users = r->users;
	r->view.n_users = n;
	return rc;
}

const char *memz_report_id(const struct memz_report *r, const char *name)
{
	const struct known *k = find(r, name);

	return k ? k->id : NULL;
}

bool memz_report_slot(const struct memz_report *r, unsigned slot,
		      const char **id, const char **label, unsigned *gen)
{
	if (slot >= r->n_k || !r->k[slot].name)
		return false;
	*id = r->k[slot].id;
	*label = r->k[slot].label;
	*gen = r->k[slot].gen;
	return true;
}

void memz_clock_init(struct memz_clock *c, double tick, double interval)
{
	memset(c, 0, sizeof *c);
	c->tick = tick;
	c->interval = interval;
}

bool memz_clock_sample_due(const struct memz_clock *c, double now)
{
	return !c->tried || now >= c->next_sample - c->tick / 2;
}

void memz_clock_sampled(struct memz_clock *c, double now, unsigned interval_ms)
{
	c->tried = c->sampled = true;
	c->next_sample = now + (interval_ms ? interval_ms : 1000) / 1000.0;
}

void memz_clock_failed(struct memz_clock *c, double now)
{
	c->tried = true;
	c->next_sample = now + 1;
}

bool memz_clock_publish_due(const struct memz_clock *c, double now)
{
	if (!c->sampled)
		return false;
	return !c->published || now >= c->next_publish - c->tick / 2;
}

double memz_clock_published(struct memz_clock *c, double now)
{
	double since = c->published ? now - c->last_publish : 0;

	if (!c->published) {
		c->published = true;
		c->next_publish = now;
	}
	c->last_publish = now;
	c->next_publish += c->interval;
	if (c->next_publish < now)
		c->next_publish = now + c->interval;
	return since;
}

double memz_clock_next(const struct memz_clock *c)
{
	if (!c->tried)
		return 0;
	if (!c->sampled)
		return c->next_sample;
	if (!c->published)
		return 0;
	return c->next_sample < c->next_publish ? c->next_sample
						: c->next_publish;
}
