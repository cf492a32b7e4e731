#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memz/sanitize.h"
#include "emit.h"

#define MIB 1048576
#define ID_MAX 96
#define LABEL_MAX 96

enum dim_state { DIM_NEW, DIM_ACTIVE, DIM_OBSOLETE };

struct known {
	char *name; /* raw group name, the key */
	char id[ID_MAX];
	char label[LABEL_MAX];
	enum dim_state state;
	bool changed;       /* needs a DIMENSION line this cycle */
	unsigned long seen; /* cycle it was last charted */
	const struct memz_group *g; /* this cycle's record, or NULL */
};

struct memz_nd_emitter {
	FILE *out;
	int update_every;
	unsigned long cycle;
	bool declared; /* the fixed charts went out */
	struct known *k;
	size_t n, cap;
};

/* The per-group charts share one set of dimensions. */
enum group_chart { GC_PSS, GC_USS, GC_SWAP, GC_GROWTH, GC_LEAKS, GC_N };

static const struct {
	const char *id, *title, *units, *family, *type;
	long mul, div;
	int prio;
} gcharts[GC_N] = {
	[GC_PSS] = { "group_pss", "Proportional set size (PSS) per process group",
		     "MiB", "groups", "stacked", 1, MIB, 10 },
	[GC_USS] = { "group_uss",
		     "Unique set size (USS, freed if the group exited) per process group",
		     "MiB", "groups", "stacked", 1, MIB, 11 },
	[GC_SWAP] = { "group_swap", "Swap used per process group", "MiB",
		      "groups", "stacked", 1, MIB, 12 },
	[GC_GROWTH] = { "group_growth", "PSS growth rate per process group",
			"KiB/s", "leaks", "line", 1, 1024, 20 },
	[GC_LEAKS] = { "leaks",
		       "Process groups flagged as leaking (1 = suspect)",
		       "suspect", "leaks", "line", 1, 1, 21 },
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

static const char *const ram_dims[] = { "free", "buffers", "cached", "slab",
					"page_tables", "process_anon",
					"hidden_anon", "kernel_residual" };
static const char *const kernel_dims[] = { "kernel_residual", "kernel_stack",
					   "vmalloc_used", "percpu" };

static void declare_fixed(struct memz_nd_emitter *e)
{
	FILE *f = e->out;

	chart(f, "ram", "Where the RAM went (parts add up to MemTotal)", "MiB",
	      "ram", "stacked", 0, e->update_every);
	for (size_t i = 0; i < sizeof ram_dims / sizeof *ram_dims; i++)
		dim(f, ram_dims[i], ram_dims[i], 1, MIB, "");
	chart(f, "kernel", "Kernel memory no process owns", "MiB", "ram",
	      "stacked", 1, e->update_every);
	for (size_t i = 0; i < sizeof kernel_dims / sizeof *kernel_dims; i++)
		dim(f, kernel_dims[i], kernel_dims[i], 1, MIB, "");
	chart(f, "leak_suspects", "Processes and groups flagged as leaking",
	      "suspects", "leaks", "line", 22, e->update_every);
	dim(f, "suspects", "suspects", 1, 1, "");
	chart(f, "pace", "memz sampling interval", "ms", "memz", "line", 30,
	      e->update_every);
	dim(f, "interval", "interval", 1, 1, "");
}

static struct known *find(struct memz_nd_emitter *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->k[i].name, name))
			return &e->k[i];
	return NULL;
}

static bool id_taken(const struct memz_nd_emitter *e, const char *id)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->k[i].id, id))
			return true;
	return false;
}

static bool label_taken(const struct memz_nd_emitter *e, const char *label)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->k[i].label, label))
			return true;
	return false;
}

/* Append "_N" (ids) or " #N" (labels) until nothing else has it, keeping the
 * result inside its buffer by cutting the base. */
