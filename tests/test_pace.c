/*
 * test_pace.c - every trigger makes the pace fast at once, the way back to
 * eco is damped one step at a time, a signal oscillating around a threshold
 * does not make it flap, and Pace pins it.
 */
#include <string.h>

#include "check.h"
#include "memz/pace.h"

#define GiB (1024.0 * 1024 * 1024)

static struct memz_pace_input calm(double t)
{
	struct memz_pace_input in;

	memset(&in, 0, sizeof in);
	in.t = t;
	in.has_vmstat = true;
	in.pswpout = 1000;
	in.page_size = 4096;
	in.has_psi = true;
	in.psi_full_avg10 = 0;
	in.mem_total = (uint64_t)(16 * GiB);
	in.mem_available = (uint64_t)(12 * GiB);
	return in;
}

/* Calm from t0 on; returns the time eco was reached (or -1). */
static double settle(struct memz_pace *p, const struct memz_settings *s,
		     double t0, double step, double until, unsigned *changes)
{
	enum memz_pace_mode last = p->mode;

	for (double t = t0; t <= until; t += step) {
		enum memz_pace_mode m = memz_pace_next(p, s, &(struct memz_pace_input){
			.t = t, .has_vmstat = true, .pswpout = 1000,
			.page_size = 4096, .has_psi = true,
			.mem_total = (uint64_t)(16 * GiB),
			.mem_available = (uint64_t)(12 * GiB) });
		if (m != last && changes)
			(*changes)++;
		last = m;
		if (m == MEMZ_MODE_ECO)
			return t;
	}
	return -1;
}

static void calm_goes_eco(const struct memz_settings *s)
{
	struct memz_pace p;
	struct memz_pace_input in = calm(0);

	memz_pace_init(&p);
	/* nothing known yet: normal, then eco after the calm period */
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_NORMAL);
	CHECK_NEAR(settle(&p, s, 1, 1, 100, NULL), MEMZ_PACE_CALM, 0);
	CHECK_INT(memz_pace_interval_ms(MEMZ_MODE_ECO), 2000);
	CHECK_INT(memz_pace_interval_ms(MEMZ_MODE_NORMAL), 1000);
	CHECK_INT(memz_pace_interval_ms(MEMZ_MODE_FAST), 500);
	CHECK_STR(memz_pace_name(MEMZ_MODE_ECO), "eco");
	CHECK_STR(memz_pace_name(MEMZ_MODE_NORMAL), "normal");
	CHECK_STR(memz_pace_name(MEMZ_MODE_FAST), "fast");
}

enum trigger { SWAP, PSI, AVAIL, LEAK };

static void trigger(const struct memz_settings *s, enum trigger k)
{
	struct memz_pace p;
	struct memz_pace_input in;
	double t;
	uint64_t swp = k == SWAP ? 1000 + 2048 : 1000; /* after the trigger */

	memz_pace_init(&p);
	in = calm(0);
	memz_pace_next(&p, s, &in);
	CHECK(settle(&p, s, 1, 1, 100, NULL) > 0);
	t = 100;
	in = calm(t);
	memz_pace_next(&p, s, &in); /* pswpout baseline at t=100 */
	in = calm(t + 2);
	switch (k) {
	case SWAP: /* 4 MiB/s over 2 s = 2048 pages of 4 KiB */
		in.pswpout = swp;
		break;
	case PSI:
		in.psi_full_avg10 = 1.0;
		break;
	case AVAIL:
		in.mem_available = (uint64_t)(16 * GiB * 0.14);
		break;
	case LEAK:
		in.leak_suspects = 1;
		break;
	}
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_FAST);
	if (k == SWAP)
		CHECK_NEAR(p.swap_out_bps, 4 * 1024 * 1024, 1);
	/* the way back: fast for the calm period, then normal, then eco */
	t += 2;
	in = calm(t + 1);
	in.pswpout = swp; /* no more swapping */
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_FAST);
	for (double u = t + 2; u < t + MEMZ_PACE_CALM; u += 1) {
		in = calm(u);
		in.pswpout = swp;
		CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_FAST);
	}
	in = calm(t + MEMZ_PACE_CALM);
	in.pswpout = swp;
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_NORMAL);
	for (double u = t + MEMZ_PACE_CALM + 1; u < t + 2 * MEMZ_PACE_CALM;
	     u += 1) {
		in = calm(u);
		in.pswpout = swp;
		CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_NORMAL);
	}
	in = calm(t + 2 * MEMZ_PACE_CALM);
	in.pswpout = swp;
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_ECO);
}

