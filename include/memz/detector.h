/*
 * detector.h - the leak detector for one series (a process's or a group's
 * PSS, beside its anonymous memory). Pure: samples in, verdict out; no
 * clock, no I/O, no allocation.
 *
 * The caller owns one struct memz_detector per series, embedded in its own
 * record (a process table entry, a group), and pushes one sample per cycle
 * with the cycle's time. Timestamps are seconds on any monotonic scale and
 * must not decrease; intervals may be irregular (the regression is over real
 * elapsed time).
 *
 * PSS is the series judged; the anonymous figure (smaps' Anonymous: every
 * anonymous page the process maps, shared or not) is what tells a leak from
 * growth the process does not own. PSS rising while Anonymous stays flat is
 * page cache of a mapped file, or shared pages re-divided as other sharers
 * exit; neither starts a verdict.
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
	double rate_bps;   /* growth estimate, B/s; meaningful even when !leak */
	double r2;
	double since;      /* time of the push that started the verdict */
	unsigned samples;  /* samples (short) or buckets (long) it rests on */
	int confidence;    /* 0..100 */
	enum memz_horizon horizon;
	bool leak;
};

/*
 * Fixed-size state, embedded in every process entry and group, so it is kept
 * compact (under 0.85 KiB: 1,000 processes carry one each).
 *
 * Values are int16 multiples of a unit above an offset, in four series:
 * the buckets' PSS (value = base + q * unit), the buckets' anon (abase,
 * aunit), the short ring's PSS (base + roff + q * runit) and its anon
 * (abase + raoff + q * raunit); |q| <= MEMZ_DET_Q_MAX. A unit is a power
 * of two, at least MEMZ_DET_UNIT_MIN bytes. When a sample does not fit its
 * series, the offset moves to the middle of what the series stores and the
 * unit becomes the smallest that holds all of it within half of that
 * range (headroom, so a climbing series is not requantised on every push);
 * the stored values are requantised to it. When a bucket closes (every
 * eighth, for the buckets' two series), a series whose span now fits a
 * unit a quarter of its own or finer takes it
 * (losslessly): a step or a spike that has left the ring, or the long
 * horizon, gives the precision back. So a value is off by at most half a
 * unit, under 1/32767 of the span its series holds; the ring's own units
 * keep the short horizon as fine as its 32 samples' span, whatever the
 * hour held. Every rule compares slopes, residuals, spreads and falls with
 * those spans or with the noise, never at that scale (the detector's tests
 * give the same verdicts, to the sample, as with float storage). smaps
 * counts in kB and the ring's offsets move by whole KiB, so a ring whose
 * span is under 32 MiB holds KiB samples exactly. The int16
 * MEMZ_DET_Q_NONE is no value: anon not known (NaN), or a bucket slot that
 * holds no bucket (in bmax, and then in bmin and bamin too).
 * Times of the short ring are float offsets from `t0` (re-anchored before
 * float precision suffers). Rebase is O(1): it moves base or abase alone.
 *
 * Short horizon: the last MEMZ_DET_RING raw samples, for fast leaks.
 * Long horizon: one bucket per LeakBucket seconds (wider when
 * LeakLongHorizon / LeakBucket exceeds MEMZ_DET_BUCKETS), each keeping the
 * bucket's minimum and maximum; the minima give the floor (what a saw-tooth
 * or a spike returns to), the maxima the prior peak. Bucket number n lives
 * in slot n mod MEMZ_DET_BUCKETS, so the closed buckets are the numbers
 * cur_idx - MEMZ_DET_BUCKETS .. cur_idx - 1 whose slot is not empty: a
 * bucket no sample fell in is an empty slot, and the history reaches back
 * MEMZ_DET_BUCKETS bucket widths (the long horizon) however sparse.
 */
#define MEMZ_DET_RING 32
#define MEMZ_DET_BUCKETS 64
#define MEMZ_DET_Q_MAX 32767
#define MEMZ_DET_Q_NONE INT16_MIN
#define MEMZ_DET_UNIT_MIN (1.0 / 1024)

/* The latest long assessment, made when a bucket closes (the short one is
 * made on every push and kept nowhere): a verdict of the long horizon, but
 * for since (the push gives it), in what its figures need. */
struct memz_det_long {
	float rate_bps, r2;
	uint8_t samples; /* buckets: at most MEMZ_DET_BUCKETS */
	int8_t confidence;
	bool leak;
	bool made; /* else all 0, and the horizon too (MEMZ_HORIZON_SHORT) */
};

