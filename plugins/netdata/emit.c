#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memz/report.h"
#include "memz/sanitize.h"
#include "emit.h"

#define MIB 1048576
#define MEMZ_ND_GROUP_SERIES_MAX 32

enum dim_state { DIM_NONE, DIM_ACTIVE, DIM_OBSOLETE };

/* What netdata was told about the name in one of the report's slots. */
struct dim {
	unsigned gen; /* the slot's gen when it was told */
	enum dim_state state;
	bool changed; /* needs a DIMENSION line this cycle */
	const struct memz_group *g; /* this cycle's record, or NULL */
};

/* A scope's two charts, once netdata knows them. */
struct scope_charts {
	char id[MEMZ_OOM_ID_MAX];
	bool seen; /* this cycle */
};

#define ND_MAX_SCOPES (4 * (1 + MEMZ_OOM_MAX_SCOPES))

/* What netdata was told about a user's dimension, by the user's name. Twice
 * the published cap: a user gone stays obsolete here, and its entry is
 * taken again only when no other is free. */
struct user_dim {
	char id[MEMZ_USER_NAME_MAX];
	enum dim_state state;
	bool changed; /* needs a DIMENSION line this cycle */
	bool seen;    /* published this cycle */
};

#define ND_MAX_USER_DIMS (2 * MEMZ_REPORT_MAX_USERS)

struct memz_nd_emitter {
	FILE *out;
	struct scope_charts scopes[ND_MAX_SCOPES];
	unsigned n_scopes;
	int update_every;
	unsigned version;
	bool declared; /* the fixed charts went out */
	struct memz_report *report;
	struct dim dims[MEMZ_REPORT_MAX_KNOWN];
	unsigned n_dims; /* slots below this may hold something */
	/* a series not every group has (memz_series.has) is charted from
	 * the first cycle a published group has it: GroupBy name never
	 * shows an empty cgroup chart */
	bool charted[MEMZ_ND_GROUP_SERIES_MAX];
	struct user_dim udims[ND_MAX_USER_DIMS];
	unsigned n_udims;
	/* the users' charts went out (with the first user published) */
	bool users_charted;
};

static void chart(FILE *f, const char *id, const char *title,
		  const char *units, const char *family, const char *type,
		  int prio, int update_every)
{
	fprintf(f,
		"CHART memz.%s '' \"%s\" \"%s\" \"%s\" \"memz.%s\" %s %d %d '' %s %s\n",
		id, title, units, family, id, type, MEMZ_ND_PRIORITY + prio,
		update_every, MEMZ_ND_PLUGIN, MEMZ_ND_MODULE);
}

static void dim(FILE *f, const char *id, const char *name, long mul, long div,
		const char *options)
{
	fprintf(f, "DIMENSION %s \"%s\" absolute %ld %ld \"%s\"\n", id, name,
		mul, div, options);
}

static void declare_fixed(struct memz_nd_emitter *e)
{
	FILE *f = e->out;

	chart(f, "ram", "Where the RAM went (parts add up to MemTotal)", "MiB",
	      "ram", "stacked", 0, e->update_every);
	for (size_t i = 0; i < memz_series_breakdown.n; i++)
		dim(f, memz_series_breakdown.s[i].name,
		    memz_series_breakdown.s[i].name, 1, MIB, "");
	chart(f, "kernel", "Kernel memory no process owns", "MiB", "ram",
	      "stacked", 1, e->update_every);
	for (size_t i = 0; i < memz_series_kernel.n; i++)
		dim(f, memz_series_kernel.s[i].name, memz_series_kernel.s[i].name,
		    1, MIB, "");
	chart(f, "leak_suspects", "Processes and groups flagged as leaking",
	      "suspects", "leaks", "line", 22, e->update_every);
	dim(f, "suspects", "suspects", 1, 1, "");
	chart(f, "pace", "memz sampling interval", "ms", "memz", "line", 30,
	      e->update_every);
	dim(f, "interval", "interval", 1, 1, "");
}

