/*
 * bench_detector.c - pushes N samples (default 100000) of a noisy series
 * through one detector, for `valgrind --tool=callgrind` to count
 * instructions per sample. Not a test: it checks nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "memz/detector.h"

int main(int argc, char **argv)
{
	struct memz_settings s;
	struct memz_detector d;
	long n = argc > 1 ? atol(argv[1]) : 100000;
	unsigned long long x = 12345, events = 0;

	memz_settings_init(&s);
	memz_detector_init(&d);
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* flat with noise, then slow growth: both horizons work */
		double v = 100e6 + (i > n / 2 ? 2048.0 * (double)(i - n / 2) : 0) +
			   (double)(x >> 44);

		events += (unsigned)memz_detector_push(&d, &s, (double)i, v,
						       v - 50e6);
	}
	printf("%ld samples, %llu events, %zu bytes of state\n", n, events,
	       sizeof d);
	return 0;
}
