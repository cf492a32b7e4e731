#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "map.h"
#include "memz/report.h"
#include "memz/sanitize.h"
#include "memz/settings.h"

static void emit1(cdm_emit_fn emit, void *ctx, const char *pi,
		  const char *type, const char *ti, double v)
{
	struct cdm_value x = { .type = type, .v = { v, 0 }, .n = 1 };

	snprintf(x.plugin_instance, sizeof x.plugin_instance, "%s", pi);
	snprintf(x.type_instance, sizeof x.type_instance, "%s", ti);
	emit(ctx, &x);
}

/* collectd's stock types (types.db), so that graphs, thresholds and
 * consumers know what a value is: bytes are "memory", shares and scores of
 * 0 to 100 "percent", a time until something runs out "timeleft", a count
 * "count", every other figure a "gauge" (a rate may be negative, which
 * memory would store as NaN; a level is no count); a group's members and
 * threads go together as "ps_count". */
static const char *type_of(enum memz_unit u)
{
	switch (u) {
	case MEMZ_UNIT_BYTES:
		return "memory";
	case MEMZ_UNIT_PERCENT:
	case MEMZ_UNIT_SCORE:
		return "percent";
	case MEMZ_UNIT_TIME_LEFT:
		return "timeleft";
	case MEMZ_UNIT_COUNT:
		return "count";
	default:
		return "gauge";
	}
}

/* A table's series as type instances, each name after prefix. */
static size_t table(cdm_emit_fn emit, void *ctx, const char *pi,
		    const char *prefix, const struct memz_series_table *t,
		    const void *obj)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct memz_series *se = &t->s[i];
		char ti[CDM_INSTANCE_MAX];

		if (se->flags & MEMZ_SERIES_DETAIL ||
		    se->unit == MEMZ_UNIT_PROCESSES ||
		    se->unit == MEMZ_UNIT_THREADS || !memz_series_has(se, obj))
			continue;
		snprintf(ti, sizeof ti, "%s%s", prefix, se->name);
		/* no value is collectd's NaN: a gap, not a number */
		emit1(emit, ctx, pi, type_of(se->unit), ti,
		      memz_series_none(se, obj) ? NAN :
						  memz_series_value(se, obj));
		n++;
	}
	return n;
}

/* A user's figures as type instances "<figure>_<user>", under "users". */
static size_t user_table(cdm_emit_fn emit, void *ctx,
			 const struct memz_user_total *u)
{
	const struct memz_series_table *t = &memz_series_user;
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct memz_series *se = &t->s[i];
		char ti[CDM_INSTANCE_MAX];

		if (se->unit != MEMZ_UNIT_BYTES)
			continue;
		snprintf(ti, sizeof ti, "%s_%s", se->name, u->name);
		emit1(emit, ctx, "users", type_of(se->unit), ti,
		      memz_series_value(se, u));
		n++;
	}
	return n;
}

static double unit_value(const struct memz_series_table *t, enum memz_unit u,
			 const void *obj)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->s[i].unit == u)
			return memz_series_value(&t->s[i], obj);
	return 0;
}