/* How netdata shows a series of a group: bytes stack in MiB under
 * "groups"; rates and flags are lines under "leaks". */
struct look {
	const char *units, *family, *type;
	long div;
	int prio;
};

static struct look look_of(const struct memz_series *se, int *n_groups,
			   int *n_leaks)
{
	switch (se->unit) {
	case MEMZ_UNIT_BYTES:
		return (struct look){ "MiB", "groups",
				      se->flags & MEMZ_SERIES_OVERLAP ? "line"
								      : "stacked",
				      MIB, 10 + (*n_groups)++ };
	case MEMZ_UNIT_BYTES_PER_S:
		return (struct look){ "KiB/s", "leaks", "line", 1024,
				      20 + (*n_leaks)++ };
	case MEMZ_UNIT_FLAG:
		return (struct look){ "suspect", "leaks", "line", 1,
				      20 + (*n_leaks)++ };
	default:
		return (struct look){ "", "leaks", "line", 1, 20 + (*n_leaks)++ };
	}
}

/* Match this cycle's published groups to what netdata knows; returns
 * whether any dimension appeared, came back or vanished. */
static bool track_groups(struct memz_nd_emitter *e,
			 const struct memz_report_view *v)
{
	bool changed = false;

	for (unsigned i = 0; i < e->n_dims; i++) {
		e->dims[i].g = NULL;
		e->dims[i].changed = false;
	}
	for (size_t i = 0; i < v->n_groups; i++) {
		const struct memz_report_group *rg = &v->groups[i];
		struct dim *d = &e->dims[rg->slot];

		if (rg->slot >= e->n_dims)
			e->n_dims = rg->slot + 1;
		if (d->gen != rg->gen) {
			/* the slot's earlier name was obsolete by now */
			d->gen = rg->gen;
			d->state = DIM_NONE;
		}
		d->g = rg->g;
		if (d->state != DIM_ACTIVE) {
			d->state = DIM_ACTIVE;
			d->changed = changed = true;
		}
	}
	for (unsigned i = 0; i < e->n_dims; i++) {
		struct dim *d = &e->dims[i];
		if (d->state == DIM_ACTIVE && !d->g) {
			d->state = DIM_OBSOLETE;
			d->changed = changed = true;
		}
	}
	return changed;
}

/* Whether dimension slot i is to be told this cycle (it changed, or all
 * active ones are), and under which id and label: the one rule for a
 * group's dimension and for its own charts. */
static bool dim_due(const struct memz_nd_emitter *e, unsigned i, bool all,
		    const char **id, const char **label)
{
	const struct dim *d = &e->dims[i];
	unsigned gen;

	if (!d->changed && !(all && d->state == DIM_ACTIVE))
		return false;
	return memz_report_slot(e->report, i, id, label, &gen) &&
	       gen == d->gen;
}

static bool is_charted(const struct memz_nd_emitter *e, size_t c)
{
	const struct memz_series *se = &memz_series_group.s[c];

	return se->chart &&
	       (!se->has || (c < MEMZ_ND_GROUP_SERIES_MAX && e->charted[c]));
}

/* Whether a series some groups lack was charted for the first time. */
static bool chart_new_series(struct memz_nd_emitter *e,
			     const struct memz_report_view *v)
{
	bool any = false;

	for (size_t c = 0; c < memz_series_group.n &&
			   c < MEMZ_ND_GROUP_SERIES_MAX; c++) {
		const struct memz_series *se = &memz_series_group.s[c];

		if (!se->chart || !se->has || e->charted[c])
			continue;
		for (size_t i = 0; i < v->n_groups; i++)
			if (memz_series_has(se, v->groups[i].g)) {
				e->charted[c] = any = true;
				break;
			}
	}
	return any;
}

