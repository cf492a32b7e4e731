/*
 * alarm.h - whether a leak suspect is worth an operator's alarm.
 *
 * A suspect (a standing verdict) shows at once in `memz top`, the JSON and
 * the charts. A host alarm (netdata's WARNING or CRITICAL, a collectd
 * notification) is raised only for growth that is sustained and will hurt:
 *
 *   sustained  the verdict has stood for LeakAlarmAfter (a warm-up that
 *              looked like a leak for half a minute raises none);
 *   will hurt  at the verdict's rate, the memory that limits the series
 *              (headroom: its memory cgroup's room when that is watched
 *              and tighter, else MemAvailable + SwapFree; oom.h) runs out
 *              within LeakWarnTime (WARNING) or within OomWarn (CRITICAL).
 *
 * So the severity follows the time left. Hysteresis, as netdata's stock
 * alarms have it: a level is left only when the time left has grown past
 * twice its threshold, or at once when the verdict clears, so a rate that
 * wavers about a threshold does not flap. netdata's `delay:` lines then
 * hold a notification back, as for any alarm.
 *
 * Pure: one series' state, updated once a cycle by its owner (the sampler,
 * for every group); no allocation.
 */
#ifndef MEMZ_ALARM_H
#define MEMZ_ALARM_H

#include <stdbool.h>
#include <stdint.h>

#include "memz/detector.h"
#include "memz/settings.h"

enum memz_alarm_level {
	MEMZ_ALARM_NONE,
	MEMZ_ALARM_WARNING,
	MEMZ_ALARM_CRITICAL,
};

struct memz_alarm {
	double time_left; /* s until the headroom is gone; NAN: no sustained
			   * verdict, or nothing limits it */
	uint64_t headroom; /* bytes it may still grow, as given */
	double rate_bps;   /* the growth judged: the verdict's rate, 0 with
			    * no sustained verdict */
	uint8_t level;     /* enum memz_alarm_level */
	bool changed;      /* level changed this cycle: a host notifies */
};

/* No alarm. */
void memz_alarm_init(struct memz_alarm *a);

/*
 * One cycle at time now: v is the verdict the alarm is about (NULL or not
 * a leak: none), headroom the bytes it may grow before memory runs out.
 * Sets time_left, level and changed.
 */
void memz_alarm_update(struct memz_alarm *a, const struct memz_verdict *v,
		       double now, uint64_t headroom,
		       const struct memz_settings *s);

/* Whether a verdict has stood long enough to count as sustained growth:
 * the time-to-OOM forecast sums only those (oom.h). */
bool memz_alarm_sustained(const struct memz_verdict *v, double now,
			  const struct memz_settings *s);

#endif
