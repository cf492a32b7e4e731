#include <math.h>
#include <stdio.h>
#include <string.h>

#include "map.h"
#include "memz/sanitize.h"
#include "memz/settings.h"

static void emit1(cdm_emit_fn emit, void *ctx, const char *pi,
		  const char *type, const char *ti, double v)
{
	struct cdm_value x = { .type = type, .type_instance = ti,
			       .v = { v, 0 }, .n = 1 };

	snprintf(x.plugin_instance, sizeof x.plugin_instance, "%s", pi);
	emit(ctx, &x);
}

static void group_id(const struct memz_group *g, char *out, size_t len)
{
	memz_sanitize_id(g->name, strlen(g->name), out, len);
}

/* Was this sanitised name already taken by an earlier reported group? A
 * rescan needs no allocation; it is skipped while every name so far was
 * an identifier already, since distinct names that need no sanitising
 * cannot collide. */
static bool id_taken(const struct memz_table_view *v, size_t upto,
		     const char *id)
{
	char other[CDM_INSTANCE_MAX];

	for (size_t i = 0; i < upto; i++) {
		if (!v->groups[i]->reported)
			continue;
		group_id(v->groups[i], other, sizeof other);
		if (!strcmp(other, id))
			return true;
	}
	return false;
}

size_t cdm_snapshot_values(const struct memz_snapshot *s, cdm_emit_fn emit,
			   void *ctx)
{
	const struct memz_breakdown *b = &s->br;
	bool any_changed = false;
	size_t n = 0;
	static const struct {
		const char *ti;
		size_t off;
	} parts[] = {
		{ "free", offsetof(struct memz_breakdown, free) },
		{ "buffers", offsetof(struct memz_breakdown, buffers) },
		{ "cached", offsetof(struct memz_breakdown, cached) },
		{ "slab", offsetof(struct memz_breakdown, slab) },
		{ "page_tables", offsetof(struct memz_breakdown, page_tables) },
		{ "process_anon", offsetof(struct memz_breakdown, process_anon) },
		{ "hidden_anon", offsetof(struct memz_breakdown, hidden_anon) },
		{ "kernel_residual",
		  offsetof(struct memz_breakdown, kernel_residual) },
	};

	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++, n++) {
		uint64_t v;
		memcpy(&v, (const char *)b + parts[i].off, sizeof v);
		emit1(emit, ctx, "", "memory", parts[i].ti, (double)v);
	}

	if (s->psi.present) {
		const struct memz_psi_line *some = &s->psi.some, *full = &s->psi.full;
		emit1(emit, ctx, "", "percent", "psi_some_avg10", some->avg10);
		emit1(emit, ctx, "", "percent", "psi_some_avg60", some->avg60);
		emit1(emit, ctx, "", "percent", "psi_some_avg300", some->avg300);
		n += 3;
		if (s->psi.has_full) {
			emit1(emit, ctx, "", "percent", "psi_full_avg10", full->avg10);
			emit1(emit, ctx, "", "percent", "psi_full_avg60", full->avg60);
			emit1(emit, ctx, "", "percent", "psi_full_avg300",
			      full->avg300);
			n += 3;
		}
	}

	for (unsigned i = 0; i < s->numa.n && i < MEMZ_MAX_NODES; i++) {
		char pi[CDM_INSTANCE_MAX];
		snprintf(pi, sizeof pi, "node%d", s->numa.node[i].id);
		emit1(emit, ctx, pi, "memory", "used", (double)s->numa.node[i].used);
		emit1(emit, ctx, pi, "memory", "free", (double)s->numa.node[i].free);
		n += 2;
	}

	emit1(emit, ctx, "", "gauge", "leak_suspects",
	      (double)s->view.leak_suspects);
	emit1(emit, ctx, "", "gauge", "interval", s->interval_ms / 1000.0);
	n += 2;

	for (size_t i = 0; i < s->view.n_groups; i++) {
		const struct memz_group *g = s->view.groups[i];
		char id[CDM_INSTANCE_MAX];
		struct cdm_value pc = { .type = "ps_count", .type_instance = "",
					.n = 2 };
		bool changed;

		if (!g->reported)
			continue;
		group_id(g, id, sizeof id);
		changed = strcmp(id, g->name) != 0;
		if ((changed || any_changed) && id_taken(&s->view, i, id))
			continue;
		any_changed = any_changed || changed;
		emit1(emit, ctx, id, "memory", "pss", (double)g->pss);
		emit1(emit, ctx, id, "memory", "uss", (double)g->uss);
		emit1(emit, ctx, id, "memory", "rss", (double)g->rss);
		emit1(emit, ctx, id, "memory", "swap", (double)g->swap);
		emit1(emit, ctx, id, "memory", "anon", (double)g->anon);
		memcpy(pc.plugin_instance, id, sizeof id);
		pc.v[0] = g->members;
		pc.v[1] = (double)g->threads;
		emit(ctx, &pc);
		emit1(emit, ctx, id, "gauge", "growth_rate", g->det.verdict.rate_bps);
		emit1(emit, ctx, id, "gauge", "leak_confidence",
		      g->det.verdict.confidence);
		n += 8;
	}
	return n;
}