static void declare_groups(struct memz_nd_emitter *e, bool all)
{
	int n_groups = 0, n_leaks = 0;

	for (size_t c = 0; c < memz_series_group.n; c++) {
		const struct memz_series *se = &memz_series_group.s[c];
		struct look l;

		if (!is_charted(e, c))
			continue;
		l = look_of(se, &n_groups, &n_leaks);
		chart(e->out, se->chart, se->title, l.units, l.family, l.type,
		      l.prio, e->update_every);
		for (unsigned i = 0; i < e->n_dims; i++) {
			const char *id, *label;

			if (!dim_due(e, i, all, &id, &label))
				continue;
			dim(e->out, id, label, 1, l.div,
			    e->dims[i].state == DIM_ACTIVE ? "" : "obsolete hidden");
		}
	}
}

/* Per-group chart instances: one chart per group and context, so that a
 * health template on the context raises one alarm per group. */
enum inst_chart { IC_MEM, IC_GROWTH, IC_LEAK, IC_N };

static const struct {
	const char *suffix, *context, *title, *units, *type;
	int prio;
} icharts[IC_N] = {
	[IC_MEM] = { "mem", "memz.group_mem",
		     "PSS, USS and swap of process group", "MiB", "line", 40 },
	[IC_GROWTH] = { "growth", "memz.group_growth_rate",
			"PSS growth rate of process group", "KiB/s", "line",
			41 },
	[IC_LEAK] = { "leak", "memz.group_leak",
		      "Leak suspect (1) and alarm (1 warning, 2 critical) of",
		      "level", "line", 42 },
};

static double g_pss(const struct memz_group *g) { return (double)g->pss; }
static double g_uss(const struct memz_group *g) { return (double)g->uss; }
static double g_swap(const struct memz_group *g) { return (double)g->swap; }
static double g_rate(const struct memz_group *g)
{
	return memz_finite(g->det.verdict.rate_bps);
}
static double g_leak(const struct memz_group *g)
{
	return g->det.verdict.leak ? 1 : 0;
}
static double g_conf(const struct memz_group *g)
{
	return g->det.verdict.confidence;
}
static double g_alarm(const struct memz_group *g) { return g->alarm.level; }
/* NAN while no alarm projects a time: no SET, a gap */
static double g_time_left(const struct memz_group *g)
{
	return g->alarm.time_left;
}

static const struct {
	enum inst_chart chart;
	const char *id;
	long div;
	const char *options;
	double (*get)(const struct memz_group *g);
} idims[] = {
	{ IC_MEM, "pss", MIB, "", g_pss },
	{ IC_MEM, "uss", MIB, "", g_uss },
	{ IC_MEM, "swap", MIB, "", g_swap },
	{ IC_GROWTH, "growth", 1024, "", g_rate },
	{ IC_LEAK, "leak", 1, "", g_leak },
	/* the alarm's level, which the shipped memz_group_leak template
	 * shows: the core decides it (alarm.h) */
	{ IC_LEAK, "alarm", 1, "", g_alarm },
	{ IC_LEAK, "time_left", 1, "hidden", g_time_left },
	/* for the alarm's value and for who drills down: hidden, so the
	 * chart reads as a state */
	{ IC_LEAK, "rate", 1024, "hidden", g_rate },
	{ IC_LEAK, "confidence", 1, "hidden", g_conf },
};

static void instance_chart(const struct memz_nd_emitter *e, const char *id,
			   const char *label, enum inst_chart c, bool obsolete)
{
	/* the family is the dashboard's submenu: "groups/" keeps a group
	 * named "oom" or "leaks" out of memz's own sections, and sorts the
	 * groups together beside "groups" */
	fprintf(e->out,
		"CHART memz.grp_%s_%s '' \"%s %s\" \"%s\" \"groups/%s\" \"%s\" %s %d %d '%s' %s %s\n",
		id, icharts[c].suffix, icharts[c].title, label,
		icharts[c].units, label, icharts[c].context, icharts[c].type,
		MEMZ_ND_PRIORITY + icharts[c].prio, e->update_every,
		obsolete ? "obsolete" : "", MEMZ_ND_PLUGIN, MEMZ_ND_MODULE);
	if (obsolete)
		return;
	/* source 1: automatic, the only one 1.37.1 needs said */
	fprintf(e->out, "CLABEL memz_group \"%s\" 1\nCLABEL_COMMIT\n", label);
	for (size_t i = 0; i < sizeof idims / sizeof *idims; i++)
		if (idims[i].chart == c)
			dim(e->out, idims[i].id, idims[i].id, 1, idims[i].div,
			    idims[i].options);
}

