/*
 * test_alarm.c - a leak suspect raises a host alarm only when its growth
 * is sustained and will hurt, with a severity that follows the time left
 * and hysteresis about each threshold.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "memz/alarm.h"

#define GiB (1024.0 * 1024 * 1024)

static struct memz_verdict leak(double since, double rate)
{
	struct memz_verdict v;

	memset(&v, 0, sizeof v);
	v.leak = true;
	v.since = since;
	v.rate_bps = rate;
	return v;
}

static void sustained_and_hurting(void)
{
	struct memz_settings s;
	struct memz_alarm a;
	struct memz_verdict v = leak(100, 256 * 1024);

	memz_settings_init(&s);
	memz_alarm_init(&a);
	CHECK(isnan(a.time_left));
	CHECK_INT(a.level, MEMZ_ALARM_NONE);

	/* a suspect for 90 s: shown, not alarmed (LeakAlarmAfter 120) */
	memz_alarm_update(&a, &v, 190, (uint64_t)(20 * GiB), &s);
	CHECK_INT(a.level, MEMZ_ALARM_NONE);
	CHECK(!a.changed);
	CHECK(isnan(a.time_left));
	CHECK(!memz_alarm_sustained(&v, 190, &s));
	/* sustained: 20 GiB at 256 KiB/s is 22.8 h, under two days:
	 * WARNING */
	memz_alarm_update(&a, &v, 220, (uint64_t)(20 * GiB), &s);
	CHECK(memz_alarm_sustained(&v, 220, &s));
	CHECK_INT(a.level, MEMZ_ALARM_WARNING);
	CHECK(a.changed);
	CHECK_NEAR(a.time_left, 20 * GiB / (256 * 1024), 1e-6);
	CHECK_NEAR(a.rate_bps, 256 * 1024, 1e-9);
	memz_alarm_update(&a, &v, 221, (uint64_t)(20 * GiB), &s);
	CHECK(!a.changed);
	/* under OomWarn (1 h) left: CRITICAL */
	memz_alarm_update(&a, &v, 222, (uint64_t)(512 * 1024 * 1024.0), &s);
	CHECK_INT(a.level, MEMZ_ALARM_CRITICAL);
	CHECK(a.changed);
	/* the verdict clears: no alarm, at once */
	v.leak = false;
	memz_alarm_update(&a, &v, 223, (uint64_t)(512 * 1024 * 1024.0), &s);
	CHECK_INT(a.level, MEMZ_ALARM_NONE);
	CHECK(a.changed);
	CHECK(isnan(a.time_left));
	CHECK_NEAR(a.rate_bps, 0, 1e-9);
	memz_alarm_update(&a, NULL, 224, 0, &s);
	CHECK(!a.changed);
}

/* A slow leak with plenty of room is a suspect, never an alarm: 1 KiB/s
 * against 20 GiB is 243 days. */
static void will_not_hurt(void)
{
	struct memz_settings s;
	struct memz_alarm a;
	struct memz_verdict v = leak(0, 1024);

	memz_settings_init(&s);
	memz_alarm_init(&a);
	for (int t = 0; t < 7200; t += 10) {
		memz_alarm_update(&a, &v, t, (uint64_t)(20 * GiB), &s);
		CHECK_INT(a.level, MEMZ_ALARM_NONE);
	}
	CHECK_NEAR(a.time_left, 20 * GiB / 1024, 1e-6);
	/* LeakWarnTime 0 and OomWarn 0: never */
	s.leak_warn_time = 0;
	s.oom_warn = 0;
	memz_alarm_update(&a, &v, 8000, 1, &s);
	CHECK_INT(a.level, MEMZ_ALARM_NONE);
}

/* A time left wavering about a threshold does not flap: a level is left
 * only past twice its threshold. */
static void hysteresis(void)
{
	struct memz_settings s;
	struct memz_alarm a;
	struct memz_verdict v = leak(-1000, 1);
	unsigned changes = 0;

	memz_settings_init(&s);
	memz_alarm_init(&a);
	/* rate 1 B/s: the time left is the headroom */
	for (int i = 0; i < 100; i++) {
		double left = 3600 * (i % 2 ? 0.9 : 1.1);

		memz_alarm_update(&a, &v, 100 + i, (uint64_t)left, &s);
		changes += a.changed && i > 1;
	}
	/* none warned to CRITICAL (the first two), then never again */
	CHECK_INT(changes, 0);
	CHECK_INT(a.level, MEMZ_ALARM_CRITICAL);
	memz_alarm_update(&a, &v, 300, 7199, &s);
	CHECK_INT(a.level, MEMZ_ALARM_CRITICAL);
	memz_alarm_update(&a, &v, 301, 7201, &s);
	CHECK_INT(a.level, MEMZ_ALARM_WARNING);
	memz_alarm_update(&a, &v, 302, 2 * 172800 - 1, &s);
	CHECK_INT(a.level, MEMZ_ALARM_WARNING);
	memz_alarm_update(&a, &v, 303, 2 * 172800 + 1, &s);
	CHECK_INT(a.level, MEMZ_ALARM_NONE);
}

int main(void)
{
	sustained_and_hurting();
	will_not_hurt();
	hysteresis();
	return check_status();
}
