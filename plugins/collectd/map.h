/*
 * map.h - the collectd adapter's translation of a snapshot, kept free of
 * collectd's headers so the unit tests (and the sanitizer builds) can check
 * every identifier, value and message without a daemon.
 *
 * memz.c is the only file that talks to collectd; it turns what these
 * functions produce into value_list_t and notification_t one to one.
 */
#ifndef MEMZ_COLLECTD_MAP_H
#define MEMZ_COLLECTD_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "memz/report.h"
#include "memz/sampler.h"

/* collectd's DATA_MAX_NAME_LEN is 128; a bounded instance keeps graphs and
 * file names readable, and the sanitiser never cuts a name mid-escape. */
#define CDM_INSTANCE_MAX 64
#define CDM_MESSAGE_MAX 256 /* NOTIF_MAX_MSG_LEN */

struct cdm_value {
	char plugin_instance[CDM_INSTANCE_MAX]; /* "" for system values */
	const char *type;                        /* stock types.db only */
	char type_instance[CDM_INSTANCE_MAX];
	double v[2];
	unsigned n; /* data sources: 1, or 2 for ps_count */
};

typedef void (*cdm_emit_fn)(void *ctx, const struct cdm_value *v);

/*
 * Every value of the report's view, in a stable order: breakdown, PSI, NUMA
 * nodes, counts, then each published group under its id (report.h decides
 * which groups and their ids, so every host agrees). Returns the number
 * emitted.
 */
size_t cdm_report_values(const struct memz_report_view *v, cdm_emit_fn emit,
			 void *ctx);

struct cdm_notif {
	bool okay; /* false: WARNING (a leak started); true: OKAY (it cleared) */
	char plugin_instance[CDM_INSTANCE_MAX];
	char message[CDM_MESSAGE_MAX];
	char name[CDM_INSTANCE_MAX]; /* label-safe name, for meta data */
	const char *kind;            /* "process" or "group" */
	const char *horizon;         /* "short" or "long" */
	int pid;                     /* 0 for a group */
	double rate_bps, r2;
	unsigned samples;
	int confidence;
	const char *parts; /* cdm_leakpart: the categories that grew, or NULL */
	double over_s;     /* cdm_leakpart: seconds between the two reads */
};

void cdm_event(const struct memz_event *e, struct cdm_notif *out);
/* What a suspect's leak is made of, as a WARNING that follows the verdict's
 * ("[LEAK?] process app (pid 7) is made of: heap +12.0 MiB, ..."). */
void cdm_leakpart(const struct memz_leakpart *lp, struct cdm_notif *out);

/*
 * Time to OOM and the OOM kill, as notifications. A forecast that falls
 * under OomWarn is a WARNING, one that clears or rises above it an OKAY
 * (type timeleft, type instance time_to_oom); a kill is a FAILURE (type
 * count, type instance oom_kills). The machine's have no plugin instance,
 * a cgroup's is its scope id. For example
 *
 *   [OOM in 25 min] memz-demo-leak grows 256 KiB/s (92% of the growth); 370 MiB available
 *   [OOM KILL] leaker (pid 4242) in cgroup /box: PSS 61.2 MiB, leak suspect (confidence 88%); sure 90%
 */
enum cdm_severity { CDM_OKAY, CDM_WARNING, CDM_FAILURE };

struct cdm_oom_notif {
	enum cdm_severity severity;
	char plugin_instance[CDM_INSTANCE_MAX];
	/* the type and type instance of the value it is about */
	const char *type, *type_instance;
	char message[CDM_MESSAGE_MAX];
	char scope[CDM_MESSAGE_MAX / 2]; /* label-safe; "machine" */
	char name[CDM_INSTANCE_MAX];     /* label-safe; the driver or victim */
	int pid;
	double seconds, rate_bps, available; /* forecasts */
	double pss;                          /* kills */
	int confidence;                      /* forecast, or how sure of a victim */
	bool known, leak;
};

void cdm_oom_forecast(const struct memz_oom_scope *sc, struct cdm_oom_notif *out);

/*
 * A group's leak alarm (alarm.h) changed level: WARNING or FAILURE as it
 * rises, OKAY when it ends (type gauge, type instance leak_alarm, the
 * group's id as plugin instance; seconds is the time left, available the
 * headroom). A suspect alone is no notification: cdm_event's message goes
 * to the log. For example
 *
 *   [LEAK] group leaky grows 256.0 KiB/s; at that rate memory runs out in 23 h (20.0 GiB left)
 */
void cdm_alarm(const struct memz_group *g, struct cdm_oom_notif *out);
/* A group that held an alarm went (e: its CLEAR, alarm_level > 0): the
 * OKAY that ends the alarm ("[LEAK] cleared: group app has no processes
 * left"). */
void cdm_alarm_gone(const struct memz_event *e, struct cdm_oom_notif *out);
void cdm_oom_kill(const struct memz_oom_kill *k, struct cdm_oom_notif *out);

/* One oconfig value as the text memz_settings_set() parses: numbers without
 * trailing zeros ("%.15g"), booleans as true/false. */
enum cdm_cfg_type { CDM_CFG_STRING, CDM_CFG_NUMBER, CDM_CFG_BOOLEAN };
int cdm_config_text(enum cdm_cfg_type type, const char *str, double num,
		    bool boolean, char *buf, size_t len);

/*
 * Which values of a <Plugin memz> line go to the settings table: values
 * [*first, *first + *count). A list setting (Process, ProcessMatch) takes
 * one or more values, each appended; every other setting exactly one.
 * ProcessMatch also takes the processes plugin's two-value form
 * `ProcessMatch "name" "regex"`: memz reports each matching group under
 * its own name, so only the regex is used and *ignored_name says so.
 * Unknown keys pass through, so the table names them in its message.
 * Returns 0, or -1 with a message naming the key in err.
 */
int cdm_config_span(const char *key, int values_num, int *first, int *count,
		    bool *ignored_name, char *err, size_t errlen);

#endif