size_t cdm_report_values(const struct memz_report_view *rv, cdm_emit_fn emit,
			 void *ctx)
{
	const struct memz_snapshot *s = rv->snap;
	size_t n = table(emit, ctx, "", "", &memz_series_breakdown, &s->br);

	if (s->psi.present) {
		n += table(emit, ctx, "", "psi_some_", &memz_series_psi,
			   &s->psi.some);
		if (s->psi.has_full)
			n += table(emit, ctx, "", "psi_full_", &memz_series_psi,
				   &s->psi.full);
	}

	for (unsigned i = 0; i < s->numa.n && i < MEMZ_MAX_NODES; i++) {
		char pi[CDM_INSTANCE_MAX];
		snprintf(pi, sizeof pi, "node%d", s->numa.node[i].id);
		n += table(emit, ctx, pi, "", &memz_series_node, &s->numa.node[i]);
	}

	n += table(emit, ctx, "", "", &memz_series_counts, s);

	for (size_t i = 0; i < rv->n_groups; i++) {
		const struct memz_report_group *rg = &rv->groups[i];
		struct cdm_value pc = { .type = "ps_count", .n = 2 };

		n += table(emit, ctx, rg->id, "", &memz_series_group, rg->g);
		snprintf(pc.plugin_instance, sizeof pc.plugin_instance, "%s",
			 rg->id);
		pc.v[0] = unit_value(&memz_series_group, MEMZ_UNIT_PROCESSES,
				     rg->g);
		pc.v[1] = unit_value(&memz_series_group, MEMZ_UNIT_THREADS,
				     rg->g);
		emit(ctx, &pc);
		n++;
	}

	/* every user under one plugin instance, a type instance per figure
	 * and user ("memory-pss_alice", "ps_count-alice"): one directory
	 * whatever the users, and none of its names is one a group named
	 * "users" would write there ("memory-pss", "ps_count") */
	for (size_t i = 0; i < rv->n_users; i++) {
		const struct memz_user_total *u = rv->users[i];
		struct cdm_value pc = { .type = "ps_count", .n = 2 };

		n += user_table(emit, ctx, u);
		snprintf(pc.plugin_instance, sizeof pc.plugin_instance, "users");
		snprintf(pc.type_instance, sizeof pc.type_instance, "%s", u->name);
		pc.v[0] = unit_value(&memz_series_user, MEMZ_UNIT_PROCESSES, u);
		pc.v[1] = unit_value(&memz_series_user, MEMZ_UNIT_THREADS, u);
		emit(ctx, &pc);
		n++;
	}

	/* the machine's beside the system's figures, a cgroup's under its
	 * scope id */
	for (size_t i = 0; i < s->oom.n_scopes; i++)
		n += table(emit, ctx, i ? s->oom.scope[i].id : "", "",
			   &memz_series_oom, &s->oom.scope[i]);
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

void cdm_leakpart(const struct memz_leakpart *lp, struct cdm_notif *out)
{
	char who[CDM_INSTANCE_MAX + 32];

	memset(out, 0, sizeof *out);
	out->kind = lp->is_group ? "group" : "process";
	out->horizon = "";
	out->pid = lp->pid;
	out->parts = lp->text;
	out->over_s = lp->over_s;
	memz_sanitize_id(lp->name, strlen(lp->name), out->plugin_instance,
			 sizeof out->plugin_instance);
	memz_sanitize_label(lp->name, strlen(lp->name), out->name,
			    sizeof out->name);
	if (lp->is_group)
		snprintf(who, sizeof who, "group %s (largest member pid %d)",
			 out->name, lp->pid);
	else
		snprintf(who, sizeof who, "process %s (pid %d)", out->name,
			 lp->pid);
	/* a long list is cut here; the "parts" meta data holds it whole */
	if (snprintf(out->message, sizeof out->message,
		     "[LEAK?] %s is made of: %s (PSS change over %.0f s)", who,
		     lp->text, lp->over_s) >= (int)sizeof out->message)
		out->message[sizeof out->message - 1] = '\0';
}

/* A message cut at collectd's length, which is what a person reads
 * anyway: the figures that matter come first. */
static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* "370 MiB", "1.50 GiB": three figures at most, for a person. */
static void fmt_bytes(double b, const char *suffix, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = b;
	unsigned u = 0;

	while (fabs(v) >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, fabs(v) >= 100 ? "%.0f %s%s" :
			   fabs(v) >= 10  ? "%.1f %s%s" : "%.2f %s%s",
		 v, unit[u], suffix);
}

/* "45 s", "25 min", "7 h", "3 d": the unit a person plans in. */
static void fmt_duration(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 120 * 60)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 48 * 3600)
		snprintf(buf, len, "%.0f h", s / 3600);
	else
		snprintf(buf, len, "%.0f d", s / 86400);
}

/* out, emptied, for the scope at path (id: its instance), the machine's
 * when path is "": whether it is the machine's. */
static bool oom_notif(struct cdm_oom_notif *out, enum cdm_severity severity,
		      const char *type, const char *type_instance,
		      const char *path, const char *id)
{
	memset(out, 0, sizeof *out);
	out->severity = severity;
	out->type = type;
	out->type_instance = type_instance;
	if (!path[0]) {
		snprintf(out->scope, sizeof out->scope, "machine");
		return true;
	}
	snprintf(out->plugin_instance, sizeof out->plugin_instance, "%s", id);
	memz_sanitize_label(path, strlen(path), out->scope, sizeof out->scope);
	return false;
}

