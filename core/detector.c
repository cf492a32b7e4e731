/*
 * detector.c - leak verdicts from one PSS series, with the series'
 * Anonymous beside it.
 *
 * The naive rules (a slope, R², drawdown over a short raw window) flag
 * steps, thread pools, warm-ups and the ramps of a saw-tooth, and miss slow
 * leaks. Two assessments run instead, and the verdict is their OR:
 *
 * Short horizon (the last MEMZ_DET_RING samples) starts a verdict when
 *   - the baseline holds (LeakMinSamples, LeakMinR2, LeakMaxDip), and
 *     LeakMinRate lies within RATE_SE standard errors below the slope (and
 *     the slope is at least RATE_FLOOR of it): a leak at LeakMinRate
 *     itself is flagged on its first windows, not on the half of them
 *     whose noise bends the fitted slope under the threshold, while a
 *     clean fit, whose error is small, is held to the threshold;
 *   - the growth is spread out: the three largest rises between samples
 *     carry at most SPREAD_TOP3 of all rising (a step, or a few steps close
 *     together, carry nearly all of it), or the median rise is at least
 *     SPREAD_MEDIAN of the mean (in a short window under heavy noise the
 *     top three of seven rises carry most of it, yet most rises are
 *     the leak's; a step or a thread pool's steps leave the median at
 *     the noise);
 *   - every quarter of the window rose on the one before by at least
 *     QUARTER_MIN of what the slope predicts (a plateau, or growth confined
 *     to one part of the window, fails; so a warm-up clears once it levels);
 *   - the fitted end stands above the prior peak (the highest bucket that
 *     closed before the window) by half the window's growth: a saw-tooth's
 *     ramp or a recurring spike only climbs back to where it has been;
 *   - the window's growth exceeds WANDER_SHORT times how far the series
 *     has wandered (the deepest fall from a high to a later low, between
 *     closed buckets and within the ring before the window): allocator
 *     churn, a bounded random walk, climbs for a while in a line as good
 *     as a noisy leak's, but it falls back as far as it climbs, and a
 *     leak that begins after flat noise has only fallen by a few noise
 *     widths. In a fresh series there is no history to tell them apart:
 *     churn's first climb may be flagged in its first minutes, and clears.
 * Every suffix of the ring down to LeakMinSamples is judged the same way
 * (longest first), so a leak that begins in a process that ran flat for a
 * while is seen once LeakMinSamples of it are in, not once it fills the
 * ring; a suffix must begin where the series changed course (the samples
 * before it lie above its line extended back) and stand above the prior
 * peak.
 * A fresh start while a verdict stands renews it (its figures and the
 * rate it is held to); how a verdict holds, and clears once its growth
 * stops, is core/dethold.c's.
 *
 * Long horizon (buckets over LeakLongHorizon, judged when a bucket closes,
 * over the whole history and every suffix down to LONG_FAST buckets):
 * the floor is the suffix minimum of the bucket minima (the lowest the
 * series went from each bucket on). Spikes that come back down and a level
 * saw-tooth leave it flat; a leak, bursty or not, and a rising saw-tooth
 * floor make it climb. A verdict starts when, over a window of at least
 * LONG_FAST buckets,
 *   - the floor's OLS slope is at least LeakSlowMinRate with R² at least
 *     LeakMinR2;
 *   - from LONG_MIN buckets on, each third of the window rose (THIRD_MIN of
 *     the slope's prediction): a single step, or steps close together,
 *     lift one third only;
 *   - the last RECENT buckets still rose (RECENT_MIN), so a leak that stopped
 *     clears within a few buckets;
 *   - the floor rose by more than NOISE_MULT times the noise (median step
 *     between raw samples): the floor of pure noise drifts up towards the
 *     end, where fewer samples are left, by one noise width typically and
 *     by three or four now and then (the minimum of the last bucket alone
 *     against the lowest of an hour);
 *   - under LONG_MIN buckets, the floor rose in every bucket (a staircase
 *     of bursts, not one or two steps); and a suffix must end above the
 *     highest bucket before it (a saw-tooth's next ramp does not);
 *   - the floor rose by more than WANDER_LONG times the deepest fall
 *     between closed buckets: the floor of allocator churn drifts up by
 *     its range when the walk ends high, and it has fallen by as much;
 *     unless the window is the whole history and its floor rose evenly
 *     (even_rise): a saw-tooth whose troughs climb falls back by its
 *     amplitude every period, and leaks all the same.
 * A verdict of the long horizon does not start while the ring shows the
 * growth stopped since the buckets closed, nor within RECENT + 1 buckets
 * of a verdict that cleared (its recent buckets hold the growth that
 * stopped).
 *
 * Either verdict starts only when the anonymous memory rose along with PSS
 * (by ANON_SHARE of the rise, first part of the window to the last): PSS
 * that climbs while Anonymous stays flat is file pages the kernel can
 * reclaim, or shared pages re-divided among fewer sharers.
 *
 * The least squares of the windows (the sums of every suffix, made in one
 * pass, and each window's fit from them) are core/detfit.c's.
 *
 * Nothing is judged below LeakMinSize. The fractions below are properties of
 * the shapes (step, plateau, saw-tooth), not of the workload, so they are
 * constants; the thresholds a user tunes are settings.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "memz/detector.h"
#include "detfit_int.h"
#include "dethist_int.h"
#include "dethold_int.h"

#define SPREAD_TOP3 0.6
#define QUARTER_MIN 0.3
#define PEAK_MARGIN 0.5
#define LONG_MIN 10
#define THIRD_MIN 0.25
#define RECENT MEMZ_DET_RECENT
#define RECENT_MIN 0.25
#define NOISE_MULT 6.0
#define LONG_FAST 4
#define LONG_FAST_RATE 4.0
#define FAST_NOISE_MULT 2.0
#define ANON_SHARE 0.5
#define SPREAD_MEDIAN 0.5
#define RATE_SE 2.0
#define RATE_FLOOR 0.5
#define WANDER_SHORT 2.0
#define WANDER_LONG 3.0
#define TIGHTEN_BUCKETS 8
/* re-anchor short-ring times before float offsets lose milliseconds */
#define T_REANCHOR 4096.0

