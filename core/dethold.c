/*
 * dethold.c - how a leak verdict holds, and clears once its growth stops
 * (dethold_int.h; detector.c starts verdicts, this keeps them).
 *
 * A standing verdict lasts while the series keeps growing at a
 * good share of the rate it was flagged at, and not a push longer.
 *
 * Ring regime (a series that climbs in a line or in stairs): the series is
 * expected to grow from its last high at HOLD_RATE of the verdict's rate;
 * where it stands at or above that line the line starts again from it,
 * and once it falls behind by more than the slack the growth has stopped.
 * The slack is HOLD_MIN_S of growth at the expected rate (so a clean leak
 * that stops clears HOLD_MIN_S / HOLD_RATE later), or HOLD_STEP of the
 * largest stair the ring shows (a stair leak clears half a period after
 * its next stair failed to come), or HOLD_NOISE widths of its noise,
 * whichever is most. A creep far below the flagged rate falls behind as a
 * stop does.
 *
 * Floor regime (a series so noisy that its slack would take more than
 * HOLD_MAX_S of growth at the expected rate, or whose ring dips below
 * that line by more than the slack even while it leaks, or whose history
 * fell further than the slack between buckets: spikes above a slow leak,
 * allocator churn around it): judged when a bucket closes, by the floor of
 * the buckets (their suffix minima, as the long horizon sees it). It holds while the
 * floor rose by HOLD_FRAC of what the rate predicts over the last buckets:
 * MEMZ_DET_RECENT of them, or one more than the widest gap between the
 * floor's rises (a bursty leak is not over before it has been quiet for longer
 * than it ever was), or as many as growth at the rate needs to stand out
 * of how far the series wanders. Slow growth under noise cannot be told
 * stopped sooner than that; a series that went dead flat can, and is
 * cleared once its last HOLD_MIN_S lie in a band narrower than a quarter
 * of that growth.
 */
#include <math.h>
#include <stdint.h>

#include "detfit_int.h"
#include "dethist_int.h"
#include "dethold_int.h"

#define HOLD_RATE 0.5
#define HOLD_MIN_S 20.0
/* A flat end is HOLD_MIN_S long give or take this: samples due every
 * 10 s come a few ms early or late, and three that span 19.998 s are
 * the three samples a clear at 10 s may take, not two. */
#define HOLD_JITTER_S 0.5
#define HOLD_STEP 0.75
#define HOLD_NOISE 10.0
#define HOLD_MAX_S 90.0
#define HOLD_FRAC 0.25
#define HOLD_WANDER 2.0

/* The ring regime's rule over the ring's samples: where the expected line
 * stands last, and whether the series fell behind it by more than the
 * slack: MEMZ_BEHIND_DIPPED (and caught up again: a dip, so the ring cannot
 * hold this series), MEMZ_BEHIND_NOW (at its last sample: the growth stopped,
 * or a spike just ended), either or both. */
static int behind(const double *x, const double *y, unsigned m, double rate,
		  double slack, double *ly, double *lt)
{
	int fell = 0;
	bool out = false;

	*ly = y[0];
	*lt = x[0];
	for (unsigned i = 1; i < m; i++) {
		double want = *ly + HOLD_RATE * rate * (x[i] - *lt);

		if (y[i] >= want) {
			if (out)
				fell |= MEMZ_BEHIND_DIPPED;
			out = false;
			*ly = y[i];
			*lt = x[i];
		} else if (want - y[i] > slack) {
			out = true;
		}
	}
	return fell | (out ? MEMZ_BEHIND_NOW : 0);
}

/* The stair of a leak that rises in bursts further apart than the ring
 * reaches: the largest rise of the buckets' floor, when it towers over
 * the typical one (BURSTY times the median rise); else 0. Typical of the
 * growth, from where the floor first rose by more than the noise: the
 * flat stretch before a steady leak began rose by nothing in each of its
 * buckets, and a C leaker flat for 15 minutes, then growing 128 KiB/s
 * for 8, had its every bucket's rise taken for a stair, a slack of 45 s
 * of its growth, and cleared 96 s after it stopped (busy-host3). Only
 * over the buckets the long horizon judges (idx0 on): a young process's
 * start-up is no stair of its life (a node.js client's 24 MB made the
 * slack of a verdict at 11 KiB/s 18 MB, and it stood for the rest of the
 * recording while its memory fell 6 MiB). */