static void declare_instances(struct memz_nd_emitter *e, bool all)
{
	for (unsigned i = 0; i < e->n_dims; i++) {
		const char *id, *label;

		if (!dim_due(e, i, all, &id, &label))
			continue;
		for (int c = 0; c < IC_N; c++)
			instance_chart(e, id, label, (enum inst_chart)c,
				       e->dims[i].state != DIM_ACTIVE);
	}
}

/* The user's entry, a new one, or one whose user is obsolete by now;
 * NULL when every entry is active (never with the cap above). */
static struct user_dim *user_dim_for(struct memz_nd_emitter *e,
				     const char *id)
{
	struct user_dim *spare = NULL;

	for (unsigned i = 0; i < e->n_udims; i++) {
		if (!strcmp(e->udims[i].id, id))
			return &e->udims[i];
		if (!spare && e->udims[i].state == DIM_OBSOLETE &&
		    !e->udims[i].changed)
			spare = &e->udims[i];
	}
	if (e->n_udims < ND_MAX_USER_DIMS)
		spare = &e->udims[e->n_udims++];
	if (spare) {
		memset(spare, 0, sizeof *spare);
		snprintf(spare->id, sizeof spare->id, "%s", id);
	}
	return spare;
}

/* Match this cycle's published users to what netdata knows, as
 * track_groups does for groups; returns whether a dimension appeared,
 * came back or vanished. */
static bool track_users(struct memz_nd_emitter *e,
			const struct memz_report_view *v)
{
	bool changed = false;

	for (unsigned i = 0; i < e->n_udims; i++)
		e->udims[i].seen = e->udims[i].changed = false;
	for (size_t i = 0; i < v->n_users; i++) {
		struct user_dim *d = user_dim_for(e, v->users[i]->name);

		if (!d)
			continue; /* never declared: never SET */
		d->seen = true;
		if (d->state != DIM_ACTIVE) {
			d->state = DIM_ACTIVE;
			d->changed = changed = true;
		}
	}
	for (unsigned i = 0; i < e->n_udims; i++) {
		struct user_dim *d = &e->udims[i];

		if (d->state == DIM_ACTIVE && !d->seen) {
			d->state = DIM_OBSOLETE;
			d->changed = changed = true;
		}
	}
	return changed;
}

/* One chart per user series, a dimension per user, under "users" (as
 * apps.plugin's users charts), after the groups' charts. */
static void declare_users(struct memz_nd_emitter *e, bool all)
{
	int prio = 15;

	for (size_t c = 0; c < memz_series_user.n; c++) {
		const struct memz_series *se = &memz_series_user.s[c];

		if (!se->chart)
			continue;
		chart(e->out, se->chart, se->title, "MiB", "users", "stacked",
		      prio++, e->update_every);
		for (unsigned i = 0; i < e->n_udims; i++) {
			const struct user_dim *d = &e->udims[i];

			if (!d->changed && !(all && d->state == DIM_ACTIVE))
				continue;
			dim(e->out, d->id, d->id, 1, MIB,
			    d->state == DIM_ACTIVE ? "" : "obsolete hidden");
		}
	}
}

static void begin(FILE *f, const char *id, unsigned long long usec);
static void set(FILE *f, const char *id, long long v);