static void make_unique(const struct memz_nd_emitter *e, char *buf,
			size_t size, const char *fmt,
			bool (*taken)(const struct memz_nd_emitter *,
				      const char *))
{
	char base[ID_MAX > LABEL_MAX ? ID_MAX : LABEL_MAX];

	if (!taken(e, buf))
		return;
	snprintf(base, sizeof base, "%s", buf);
	for (unsigned n = 2;; n++) {
		char suffix[16];
		int sl = snprintf(suffix, sizeof suffix, fmt, n);
		size_t keep = strlen(base);

		if (keep + (size_t)sl >= size)
			keep = size - 1 - (size_t)sl;
		/* never cut inside a UTF-8 sequence */
		while (keep && ((unsigned char)base[keep] & 0xc0) == 0x80)
			keep--;
		snprintf(buf, size, "%.*s%s", (int)keep, base, suffix);
		if (!taken(e, buf))
			return;
	}
}

/* Forget the obsolete entry charted longest ago, to make room. */
static bool evict(struct memz_nd_emitter *e)
{
	size_t best = e->n;

	for (size_t i = 0; i < e->n; i++)
		if (e->k[i].state == DIM_OBSOLETE &&
		    (best == e->n || e->k[i].seen < e->k[best].seen))
			best = i;
	if (best == e->n)
		return false;
	free(e->k[best].name);
	e->k[best] = e->k[--e->n];
	return true;
}

static struct known *add(struct memz_nd_emitter *e, const char *name)
{
	struct known *k;
	size_t len = strlen(name);

	if (e->n >= MEMZ_ND_MAX_KNOWN && !evict(e))
		return NULL;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16;
		struct known *nk = realloc(e->k, cap * sizeof *nk);
		if (!nk)
			return NULL;
		e->k = nk;
		e->cap = cap;
	}
	k = &e->k[e->n];
	memset(k, 0, sizeof *k);
	k->name = malloc(len + 1);
	if (!k->name)
		return NULL;
	memcpy(k->name, name, len + 1);
	memz_sanitize_id(name, len, k->id, sizeof k->id);
	memz_sanitize_label(name, len, k->label, sizeof k->label);
	make_unique(e, k->id, sizeof k->id, "_%u", id_taken);
	make_unique(e, k->label, sizeof k->label, " #%u", label_taken);
	k->state = DIM_NEW;
	e->n++;
	return k;
}

static bool charted(const struct memz_group *g)
{
	return g->reported || g->det.verdict.leak;
}

/* Match this cycle's groups to known dimensions; returns whether any
 * dimension appeared, came back or vanished. */
static int track_groups(struct memz_nd_emitter *e,
			const struct memz_snapshot *s, bool *changed)
{
	*changed = false;
	for (size_t i = 0; i < e->n; i++) {
		e->k[i].g = NULL;
		e->k[i].changed = false;
	}
	for (size_t i = 0; i < s->view.n_groups; i++) {
		const struct memz_group *g = s->view.groups[i];
		struct known *k;

		if (!charted(g))
			continue;
		k = find(e, g->name ? g->name : "");
		if (!k && !(k = add(e, g->name ? g->name : "")))
			return -ENOMEM;
		if (k->g)
			continue; /* the core handed the same name twice */
		k->g = g;
		k->seen = e->cycle;
		if (k->state != DIM_ACTIVE) {
			k->state = DIM_ACTIVE;
			k->changed = *changed = true;
		}
	}
	for (size_t i = 0; i < e->n; i++) {
		struct known *k = &e->k[i];
		if (k->state == DIM_ACTIVE && !k->g) {
			k->state = DIM_OBSOLETE;
			k->changed = *changed = true;
		}
	}
	return 0;
}

static void declare_groups(struct memz_nd_emitter *e, bool all)
{
	for (int c = 0; c < GC_N; c++) {
		chart(e->out, gcharts[c].id, gcharts[c].title, gcharts[c].units,
		      gcharts[c].family, gcharts[c].type, gcharts[c].prio,
		      e->update_every);
		for (size_t i = 0; i < e->n; i++) {
			const struct known *k = &e->k[i];
			if (!k->changed && !(all && k->state == DIM_ACTIVE))
				continue;
			dim(e->out, k->id, k->label, gcharts[c].mul,
			    gcharts[c].div,
			    k->state == DIM_ACTIVE ? "" : "obsolete hidden");
		}
	}
}

