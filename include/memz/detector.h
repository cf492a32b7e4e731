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
 * compact (under 1.5 KiB): values are stored as float offsets from `base`
 * (which is also what makes rebase O(1)), times of the short ring as float
 * offsets from `t0` (re-anchored before float precision suffers).
 *
 * Short horizon: the last MEMZ_DET_RING raw samples, for fast leaks.
 * Long horizon: one bucket per LeakBucket seconds (wider when
 * LeakLongHorizon / LeakBucket exceeds MEMZ_DET_BUCKETS), each keeping the
 * bucket's minimum and maximum; the minima give the floor (what a saw-tooth
 * or a spike returns to), the maxima the prior peak.
 */
#define MEMZ_DET_RING 32
#define MEMZ_DET_BUCKETS 64

struct memz_det_bucket {
	int32_t idx; /* bucket number relative to memz_detector.idx0 */
	float min, max;
};

/* Closed buckets are stored as parallel arrays with 16-bit numbers (idx0 is
 * moved forward before they overflow): 10 bytes a bucket instead of 12. */
#define MEMZ_DET_IDX_MAX 30000

struct memz_detector {
	struct memz_verdict verdict;
	unsigned n; /* samples pushed since init */

	double base; /* every stored value is relative to this */
	double t0;   /* short-ring times are relative to this */

	/* short horizon: ring of (t, value), oldest at rhead when full */
	float rt[MEMZ_DET_RING], rv[MEMZ_DET_RING];
	uint8_t rhead, rcount;

	/* long horizon: closed buckets, oldest at bhead when full */
	uint8_t bhead, bcount;
	bool has_cur;
	bool short_leak, long_leak;
	int16_t bidx[MEMZ_DET_BUCKETS];
	float bmin[MEMZ_DET_BUCKETS], bmax[MEMZ_DET_BUCKETS];
	struct memz_det_bucket cur; /* the bucket being filled */
	float bwander;              /* deepest fall between closed buckets */
	double bucket_w;            /* s; 0 until the first push */
	int64_t idx0;
	float noise;                /* median |step| of the ring, at close */
	float cur_amin;             /* the current bucket's lowest anon */

	/* anonymous memory beside each sample and bucket, relative to abase;
	 * NaN where the caller did not know it */
	double abase;
	double t_last;
	double grace_until; /* a short verdict lost stands until then */
	float ra[MEMZ_DET_RING];
	float bamin[MEMZ_DET_BUCKETS];

	/* the latest long assessment, made when a bucket closes (the short
	 * one is made on every push and kept nowhere) */
	struct memz_verdict lv;
};

/* Empty history, no verdict. Never allocates. */
void memz_detector_init(struct memz_detector *d);

/* Times beyond this many seconds either side of 0, and sizes beyond
 * MEMZ_DET_BYTES_MAX, are refused: the bucket numbers and the float offsets
 * the history keeps would not hold them (a year is 3.2e7 s). */
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
 * Shift the whole history by delta bytes without treating it as growth:
 * used when a group's membership changes (a member joined or left), so only
 * the continuing members' change counts. A delta that is not finite, or
 * would move the history beyond MEMZ_DET_BYTES_MAX, is ignored.
 */
void memz_detector_rebase(struct memz_detector *d, double delta);

/* The same for the anonymous figure. */
void memz_detector_rebase_anon(struct memz_detector *d, double delta);

/* Width of one long-horizon bucket under s: LeakBucket, or wider so that
 * LeakLongHorizon fits in MEMZ_DET_BUCKETS. */
double memz_detector_bucket_width(const struct memz_settings *s);

#endif