#define NONE MEMZ_DET_Q_NONE

/* A bucket's anon, relative to abase. */
static inline double aval(const struct memz_detector *d, int16_t q)
{
	return q == NONE ? NAN : (double)q * d->aunit;
}

/* A ring anon, relative to abase. */
static inline double raval(const struct memz_detector *d, int16_t q)
{
	return q == NONE ? NAN : d->raoff + (double)q * d->raunit;
}

static void clear_buckets(struct memz_detector *d)
{
	for (unsigned j = 0; j < MEMZ_DET_BUCKETS; j++)
		d->bmin[j] = d->bmax[j] = d->bamin[j] = NONE;
	d->has_cur = false;
}

void memz_detector_init(struct memz_detector *d)
{
	memset(d, 0, sizeof *d);
	d->unit = d->runit = d->aunit = d->raunit = (float)MEMZ_DET_UNIT_MIN;
	clear_buckets(d);
}

double memz_detector_ring_pss(const struct memz_detector *d, unsigned i)
{
	unsigned start = d->rcount == MEMZ_DET_RING ? d->rhead : 0;

	return d->base + memz_dh_rval(d, d->rv[(start + i) % MEMZ_DET_RING]);
}

double memz_detector_bucket_width(const struct memz_settings *s)
{
	double w = s->leak_bucket;

	if (s->leak_long_horizon / w > MEMZ_DET_BUCKETS)
		w = s->leak_long_horizon / MEMZ_DET_BUCKETS;
	return w;
}

/* A rebase that would carry the history out of the range a push accepts
 * is dropped: the samples after it would be refused instead. */
static void shift(const struct memz_detector *d, double *base, double delta)
{
	if (d->n && isfinite(delta) &&
	    fabs(*base + delta) <= MEMZ_DET_BYTES_MAX)
		*base += delta;
}

void memz_detector_rebase(struct memz_detector *d, double delta)
{
	shift(d, &d->base, delta);
}

void memz_detector_rebase_anon(struct memz_detector *d, double delta)
{
	shift(d, &d->abase, delta);
}

/*
 * 0..100 from fit quality, how far the rate is above its threshold and how
 * much data there is. A leak never reports less than 50, a non-leak never
 * more than 49, so the number agrees with the flag.
 */
static int confidence(bool leak, double rate, double min_rate, double r2,
		      unsigned n, unsigned need)
{
	double q, c;

	if (!(rate > 0))
		return 0;
	q = 0.4 * memz_fit_clamp01((r2 - 0.5) / 0.5) +
	    0.3 * memz_fit_clamp01(
			  0.5 + log2(rate / (min_rate > 0 ? min_rate : 1)) / 4) +
	    0.3 * memz_fit_clamp01((double)n / (2.0 * need));
	c = floor(q * 100 + 0.5);
	/* every term is clamped, but a NaN r2 would pass clamp01 */
	if (!(c >= 0 && c <= 100))
		c = 0;
	if (leak)
		return c < 50 ? 50 : (int)c;
	return c > 49 ? 49 : (int)c;
}

/* Highest closed bucket that ended at or before absolute time t. */
static bool prior_peak(const struct memz_detector *d, double t, double *peak)
{
	int16_t best = 0;
	bool any = false;

	for (int64_t n = d->cur_idx - MEMZ_DET_BUCKETS; n < d->cur_idx; n++) {
		unsigned j = memz_dh_slot(n);

		if (d->bmax[j] == NONE || (double)(n + 1) * d->bucket_w > t)
			continue;
		if (!any || d->bmax[j] > best)
			best = d->bmax[j];
		any = true;
	}
	*peak = memz_dh_val(d, best);
	return any;
}

/*
 * An idle process pushes the same value cycle after cycle. Once the ring
 * holds nothing else, the fit is known without computing it: the mean of up
 * to 32 equal floats is exactly that float (their sums are exact in a
 * double), so every deviation, the covariance and the slope are +0 and R²
 * is 0; with times that differ the fit exists. From such a fit
 * assess_short concludes: no leak, rate and R² 0, m samples.
 */
static bool flat_ring(struct memz_detector *d, unsigned start)
{
	unsigned m = d->rcount, last = (start + m - 1) % MEMZ_DET_RING;

	if (d->rt[start] == d->rt[last])
		return false;
	/* ring slots 0..m-1 are the live ones, full or not */
	if (memcmp(&d->rv[0], &d->rv[1], (m - 1) * sizeof d->rv[0]))
		return false;
	d->short_leak = false;
	return true;
}

