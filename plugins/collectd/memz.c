/*
 * memz.c - the collectd read plugin: the only file that speaks collectd.
 *
 * Settings go through the core's table; the snapshot becomes values and
 * notifications through map.c. The read callback runs every tick (at most
 * 500 ms) and decides itself whether a sample (the pace's interval) and a
 * dispatch (the plugin's configured interval) are due, because collectd
 * reads one callback at one fixed interval and the pace changes at run time.
 */
#include "core/daemon/collectd.h"
#include "core/daemon/plugin.h"
#include "core/utils/common/common.h"

#include "map.h"
#include "memz/alloc.h"
#include "memz/privilege.h"
#include "memz/report.h"
#include "memz/sampler.h"
#include "memz/settings.h"

#define PLUGIN "memz"
#define TICK_MAX_S 0.5

/* collectd loads a plugin once per daemon, so its state is the module's. */
static struct memz_settings settings;
static bool settings_ready;
static struct memz_sampler *sampler;
static struct memz_snapshot snap;
static bool have_snap;
static struct memz_report *report;
static struct memz_clock clk;
static cdtime_t dispatch_interval;
static bool told_denied;
static bool notify_pending; /* the first sample's, taken by init */

/* Once per daemon: a collectd started unprivileged cannot read other
 * users' processes; say which ones are missing and the fix, then go on
 * with what it can read. */
static void tell_denied(unsigned denied)
{
	struct memz_caps c;
	char missing[64];

	if (told_denied || !denied || memz_caps_get(&c) ||
	    !memz_priv_missing(c.effective, missing, sizeof missing))
		return;
	told_denied = true;
	WARNING(PLUGIN " plugin: cannot read %u processes of other users "
		"(collectd runs as uid %u without %s); their memory is "
		"reported as hidden_anon. Fix: start collectd as root, as "
		"Debian's collectd.service does", denied, (unsigned)getuid(),
		missing);
}

static void ensure_settings(void)
{
	if (!settings_ready) {
		memz_settings_init(&settings);
		settings_ready = true;
	}
}

static int config_value(const oconfig_item_t *c, const oconfig_value_t *v)
{
	char text[MEMZ_PATH_MAX], err[1536];
	int rc;

	/* Read only the union member oconfig says the value holds. */
	if (!v)
		rc = cdm_config_text(CDM_CFG_STRING, "", 0, false, text,
				     sizeof text);
	else if (v->type == OCONFIG_TYPE_NUMBER)
		rc = cdm_config_text(CDM_CFG_NUMBER, NULL, v->value.number,
				     false, text, sizeof text);
	else if (v->type == OCONFIG_TYPE_BOOLEAN)
		rc = cdm_config_text(CDM_CFG_BOOLEAN, NULL, 0,
				     v->value.boolean != 0, text, sizeof text);
	else
		rc = cdm_config_text(CDM_CFG_STRING, v->value.string, 0, false,
				     text, sizeof text);
	if (rc) {
		ERROR(PLUGIN " plugin: %s: value is longer than %zu bytes",
		      c->key, sizeof text - 1);
		return -1;
	}
	if (memz_settings_set(&settings, c->key, text, err, sizeof err)) {
		ERROR(PLUGIN " plugin: %s", err);
		return -1;
	}
	return 0;
}

static int memz_config(oconfig_item_t *ci)
{
	ensure_settings();
	for (int i = 0; i < ci->children_num; i++) {
		const oconfig_item_t *c = ci->children + i;
		int first, count;
		bool ignored_name;
		char err[256];

		if (c->children_num > 0) {
			ERROR(PLUGIN " plugin: %s: a block is not allowed here "
			      "(one value per line)", c->key);
			return -1;
		}
		if (cdm_config_span(c->key, c->values_num, &first, &count,
				    &ignored_name, err, sizeof err)) {
			ERROR(PLUGIN " plugin: %s", err);
			return -1;
		}
		if (ignored_name && c->values[0].type == OCONFIG_TYPE_STRING)
			INFO(PLUGIN " plugin: %s \"%s\": memz reports each "
			     "matching group under its own name; the name is "
			     "not used", c->key, c->values[0].value.string);
		/* An empty line still goes through the table, so its message
		 * is the one every host prints. */
		if (count == 0) {
			if (config_value(c, NULL))
				return -1;
			continue;
		}
		for (int j = first; j < first + count; j++)
			if (config_value(c, c->values + j))
				return -1;
	}
	return 0;
}

/* What every memz notification shares: who sends it, about what, now. */
static void notif_head(notification_t *n, int severity, const char *pi,
		       const char *type, const char *ti, const char *message)
{
	memset(n, 0, sizeof *n);
	n->severity = severity;
	n->time = cdtime();
	sstrncpy(n->host, hostname_g, sizeof n->host);
	sstrncpy(n->plugin, PLUGIN, sizeof n->plugin);
	sstrncpy(n->plugin_instance, pi, sizeof n->plugin_instance);
	sstrncpy(n->type, type, sizeof n->type);
	sstrncpy(n->type_instance, ti, sizeof n->type_instance);
	sstrncpy(n->message, message, sizeof n->message);
}