static void user_values(struct memz_nd_emitter *e,
			const struct memz_report_view *v,
			unsigned long long usec)
{
	for (size_t c = 0; c < memz_series_user.n; c++) {
		const struct memz_series *se = &memz_series_user.s[c];

		if (!se->chart)
			continue;
		begin(e->out, se->chart, usec);
		for (size_t i = 0; i < v->n_users; i++) {
			const struct memz_user_total *u = v->users[i];

			for (unsigned j = 0; j < e->n_udims; j++)
				if (e->udims[j].seen &&
				    !strcmp(e->udims[j].id, u->name))
					set(e->out, u->name,
					    llround(memz_series_value(se, u)));
		}
		fputs("END\n", e->out);
	}
}

static void instance_values(struct memz_nd_emitter *e,
			    const struct memz_report_group *rg,
			    unsigned long long usec)
{
	char chart_id[MEMZ_REPORT_ID_MAX + 16];

	for (int c = 0; c < IC_N; c++) {
		snprintf(chart_id, sizeof chart_id, "grp_%s_%s", rg->id,
			 icharts[c].suffix);
		begin(e->out, chart_id, usec);
		for (size_t d = 0; d < sizeof idims / sizeof *idims; d++)
			if (idims[d].chart == (enum inst_chart)c &&
			    !isnan(idims[d].get(rg->g)))
				set(e->out, idims[d].id,
				    llround(idims[d].get(rg->g)));
		fputs("END\n", e->out);
	}
}

/* A scope's chart memz.<chart>_<id> in context memz.<chart>, its title
 * naming the scope by its label. */
static void scope_chart(struct memz_nd_emitter *e, const char *chart,
			const char *id, const char *title, const char *label,
			const char *units, int priority, const char *options)
{
	fprintf(e->out,
		"CHART memz.%s_%s '' \"%s (%s)\" \"%s\" \"oom\" \"memz.%s\" "
		"line %d %d '%s' %s %s\n",
		chart, id, title, label, units, chart, priority,
		e->update_every, options, MEMZ_ND_PLUGIN, MEMZ_ND_MODULE);
	fprintf(e->out, "CLABEL scope \"%s\" 1\nCLABEL_COMMIT\n", label);
}

/* One chart per scope and figure, as apps.plugin charts one per group:
 * a health template on the context raises one alarm per scope, and the
 * scope label says which. */
static void declare_scope(struct memz_nd_emitter *e, const char *id,
			  const char *path, double warn_s, const char *options)
{
	char label[MEMZ_REPORT_LABEL_MAX];
	const char *what = *path ? path : "machine";
	FILE *f = e->out;

	memz_sanitize_label(what, strlen(what), label, sizeof label);
	/* right after the RAM (0, 1), before the groups' charts (10 on):
	 * the forecast is what an operator looks for first */
	scope_chart(e, "time_to_oom", id,
		    "Time until memory runs out at the leaks' rate", label,
		    "seconds", MEMZ_ND_PRIORITY + 2, options);
	fprintf(f, "DIMENSION time_to_oom \"time to OOM\" absolute 1 1 \"\"\n");
	/* OomWarn exists once, in memz's settings: the shipped alarm reads
	 * it from here */
	if (!*options)
		fprintf(f, "VARIABLE CHART oom_warn = %.*f\n",
			warn_s == floor(warn_s) ? 0 : 3, warn_s);
	scope_chart(e, "oom_kills", id, "Processes the OOM killer killed",
		    label, "kills/s", MEMZ_ND_PRIORITY + 3, options);
	fprintf(f, "DIMENSION kills \"kills\" incremental 1 1 \"\"\n");
}

/* Declare the scopes netdata does not know yet; a scope that went away
 * (a cgroup removed or no longer among the tightest) is made obsolete
 * once. */
