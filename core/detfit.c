/*
 * detfit.c - least squares of a window, from its samples or from the sums
 * of every suffix made in one pass (see detfit_int.h).
 */
#include <math.h>

#include "detfit_int.h"

bool memz_fit_ols(const double *x, const double *y, unsigned n,
		  struct memz_fit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;

	if (!n)
		return false;
	for (unsigned i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	for (unsigned i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (!(sxx > 0))
		return false;
	f->slope = sxy / sxx;
	f->r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 0;
	f->x0 = x[0];
	f->x1 = x[n - 1];
	f->y1 = my + f->slope * (x[n - 1] - mx);
	f->sxx = sxx;
	f->syy = syy;
	f->n = n;
	return true;
}

double memz_fit_se(const struct memz_fit *f)
{
	double res = f->syy * (1 - f->r2);

	return f->n > 2 && res > 0 ? sqrt(res / ((f->n - 2) * f->sxx)) : 0;
}

void memz_sums_suffixes(const double *x, const double *y, unsigned n,
			struct memz_sums *out)
{
	struct memz_sums a = { 0 };
	double xe, ye;

	out[n] = a;
	if (!n)
		return;
	xe = x[n - 1];
	ye = y[n - 1];
	for (unsigned j = n; j-- > 0;) {
		double X = x[j] - xe, Y = y[j] - ye;
		a.x += X;
		a.y += Y;
		a.xx += X * X;
		a.xy += X * Y;
		a.yy += Y * Y;
		out[j] = a;
	}
}

bool memz_sums_rate_bound(const struct memz_sums *a, unsigned n,
			  double min_rate, double k)
{
	double slope, r2, se2;

	if (n < 3 || !memz_sums_slope(a, n, &slope, &r2))
		return false;
	if (slope >= min_rate)
		return true;
	se2 = (a->yy - a->y * a->y / n) * (1 - r2) /
	      ((n - 2) * (a->xx - a->x * a->x / n));
	return (min_rate - slope) * (min_rate - slope) <=
	       k * k * se2 * (1 + MEMZ_FIT_SLACK);
}

/* Insertion sort: the detector's windows hold at most 64 values. */
double memz_fit_median(double *v, unsigned n)
{
	if (!n)
		return 0;
	for (unsigned i = 1; i < n; i++) {
		double t = v[i];
		unsigned j = i;
		for (; j > 0 && v[j - 1] > t; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