/*
 * How far the series has wandered: the deepest fall it made from a high to
 * a later low, over the closed buckets (a bucket's maximum before a later
 * bucket's minimum: within one bucket the order is not kept). A leak does
 * not fall back, and noise falls by a few noise widths; allocator churn (a
 * bounded random walk) falls as far as it rises, by its whole range once
 * it has been around for a while. A bucket's high is taken no more than
 * cap above its low (spike_wander; INFINITY: as it is). Kept when a
 * bucket closes; the short horizon adds the fall within the ring before
 * its window.
 */
static float bucket_wander_capped(const struct memz_detector *d, double cap)
{
	double hi = 0, dd = 0;
	bool first = true;

	for (int64_t n = d->cur_idx - MEMZ_DET_BUCKETS; n < d->cur_idx; n++) {
		unsigned j = memz_dh_slot(n);
		double lo, top;

		if (d->bmax[j] == NONE)
			continue;
		lo = memz_dh_val(d, d->bmin[j]);
		top = memz_dh_val(d, d->bmax[j]);
		if (top > lo + cap)
			top = lo + cap;
		if (!first && hi - lo > dd)
			dd = hi - lo;
		if (first || top > hi)
			hi = top;
		first = false;
	}
	return (float)dd;
}

static float bucket_wander(const struct memz_detector *d)
{
	return bucket_wander_capped(d, INFINITY);
}

/*
 * The wander the long horizon's start weighs a floor's rise against: a
 * bucket's high no more than SPIKE_CAP noise widths above its low, since
 * a batch job's 48 MiB for a few seconds above a slow leak is no level the
 * series stood at (noise, and a walk within a bucket, stay under it). The
 * noise is the ring's width about its trend, and where it is narrower, that
 * of the steps between two samples in its lower half: sampled every 10 s,
 * a spike every 30 s falls on every third sample for minutes on end, and
 * the steps in and out of it are then most of the ring's (a spiky leaker's
 * width was 6 MiB, its spikes not capped at all). Where both are nil (a
 * leaker's own bytes, a page a step), the ring's noise (its steps, trend
 * and all); where that is nil too, the series sat dead still between
 * steps, nothing tells a spike from a level, and a high stands as it is
 * (netdata's dbengine filling in steps of 6 MB held for minutes). The
 * short horizon and the holding keep the whole fall: a spike is as real a
 * dip to them.
 */
#define SPIKE_CAP 8.0
static double spike_wander(const struct memz_detector *d)
{
	double x[MEMZ_DET_RING], y[MEMZ_DET_RING], st[MEMZ_DET_RING];
	double dev[MEMZ_DET_RING], med, w, low;
	unsigned m = memz_dethist_ring(d, x, y), n = 0;

	w = memz_dethist_sigma(y, m);
	memcpy(dev, y, m * sizeof *y);
	med = memz_fit_median(dev, m);
	for (unsigned i = 1; i < m; i++)
		if (y[i - 1] <= med && y[i] <= med)
			st[n++] = y[i] - y[i - 1];
	if (n >= 4) {
		med = memz_fit_median(st, n);
		for (unsigned i = 0; i < n; i++)
			dev[i] = fabs(st[i] - med);
		low = 1.4826 * memz_fit_median(dev, n) / M_SQRT2 *
		      sqrt((double)MEMZ_DET_RING / n);
		if (low < w)
			w = low;
	}
	if (!(w > 0))
		w = d->noise;
	return bucket_wander_capped(d, w > 0 ? SPIKE_CAP * w : INFINITY);
}

/*
 * The quarter rules of short_window for the window j..m-1, from the suffix
 * sums (the quarters' means are differences of them), before its samples
 * are walked: under churn many windows pass preselect and fail here.
 */
static bool quarters_pass(const struct memz_sums *sfx, unsigned j, unsigned m,
			  const double *x, const double *y)
{
	unsigned n = m - j, b[5];
	double qx[4], qy[4], slope, sxx;
	const double slack = 1 - MEMZ_FIT_SLACK;

	for (unsigned q = 0; q < 4; q++)
		b[q] = j + (q * n + 3) / 4;
	b[4] = m;
	for (unsigned q = 0; q < 4; q++) {
		unsigned c = b[q + 1] - b[q];
		if (!c)
			return false;
		qx[q] = (sfx[b[q]].x - sfx[b[q + 1]].x) / c;
		qy[q] = (sfx[b[q]].y - sfx[b[q + 1]].y) / c;
	}
	sxx = n * sfx[j].xx - sfx[j].x * sfx[j].x;
	slope = (n * sfx[j].xy - sfx[j].x * sfx[j].y) / sxx;
	/* a byte of slack for the sums' rounding */
	for (unsigned q = 1; q < 4; q++)
		if (qy[q] - qy[q - 1] + 1 <
		    QUARTER_MIN * slack * slope * (qx[q] - qx[q - 1]))
			return false;
	return y[m - 1] - y[b[3]] + 1 >=
	       QUARTER_MIN * slack * slope * (x[m - 1] - x[b[3]]);
}

/*
 * Whether its anonymous memory grew along with PSS between the first and
 * the last part of a window: growth the process owns, not page cache of a
 * file it maps nor shared pages re-divided. Unknown anon (NaN): PSS decides.
 */
static bool owned(double a_first, double a_last, double pss_rise)
{
	if (!isfinite(a_first) || !isfinite(a_last))
		return true;
	return a_last - a_first >= ANON_SHARE * pss_rise;
}

/*
 * Whether the samples before a window, x[-pre..0), lie off the window's
 * line extended back, above it: the series was flat (or falling) and
 * began to climb where the window starts. The tail of a longer climb (a
 * saw-tooth's ramp) lies on the line and does not qualify.
 */