static void track_scopes(struct memz_nd_emitter *e, const struct memz_oom_view *o)
{
	for (unsigned i = 0; i < e->n_scopes; i++)
		e->scopes[i].seen = false;
	for (size_t i = 0; i < o->n_scopes; i++) {
		const struct memz_oom_scope *sc = &o->scope[i];
		unsigned j;

		for (j = 0; j < e->n_scopes; j++)
			if (!strcmp(e->scopes[j].id, sc->id))
				break;
		if (j == e->n_scopes) {
			if (j == ND_MAX_SCOPES)
				continue; /* never declared: never SET */
			snprintf(e->scopes[j].id, sizeof e->scopes[j].id, "%s",
				 sc->id);
			e->n_scopes++;
			declare_scope(e, sc->id, sc->path, sc->warn_s, "");
		}
		e->scopes[j].seen = true;
	}
	for (unsigned i = 0; i < e->n_scopes;) {
		if (e->scopes[i].seen) {
			i++;
			continue;
		}
		declare_scope(e, e->scopes[i].id, "", 0, "obsolete");
		e->scopes[i] = e->scopes[--e->n_scopes];
	}
}

static const struct memz_series *oom_series(const char *name)
{
	const struct memz_series *s = memz_series_find(&memz_series_oom, name);

	return s ? s : &memz_series_oom.s[0];
}

static bool scope_known(const struct memz_nd_emitter *e, const char *id)
{
	for (unsigned i = 0; i < e->n_scopes; i++)
		if (!strcmp(e->scopes[i].id, id))
			return true;
	return false;
}

static void begin(FILE *f, const char *id, unsigned long long usec)
{
	if (usec)
		fprintf(f, "BEGIN memz.%s %llu\n", id, usec);
	else
		fprintf(f, "BEGIN memz.%s\n", id);
}

static void set(FILE *f, const char *id, long long v)
{
	fprintf(f, "SET %s = %lld\n", id, v);
}

static void set_table(FILE *f, const struct memz_series_table *t,
		      const void *obj)
{
	for (size_t i = 0; i < t->n; i++)
		set(f, t->s[i].name, llround(memz_series_value(&t->s[i], obj)));
}

static void values(struct memz_nd_emitter *e, const struct memz_report_view *v,
		   unsigned long long usec)
{
	FILE *f = e->out;
	const struct memz_snapshot *s = v->snap;

	begin(f, "ram", usec);
	set_table(f, &memz_series_breakdown, &s->br);
	fputs("END\n", f);
	begin(f, "kernel", usec);
	set_table(f, &memz_series_kernel, &s->br);
	fputs("END\n", f);
	for (size_t c = 0; c < memz_series_group.n; c++) {
		const struct memz_series *se = &memz_series_group.s[c];

		if (!is_charted(e, c))
			continue;
		begin(f, se->chart, usec);
		for (size_t i = 0; i < v->n_groups; i++)
			if (memz_series_has(se, v->groups[i].g))
				set(f, v->groups[i].id,
				    llround(memz_series_value(se,
							      v->groups[i].g)));
		fputs("END\n", f);
	}
	for (size_t i = 0; i < v->n_groups; i++)
		instance_values(e, &v->groups[i], usec);
	if (e->users_charted)
		user_values(e, v, usec);
	begin(f, "leak_suspects", usec);
	set(f, "suspects", s->view.leak_suspects);
	fputs("END\n", f);
	begin(f, "pace", usec);
	set(f, "interval", s->interval_ms);
	fputs("END\n", f);
	for (size_t i = 0; i < s->oom.n_scopes; i++) {
		const struct memz_oom_scope *sc = &s->oom.scope[i];
		char id[MEMZ_OOM_ID_MAX + 16];
		const struct memz_series *t = oom_series("time_to_oom");

		if (!scope_known(e, sc->id))
			continue;
		/* no forecast is no SET: a gap, which no alarm reads as
		 * "0 s left" */
		snprintf(id, sizeof id, "time_to_oom_%s", sc->id);
		begin(f, id, usec);
		if (!memz_series_none(t, sc))
			set(f, "time_to_oom", llround(memz_series_value(t, sc)));
		fputs("END\n", f);
		snprintf(id, sizeof id, "oom_kills_%s", sc->id);
		begin(f, id, usec);
		set(f, "kills", (long long)sc->kills);
		fputs("END\n", f);
	}
}

