#include <math.h>
#include <string.h>

#include "memz/alarm.h"

/* A level is left only when the time left grows past this many times its
 * threshold. */
#define HYSTERESIS 2.0

void memz_alarm_init(struct memz_alarm *a)
{
	memset(a, 0, sizeof *a);
	a->time_left = NAN;
}

bool memz_alarm_sustained(const struct memz_verdict *v, double now,
			  const struct memz_settings *s)
{
	return v && v->leak && v->rate_bps > 0 &&
	       now - v->since >= s->leak_alarm_after;
}

/* The level a time left calls for, given the level held: a threshold is
 * crossed going up at itself, going down at HYSTERESIS times it. */
static uint8_t level_for(double left, uint8_t held,
			 const struct memz_settings *s)
{
	double crit = s->oom_warn, warn = s->leak_warn_time;

	if (held >= MEMZ_ALARM_CRITICAL)
		crit *= HYSTERESIS;
	if (held >= MEMZ_ALARM_WARNING)
		warn *= HYSTERESIS;
	if (left < crit)
		return MEMZ_ALARM_CRITICAL;
	if (left < warn)
		return MEMZ_ALARM_WARNING;
	return MEMZ_ALARM_NONE;
}

void memz_alarm_update(struct memz_alarm *a, const struct memz_verdict *v,
		       double now, uint64_t headroom,
		       const struct memz_settings *s)
{
	uint8_t level = MEMZ_ALARM_NONE;

	a->headroom = headroom;
	a->time_left = NAN;
	a->rate_bps = 0;
	if (memz_alarm_sustained(v, now, s)) {
		a->rate_bps = v->rate_bps;
		a->time_left = (double)headroom / v->rate_bps;
		level = level_for(a->time_left, a->level, s);
	}
	a->changed = level != a->level;
	a->level = level;
}