static bool changed(const double *x, const double *y, unsigned pre,
		    const struct memz_fit *f)
{
	double mx = 0, my = 0;

	for (unsigned i = 1; i <= pre; i++) {
		mx += x[-(int)i];
		my += y[-(int)i];
	}
	mx /= pre;
	my /= pre;
	return my - (f->y1 - f->slope * (f->x1 - mx)) >=
	       QUARTER_MIN * f->slope * (x[0] - mx);
}

/*
 * The median rise between the samples of y[0..m): a leak under noise
 * rises by about its rate in most of them, steps in a few of them only.
 */
static double median_rise(const double *y, unsigned m)
{
	double st[MEMZ_DET_RING];

	for (unsigned i = 0; i + 1 < m; i++)
		st[i] = y[i + 1] - y[i];
	return memz_fit_median(st, m - 1);
}

/*
 * One window of the short horizon, x[0..m) (times relative to t0), y
 * (PSS), with its sums; its anon is the ring's from slot `first` on
 * (converted only here: few windows get this far). Does it start a
 * verdict? pre: how many ring samples precede the window (x[-pre..0)); a
 * window that starts later than the ring must begin where the series
 * changed course, and the history before it must say where the series
 * stood (the prior peak).
 */
static bool short_window(const struct memz_detector *d,
			 const struct memz_settings *s, const struct memz_sums *sum,
			 const double *x, const double *y, unsigned first,
			 unsigned m, unsigned pre, double wander,
			 struct memz_fit *f)
{
	bool later = pre > 0;
	double qx[4] = { 0 }, qy[4] = { 0 }, qa[4] = { 0 };
	unsigned qn[4] = { 0 };
	double top[3] = { 0 }, rising = 0, runmax, limit, growth, peak = 0;
	bool ok, have_peak = false;

	if (!memz_sums_fit(sum, x, y, m, f) || !(f->slope > 0))
		return false;
	growth = f->slope * (f->x1 - f->x0);
	/* the churn of an allocator rises as far as it wanders; first, as
	 * under churn most windows fail here */
	if (growth <= WANDER_SHORT * wander)
		return false;
	/* then the drawdown, out at the first dip too deep */
	limit = s->leak_max_dip * growth;
	runmax = y[0];
	for (unsigned i = 1; i < m; i++) {
		if (y[i] > runmax)
			runmax = y[i];
		else if (runmax - y[i] > limit)
			return false;
	}
	/* then where the series stood before */
	have_peak = prior_peak(d, d->t0 + x[0], &peak);
	if (later && !(have_peak && changed(x, y, pre, f)))
		return false;
	if (have_peak && f->y1 < peak + PEAK_MARGIN * growth)
		return false;
	for (unsigned i = 0; i < m; i++) {
		unsigned q = i * 4 / m;
		qx[q] += x[i];
		qy[q] += y[i];
		qn[q]++;
	}
	for (unsigned q = 0; q < 4; q++) {
		qx[q] /= qn[q];
		qy[q] /= qn[q];
	}
	for (unsigned i = 1; i < m; i++) {
		double up = y[i] - y[i - 1];
		if (up <= 0)
			continue;
		rising += up;
		if (up > top[2]) {
			top[2] = up;
			if (top[2] > top[1]) {
				double t = top[1]; top[1] = top[2]; top[2] = t;
			}
			if (top[1] > top[0]) {
				double t = top[0]; top[0] = top[1]; top[1] = t;
			}
		}
	}
	ok = f->r2 >= s->leak_min_r2 &&
	     (f->slope >= s->leak_min_rate ||
	      f->slope + RATE_SE * memz_fit_se(f) >= s->leak_min_rate);
	for (unsigned q = 1; q < 4 && ok; q++)
		ok = qy[q] - qy[q - 1] >= QUARTER_MIN * f->slope * (qx[q] - qx[q - 1]);
	/* and the last quarter still climbs within itself */
	ok = ok && y[m - 1] - y[m - qn[3]] >=
			   QUARTER_MIN * f->slope * (x[m - 1] - x[m - qn[3]]);
	if (!ok)
		return false;
	/* the median last: it sorts the window's rises */
	if (top[0] + top[1] + top[2] > SPREAD_TOP3 * rising &&
	    median_rise(y, m) < SPREAD_MEDIAN * growth / (m - 1))
		return false;
	for (unsigned i = 0; i < m; i++) {
		unsigned q = i * 4 / m;
		if (q == 0 || q == 3)
			qa[q] += raval(d, d->ra[(first + i) % MEMZ_DET_RING]);
	}
	return owned(qa[0] / qn[0], qa[3] / qn[3], qy[3] - qy[0]);
}

/*
 * The short horizon judges the whole ring and every suffix of it down to
 * LeakMinSamples, longest first: a leak that starts in a process that ran
 * flat for a while fills a suffix long before it fills the ring. The sums
 * of every suffix cost one pass; only a window whose slope and R² already
 * pass is looked at in full.
 */
static void assess_short(struct memz_detector *d, const struct memz_settings *s,
			 struct memz_verdict *v)
{
	double x[MEMZ_DET_RING], y[MEMZ_DET_RING];
	struct memz_sums sfx[MEMZ_DET_RING + 1];
	unsigned m = d->rcount, start, need, upto = 1;
	double slope, r2, hi, fall = 0;
	struct memz_fit f;