unsigned memz_nd_version(const char *s)
{
	unsigned long major, minor;
	char *end;

	if (!s)
		return MEMZ_ND_V(1, 37);
	if (*s == 'v' || *s == 'V')
		s++;
	if (*s < '0' || *s > '9')
		return MEMZ_ND_V(1, 37);
	major = strtoul(s, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || major > 999)
		return MEMZ_ND_V(1, 37);
	minor = strtoul(end + 1, &end, 10);
	if (minor > 999 || MEMZ_ND_V(major, minor) < MEMZ_ND_V(1, 37))
		return MEMZ_ND_V(1, 37);
	return MEMZ_ND_V(major, minor);
}

int memz_nd_emitter_new(struct memz_nd_emitter **out, FILE *f,
			int update_every, unsigned version)
{
	struct memz_nd_emitter *e = calloc(1, sizeof *e);

	*out = NULL;
	if (!e)
		return -ENOMEM;
	if (memz_report_new(&e->report, memz_allocator_libc())) {
		free(e);
		return -ENOMEM;
	}
	e->out = f;
	e->update_every = update_every > 0 ? update_every : 1;
	e->version = version;
	*out = e;
	return 0;
}

void memz_nd_emitter_free(struct memz_nd_emitter **pe)
{
	struct memz_nd_emitter *e = *pe;

	if (!e)
		return;
	memz_report_free(&e->report);
	free(e);
	*pe = NULL;
}

int memz_nd_emit(struct memz_nd_emitter *e, const struct memz_snapshot *s,
		 unsigned long long usec)
{
	const struct memz_report_view *v;
	bool changed, fresh;
	int rc;

	rc = memz_report_update(e->report, s, &v);
	if (rc)
		return rc;
	changed = track_groups(e, v);
	fresh = chart_new_series(e, v);
	if (!e->declared)
		declare_fixed(e);
	if (!e->declared || changed || fresh) {
		declare_groups(e, !e->declared || fresh);
		declare_instances(e, !e->declared);
	}
	e->declared = true;
	if (track_users(e, v) || (!e->users_charted && v->n_users)) {
		declare_users(e, !e->users_charted);
		e->users_charted = true;
	}
	track_scopes(e, &s->oom);
	values(e, v, usec);
	if (fflush(e->out) || ferror(e->out))
		return -EIO;
	return 0;
}

int memz_nd_emit_keepalive(struct memz_nd_emitter *e,
			   const struct memz_snapshot *s,
			   unsigned long long usec)
{
	if (e->version < MEMZ_ND_V(2, 7) || !e->declared) {
		int rc = memz_nd_emit(e, s, usec);
		return rc ? rc : 1;
	}
	fputs("PLUGIN_KEEPALIVE\n", e->out);
	if (fflush(e->out) || ferror(e->out))
		return -EIO;
	return 0;
}

int memz_nd_emit_functions(FILE *out, int timeout_s)
{
	/* priority: apps.plugin's processes uses 10; memz is a narrower view */
	fprintf(out,
		"FUNCTION GLOBAL \"memz-top\" %d \"memz: process groups by PSS, with growth and leak verdicts\" \"top\" 0x%x 20\n",
		timeout_s, MEMZ_ND_FUNCTION_ACCESS);
	fprintf(out,
		"FUNCTION GLOBAL \"memz-inspect\" %d \"memz: where one process's memory is, by mapping kind\" \"top\" 0x%x 21\n",
		timeout_s, MEMZ_ND_FUNCTION_ACCESS);
	fprintf(out,
		"FUNCTION GLOBAL \"memz-oom\" %d \"memz: time to OOM per scope, and the last OOM kills named\" \"top\" 0x%x 22\n",
		timeout_s, MEMZ_ND_FUNCTION_ACCESS);
	return fflush(out) ? -EIO : 0;
}

const char *memz_nd_group_id(const struct memz_nd_emitter *e,
			     const char *name)
{
	return memz_report_id(e->report, name);
}