#define BURSTY 3.0
static double bucket_stair(const struct memz_detector *d)
{
	double env[MEMZ_DET_BUCKETS], up[MEMZ_DET_BUCKETS], big = 0;
	unsigned nb = memz_dethist_floor(d, d->idx0, env), n = 0;

	for (unsigned k = 1; k < nb; k++) {
		double r = env[k] - env[k - 1];

		if (!n && !(r > d->noise))
			continue;
		up[n++] = r;
		if (r > big)
			big = r;
	}
	return n >= 2 && big > BURSTY * memz_fit_median(up, n) ? big : 0;
}

/* The ring regime's slack for `rate` over the ring y[0..m); *noisy: the
 * ring's noise is so wide that growth at the rate would not show a stop
 * for HOLD_MAX_S (then the floor regime holds). */
static double ring_slack(const struct memz_detector *d, const double *y,
			 unsigned m, double rate, bool *noisy)
{
	double fl[MEMZ_DET_RING], slack, stair = bucket_stair(d),
					 sigma = memz_dethist_sigma(y, m);

	/* the largest stair: a rise of the floor (the suffix minima), so a
	 * spike that comes back down is none; or the buckets' */
	for (unsigned i = m; i-- > 0;)
		fl[i] = i + 1 < m && fl[i + 1] < y[i] ? fl[i + 1] : y[i];
	for (unsigned i = 1; i < m; i++)
		if (fl[i] - fl[i - 1] > stair)
			stair = fl[i] - fl[i - 1];
	slack = HOLD_RATE * rate * HOLD_MIN_S;
	if (HOLD_STEP * stair > slack)
		slack = HOLD_STEP * stair;
	*noisy = false;
	if (HOLD_NOISE * sigma > slack) {
		slack = HOLD_NOISE * sigma;
		*noisy = slack > HOLD_RATE * rate * HOLD_MAX_S;
	}
	return slack;
}

/*
 * A verdict starts (or a fresh start renews it) at `rate`, on the last n
 * samples of the ring (the window it was judged on; all of them for the
 * long horizon): its slack and its regime from them. A series that dipped
 * behind the expected line and came back, while it rose at this rate, is
 * held by its floor instead; one that fell behind only at its end has
 * stopped (the ring then clears it). Returns what behind() says.
 */
int memz_dethold_begin(struct memz_detector *d, double rate, unsigned n)
{
	double x[MEMZ_DET_RING], y[MEMZ_DET_RING];
	unsigned m = memz_dethist_ring(d, x, y), from = n < m ? m - n : 0;
	double slack, ly = 0, lt = 0;
	bool noisy;
	int fell;

	/* from where the window is lowest: a window that begins on the
	 * flat stretch before a leak's onset did not dip, it had not begun */
	for (unsigned i = from + 1; i + 1 < m; i++)
		if (y[i] <= y[from])
			from = i;
	slack = ring_slack(d, y + from, m - from, rate, &noisy);
	fell = m - from > 1 ? behind(x + from, y + from, m - from, rate, slack,
				     &ly, &lt)
			    : 0;
	d->hold_rate = (float)rate;
	d->hold_slack = (float)slack;
	/* the ring is short: a series that fell further than the slack
	 * between buckets (bwander) dips too */
	d->hold_floor = noisy || (fell & MEMZ_BEHIND_DIPPED) || d->bwander > slack;
	d->hold_y = (float)ly;
	d->hold_t = (float)lt;
	return fell;
}

/* Whether the ring's last HOLD_MIN_S seconds (or its last half, if that is
 * longer) rose by less than HOLD_FRAC of what `rate` would add: growth
 * that stopped, not a saw-tooth's trough or a spike's end, which climb
 * again. The floor of its first and last thirds is compared, so a spike
 * at either end is not growth. Only a ring clear of noise at that rate
 * can tell. */
