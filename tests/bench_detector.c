/*
 * bench_detector.c - pushes N samples (default 100000) of a series through
 * one detector, for `valgrind --tool=callgrind` to count instructions per
 * sample. Not a test: it checks nothing.
 *
 *   bench_detector [N [SHAPE]]
 *
 * SHAPE: noisy (default: flat with noise, then slow growth, so both
 * horizons work), churn (1 MiB a minute under a +-1.5 MiB random walk:
 * many windows look like a leak for a while), leak (64 KiB/s with noise:
 * a verdict held all along).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memz/detector.h"

static unsigned long long x = 12345;

static double uniform(void)
{
	x = x * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(x >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller; the cosine is cheap next to a push */
static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

int main(int argc, char **argv)
{
	struct memz_settings s;
	struct memz_detector d;
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *shape = argc > 2 ? argv[2] : "noisy";
	unsigned long long events = 0;
	double walk = 0;

	memz_settings_init(&s);
	memz_detector_init(&d);
	for (long i = 0; i < n; i++) {
		double v;

		if (!strcmp(shape, "churn")) {
			walk += 131072 * gauss();
			if (walk > 1.5 * 1048576)
				walk = 3 * 1048576 - walk;
			if (walk < -1.5 * 1048576)
				walk = -3 * 1048576 - walk;
			v = 2e8 + 1048576.0 * floor((double)i / 60) + walk;
		} else if (!strcmp(shape, "leak")) {
			v = 2e8 + 65536.0 * (double)i + 16384 * gauss();
		} else {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			v = 100e6 + (i > n / 2 ? 2048.0 * (double)(i - n / 2) : 0) +
			    (double)(x >> 44);
		}
		events += (unsigned)memz_detector_push(&d, &s, (double)i, v,
						       v - 50e6);
	}
	printf("%ld samples (%s), %llu events, %zu bytes of state\n", n, shape,
	       events, sizeof d);
	return 0;
}