/* Rates span bytes to gigabytes per second; one unit that keeps three
 * significant digits reads better than raw B/s in a mail or a log. */
static void fmt_rate(double bps, char *buf, size_t len)
{
	static const char *const unit[] = { "B/s", "KiB/s", "MiB/s", "GiB/s" };
	double v = bps;
	unsigned u = 0;

	while (fabs(v) >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

void cdm_event(const struct memz_event *e, struct cdm_notif *out)
{
	const struct memz_verdict *v = &e->verdict;
	const char *name = e->name ? e->name : "";
	char who[CDM_INSTANCE_MAX + 32], rate[32];
	const char *unit;

	memset(out, 0, sizeof *out);
	out->okay = e->kind == MEMZ_EVENT_CLEAR;
	/* a group event of a group with one member is that process's leak:
	 * the core gives its pid, and the message names it as a process */
	out->kind = e->is_group && !e->pid ? "group" : "process";
	out->horizon = v->horizon == MEMZ_HORIZON_LONG ? "long" : "short";
	out->pid = e->pid;
	out->rate_bps = v->rate_bps;
	out->r2 = v->r2;
	out->samples = v->samples;
	out->confidence = v->confidence;
	memz_sanitize_id(name, strlen(name), out->plugin_instance,
			 sizeof out->plugin_instance);
	memz_sanitize_label(name, strlen(name), out->name, sizeof out->name);

	if (e->is_group && !e->pid)
		snprintf(who, sizeof who, "group %s", out->name);
	else
		snprintf(who, sizeof who, "process %s (pid %d)", out->name,
			 e->pid);
	fmt_rate(v->rate_bps, rate, sizeof rate);
	unit = v->horizon == MEMZ_HORIZON_LONG ? "buckets" : "samples";
	if (out->okay)
		snprintf(out->message, sizeof out->message,
			 "[LEAK?] cleared: %s is no longer flagged "
			 "(last rate %s, R^2 %.2f over %u %s)",
			 who, rate, v->r2, v->samples, unit);
	else
		snprintf(out->message, sizeof out->message,
			 "[LEAK?] %s grows %s, R^2 %.2f over %u %s, "
			 "confidence %d%%",
			 who, rate, v->r2, v->samples, unit, v->confidence);
}

int cdm_config_text(enum cdm_cfg_type type, const char *str, double num,
		    bool boolean, char *buf, size_t len)
{
	int n;

	switch (type) {
	case CDM_CFG_STRING:
		n = snprintf(buf, len, "%s", str ? str : "");
		break;
	case CDM_CFG_NUMBER:
		n = snprintf(buf, len, "%.15g", num);
		break;
	case CDM_CFG_BOOLEAN:
		n = snprintf(buf, len, "%s", boolean ? "true" : "false");
		break;
	default:
		return -1;
	}
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

int cdm_config_span(const char *key, int values_num, int *first, int *count,
		    bool *ignored_name, char *err, size_t errlen)
{
	const struct memz_setting_desc *d = memz_setting_find(key);

	*first = 0;
	*count = values_num;
	*ignored_name = false;
	if (!d)
		return 0;
	if (d->type == MEMZ_SETTING_REGEX_LIST && values_num == 2) {
		*first = 1;
		*count = 1;
		*ignored_name = true;
		return 0;
	}
	if (d->type == MEMZ_SETTING_REGEX_LIST && values_num > 2) {
		snprintf(err, errlen,
			 "%s: takes a regex, or a name and a regex, got %d values",
			 d->name, values_num);
		return -1;
	}
	if (d->type != MEMZ_SETTING_LIST && d->type != MEMZ_SETTING_REGEX_LIST &&
	    values_num != 1) {
		snprintf(err, errlen, "%s: takes exactly one value, got %d",
			 d->name, values_num);
		return -1;
	}
	return 0;
}

void cdm_clock_init(struct cdm_clock *c, double tick, double dispatch_interval)
{
	memset(c, 0, sizeof *c);
	c->tick = tick;
	c->dispatch_interval = dispatch_interval;
}

bool cdm_sample_due(const struct cdm_clock *c, double now)
{
	return !c->started || now >= c->next_sample - c->tick / 2;
}

void cdm_sampled(struct cdm_clock *c, double now, unsigned interval_ms)
{
	c->started = true;
	c->next_sample = now + interval_ms / 1000.0;
}

bool cdm_dispatch_due(const struct cdm_clock *c, double now)
{
	if (!c->started)
		return false;
	return !c->dispatched || now >= c->next_dispatch - c->tick / 2;
}

void cdm_dispatched(struct cdm_clock *c, double now)
{
	/* Stay on the grid the first dispatch set, so the interval does not
	 * drift by the callback's lateness; after a stall, start afresh. */
	if (!c->dispatched) {
		c->dispatched = true;
		c->next_dispatch = now;
	}
	c->next_dispatch += c->dispatch_interval;
	if (c->next_dispatch < now)
		c->next_dispatch = now + c->dispatch_interval;
}
