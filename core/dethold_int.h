/*
 * dethold_int.h - how a leak verdict holds, and clears once its growth
 * stops (private to libmemz; core/detector.c, which starts verdicts, is
 * its one user; dethold.c says how).
 *
 * A verdict is held in one of two regimes, the ring's (an expected line
 * the series must keep up with) or the floor's (the buckets' floor must
 * keep rising), chosen when it starts and kept in the detector's hold_*
 * fields: hold_rate, hold_slack, hold_y and hold_t (the line), hold_floor
 * (the regime). memz_dethold_begin sets them; the rest read them and the
 * stored history. No allocation, no failure.
 */
#ifndef MEMZ_DETHOLD_INT_H
#define MEMZ_DETHOLD_INT_H

#include <stdbool.h>

#include "memz/detector.h"

/* How many of the last buckets the long horizon requires to have risen,
 * and the fewest the floor regime looks back over. */
#define MEMZ_DET_RECENT 3

/* What memz_dethold_begin saw of the series against the expected line. */
enum {
	MEMZ_BEHIND_DIPPED = 1, /* fell behind and caught up: a dip */
	MEMZ_BEHIND_NOW = 2,    /* behind at its last sample: stopped */
};

/* A verdict starts (or a fresh start renews it) at `rate` on the last n
 * samples of the ring (the window it was judged on; all of them for the
 * long horizon): its slack and regime from them. Returns MEMZ_BEHIND_*. */
int memz_dethold_begin(struct memz_detector *d, double rate, unsigned n);

/* Whether a fresh start of the short horizon at `rate` on the last n
 * samples is a verdict, or the ring shows the growth stopped already (a
 * climb that ended a few samples ago still fits a line): behind its
 * expected line, dead flat, or not above where a verdict last cleared.
 * Begins the hold unless the last says no. */
bool memz_dethold_admit_short(struct memz_detector *d, double rate,
			      unsigned n);

/* The same for a verdict of the long horizon at `rate` (judged on buckets
 * that closed; the ring may show the growth stopped since). Begins the
 * hold; a series that wandered half the slack between buckets is held by
 * its floor. */
bool memz_dethold_admit_long(struct memz_detector *d, double rate);

/* One push on: whether the standing verdict still holds (closed: a bucket
 * just closed, when the floor regime judges). */
bool memz_dethold_holds(struct memz_detector *d, bool closed);

#endif