	memset(v, 0, sizeof *v);
	v->horizon = MEMZ_HORIZON_SHORT;
	if (m < 2)
		return;
	start = m == MEMZ_DET_RING ? d->rhead : 0;
	if (flat_ring(d, start)) {
		v->samples = m;
		return;
	}
	for (unsigned i = 0; i < m; i++) {
		unsigned k = (start + i) % MEMZ_DET_RING;
		x[i] = d->rt[k];
		y[i] = memz_dh_rval(d, d->rv[k]);
	}
	memz_sums_suffixes(x, y, m, sfx);
	if (!memz_sums_slope(&sfx[0], m, &slope, &r2))
		return;
	hi = y[0];
	v->rate_bps = slope;
	v->r2 = r2;
	v->samples = m;
	d->short_leak = false;
	need = s->leak_min_samples < 2 ? 2 : (unsigned)s->leak_min_samples;
	if (m < need || d->base + y[m - 1] < s->leak_min_size)
		return;
	for (unsigned j = 0; j + need <= m; j++) {
		unsigned n = m - j;

		if (!memz_sums_preselect(&sfx[j], n,
					 RATE_FLOOR * s->leak_min_rate,
					 s->leak_min_r2) ||
		    !memz_sums_rate_bound(&sfx[j], n, s->leak_min_rate,
					  RATE_SE) ||
		    !quarters_pass(sfx, j, m, x, y))
			continue;
		/* the fall within the ring before the window, as far as
		 * a window got this far */
		for (; upto < j; upto++) {
			if (y[upto] > hi)
				hi = y[upto];
			else if (hi - y[upto] > fall)
				fall = hi - y[upto];
		}
		if (!short_window(d, s, &sfx[j], x + j, y + j,
				  (start + j) % MEMZ_DET_RING, n, j,
				  fall > d->bwander ? fall : d->bwander, &f))
			continue;
		d->short_leak = true;
		v->rate_bps = f.slope;
		v->r2 = f.r2;
		v->samples = n;
		v->leak = true;
		v->confidence = confidence(true, f.slope, s->leak_min_rate,
					   f.r2, n, need);
		return;
	}
	v->confidence = confidence(false, v->rate_bps, s->leak_min_rate, v->r2,
				   m, need);
}

/* The series' own noise scale: the median absolute step of the short
 * ring between samples in its lower half. A batch job's spikes above the
 * series (a third of the samples, sampled every 10 s) are steps too, but
 * not between two of those. */
static double ring_noise(const struct memz_detector *d)
{
	double st[MEMZ_DET_RING], v[MEMZ_DET_RING], mid;
	unsigned m = d->rcount, start = m == MEMZ_DET_RING ? d->rhead : 0, n = 0;

	for (unsigned i = 0; i < m; i++)
		v[i] = d->rv[(start + i) % MEMZ_DET_RING];
	mid = memz_fit_median(v, m);
	for (unsigned i = 1; i < m; i++) {
		unsigned a = (start + i - 1) % MEMZ_DET_RING,
			 b = (start + i) % MEMZ_DET_RING;
		if (d->rv[a] <= mid && d->rv[b] <= mid)
			st[n++] = fabs(((double)d->rv[b] - d->rv[a]) * d->runit);
	}
	if (n < 4) {
		n = 0;
		for (unsigned i = 1; i < m; i++) {
			unsigned a = (start + i - 1) % MEMZ_DET_RING,
				 b = (start + i) % MEMZ_DET_RING;
			st[n++] = fabs(((double)d->rv[b] - d->rv[a]) * d->runit);
		}
	}
	return memz_fit_median(st, n);
}

/* The highest floor among closed buckets before bucket number idx (their
 * minima: a batch job's spike above a leak is no level the series stood
 * at, while a saw-tooth's or a repeated warm-up's earlier ramps are). */
static bool peak_before(const struct memz_detector *d, int64_t idx,
			double *peak)
{
	int16_t best = 0;
	bool any = false;

	for (int64_t n = d->cur_idx - MEMZ_DET_BUCKETS; n < idx; n++) {
		unsigned j = memz_dh_slot(n);

		if (d->bmax[j] == NONE)
			continue;
		if (!any || d->bmin[j] > best)
			best = d->bmin[j];
		any = true;
	}
	*peak = memz_dh_val(d, best);
	return any;
}

/*
 * Whether the floor rose evenly over the whole history: in each of
 * EVEN_PARTS parts by EVEN_MIN of what the slope predicts. A saw-tooth
 * whose troughs rise does; a bounded random walk, whose floor climbs only
 * in its last excursion, does not, however far both have fallen back.
 */
#define EVEN_PARTS 6
#define EVEN_MIN 0.5
static bool even_rise(const double *x, const double *env, unsigned nb,
		      double slope)
{
	if (nb < 2 * EVEN_PARTS)
		return false;
	for (unsigned i = 0; i < EVEN_PARTS; i++) {
		unsigned a = i * nb / EVEN_PARTS, b = (i + 1) * nb / EVEN_PARTS - 1;
		if (env[b] - env[a] < EVEN_MIN * slope * (x[b] - x[a]))
			return false;
	}
	return true;
}

/*
 * One window of the long horizon: bucket centres x[0..nb), floor env, anon
 * floor aenv; first: its first bucket's number. `later`: the horizon holds
 * older buckets than the window. *sw: the spike wander, NAN until a window
 * needs it (the same for every window of a judgement).
 */