static long long group_value(enum group_chart c, const struct memz_group *g)
{
	switch (c) {
	case GC_PSS: return (long long)g->pss;
	case GC_USS: return (long long)g->uss;
	case GC_SWAP: return (long long)g->swap;
	case GC_GROWTH:
		return isfinite(g->det.verdict.rate_bps)
			       ? llround(g->det.verdict.rate_bps) : 0;
	case GC_LEAKS: return g->det.verdict.leak ? 1 : 0;
	case GC_N: break;
	}
	return 0;
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

static void values(struct memz_nd_emitter *e, const struct memz_snapshot *s,
		   unsigned long long usec)
{
	FILE *f = e->out;
	const struct memz_breakdown *b = &s->br;
	const uint64_t ram[] = { b->free, b->buffers, b->cached, b->slab,
				 b->page_tables, b->process_anon,
				 b->hidden_anon, b->kernel_residual };
	const uint64_t kern[] = { b->kernel_residual, b->kernel_stack,
				  b->vmalloc_used, b->percpu };

	begin(f, "ram", usec);
	for (size_t i = 0; i < sizeof ram / sizeof *ram; i++)
		set(f, ram_dims[i], (long long)ram[i]);
	fputs("END\n", f);
	begin(f, "kernel", usec);
	for (size_t i = 0; i < sizeof kern / sizeof *kern; i++)
		set(f, kernel_dims[i], (long long)kern[i]);
	fputs("END\n", f);
	for (int c = 0; c < GC_N; c++) {
		begin(f, gcharts[c].id, usec);
		for (size_t i = 0; i < e->n; i++)
			if (e->k[i].g)
				set(f, e->k[i].id,
				    group_value((enum group_chart)c, e->k[i].g));
		fputs("END\n", f);
	}
	begin(f, "leak_suspects", usec);
	set(f, "suspects", s->view.leak_suspects);
	fputs("END\n", f);
	begin(f, "pace", usec);
	set(f, "interval", s->interval_ms);
	fputs("END\n", f);
}

int memz_nd_emitter_new(struct memz_nd_emitter **out, FILE *f,
			int update_every)
{
	struct memz_nd_emitter *e = calloc(1, sizeof *e);

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->out = f;
	e->update_every = update_every > 0 ? update_every : 1;
	*out = e;
	return 0;
}

void memz_nd_emitter_free(struct memz_nd_emitter **pe)
{
	struct memz_nd_emitter *e = *pe;

	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		free(e->k[i].name);
	free(e->k);
	free(e);
	*pe = NULL;
}

int memz_nd_emit(struct memz_nd_emitter *e, const struct memz_snapshot *s,
		 unsigned long long usec)
{
	bool changed;
	int rc;

	e->cycle++;
	rc = track_groups(e, s, &changed);
	if (rc)
		return rc;
	if (!e->declared)
		declare_fixed(e);
	if (!e->declared || changed)
		declare_groups(e, !e->declared);
	e->declared = true;
	values(e, s, usec);
	if (fflush(e->out) || ferror(e->out))
		return -EIO;
	return 0;
}

int memz_nd_emit_functions(FILE *out, int timeout_s)
{
	fprintf(out,
		"FUNCTION GLOBAL \"memz-top\" %d \"memz process groups by PSS with growth and leak verdicts\"\n",
		timeout_s);
	fprintf(out,
		"FUNCTION GLOBAL \"memz-inspect\" %d \"memz figures of one process: memz-inspect PID\"\n",
		timeout_s);
	return fflush(out) ? -EIO : 0;
}

const char *memz_nd_group_id(const struct memz_nd_emitter *e,
			     const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->k[i].name, name))
			return e->k[i].id;
	return NULL;
}