/* A suspect, and what it is made of, is for whoever reads the log (Debian's
 * collectd logs INFO to syslog); only an alarm is a notification. */
static void log_suspect(const struct memz_event *e)
{
	struct cdm_notif m;

	cdm_event(e, &m);
	INFO(PLUGIN " plugin: %s", m.message);
}

static void log_parts(const struct memz_leakpart *lp)
{
	struct cdm_notif m;

	cdm_leakpart(lp, &m);
	INFO(PLUGIN " plugin: %s", m.message);
}

static void notify_oom(const struct cdm_oom_notif *m)
{
	notification_t n;

	notif_head(&n, m->severity == CDM_OKAY    ? NOTIF_OKAY :
		       m->severity == CDM_FAILURE ? NOTIF_FAILURE : NOTIF_WARNING,
		   m->plugin_instance, m->type, m->type_instance, m->message);
	plugin_notification_meta_add_string(&n, "scope", m->scope);
	plugin_notification_meta_add_string(&n, "name", m->name);
	plugin_notification_meta_add_signed_int(&n, "pid", m->pid);
	plugin_notification_meta_add_signed_int(&n, "confidence", m->confidence);
	if (m->severity == CDM_FAILURE) {
		plugin_notification_meta_add_boolean(&n, "known", m->known);
		plugin_notification_meta_add_boolean(&n, "leak", m->leak);
		plugin_notification_meta_add_double(&n, "pss", m->pss);
	} else {
		plugin_notification_meta_add_double(&n, "seconds", m->seconds);
		plugin_notification_meta_add_double(&n, "rate_bps", m->rate_bps);
		plugin_notification_meta_add_double(&n, "available", m->available);
	}
	plugin_dispatch_notification(&n);
	plugin_notification_meta_free(n.meta);
}

static void notify_oom_all(const struct memz_oom_view *o)
{
	struct cdm_oom_notif m;

	for (size_t i = 0; i < o->n_scopes; i++)
		if (o->scope[i].warn_changed) {
			cdm_oom_forecast(&o->scope[i], &m);
			notify_oom(&m);
		}
	for (size_t i = o->new_kills; i-- > 0;) {
		cdm_oom_kill(&o->kill[i], &m);
		notify_oom(&m);
	}
}

/* An alarm is a notification, and a log line too: Debian's collectd.conf
 * loads syslog without a NotifyLevel for notifications, and an operator
 * reads syslog. */
static void notify_alarm(const struct cdm_oom_notif *m)
{
	notification_t n;

	/* a critical alarm logs as a warning too: collectd's errors are
	 * the plugin's own faults */
	if (m->severity == CDM_OKAY)
		INFO(PLUGIN " plugin: %s", m->message);
	else
		WARNING(PLUGIN " plugin: %s", m->message);
	notif_head(&n, m->severity == CDM_OKAY	   ? NOTIF_OKAY :
		       m->severity == CDM_FAILURE ? NOTIF_FAILURE :
						    NOTIF_WARNING,
		   m->plugin_instance, m->type, m->type_instance, m->message);
	plugin_notification_meta_add_string(&n, "name", m->name);
	plugin_notification_meta_add_double(&n, "rate_bps", m->rate_bps);
	plugin_notification_meta_add_double(&n, "seconds", m->seconds);
	plugin_notification_meta_add_double(&n, "available", m->available);
	plugin_dispatch_notification(&n);
	plugin_notification_meta_free(n.meta);
}

static void notify_alarms(const struct memz_table_view *v)
{
	struct cdm_oom_notif m;

	for (size_t i = 0; i < v->n_groups; i++)
		if (v->groups[i]->alarm.changed) {
			cdm_alarm(v->groups[i], &m);
			notify_alarm(&m);
		}
	for (size_t i = 0; i < v->n_events; i++)
		if (v->events[i].alarm_level) {
			cdm_alarm_gone(&v->events[i], &m);
			notify_alarm(&m);
		}
}

struct dispatch_ctx {
	cdtime_t time;
};

static void dispatch_one(void *ctx, const struct cdm_value *v)
{
	const struct dispatch_ctx *d = ctx;
	value_list_t vl = VALUE_LIST_INIT;
	value_t vals[2];

	for (unsigned i = 0; i < v->n && i < 2; i++)
		vals[i].gauge = v->v[i];
	vl.values = vals;
	vl.values_len = v->n;
	vl.time = d->time;
	vl.interval = dispatch_interval;
	sstrncpy(vl.plugin, PLUGIN, sizeof vl.plugin);
	sstrncpy(vl.plugin_instance, v->plugin_instance,
		 sizeof vl.plugin_instance);
	sstrncpy(vl.type, v->type, sizeof vl.type);
	sstrncpy(vl.type_instance, v->type_instance, sizeof vl.type_instance);
	plugin_dispatch_values(&vl);
}