static bool long_window(const struct memz_detector *d,
			const struct memz_settings *s, const double *x,
			const double *env, const double *aenv, unsigned nb,
			int64_t first, bool later, double *sw,
			struct memz_fit *f)
{
	unsigned r = RECENT;
	double rec, peak = 0;

	if (!memz_fit_ols(x, env, nb, f) || !(f->slope > 0))
		return false;
	if (r > nb / 3)
		r = nb / 3;
	if (r < 1)
		r = 1;
	rec = (env[nb - 1] - env[nb - 1 - r]) /
	      (f->slope * (x[nb - 1] - x[nb - 1 - r]));
	/* LeakSlowMinRate within RATE_SE standard errors, as for the short
	 * horizon: a leak at the threshold itself fits a floor a hair
	 * under it as often as over */
	if (!((f->slope >= s->leak_slow_min_rate ||
	       (f->slope >= RATE_FLOOR * s->leak_slow_min_rate &&
		f->slope + RATE_SE * memz_fit_se(f) >= s->leak_slow_min_rate)) &&
	      f->r2 >= s->leak_min_r2 &&
	      rec >= RECENT_MIN && env[nb - 1] - env[0] > NOISE_MULT * d->noise))
		return false;
	if (nb < LONG_MIN) {
		/* few buckets: growth near LeakSlowMinRate needs LONG_MIN
		 * buckets of history (a make or a shell creeping by a KiB a
		 * second for four minutes is not yet a leak); only growth
		 * LONG_FAST_RATE times faster is judged on fewer */
		if (f->slope < LONG_FAST_RATE * s->leak_slow_min_rate)
			return false;
		/* few buckets: the floor rose in every one of them, by no
		 * less than a share of the average and clear of the noise
		 * (a minimum of a few noisy samples wanders by about one
		 * noise width), which no lone step or two, nor any warm-up
		 * that levels, does */
		double each = THIRD_MIN * (env[nb - 1] - env[0]) / (nb - 1);
		for (unsigned k = 1; k < nb; k++)
			if (!(env[k] - env[k - 1] > FAST_NOISE_MULT * d->noise &&
			      env[k] - env[k - 1] >= each))
				return false;
	} else {
		unsigned cut[4] = { 0, nb / 3, 2 * nb / 3, nb };
		for (unsigned i = 0; i < 3; i++) {
			unsigned a = cut[i], b = cut[i + 1] - 1;
			if (env[b] - env[a] < THIRD_MIN * f->slope * (x[b] - x[a]))
				return false;
		}
	}
	/* a window that starts later than the history must end above all
	 * of it: a saw-tooth's next ramp, or a warm-up repeated, climbs only
	 * back to where the series has been */
	if (later && (!peak_before(d, first, &peak) || env[nb - 1] <= peak))
		return false;
	if (isnan(*sw))
		*sw = spike_wander(d);
	if (env[nb - 1] - env[0] <= WANDER_LONG * *sw &&
	    (later || !even_rise(x, env, nb, f->slope)))
		return false;
	return owned(aenv[0], aenv[nb - 1], env[nb - 1] - env[0]);
}

/*
 * The long horizon, judged when a bucket closes, over the whole history
 * and every suffix down to LONG_FAST buckets, longest first: a leak that
 * starts late, or a fast bursty one, need not wait for LONG_MIN buckets or
 * for two thirds of the history. Each window's floor is the suffix minimum
 * of the whole, so a window sees what the whole does.
 */
static void judge_long(struct memz_detector *d, const struct memz_settings *s,
		       struct memz_verdict *v)
{
	double x[MEMZ_DET_BUCKETS], env[MEMZ_DET_BUCKETS], aenv[MEMZ_DET_BUCKETS];
	int64_t idx[MEMZ_DET_BUCKETS];
	struct memz_sums sfx[MEMZ_DET_BUCKETS + 1];
	double horizon_n = s->leak_long_horizon / d->bucket_w, sw = NAN;
	unsigned nb = 0;
	struct memz_fit f;

	memset(v, 0, sizeof *v);
	v->horizon = MEMZ_HORIZON_LONG;
	for (int64_t n = d->cur_idx - MEMZ_DET_BUCKETS; n < d->cur_idx; n++) {
		unsigned j = memz_dh_slot(n);

		if (d->bmax[j] == NONE || (double)(d->cur_idx - n) > horizon_n ||
		    n < d->idx0)
			continue;
		idx[nb] = n;
		x[nb] = ((double)(n - d->idx0) + 0.5) * d->bucket_w;
		aenv[nb] = aval(d, d->bamin[j]);
		env[nb++] = memz_dh_val(d, d->bmin[j]);
	}
	d->long_leak = false;
	if (nb < 2)
		return;
	for (unsigned k = nb - 1; k-- > 0;) {
		if (env[k + 1] < env[k])
			env[k] = env[k + 1];
		/* NaN stays: fmin would drop it */
		if (aenv[k + 1] < aenv[k] || isnan(aenv[k + 1]))
			aenv[k] = aenv[k + 1];
	}
	if (!memz_fit_ols(x, env, nb, &f))
		return;
	v->rate_bps = f.slope;
	v->r2 = f.r2;
	v->samples = nb;
	if (nb < LONG_FAST || d->base + memz_dh_val(d, d->cur_min) < s->leak_min_size)
		return;
	memz_sums_suffixes(x, env, nb, sfx);
	for (unsigned j = 0; j + LONG_FAST <= nb; j++) {
		unsigned n = nb - j;

		if (!memz_sums_preselect(&sfx[j], n,
					 RATE_FLOOR * s->leak_slow_min_rate,
					 s->leak_min_r2))
			continue;
		if (!long_window(d, s, x + j, env + j, aenv + j, n, idx[j],
				 j > 0, &sw, &f))
			continue;
		d->long_leak = true;
		v->rate_bps = f.slope;
		v->r2 = f.r2;
		v->samples = n;
		v->leak = true;
		v->confidence = confidence(true, f.slope, s->leak_slow_min_rate,
					   f.r2, n, LONG_MIN);
		return;
	}
	v->confidence = confidence(false, v->rate_bps, s->leak_slow_min_rate,
				   v->r2, nb, LONG_MIN);
}

