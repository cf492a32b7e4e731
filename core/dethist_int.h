/*
 * dethist_int.h - how the leak detector's history is stored and read back
 * (private to libmemz; core/detector.c and core/dethold.c use it,
 * detector.h holds the fields).
 *
 * Four series are stored as int16 in units of a power of two bytes: the
 * short ring's PSS and anon, relative to roff and raoff (themselves
 * relative to base and abase), and the buckets' (minima, maxima, the
 * current bucket's), relative to base and abase. Each has its offset, its
 * unit and its stored values; MEMZ_DET_Q_NONE (an empty slot, an unknown
 * anon) is never read as a value nor rewritten. Everything the detector's
 * rules measure is relative to the data's span, so a unit of at most
 * twice the span over MEMZ_DET_Q_MAX changes nothing they decide. Pure
 * arithmetic on the detector's own fields: no allocation, no failure.
 */
#ifndef MEMZ_DETHIST_INT_H
#define MEMZ_DETHIST_INT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "memz/detector.h"

enum memz_dh_series {
	MEMZ_DH_RING,
	MEMZ_DH_RANON,
	MEMZ_DH_BUCKETS,
	MEMZ_DH_BANON,
};

/* Does y (bytes relative to a series' offset) fit its int16 range?
 * Inline, as quantise: both run four times on every push. */
static inline bool memz_dethist_fits(double y, float unit)
{
	return fabs(y) <= MEMZ_DET_Q_MAX * (double)unit;
}

/* y in units, to the nearest (halves away from 0), clamped to the range
 * for the last bit of rounding: call memz_dethist_make_room first. */
static inline int16_t memz_dethist_quantise(double y, float unit)
{
	double q = y / unit;

	q = q > MEMZ_DET_Q_MAX ? MEMZ_DET_Q_MAX
	    : q < -MEMZ_DET_Q_MAX ? -MEMZ_DET_Q_MAX
				 : q;
	return (int16_t)(q < 0 ? q - 0.5 : q + 0.5);
}

/*
 * Make room for y (relative to the series' offset) in its int16 range:
 * when it does not fit, the offset moves to the middle of what is stored
 * and y (by a multiple of the old unit, so values on the old grid stay on
 * it), and the unit becomes the smallest power of two that holds the whole
 * span within half of the range (headroom, so a climbing series is not
 * requantised on every push). Then every stored value is requantised:
 * exactly, when the unit got finer, to the nearest unit when it grew.
 * Rare: once per doubling of the range, or when the history has climbed
 * past its middle. Returns how far the offset moved.
 *
 * tighten (y NaN): the same when the span fits a unit a quarter of the
 * old or finer, so a span that was wide (a step, a spike) and has left the
 * history gives its precision back, losslessly (the old grid is on the
 * new one). Run when a bucket closes.
 */
double memz_dethist_make_room(struct memz_detector *d, enum memz_dh_series id,
			      double y, bool tighten);

/* Reading the history back, relative to base: a bucket's value, a ring
 * value; bucket number n's slot (n may be negative, so may times). */
static inline double memz_dh_val(const struct memz_detector *d, int16_t q)
{
	return (double)q * d->unit;
}

static inline double memz_dh_rval(const struct memz_detector *d, int16_t q)
{
	return d->roff + (double)q * d->runit;
}

static inline unsigned memz_dh_slot(int64_t n)
{
	return (unsigned)((uint64_t)n % MEMZ_DET_BUCKETS);
}

/* The ring into x and y, oldest first: times relative to t0, values
 * relative to base. Returns how many (rcount). */
unsigned memz_dethist_ring(const struct memz_detector *d, double *x,
			   double *y);

/* The closed buckets' floor into env, oldest first: the suffix minima of
 * their minima, as the long horizon sees it, of the buckets from number
 * `from` on (INT64_MIN: all it keeps). Returns how many. */
unsigned memz_dethist_floor(const struct memz_detector *d, int64_t from,
			    double *env);

/* The noise of a ring's values y[0..m) about their own trend: a robust
 * width (the median absolute deviation) of the steps, less their median,
 * over sqrt 2; widened for a ring that is not full (see dethist.c). 0 under
 * three samples. */
double memz_dethist_sigma(const double *y, unsigned m);

#endif
