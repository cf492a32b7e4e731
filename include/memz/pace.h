/*
 * pace.h - the sampling pace policy. Pure: inputs in, interval out.
 *
 * eco (2000 ms) when all is calm, normal (1000 ms), fast (500 ms) when memory
 * is tight or something is happening: swap-out at or above PaceSwapOutRate,
 * PSI full avg10 at or above PacePsiFull, MemAvailable under PaceMinAvailable
 * percent of MemTotal, or any leak suspect. Pace = eco | normal | fast pins
 * the mode. The way back to calm is damped so a noisy signal does not make
 * the pace flap.
 */
#ifndef MEMZ_PACE_H
#define MEMZ_PACE_H

#include <stdbool.h>
#include <stdint.h>

#include "memz/settings.h"

enum memz_pace_mode { MEMZ_MODE_ECO, MEMZ_MODE_NORMAL, MEMZ_MODE_FAST };

struct memz_pace_input {
	double t;                  /* seconds, monotonic */
	uint64_t pswpout;          /* pages swapped out since boot (vmstat) */
	bool has_vmstat;
	uint64_t page_size;
	double psi_full_avg10;     /* percent */
	bool has_psi;
	uint64_t mem_available, mem_total;
	unsigned leak_suspects;
};

/*
 * Going faster is immediate; going slower steps down one mode at a time and
 * only after MEMZ_PACE_CALM seconds in which nothing asked for the current
 * mode. A signal between half its threshold and the threshold asks for
 * normal ("something is building up"), so a signal oscillating around a
 * threshold keeps the pace at fast or normal instead of flapping to eco.
 */
#define MEMZ_PACE_CALM 30.0

struct memz_pace {
	enum memz_pace_mode mode;
	double last_need; /* t when something last asked for `mode` or faster */
	double last_t;
	uint64_t last_pswpout; /* for the swap-out rate between calls */
	bool has_last, has_swap;
	double swap_out_bps;   /* the latest rate, for display */
};

void memz_pace_init(struct memz_pace *p);

/* Feed one cycle's inputs; returns the mode for the next interval. */
enum memz_pace_mode memz_pace_next(struct memz_pace *p,
				   const struct memz_settings *s,
				   const struct memz_pace_input *in);

/* 2000, 1000 or 500. */
unsigned memz_pace_interval_ms(enum memz_pace_mode m);
const char *memz_pace_name(enum memz_pace_mode m);

#endif
