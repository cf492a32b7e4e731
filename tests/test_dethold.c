/*
 * test_dethold.c - how a verdict holds and clears, on rings written
 * directly: a clean climb is held by the ring with HOLD_MIN_S of growth at
 * half its rate as slack, and clears the second that slack runs out; a
 * climb that stopped or dipped is seen so at its start; the short horizon
 * does not raise again below where a verdict cleared; a series that
 * wandered between buckets is held by its floor. (test_detector judges
 * the same rules through pushes, on real and generated series.)
 */
#include <math.h>

#include "check.h"
#include "../core/dethist_int.h"
#include "../core/dethold_int.h"

#define KiB 1024.0
#define MiB (1024 * KiB)
#define RATE (64 * KiB)

/* A ring of n samples 1 s apart from t0 = 1000, y[i] bytes above base, in
 * KiB units (every value here is a whole KiB, so stored exactly). */
static void ring(struct memz_detector *d, const double *y, unsigned n)
{
	memz_detector_init(d);
	d->t0 = 1000;
	d->runit = (float)KiB;
	for (unsigned i = 0; i < n; i++) {
		d->rt[i] = (float)i;
		d->rv[i] = memz_dethist_quantise(y[i], d->runit);
	}
	d->rcount = (uint8_t)n;
}

/* One more sample, 1 s after the last (the ring not yet full). */
static void append(struct memz_detector *d, double y)
{
	unsigned k = d->rcount++;

	d->rt[k] = (float)k;
	d->rv[k] = memz_dethist_quantise(y, d->runit);
}

/* A clean climb: no dip, no noise, no stair; the slack is 20 s of growth
 * at half the rate, the line starts at the last sample. */
static void begin_clean(void)
{
	struct memz_detector d;
	double y[16];

	for (unsigned i = 0; i < 16; i++)
		y[i] = i * RATE;
	ring(&d, y, 16);
	CHECK_INT(memz_dethold_begin(&d, RATE, 16), 0);
	CHECK(!d.hold_floor);
	CHECK_NEAR(d.hold_slack, 0.5 * RATE * 20, 1e-6);
	CHECK_NEAR(d.hold_rate, RATE, 1e-6);
	CHECK_NEAR(d.hold_y, 15 * RATE, 1e-6);
	CHECK_NEAR(d.hold_t, 15, 1e-6);
}

/* Held one push at a time after the climb stops: the line runs on at half
 * the rate, and 20 s of it is the slack, so the 21st flat second clears. */
static void holds_until_slack(void)
{
	struct memz_detector d;
	double y[10];
	unsigned cleared = 0;

	for (unsigned i = 0; i < 10; i++)
		y[i] = i * RATE;
	ring(&d, y, 10);
	memz_dethold_begin(&d, RATE, 10);
	for (unsigned s = 1; s <= 22 && !cleared; s++) {
		append(&d, 9 * RATE);
		if (!memz_dethold_holds(&d, false))
			cleared = s;
	}
	CHECK_INT(cleared, 21);
}

/* A climb that stopped 25 s before its start was judged is behind its
 * line at its last sample; one that fell 12 s of its growth (more than the
 * slack, not below where the window began) and climbed back dipped, and
 * its floor holds it. */
static void begin_stopped_dipped(void)
{
	struct memz_detector d;
	double y[30];

	for (unsigned i = 0; i < 30; i++)
		y[i] = (i < 5 ? i : 5) * RATE;
	ring(&d, y, 30);
	CHECK_INT(memz_dethold_begin(&d, RATE, 30), MEMZ_BEHIND_NOW);

	for (unsigned i = 0; i < 30; i++)
		y[i] = (i - (i >= 20 && i < 24 ? 12.0 : 0)) * RATE;
	ring(&d, y, 30);
	CHECK_INT(memz_dethold_begin(&d, RATE, 30), MEMZ_BEHIND_DIPPED);
	CHECK(d.hold_floor);
}

/* A verdict cleared at ring time 11, at the ring's high of 11 rates: a
 * fresh climb to 10 rates is not raised (the JVM at its -Xmx), one past
 * 11 is. */
static void below_clear(void)
{
	struct memz_detector d;
	double y[24];

	for (unsigned i = 0; i < 24; i++)
		y[i] = i <= 11 ? i * RATE : (double)(i - 14) * RATE;
	y[12] = y[13] = 0;
	ring(&d, y, 24);
	d.verdict.since = d.t0 + 11;
	CHECK(!memz_dethold_admit_short(&d, RATE, 10));
	append(&d, 12 * RATE);
	CHECK(memz_dethold_admit_short(&d, RATE, 11));
	CHECK(!d.hold_floor);
}

/* A verdict of the long horizon on a series that fell between buckets by
 * more than half the ring's slack is held by its floor; one that did not,
 * by the ring. */
static void admit_long_regime(void)
{
	struct memz_detector d;
	double y[16];

	for (unsigned i = 0; i < 16; i++)
		y[i] = i * RATE;
	ring(&d, y, 16);
	d.bwander = (float)(0.4 * 0.5 * RATE * 20);
	CHECK(memz_dethold_admit_long(&d, RATE));
	CHECK(!d.hold_floor);
	d.bwander = (float)(0.6 * 0.5 * RATE * 20);
	CHECK(memz_dethold_admit_long(&d, RATE));
	CHECK(d.hold_floor);
}

/* A young process's start-up (24 MiB in its first minute) is no stair of
 * the leak it settles into: once the long horizon restarts at its settling
 * (as the table does), a slow climb's slack is its own growth's, not
 * three quarters of the start-up (which held a node.js client's verdict
 * at 11 KiB/s with a slack of 18 MB). */
static void startup_no_stair(void)
{
	struct memz_settings s;
	struct memz_detector d, fresh;
	const double rate = 12 * KiB;

	memz_settings_init(&s);
	memz_detector_init(&d);
	for (int t = 0; t < 1200; t++) {
		double y = t == 0 ? 1 * MiB
			   : 25 * MiB + (t < 600 ? 0 : rate * (t - 600));

		if (t == 600) {
			fresh = d;
			memz_detector_restart_long(&d);
		}
		memz_detector_push(&d, &s, t, y, y);
		if (t >= 600)
			memz_detector_push(&fresh, &s, t, y, y);
	}
	memz_dethold_begin(&d, rate, MEMZ_DET_RING);
	CHECK_NEAR(d.hold_slack, 0.5 * rate * 20, 1e-6);
	/* the same series never restarted: the start-up is its stair */
	memz_dethold_begin(&fresh, rate, MEMZ_DET_RING);
	CHECK(fresh.hold_slack > 16 * MiB);
}

int main(void)
{
	begin_clean();
	holds_until_slack();
	begin_stopped_dipped();
	below_clear();
	admit_long_regime();
	startup_no_stair();
	return check_status();
}