/* A sample taken at now: what it found out goes out as notifications at
 * once, or, for init's, at the first read. */
static void sampled(double now)
{
	have_snap = true;
	tell_denied(snap.stats.denied);
	memz_clock_sampled(&clk, now, snap.interval_ms);
}

static void notify_all(void)
{
	for (size_t i = 0; i < snap.view.n_events; i++)
		log_suspect(&snap.view.events[i]);
	for (size_t i = 0; i < snap.n_leak_parts; i++)
		log_parts(&snap.leak_parts[i]);
	notify_alarms(&snap.view);
	notify_oom_all(&snap.oom);
}

static int memz_read(user_data_t *ud)
{
	double now = memz_now();

	(void)ud;
	if (notify_pending) {
		notify_all();
		notify_pending = false;
	}
	if (memz_clock_sample_due(&clk, now)) {
		int rc = memz_sampler_run(sampler, now, &snap);
		if (rc < 0) {
			ERROR(PLUGIN " plugin: sampling failed: %s: %s",
			      snap.stats.failed_path ? snap.stats.failed_path
						     : settings.proc_root,
			      STRERROR(-rc));
			return -1;
		}
		sampled(now);
		notify_all();
	}
	/* Values carry the time they go out, which a sample may have pushed
	 * past `now`. */
	now = memz_now();
	if (have_snap && memz_clock_publish_due(&clk, now)) {
		struct dispatch_ctx d = { .time = cdtime() };
		const struct memz_report_view *v;
		/* out of memory for a new name: the groups that fitted go out */
		if (memz_report_update(report, &snap, &v))
			WARNING(PLUGIN " plugin: out of memory naming groups");
		cdm_report_values(v, dispatch_one, &d);
		memz_clock_published(&clk, now);
	}
	return 0;
}

/*
 * The first sample reads every process exactly (about 0.15 ms each: a
 * second for 6000), and collectd warns of any read callback that takes
 * longer than the interval it was registered with, the tick, advising an
 * operator to change Interval or ReadThreads, which would not help. So the
 * first sample is taken here, where collectd times nothing; later cycles
 * read exactly only what changed or aged, spread within the CPU budget.
 * One that fails is retried by the read callback, as every later one is.
 */
static void first_sample(void)
{
	double t0 = memz_now();
	int rc = memz_sampler_run(sampler, t0, &snap);

	if (rc < 0) {
		WARNING(PLUGIN " plugin: first sample failed: %s: %s",
			snap.stats.failed_path ? snap.stats.failed_path
					       : settings.proc_root,
			STRERROR(-rc));
		return;
	}
	sampled(t0);
	notify_pending = true;
	INFO(PLUGIN " plugin: first sample: %u processes read in %.3f s",
	     snap.stats.seen, memz_now() - t0);
}

static int memz_shutdown(void)
{
	memz_snapshot_release(&snap);
	memz_sampler_free(&sampler);
	memz_report_free(&report);
	have_snap = false;
	notify_pending = false;
	return 0;
}

static int memz_init(void)
{
	double interval, tick;
	char failed[PATH_MAX + 128];
	int rc;

	ensure_settings();
	dispatch_interval = plugin_get_interval();
	interval = CDTIME_T_TO_DOUBLE(dispatch_interval);
	tick = interval < TICK_MAX_S ? interval : TICK_MAX_S;

	memz_snapshot_init(&snap);
	rc = memz_sampler_open(&sampler, &settings, memz_allocator_libc(),
			       failed, sizeof failed);
	if (rc < 0) {
		ERROR(PLUGIN " plugin: cannot start sampling: %s: %s",
		      *failed ? failed : settings.proc_root, STRERROR(-rc));
		memz_shutdown();
		return -1;
	}
	rc = memz_report_new(&report, memz_allocator_libc());
	if (rc < 0) {
		ERROR(PLUGIN " plugin: out of memory");
		memz_shutdown();
		return -1;
	}
	memz_clock_init(&clk, tick, interval);
	first_sample();
	rc = plugin_register_complex_read(NULL, PLUGIN, memz_read,
					  DOUBLE_TO_CDTIME_T(tick), NULL);
	if (rc) {
		ERROR(PLUGIN " plugin: cannot register the read callback");
		memz_shutdown();
		return -1;
	}
	INFO(PLUGIN " plugin: reading %s, dispatching every %.3g s",
	     settings.proc_root, interval);
	return 0;
}

void module_register(void)
{
	plugin_register_complex_config(PLUGIN, memz_config);
	plugin_register_init(PLUGIN, memz_init);
	plugin_register_shutdown(PLUGIN, memz_shutdown);
}
