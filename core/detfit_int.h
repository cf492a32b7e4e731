/*
 * detfit_int.h - the least-squares arithmetic the leak detector runs on
 * every push (private to libmemz; core/detector.c is its one user).
 *
 * A window is judged on every suffix of the short ring on every push, so
 * the sums of all suffixes are made in one pass (memz_sums_suffixes) and
 * each window's fit, or the question whether it can pass at all, comes
 * from its sums. The sums are in coordinates relative to the newest sample
 * so that nothing large cancels. Pure: no state, no allocation.
 */
#ifndef MEMZ_DETFIT_INT_H
#define MEMZ_DETFIT_INT_H

#include <stdbool.h>

/* The sums' fit and the exact fit of a window may differ in the last bits:
 * where the sums only pre-select, they let those through. */
#define MEMZ_FIT_SLACK 1e-6

struct memz_fit {
	double slope, r2, x0, x1, y1; /* y1: fitted value at x1 */
	double sxx, syy;              /* for the slope's standard error */
	unsigned n;
};

/* Running sums of one window relative to its newest sample (x[n-1],
 * y[n-1]): enough for its least squares. */
struct memz_sums {
	double x, y, xx, xy, yy;
};

static inline double memz_fit_clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* OLS of y on x[0..n); false when x does not vary. */
bool memz_fit_ols(const double *x, const double *y, unsigned n,
		  struct memz_fit *f);

/* The slope's standard error; 0 with two points or an exact fit. */
double memz_fit_se(const struct memz_fit *f);

/* Sums of every suffix of x, y [0..n): out[j] covers j..n-1, relative to
 * x[n-1], y[n-1]; out[n] is empty. out holds n + 1. */
void memz_sums_suffixes(const double *x, const double *y, unsigned n,
			struct memz_sums *out);

/* The least-squares slope and R² (clamped to 0..1) of a window of n
 * samples from its sums; false when x does not vary. */
static inline bool memz_sums_slope(const struct memz_sums *a, unsigned n,
				   double *slope, double *r2)
{
	double sxx, sxy, syy;

	if (!n)
		return false;
	sxx = a->xx - a->x * a->x / n;
	sxy = a->xy - a->x * a->y / n;
	syy = a->yy - a->y * a->y / n;
	if (!(sxx > 0))
		return false;
	*slope = sxy / sxx;
	*r2 = syy > 0 ? memz_fit_clamp01(sxy * sxy / (sxx * syy)) : 0;
	return true;
}

/* The whole fit of the window x[0..n), y[0..n) from its sums: what
 * memz_fit_ols gives, without another pass over the samples. */
static inline bool memz_sums_fit(const struct memz_sums *a,
				 const double *x, const double *y,
				 unsigned n, struct memz_fit *f)
{
	if (!memz_sums_slope(a, n, &f->slope, &f->r2))
		return false;
	f->x0 = x[0];
	f->x1 = x[n - 1];
	f->y1 = y[n - 1] + (a->y - f->slope * a->x) / n;
	f->sxx = a->xx - a->x * a->x / n;
	f->syy = a->yy - a->y * a->y / n;
	f->n = n;
	return true;
}

/* Whether a window's slope is at least min_rate and its R² at least min_r2
 * (each less MEMZ_FIT_SLACK), from its sums, without a division: it runs
 * on every suffix of every push (inline, as the fits above). n² times the
 * (co)variances keep the comparisons' signs. */
static inline bool memz_sums_preselect(const struct memz_sums *a,
				       unsigned n, double min_rate,
				       double min_r2)
{
	double sxx = n * a->xx - a->x * a->x, sxy = n * a->xy - a->x * a->y;

	min_rate *= 1 - MEMZ_FIT_SLACK;
	if (!(sxx > 0) || !(sxy > 0) || sxy < min_rate * sxx)
		return false;
	return min_r2 <= MEMZ_FIT_SLACK ||
	       sxy * sxy >= (min_r2 - MEMZ_FIT_SLACK) * sxx *
				    (n * a->yy - a->y * a->y);
}

/* Whether min_rate lies no more than k standard errors above the window's
 * slope (or below it); false under three samples. */
bool memz_sums_rate_bound(const struct memz_sums *a, unsigned n,
			  double min_rate, double k);

/* The median of v[0..n), which it sorts; 0 when n is 0. */
double memz_fit_median(double *v, unsigned n);

#endif