static void assess_long(struct memz_detector *d, const struct memz_settings *s)
{
	struct memz_verdict v;

	judge_long(d, s, &v);
	d->lv = (struct memz_det_long){ v.rate_bps, v.r2, (uint8_t)v.samples,
					(int8_t)v.confidence, v.leak, true };
}

/* The latest long assessment as a verdict. */
static void long_verdict(const struct memz_detector *d, struct memz_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->rate_bps = d->lv.rate_bps;
	v->r2 = d->lv.r2;
	v->samples = d->lv.samples;
	v->confidence = d->lv.confidence;
	v->horizon = d->lv.made ? MEMZ_HORIZON_LONG : MEMZ_HORIZON_SHORT;
	v->leak = d->lv.leak;
}

static void ring_push(struct memz_detector *d, double t, int16_t y, int16_t a)
{
	unsigned k;

	if (t - d->t0 > T_REANCHOR) {
		double shift = t - d->t0;
		for (unsigned i = 0; i < d->rcount; i++)
			d->rt[i] = (float)((double)d->rt[i] - shift);
		d->hold_t = (float)((double)d->hold_t - shift);
		d->t0 = t;
	}
	if (d->rcount < MEMZ_DET_RING) {
		k = d->rcount++;
	} else {
		k = d->rhead;
		d->rhead = (uint8_t)((d->rhead + 1) % MEMZ_DET_RING);
	}
	d->rt[k] = (float)(t - d->t0);
	d->rv[k] = y;
	d->ra[k] = a;
}

/* Returns true when a bucket closed (the long horizon needs judging). */
static bool bucket_push(struct memz_detector *d, double t, int16_t y, int16_t a)
{
	/* |t| <= MEMZ_DET_T_MAX and bucket_w >= 1e-3, both checked by the
	 * push: at most 1e15, well inside int64_t */
	int64_t idx = (int64_t)floor(t / d->bucket_w);
	bool closed = false;

	if (!d->has_cur) {
		d->idx0 = idx;
	} else if (idx == d->cur_idx) {
		if (y < d->cur_min)
			d->cur_min = y;
		if (y > d->cur_max)
			d->cur_max = y;
		/* an unknown anon stays unknown for the bucket */
		if (a == NONE || (d->cur_amin != NONE && a < d->cur_amin))
			d->cur_amin = a;
		return false;
	} else if (idx - d->cur_idx > MEMZ_DET_BUCKETS) {
		/* the bucket closed is older than the history reaches */
		clear_buckets(d);
		closed = true;
	} else {
		unsigned k = memz_dh_slot(d->cur_idx);

		d->bmin[k] = d->cur_min;
		d->bmax[k] = d->cur_max;
		d->bamin[k] = d->cur_amin;
		/* the buckets no sample fell in */
		for (int64_t n = d->cur_idx + 1; n < idx; n++) {
			k = memz_dh_slot(n);
			d->bmin[k] = d->bmax[k] = d->bamin[k] = NONE;
		}
		closed = true;
	}
	d->has_cur = true;
	d->cur_idx = idx;
	d->cur_min = d->cur_max = y;
	d->cur_amin = a;
	return closed;
}

#define RENEW_SHARE 0.25
#define RENEW_EVERY 8

/* Whether a verdict cleared so lately that the long horizon's recent
 * buckets (RECENT, and the one the growth stopped in before the clear)
 * still hold the growth that stopped. */
static bool recently_cleared(const struct memz_detector *d, double t)
{
	return d->verdict.since != 0 &&
	       t - d->verdict.since < (RECENT + 1) * d->bucket_w;
}

/* The buckets' offset (base) moved by c: what is kept relative to it
 * stays where it was. */
static void move_base(struct memz_detector *d, double c)
{
	d->roff -= c;
	d->hold_y = (float)(d->hold_y - c);
}

