/*
 * test_detfit.c - the detector's least squares: the fit from the samples
 * and the fit from the suffix sums agree, against figures worked by hand,
 * and the pre-selection, the rate's confidence bound and the median say
 * what they are asked.
 */
#include <math.h>

#include "check.h"
#include "../core/detfit_int.h"

/* x 0..3, y 1 3 2 5: mean (1.5, 2.75), Sxx 5, Sxy 5.5, Syy 8.75, so slope
 * 1.1, R² 30.25 / 43.75, residual 8.75 - 1.1 * 5.5 = 2.7, standard error
 * sqrt(2.7 / (2 * 5)), fitted end 2.75 + 1.1 * 1.5 */
static const double hx[] = { 0, 1, 2, 3 }, hy[] = { 1, 3, 2, 5 };

static void by_hand(void)
{
	struct memz_fit f;
	struct memz_sums sfx[5];

	CHECK(memz_fit_ols(hx, hy, 4, &f));
	CHECK_NEAR(f.slope, 1.1, 1e-12);
	CHECK_NEAR(f.r2, 30.25 / 43.75, 1e-12);
	CHECK_NEAR(f.y1, 2.75 + 1.1 * 1.5, 1e-12);
	CHECK_NEAR(f.x0, 0, 0);
	CHECK_NEAR(f.x1, 3, 0);
	CHECK_NEAR(memz_fit_se(&f), sqrt(0.27), 1e-12);

	memz_sums_suffixes(hx, hy, 4, sfx);
	CHECK_NEAR(sfx[4].x, 0, 0);
	CHECK_NEAR(sfx[4].yy, 0, 0);
	CHECK(memz_sums_fit(&sfx[0], hx, hy, 4, &f));
	CHECK_NEAR(f.slope, 1.1, 1e-12);
	CHECK_NEAR(f.r2, 30.25 / 43.75, 1e-12);
	CHECK_NEAR(f.y1, 2.75 + 1.1 * 1.5, 1e-12);
	CHECK_NEAR(memz_fit_se(&f), sqrt(0.27), 1e-12);

	/* a line exactly: R² 1, no error */
	{
		double y[] = { 5, 8, 11, 14 };
		CHECK(memz_fit_ols(hx, y, 4, &f));
		CHECK_NEAR(f.slope, 3, 1e-12);
		CHECK_NEAR(f.r2, 1, 1e-12);
		CHECK_NEAR(memz_fit_se(&f), 0, 1e-6);
	}
	/* x that does not vary has no fit; two points no error */
	{
		double x[] = { 2, 2, 2 }, y[] = { 1, 2, 3 };
		memz_sums_suffixes(x, y, 3, sfx);
		CHECK(!memz_fit_ols(x, y, 3, &f));
		CHECK(!memz_sums_fit(&sfx[0], x, y, 3, &f));
		CHECK(!memz_fit_ols(x, y, 0, &f));
		CHECK(memz_fit_ols(hx, hy, 2, &f));
		CHECK_NEAR(memz_fit_se(&f), 0, 0);
	}
}

/* Every suffix of a long noisy series: the sums give the exact fit,
 * relative to the newest sample, even far from 0 */
static void suffixes_agree(void)
{
	enum { N = 32 };
	double x[N], y[N];
	struct memz_sums sfx[N + 1];
	unsigned long long r = 1;

	for (unsigned i = 0; i < N; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		x[i] = 4000 + i * 1.0 + (double)(r >> 60) / 64;
		y[i] = 3e8 + 65536.0 * i + (double)(r >> 44);
	}
	memz_sums_suffixes(x, y, N, sfx);
	for (unsigned j = 0; j + 2 <= N; j++) {
		struct memz_fit a, b;
		CHECK(memz_fit_ols(x + j, y + j, N - j, &a));
		CHECK(memz_sums_fit(&sfx[j], x + j, y + j, N - j, &b));
		CHECK_NEAR(b.slope, a.slope, 1e-9 * fabs(a.slope));
		CHECK_NEAR(b.r2, a.r2, 1e-9);
		CHECK_NEAR(b.y1, a.y1, 1e-3);
		CHECK_NEAR(memz_fit_se(&b), memz_fit_se(&a),
			   1e-6 * memz_fit_se(&a) + 1e-9);
		/* preselect agrees with the exact figures; it never passes
		 * a slope that does not rise */
		if (!(a.slope > 0)) {
			CHECK(!memz_sums_preselect(&sfx[j], N - j, 0, 0));
			continue;
		}
		CHECK(memz_sums_preselect(&sfx[j], N - j, a.slope * 0.999,
					  a.r2 * 0.999));
		CHECK(!memz_sums_preselect(&sfx[j], N - j, a.slope * 1.001, 0));
		CHECK(!memz_sums_preselect(&sfx[j], N - j, 0,
					   a.r2 * 1.001 + 1e-3));
	}
}

/* The rate's confidence bound on the hand data: slope 1.1, error 0.5196 */
static void rate_bound(void)
{
	struct memz_sums sfx[5];

	memz_sums_suffixes(hx, hy, 4, sfx);
	CHECK(memz_sums_rate_bound(&sfx[0], 4, 1.0, 2));   /* below the slope */
	CHECK(memz_sums_rate_bound(&sfx[0], 4, 2.1, 2));   /* 1.1 + 1.039 */
	CHECK(!memz_sums_rate_bound(&sfx[0], 4, 2.2, 2));
	CHECK(!memz_sums_rate_bound(&sfx[0], 4, 2.1, 1));
	CHECK(!memz_sums_rate_bound(&sfx[2], 2, 0, 2)); /* under three */
}

static void median(void)
{
	double odd[] = { 5, -1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	CHECK_NEAR(memz_fit_median(odd, 3), 3, 0);
	CHECK_NEAR(odd[0], -1, 0); /* sorted in place */
	CHECK_NEAR(memz_fit_median(even, 4), 2.5, 0);
	CHECK_NEAR(memz_fit_median(one, 1), 7, 0);
	CHECK_NEAR(memz_fit_median(one, 0), 0, 0);
}

int main(void)
{
	by_hand();
	suffixes_agree();
	rate_bound();
	median();
	return check_status();
}