static bool ring_flat_end(const struct memz_detector *d, double rate)
{
	double x[MEMZ_DET_RING], y[MEMZ_DET_RING], lo, hi;
	unsigned m = memz_dethist_ring(d, x, y), i = m / 2, k;
	bool noisy;

	ring_slack(d, y, m, rate, &noisy);
	if (noisy || m < 3)
		return false;
	while (i > 0 && x[m - 1] - x[i] < HOLD_MIN_S)
		i--;
	k = (m - i + 2) / 3;
	lo = y[i];
	hi = y[m - 1];
	for (unsigned j = 0; j < k; j++) {
		if (y[i + j] < lo)
			lo = y[i + j];
		if (y[m - 1 - j] < hi)
			hi = y[m - 1 - j];
	}
	return hi - lo < HOLD_FRAC * rate * (x[m - 1] - x[i]);
}

/* Whether the ring's last HOLD_MIN_S seconds (DEAD_SAMPLES at least) lie
 * in a band narrower than HOLD_FRAC of what `rate` adds over them and
 * than DEAD_NOISE of the ring's noise: dead flat, as a cache that filled
 * or a Redis at its maxmemory stays. Noise, churn and spikes are wider
 * than that (five samples of noise fall in 0.15 of its width about once
 * in 15,000, twenty at 1 s never), so a series the floor holds is
 * cleared by this only when it has truly stopped. */
/* The ring regime's series is one the ring can hold (a climb steadier than
 * its noise), so a band a quarter of the growth wide over HOLD_MIN_S is
 * stopped growth, not noise, in as few as three samples: at 10 s a Redis
 * at its maxmemory clears in three, where the expected line's slack takes
 * five. Only for a steady climb: a staircase leak sits flat between its
 * steps, and its slack (a stair's) says so. */
#define DEAD_RING_SAMPLES 3
#define DEAD_SAMPLES 5
#define DEAD_NOISE 0.15
/* A climb the ring holds may end with a small last bump (a Redis at its
 * maxmemory settles 330 kB above where it stopped, half its noise): a band
 * up to RING_DEAD_NOISE of the noise is flat too when a climb still going
 * at the rate would have had to fall RING_DEAD_Z noise widths of a
 * difference short of its line to lie in it. */
#define RING_DEAD_NOISE 0.5
#define RING_DEAD_Z 3.0
static bool dead_flat_n(const struct memz_detector *d, double rate,
			unsigned need, double noise, bool ring)
{
	double x[MEMZ_DET_RING], y[MEMZ_DET_RING], lo, hi, band, sigma;
	unsigned m = memz_dethist_ring(d, x, y), i = m - 1;

	if (m < 2 * need)
		return false;
	lo = hi = y[i];
	while (i > 0 &&
	       (m - i < need || x[m - 1] - x[i] < HOLD_MIN_S - HOLD_JITTER_S)) {
		i--;
		lo = y[i] < lo ? y[i] : lo;
		hi = y[i] > hi ? y[i] : hi;
	}
	band = HOLD_FRAC * rate * (x[m - 1] - x[i]);
	if (m - i < need || x[m - 1] - x[i] < HOLD_MIN_S - HOLD_JITTER_S ||
	    hi - lo >= band)
		return false;
	/* the noise (two medians) only for a band that is narrow already */
	sigma = memz_dethist_sigma(y, m);
	if (hi - lo < noise * sigma)
		return true;
	return ring && hi - lo < RING_DEAD_NOISE * sigma &&
	       rate * (x[m - 1] - x[i]) - (hi - lo) >=
		       RING_DEAD_Z * M_SQRT2 * sigma;
}


/* Whether y[i..j] lies in a band narrower than HOLD_FRAC of what rate
 * adds over it. */
static bool flat_band(const double *x, const double *y, unsigned i,
		      unsigned j, double rate)
{
	double lo = y[i], hi = y[i];

	for (unsigned k = i + 1; k <= j; k++) {
		lo = y[k] < lo ? y[k] : lo;
		hi = y[k] > hi ? y[k] : hi;
	}
	return hi - lo < HOLD_FRAC * rate * (x[j] - x[i]);
}