/* Just below the thresholds: no trigger. */
static void below(const struct memz_settings *s)
{
	struct memz_pace p;
	struct memz_pace_input in;

	memz_pace_init(&p);
	in = calm(0);
	memz_pace_next(&p, s, &in);
	in = calm(2);
	in.pswpout = 1000 + 2047;
	in.psi_full_avg10 = 0.99;
	in.mem_available = (uint64_t)(16 * GiB * 0.151);
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_NORMAL);
	/* no PSI and no vmstat (old kernels): judged on what there is */
	in = calm(3);
	in.has_psi = false;
	in.psi_full_avg10 = 50;
	in.has_vmstat = false;
	in.pswpout = 0;
	CHECK_INT(memz_pace_next(&p, s, &in), MEMZ_MODE_NORMAL);
}

/* PSI flickering around 1% every other second: fast, never eco. */
static void no_flapping(const struct memz_settings *s)
{
	struct memz_pace p;
	struct memz_pace_input in;
	unsigned changes = 0;
	enum memz_pace_mode last;

	memz_pace_init(&p);
	in = calm(0);
	last = memz_pace_next(&p, s, &in);
	for (int i = 1; i <= 600; i++) {
		enum memz_pace_mode m;
		in = calm(i);
		in.psi_full_avg10 = i % 2 ? 1.05 : 0.95;
		m = memz_pace_next(&p, s, &in);
		changes += m != last;
		last = m;
	}
	CHECK_INT(changes, 1); /* normal -> fast, once */
	CHECK_INT(last, MEMZ_MODE_FAST);

	/* and a signal wandering between half the threshold and below it
	 * (a build-up) holds normal without dropping to eco */
	memz_pace_init(&p);
	changes = 0;
	last = MEMZ_MODE_NORMAL;
	for (int i = 0; i <= 600; i++) {
		enum memz_pace_mode m;
		in = calm(i);
		in.psi_full_avg10 = i % 20 < 10 ? 0.6 : 0.2;
		m = memz_pace_next(&p, s, &in);
		changes += m != last;
		last = m;
	}
	CHECK_INT(changes, 0);
	CHECK_INT(last, MEMZ_MODE_NORMAL);
}

static void pinned(void)
{
	struct memz_settings s;
	struct memz_pace p;
	struct memz_pace_input in;
	char err[256];

	memz_settings_init(&s);
	CHECK_INT(memz_settings_set(&s, "Pace", "eco", err, sizeof err), 0);
	memz_pace_init(&p);
	in = calm(0);
	in.leak_suspects = 3;
	CHECK_INT(memz_pace_next(&p, &s, &in), MEMZ_MODE_ECO);
	CHECK_INT(memz_settings_set(&s, "Pace", "fast", err, sizeof err), 0);
	in = calm(100);
	CHECK_INT(memz_pace_next(&p, &s, &in), MEMZ_MODE_FAST);
	CHECK_INT(memz_settings_set(&s, "Pace", "normal", err, sizeof err), 0);
	CHECK_INT(memz_pace_next(&p, &s, &in), MEMZ_MODE_NORMAL);
}

int main(void)
{
	struct memz_settings s;

	memz_settings_init(&s);
	calm_goes_eco(&s);
	trigger(&s, SWAP);
	trigger(&s, PSI);
	trigger(&s, AVAIL);
	trigger(&s, LEAK);
	below(&s);
	no_flapping(&s);
	pinned();
	return check_status();
}