void cdm_oom_forecast(const struct memz_oom_scope *sc, struct cdm_oom_notif *out)
{
	char when[32], avail[32], rate[32], where[CDM_MESSAGE_MAX / 2 + 16];
	bool machine = oom_notif(out, sc->warn ? CDM_WARNING : CDM_OKAY,
				 "timeleft", "time_to_oom", sc->path, sc->id);

	out->seconds = sc->seconds;
	out->rate_bps = sc->growth_bps;
	out->available = (double)sc->available;
	out->confidence = sc->confidence;
	fmt_bytes((double)sc->available, "", avail, sizeof avail);
	if (machine)
		where[0] = '\0';
	else
		say(where, sizeof where, "cgroup %s: ", out->scope);
	if (!sc->warn) {
		say(out->message, sizeof out->message,
			 "[OOM] cleared: %sno longer forecast to run out of "
			 "memory; %s available",
			 where, avail);
		return;
	}
	fmt_duration(sc->seconds, when, sizeof when);
	if (sc->n_drivers) {
		const struct memz_oom_driver *d = &sc->drivers[0];

		memz_sanitize_label(d->name, strlen(d->name), out->name,
				    sizeof out->name);
		out->pid = d->pid;
		fmt_bytes(d->rate_bps, "/s", rate, sizeof rate);
		say(out->message, sizeof out->message,
			 "[OOM in %s] %s%s grows %s (%.0f%% of the growth)%s; "
			 "%s available",
			 when, where, out->name, rate, d->share * 100,
			 sc->n_drivers > 1 ? " and others" : "", avail);
	} else {
		say(out->message, sizeof out->message,
			 "[OOM in %s] %s%s available", when, where, avail);
	}
}

void cdm_alarm(const struct memz_group *g, struct cdm_oom_notif *out)
{
	const struct memz_alarm *a = &g->alarm;
	const char *name = g->name ? g->name : "";
	char when[32], room[32], rate[32];

	memset(out, 0, sizeof *out);
	out->severity = a->level >= MEMZ_ALARM_CRITICAL ? CDM_FAILURE :
			a->level >= MEMZ_ALARM_WARNING	? CDM_WARNING :
							  CDM_OKAY;
	out->type = "gauge";
	out->type_instance = "leak_alarm";
	memz_sanitize_id(name, strlen(name), out->plugin_instance,
			 sizeof out->plugin_instance);
	memz_sanitize_label(name, strlen(name), out->name, sizeof out->name);
	snprintf(out->scope, sizeof out->scope, "group");
	out->seconds = a->time_left;
	out->rate_bps = a->rate_bps;
	out->available = (double)a->headroom;
	if (out->severity == CDM_OKAY) {
		say(out->message, sizeof out->message,
		    "[LEAK] cleared: group %s no longer grows toward running "
		    "out of memory",
		    out->name);
		return;
	}
	fmt_rate(a->rate_bps, rate, sizeof rate);
	fmt_duration(a->time_left, when, sizeof when);
	fmt_bytes((double)a->headroom, "", room, sizeof room);
	say(out->message, sizeof out->message,
	    "[LEAK] group %s grows %s; at that rate memory runs out in %s "
	    "(%s left)",
	    out->name, rate, when, room);
}

void cdm_alarm_gone(const struct memz_event *e, struct cdm_oom_notif *out)
{
	const char *name = e->name ? e->name : "";

	memset(out, 0, sizeof *out);
	out->severity = CDM_OKAY;
	out->type = "gauge";
	out->type_instance = "leak_alarm";
	out->seconds = NAN;
	memz_sanitize_id(name, strlen(name), out->plugin_instance,
			 sizeof out->plugin_instance);
	memz_sanitize_label(name, strlen(name), out->name, sizeof out->name);
	snprintf(out->scope, sizeof out->scope, "group");
	say(out->message, sizeof out->message,
	    "[LEAK] cleared: group %s has no processes left", out->name);
}

void cdm_oom_kill(const struct memz_oom_kill *k, struct cdm_oom_notif *out)
{
	char where[CDM_MESSAGE_MAX / 2 + 16], pss[32], leak[48];
	bool machine = oom_notif(out, CDM_FAILURE, "count", "oom_kills", k->scope,
				 k->scope_id);

	out->known = k->known;
	out->confidence = k->sure;
	if (machine)
		say(where, sizeof where, "on the machine");
	else
		say(where, sizeof where, "in cgroup %s", out->scope);
	if (!k->known) {
		say(out->message, sizeof out->message,
			 "[OOM KILL] a process %s; which one is unknown "
			 "(no process that left fits)", where);
		return;
	}
	memz_sanitize_label(k->name, strlen(k->name), out->name,
			    sizeof out->name);
	out->pid = k->pid;
	out->pss = (double)k->pss;
	out->leak = k->leak;
	fmt_bytes((double)k->pss, "", pss, sizeof pss);
	if (k->leak)
		snprintf(leak, sizeof leak, ", leak suspect (confidence %d%%)",
			 k->leak_confidence);
	else
		leak[0] = '\0';
	say(out->message, sizeof out->message,
		 "[OOM KILL] %s (pid %d) %s: PSS %s%s; sure %d%%", out->name,
		 k->pid, where, pss, leak, k->sure);
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