/* Whether the last DEAD_RING_SAMPLES over HOLD_MIN_S lie flat (within
 * noise of the ring's noise, dead_flat_n), and no flat stretch since
 * `from`, nor a stair, says the climb comes in steps. */
static bool steps_stopped(const struct memz_detector *d, double rate,
			  double noise, bool ring, double from)
{
	double x[MEMZ_DET_RING], y[MEMZ_DET_RING];
	unsigned m, i;

	/* most pushes of a climb: its last three samples span more than
	 * the band, and a copy of the ring is not needed to see it */
	if (d->rcount >= DEAD_RING_SAMPLES) {
		unsigned a = (d->rhead + d->rcount - DEAD_RING_SAMPLES) %
			     MEMZ_DET_RING,
			 b = (d->rhead + d->rcount - 1) % MEMZ_DET_RING;

		if (fabs(memz_dh_rval(d, d->rv[b]) - memz_dh_rval(d, d->rv[a])) >=
		    HOLD_FRAC * rate * (d->rt[b] - d->rt[a]))
			return false;
	}
	m = memz_dethist_ring(d, x, y);
	i = m - 1;

	if (m < 2 * DEAD_RING_SAMPLES ||
	    !dead_flat_n(d, rate, DEAD_RING_SAMPLES, noise, ring))
		return false;
	/* where the flat end begins (as dead_flat_n measured it) */
	while (i > 0 && (m - i < DEAD_RING_SAMPLES ||
			 x[m - 1] - x[i] < HOLD_MIN_S - HOLD_JITTER_S))
		i--;
	/* a staircase leak sits flat between its steps: a flat stretch as
	 * long earlier in the ring, or a bucket's rise far above the
	 * rate's, says the climb came in steps, and this is one more */
	for (unsigned a = 0; a + DEAD_RING_SAMPLES <= i; a++) {
		unsigned b = a + DEAD_RING_SAMPLES - 1;

		if (x[a] < from)
			continue;
		while (b < i && x[b] - x[a] < HOLD_MIN_S)
			b++;
		if (x[b] - x[a] >= HOLD_MIN_S && b < i &&
		    flat_band(x, y, a, b, rate))
			return false;
	}
	return bucket_stair(d) <= BURSTY * rate * d->bucket_w;
}

static bool ring_dead_flat(const struct memz_detector *d)
{
	return steps_stopped(d, d->hold_rate, DEAD_NOISE, true, -INFINITY);
}

/* When the n-th last sample of the ring was taken. */
static double ring_t_back(const struct memz_detector *d, unsigned n)
{
	unsigned start = d->rcount == MEMZ_DET_RING ? d->rhead : 0;

	if (n > d->rcount)
		n = d->rcount;
	if (!n)
		return INFINITY;
	return d->t0 + d->rt[(start + d->rcount - n) % MEMZ_DET_RING];
}

/* For a series too noisy for the ring, DEAD_SAMPLES flat within
 * DEAD_NOISE of its noise, or, for a climb of half a ring or more since
 * `since` (its verdict began, or the window of a fresh start), three
 * within STILL_NOISE of it and no tread since:
 * then the noise itself stopped, which noise that goes on does not do by
 * chance (a JVM at its -Xmx, whose ring is 8.7 MiB wide with the steps of
 * its heap, sat within 8 kB, and took five samples to clear at 10 s; the
 * flat minute before its heap's last climb was no tread of it). */
#define STILL_NOISE 0.01
static bool dead_flat(const struct memz_detector *d, double rate,
		      double since)
{
	if (dead_flat_n(d, rate, DEAD_SAMPLES, DEAD_NOISE, false))
		return true;
	return ring_t_back(d, MEMZ_DET_RING / 2) >= since &&
	       d->rcount >= MEMZ_DET_RING / 2 &&
	       steps_stopped(d, rate, STILL_NOISE, false, since - d->t0);
}

