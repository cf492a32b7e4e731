/*
 * test_dethist.c - the detector's stored history: quantising rounds to the
 * nearest and clamps, making room keeps every stored value within half the
 * new unit and moves the offset to the middle, and tightening gives a
 * finer unit back without loss once the wide span has gone.
 */
#include <math.h>

#include "check.h"
#include "../core/dethist_int.h"

static double ring_at(const struct memz_detector *d, unsigned i)
{
	return d->roff + (double)d->rv[i] * d->runit;
}

static void quantise(void)
{
	CHECK_INT(memz_dethist_quantise(1.5, 1), 2);
	CHECK_INT(memz_dethist_quantise(-1.5, 1), -2);
	CHECK_INT(memz_dethist_quantise(1.49, 1), 1);
	CHECK_INT(memz_dethist_quantise(3072, 1024), 3);
	CHECK_INT(memz_dethist_quantise(1e12, 1), MEMZ_DET_Q_MAX);
	CHECK_INT(memz_dethist_quantise(-1e12, 1), -MEMZ_DET_Q_MAX);
	CHECK(memz_dethist_fits(MEMZ_DET_Q_MAX * 1024.0, 1024));
	CHECK(!memz_dethist_fits(MEMZ_DET_Q_MAX * 1024.0 + 1024, 1024));
	CHECK(!memz_dethist_fits(NAN, 1024));
}

/* A ring in KiB units, then a value 40 MiB away: the unit grows to a power
 * of two that holds the span in half the range, the offset moves to the
 * middle by whole KiB, the old values stay within half a unit. When the
 * far value has gone, tightening brings the KiB back, exactly. */
static void room_and_tighten(void)
{
	struct memz_detector d;
	const double v[3] = { 0, 10 * 1024, 20 * 1024 }, far = 40 * 1048576.0;
	double moved, u, before[3];

	memz_detector_init(&d);
	d.runit = 1024;
	for (unsigned i = 0; i < 3; i++)
		d.rv[i] = memz_dethist_quantise(v[i], d.runit);
	d.rcount = 3;
	CHECK(!memz_dethist_fits(far - d.roff, d.runit));
	moved = memz_dethist_make_room(&d, MEMZ_DH_RING, far - d.roff, false);
	u = d.runit;
	CHECK(u > 1024 && u == ldexp(1, ilogb(u)));
	CHECK(far / 2 <= 0.5 * MEMZ_DET_Q_MAX * u + u);
	CHECK(moved == d.roff && fmod(moved, 1024) == 0);
	CHECK(fabs(moved - far / 2) <= u);
	CHECK(memz_dethist_fits(far - d.roff, d.runit));
	for (unsigned i = 0; i < 3; i++)
		CHECK(fabs(ring_at(&d, i) - v[i]) <= u / 2);

	/* the far value never landed: put the small ones back on the coarse
	 * grid, and tighten */
	for (unsigned i = 0; i < 3; i++) {
		d.rv[i] = memz_dethist_quantise(v[i] - d.roff, d.runit);
		before[i] = ring_at(&d, i);
	}
	memz_dethist_make_room(&d, MEMZ_DH_RING, NAN, true);
	CHECK(d.runit <= 0.25 * u);
	for (unsigned i = 0; i < 3; i++)
		CHECK(ring_at(&d, i) == before[i]);
	/* a second tighten finds nothing a quarter finer to give */
	u = d.runit;
	CHECK(memz_dethist_make_room(&d, MEMZ_DH_RING, NAN, true) == 0);
	CHECK(d.runit == u);
}

int main(void)
{
	quantise();
	room_and_tighten();
	return check_status();
}