struct memz_detector {
	struct memz_verdict verdict;
	struct memz_det_long lv;
	/* While a verdict stands, what holds it (core/dethold.c):
	 * the rate it stands for (B/s), the level the series is expected to
	 * grow from (relative to base) and when it stood there (relative to
	 * t0), and how far it may fall behind that growth (bytes) before the
	 * growth counts as stopped. */
	float hold_rate, hold_y, hold_t, hold_slack;

	double base, abase; /* the buckets' offsets (see above) */
	double roff, raoff; /* the ring's, relative to base and abase */
	double t0;          /* short-ring times are relative to this */
	double t_last;
	double bucket_w;    /* s; 0 until the first push */
	int64_t idx0;       /* the first bucket's number, or the first the
			     * long horizon judges since a restart */
	int64_t cur_idx;    /* the number of the bucket being filled */
	unsigned n;         /* samples pushed since init */
	float unit, aunit, runit, raunit; /* powers of two, bytes */
	float bwander;      /* deepest fall between closed buckets, bytes */
	float noise;        /* median |step| of the ring at close, bytes */

	/* short horizon: ring of (t, value, anon), oldest at rhead when full */
	float rt[MEMZ_DET_RING];
	int16_t rv[MEMZ_DET_RING], ra[MEMZ_DET_RING];

	/* long horizon: closed buckets by number (see above), and the one
	 * being filled */
	int16_t bmin[MEMZ_DET_BUCKETS], bmax[MEMZ_DET_BUCKETS];
	int16_t bamin[MEMZ_DET_BUCKETS]; /* the bucket's lowest anon */
	int16_t cur_min, cur_max, cur_amin;

	uint8_t rhead, rcount;
	bool has_cur;
	bool short_leak, long_leak; /* the start rules' latest answers */
	bool hold_floor; /* held by the long horizon's floor, not the ring */
};

/* Empty history, no verdict. Never allocates. */
void memz_detector_init(struct memz_detector *d);

/* Times beyond this many seconds either side of 0, and sizes beyond
 * MEMZ_DET_BYTES_MAX, are refused: the bucket numbers, the float offsets of
 * times and the units the history keeps would not hold them (a year is
 * 3.2e7 s). */
#define MEMZ_DET_T_MAX 1e12
#define MEMZ_DET_BYTES_MAX 1e18

/*
 * Push one sample: PSS bytes and anonymous bytes (anon; negative or NaN
 * when unknown, then PSS alone decides) at time t. Returns 1 when
 * verdict.leak changed (a leak started or cleared), 0 otherwise, or
 * -EINVAL (t or bytes not finite, t earlier than the last push) /
 * -ERANGE (beyond MEMZ_DET_T_MAX or MEMZ_DET_BYTES_MAX), and then the
 * sample is ignored. d->verdict holds the current verdict after every push.
 */
int memz_detector_push(struct memz_detector *d, const struct memz_settings *s,
		       double t, double bytes, double anon);

/*
 * The caller does not judge this series yet (a young process still
 * growing since it started, or one it ignores): a verdict the last push
 * started is dropped, with no event, and none stands until a later push
 * starts one afresh. The history is kept, so a leak after the process
 * settled is judged against what came before. Returns true when it
 * dropped one.
 */
bool memz_detector_withhold(struct memz_detector *d);

/*
 * The series has just begun to be judged (a young process settled): the
 * long horizon judges only buckets from now on, so that the start-up
 * growth it saw is not read as a slow leak; the short ring and the older
 * buckets stay, as the baseline a leak after settling is judged against.
 */
void memz_detector_restart_long(struct memz_detector *d);

/*
 * Shift the whole history by delta bytes without treating it as growth:
 * used when a group's membership changes (a member joined or left), so only
 * the continuing members' change counts. A delta that is not finite, or
 * would move the history beyond MEMZ_DET_BYTES_MAX, is ignored.
 */
void memz_detector_rebase(struct memz_detector *d, double delta);

/* The same for the anonymous figure. */
void memz_detector_rebase_anon(struct memz_detector *d, double delta);

/* The i-th sample of the short ring, oldest first (i < d->rcount): PSS in
 * bytes, as the detector holds it. */
double memz_detector_ring_pss(const struct memz_detector *d, unsigned i);

/* Width of one long-horizon bucket under s: LeakBucket, or wider so that
 * LeakLongHorizon fits in MEMZ_DET_BUCKETS. */
double memz_detector_bucket_width(const struct memz_settings *s);

#endif