/* Whether a verdict cleared at a time the ring still holds, and no sample
 * since passed the highest before: as recently_cleared for the long
 * horizon, the short one does not raise again growth that stopped, which
 * its window may still fit as a line for a few samples (a JVM whose heap
 * stopped at its -Xmx was raised again 10 s after it cleared). */
static bool below_clear(const struct memz_detector *d)
{
	/* the sample that cleared it is before (ring times are floats) */
	double c = d->verdict.since - d->t0 + HOLD_JITTER_S,
	       before = -INFINITY, after = -INFINITY;

	if (!d->verdict.since)
		return false;
	for (unsigned k = 0; k < d->rcount; k++) {
		double v = memz_dh_rval(d, d->rv[k]);

		if (d->rt[k] <= c)
			before = v > before ? v : before;
		else
			after = v > after ? v : after;
	}
	return before > -INFINITY && after <= before;
}

/* The ring regime, one push on: false once the growth has stopped. */
static bool ring_holds(struct memz_detector *d, double x, double y)
{
	double want = d->hold_y + HOLD_RATE * d->hold_rate * (x - d->hold_t);

	if (y >= want) {
		d->hold_y = (float)y;
		d->hold_t = (float)x;
		return true;
	}
	return want - y <= d->hold_slack;
}

/* The floor regime, when a bucket closes (see above). */
#define BURST_SHARE 0.25
static bool floor_holds(const struct memz_detector *d)
{
	double env[MEMZ_DET_BUCKETS], rate = d->hold_rate, w = d->bucket_w;
	unsigned nb = memz_dethist_floor(d, INT64_MIN, env), r = MEMZ_DET_RECENT,
		 last = 0, gap = 0, need;
	double big = d->noise;
	/* a rise counts when it is a burst's share, not the drift of the
	 * floor of noise near the end (several noise widths) */
	for (unsigned k = 1; k < nb; k++)
		if (BURST_SHARE * (env[k] - env[k - 1]) > big)
			big = BURST_SHARE * (env[k] - env[k - 1]);
	for (unsigned k = 1; k < nb; k++) {
		if (env[k] - env[k - 1] <= big)
			continue;
		if (last && k - last > gap)
			gap = k - last;
		last = k;
	}
	if (gap + 1 > r)
		r = gap + 1;
	need = (unsigned)ceil(HOLD_WANDER * (d->bwander > d->noise ? d->bwander
								    : d->noise) /
			      (HOLD_FRAC * rate * w));
	if (need > r)
		r = need;
	/* too little history to tell, or too little of it since the
	 * verdict started (the buckets before it hold no growth): it stands */
	if (r + 1 > nb || d->t_last - d->verdict.since < r * w)
		return true;
	return env[nb - 1] - env[nb - 1 - r] >= HOLD_FRAC * rate * r * w;
}

bool memz_dethold_holds(struct memz_detector *d, bool closed)
{
	unsigned last = (d->rhead + d->rcount - 1) % MEMZ_DET_RING;

	if (d->hold_floor)
		return (!closed || floor_holds(d)) &&
		       !dead_flat(d, d->hold_rate, d->verdict.since);
	return ring_holds(d, d->rt[last], memz_dh_rval(d, d->rv[last])) &&
	       /* a new high is no stop */
	       (d->hold_t == (float)d->rt[last] || !ring_dead_flat(d));
}

bool memz_dethold_admit_short(struct memz_detector *d, double rate,
			      unsigned n)
{
	return !below_clear(d) &&
	       !(memz_dethold_begin(d, rate, n) & MEMZ_BEHIND_NOW) &&
	       !dead_flat(d, rate, ring_t_back(d, n)) &&
	       (d->hold_floor || !ring_dead_flat(d));
}

bool memz_dethold_admit_long(struct memz_detector *d, double rate)
{
	if ((memz_dethold_begin(d, rate, MEMZ_DET_RING) & MEMZ_BEHIND_NOW) &&
	    ring_flat_end(d, rate))
		return false;
	/* judged on buckets: the ring is too short to know how this series
	 * wanders, and one that fell half the slack between buckets is held
	 * by them */
	if (d->bwander > 0.5 * d->hold_slack)
		d->hold_floor = true;
	return true;
}
