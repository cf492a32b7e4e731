/*
 * dethist.c - the detector's history stored as int16 in power-of-two units
 * (dethist_int.h), so that a process's history is 824 B, not 1,456, and
 * read back as the rules judge it.
 */
#include <math.h>

#include "detfit_int.h"
#include "dethist_int.h"

struct series {
	double *off;
	float *unit;
	int16_t *v[4];
	unsigned n[4], k;
};

static void series_of(struct memz_detector *d, enum memz_dh_series id,
		      struct series *sr)
{
	unsigned c = d->has_cur, b = MEMZ_DET_BUCKETS;

	switch (id) {
	default:
	case MEMZ_DH_RING:
		*sr = (struct series){ &d->roff, &d->runit, { d->rv },
				       { d->rcount }, 1 };
		break;
	case MEMZ_DH_RANON:
		*sr = (struct series){ &d->raoff, &d->raunit, { d->ra },
				       { d->rcount }, 1 };
		break;
	case MEMZ_DH_BUCKETS:
		*sr = (struct series){ &d->base, &d->unit,
				       { d->bmin, d->bmax, &d->cur_min,
					 &d->cur_max },
				       { b, b, c, c }, 4 };
		break;
	case MEMZ_DH_BANON:
		*sr = (struct series){ &d->abase, &d->aunit,
				       { d->bamin, &d->cur_amin }, { b, c }, 2 };
		break;
	}
}

double memz_dethist_make_room(struct memz_detector *d, enum memz_dh_series id,
			      double y, bool tighten)
{
	struct series sr;
	int qlo = MEMZ_DET_Q_MAX, qhi = -MEMZ_DET_Q_MAX;
	double u, lo, hi, c, g, need, nu = MEMZ_DET_UNIT_MIN;

	series_of(d, id, &sr);
	u = *sr.unit;
	for (unsigned k = 0; k < sr.k; k++)
		for (unsigned i = 0; i < sr.n[k]; i++) {
			int q = sr.v[k][i];
			if (q == MEMZ_DET_Q_NONE)
				continue;
			qlo = q < qlo ? q : qlo;
			qhi = q > qhi ? q : qhi;
		}
	lo = qlo * u;
	hi = qhi * u;
	if (!isnan(y)) {
		lo = qlo > qhi || y < lo ? y : lo;
		hi = qlo > qhi || y > hi ? y : hi;
	} else if (qlo > qhi) {
		return 0; /* nothing stored */
	}
	/* the ring's offset moves by whole KiB too (smaps counts in kB), so
	 * its values stay exact while the unit is a KiB or finer; the
	 * buckets' by units only: a KiB grid there moves one clear of the
	 * detector's tests a bucket (a threshold case; nothing else moves) */
	g = u > 1024 || id >= MEMZ_DH_BUCKETS ? u : 1024;
	c = floor((lo + hi) / (2 * g) + 0.5) * g;
	need = hi - c > c - lo ? hi - c : c - lo;
	while (need > 0.5 * MEMZ_DET_Q_MAX * nu)
		nu *= 2;
	/* a quarter of the unit at least: a span that swings to and fro
	 * (allocator churn) is not requantised back and forth */
	if (tighten && !(nu <= 0.25 * u))
		return 0;
	for (unsigned k = 0; k < sr.k; k++)
		for (unsigned i = 0; i < sr.n[k]; i++)
			if (sr.v[k][i] != MEMZ_DET_Q_NONE)
				sr.v[k][i] = memz_dethist_quantise(
					(double)sr.v[k][i] * u - c, (float)nu);
	*sr.off += c;
	*sr.unit = (float)nu;
	return c;
}

unsigned memz_dethist_ring(const struct memz_detector *d, double *x,
			   double *y)
{
	unsigned m = d->rcount, start = m == MEMZ_DET_RING ? d->rhead : 0;

	for (unsigned i = 0; i < m; i++) {
		unsigned k = (start + i) % MEMZ_DET_RING;
		x[i] = d->rt[k];
		y[i] = memz_dh_rval(d, d->rv[k]);
	}
	return m;
}

double memz_dethist_sigma(const double *y, unsigned m)
{
	double st[MEMZ_DET_RING], dev[MEMZ_DET_RING], med;

	if (m < 3)
		return 0;
	for (unsigned i = 0; i + 1 < m; i++)
		st[i] = y[i + 1] - y[i];
	med = memz_fit_median(st, m - 1);
	for (unsigned i = 0; i + 1 < m; i++)
		dev[i] = fabs(y[i + 1] - y[i] - med);
	/* a median over few steps can be half the truth: a short ring's
	 * noise is taken wider, as a full ring's would be at worst */
	return 1.4826 * memz_fit_median(dev, m - 1) / M_SQRT2 *
	       sqrt((double)MEMZ_DET_RING / m);
}

unsigned memz_dethist_floor(const struct memz_detector *d, int64_t from,
			    double *env)
{
	unsigned nb = 0;

	if (from < d->cur_idx - MEMZ_DET_BUCKETS)
		from = d->cur_idx - MEMZ_DET_BUCKETS;
	for (int64_t n = from; n < d->cur_idx; n++)
		if (d->bmin[memz_dh_slot(n)] != MEMZ_DET_Q_NONE)
			env[nb++] = memz_dh_val(d, d->bmin[memz_dh_slot(n)]);
	for (unsigned k = nb - (nb > 0); k-- > 0;)
		if (env[k + 1] < env[k])
			env[k] = env[k + 1];
	return nb;
}