int memz_detector_push(struct memz_detector *d, const struct memz_settings *s,
		       double t, double bytes, double anon)
{
	bool was = d->verdict.leak, closed;
	double since = d->verdict.since;
	struct memz_verdict sv;
	double w = memz_detector_bucket_width(s);
	int16_t yr, yb, ar = NONE, ab = NONE;
	double y, ya;

	if (!isfinite(t) || !isfinite(bytes))
		return -EINVAL;
	if (fabs(t) > MEMZ_DET_T_MAX || fabs(bytes) > MEMZ_DET_BYTES_MAX ||
	    !(w >= 1e-3 && w <= MEMZ_DET_T_MAX))
		return -ERANGE;
	if (d->n && t < d->t_last)
		return -EINVAL;
	if (!(anon >= 0) || anon > MEMZ_DET_BYTES_MAX)
		anon = NAN;
	if (!d->n) {
		d->base = bytes;
		d->abase = isnan(anon) ? 0 : anon;
		d->t0 = t;
	}
	if (d->bucket_w != w) {
		/* settings changed under a live history: restart the buckets */
		d->bucket_w = w;
		clear_buckets(d);
		d->long_leak = false;
		d->bwander = 0;
		memset(&d->lv, 0, sizeof d->lv);
	}
	d->n++;
	d->t_last = t;
	/* base and abase stay within MEMZ_DET_BYTES_MAX (see shift), so
	 * the units stay far inside a float's range */
	/* the ring's offsets are relative to the bases, which may move */
	if (!memz_dethist_fits(bytes - d->base, d->unit))
		move_base(d, memz_dethist_make_room(d, MEMZ_DH_BUCKETS,
						    bytes - d->base, false));
	y = bytes - d->base;
	yb = memz_dethist_quantise(y, d->unit);
	if (!memz_dethist_fits(y - d->roff, d->runit))
		memz_dethist_make_room(d, MEMZ_DH_RING, y - d->roff, false);
	yr = memz_dethist_quantise(y - d->roff, d->runit);
	if (!isnan(anon)) {
		if (!memz_dethist_fits(anon - d->abase, d->aunit))
			d->raoff -= memz_dethist_make_room(d, MEMZ_DH_BANON,
							   anon - d->abase,
							   false);
		ya = anon - d->abase;
		ab = memz_dethist_quantise(ya, d->aunit);
		if (!memz_dethist_fits(ya - d->raoff, d->raunit))
			memz_dethist_make_room(d, MEMZ_DH_RANON,
					       ya - d->raoff, false);
		ar = memz_dethist_quantise(ya - d->raoff, d->raunit);
	}
	ring_push(d, t, yr, ar);
	closed = bucket_push(d, t, yb, ab);
	if (closed) {
		/* a wide span leaves the ring in MEMZ_DET_RING samples, the
		 * buckets in the long horizon: theirs is looked at every
		 * TIGHTEN_BUCKETS buckets */
		memz_dethist_make_room(d, MEMZ_DH_RING, NAN, true);
		memz_dethist_make_room(d, MEMZ_DH_RANON, NAN, true);
		if (!(d->cur_idx % TIGHTEN_BUCKETS)) {
			move_base(d, memz_dethist_make_room(
					     d, MEMZ_DH_BUCKETS, NAN, true));
			d->raoff -= memz_dethist_make_room(d, MEMZ_DH_BANON,
							   NAN, true);
		}
		d->noise = (float)ring_noise(d);
		d->bwander = bucket_wander(d);
		assess_long(d, s);
	}
	if (was) {
		/* a noisy series is held by its floor, at the rate the long
		 * horizon sees once it sees one (a first climb under churn
		 * is steeper than the leak beneath it) */
		/* a history that has since fallen further than the slack
		 * dips: its floor holds it from now on */
		if (closed && !d->hold_floor && d->bwander > d->hold_slack)
			d->hold_floor = true;
		if (d->hold_floor && closed && d->long_leak) {
			long_verdict(d, &d->verdict);
			d->verdict.leak = true;
			d->verdict.since = since;
			d->hold_rate = d->lv.rate_bps;
		}
		if (memz_dethold_holds(d, closed)) {
			/* every RENEW_EVERY pushes a fresh start renews
			 * what the ring holds it to (its figures, and its
			 * slack and regime when the rate moved by a quarter
			 * or the ring filled four times that since: they
			 * cost two medians); a climb under churn is no news
			 * to the floor, which holds it */
			if (d->hold_floor || d->n % RENEW_EVERY)
				return 0;
			assess_short(d, s, &sv);
			if (d->short_leak) {
				d->verdict = sv;
				d->verdict.since = since;
				if (fabs(sv.rate_bps - d->hold_rate) >
					    RENEW_SHARE * d->hold_rate ||
				    !(d->n % (4 * RENEW_EVERY)))
					memz_dethold_begin(d, sv.rate_bps,
							   sv.samples);
			}
			return 0;
		}
		assess_short(d, s, &sv);
		/* the growth stopped, fresh start or not */
		d->short_leak = false;
	} else {
		assess_short(d, s, &sv);
		if (d->short_leak) {
			if (memz_dethold_admit_short(d, sv.rate_bps,
						     sv.samples)) {
				d->verdict = sv;
				d->verdict.since = t;
				return 1;
			}
			d->short_leak = false;
		} else if (closed && d->long_leak && !recently_cleared(d, t)) {
			struct memz_verdict lv;

			long_verdict(d, &lv);
			if (memz_dethold_admit_long(d, lv.rate_bps)) {
				d->verdict = lv;
				d->verdict.since = t;
				return 1;
			}
		}
	}
	/* not flagged: the figures of a level fit, and since when its last
	 * verdict cleared */
	if (sv.samples)
		d->verdict = sv;
	else
		long_verdict(d, &d->verdict);
	d->verdict.leak = false;
	d->verdict.since = was ? t : since;
	return was;
}

bool memz_detector_withhold(struct memz_detector *d)
{
	if (!d->verdict.leak)
		return false;
	d->verdict.leak = false;
	d->verdict.since = 0;
	d->short_leak = d->long_leak = false;
	return true;
}

void memz_detector_restart_long(struct memz_detector *d)
{
	/* the buckets before stay for what the series has been (its prior
	 * peak, how far it wandered); the long horizon judges from here */
	if (d->has_cur)
		d->idx0 = d->cur_idx;
	d->long_leak = false;
	memset(&d->lv, 0, sizeof d->lv);
}
