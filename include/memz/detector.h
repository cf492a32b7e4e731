/*
 * detector.h - the leak detector for one series (a process's or a group's
 * PSS). Pure: samples in, verdict out; no clock, no I/O, no allocation.
 *
 * The caller owns one struct memz_detector per series, embedded in its own
 * record (a process table entry, a group), and pushes one sample per cycle
 * with the cycle's time. Timestamps are seconds on any monotonic scale and
 * must not decrease; intervals may be irregular (the regression is over real
 * elapsed time).
 *
 * Settings used: LeakMinSamples, LeakMinRate, LeakMinR2, LeakMaxDip,
 * LeakSlowMinRate, LeakLongHorizon, LeakBucket, LeakMinSize (see
 * settings.h). The same settings and the same samples always give the same
 * verdicts.
 */
#ifndef MEMZ_DETECTOR_H
#define MEMZ_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "memz/settings.h"

enum memz_horizon {
	MEMZ_HORIZON_SHORT, /* recent raw samples: fast leaks */
	MEMZ_HORIZON_LONG,  /* bucketed history: slow leaks, saw-tooth, steps */
};

struct memz_verdict {
	bool leak;
	double rate_bps;   /* growth estimate, B/s; meaningful even when !leak */
	double r2;
	unsigned samples;  /* samples (short) or buckets (long) it rests on */
	enum memz_horizon horizon;
	int confidence;    /* 0..100 */
	double since;      /* time of the push that started the verdict */
};

/* DETECTOR-STATE: the detector's own fixed-size state. */
struct memz_detector {
	struct memz_verdict verdict;
	unsigned n;
};

/* Empty history, no verdict. Never allocates. */
void memz_detector_init(struct memz_detector *d);

/*
 * Push one sample (bytes at time t). Returns 1 when verdict.leak changed
 * (a leak started or cleared), 0 otherwise. d->verdict holds the current
 * verdict after every push.
 */
int memz_detector_push(struct memz_detector *d, const struct memz_settings *s,
		       double t, double bytes);

/*
 * Shift the whole history by delta bytes without treating it as growth:
 * used when a group's membership changes (a member joined or left), so only
 * the continuing members' change counts.
 */
void memz_detector_rebase(struct memz_detector *d, double delta);

#endif
