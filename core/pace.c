#include "memz/pace.h"

void memz_pace_init(struct memz_pace *p)
{
	p->mode = MEMZ_MODE_NORMAL; /* nothing is known yet */
	p->last_need = 0;
	p->last_t = 0;
	p->last_pswpout = 0;
	p->has_last = false;
	p->has_swap = false;
	p->swap_out_bps = 0;
}

/* What the inputs ask for, before damping. */
static enum memz_pace_mode wanted(struct memz_pace *p,
				  const struct memz_settings *s,
				  const struct memz_pace_input *in)
{
	bool fast = in->leak_suspects > 0, normal = false;

	p->swap_out_bps = 0;
	if (in->has_vmstat && p->has_swap && in->t > p->last_t &&
	    in->pswpout >= p->last_pswpout)
		p->swap_out_bps = (double)(in->pswpout - p->last_pswpout) *
				  (double)in->page_size / (in->t - p->last_t);
	if (p->swap_out_bps >= s->pace_swap_out_rate && p->swap_out_bps > 0)
		fast = true;
	else if (p->swap_out_bps >= 0.5 * s->pace_swap_out_rate &&
		 p->swap_out_bps > 0)
		normal = true;

	if (in->has_psi) {
		if (in->psi_full_avg10 >= s->pace_psi_full)
			fast = true;
		else if (in->psi_full_avg10 >= 0.5 * s->pace_psi_full &&
			 in->psi_full_avg10 > 0)
			normal = true;
	}

	if (in->mem_total) {
		double avail = 100.0 * (double)in->mem_available /
			       (double)in->mem_total;
		if (avail < s->pace_min_available)
			fast = true;
		else if (avail < 2 * s->pace_min_available)
			normal = true;
	}
	return fast ? MEMZ_MODE_FAST : normal ? MEMZ_MODE_NORMAL : MEMZ_MODE_ECO;
}

enum memz_pace_mode memz_pace_next(struct memz_pace *p,
				   const struct memz_settings *s,
				   const struct memz_pace_input *in)
{
	enum memz_pace_mode want = wanted(p, s, in);

	if (in->has_vmstat) {
		p->last_pswpout = in->pswpout;
		p->has_swap = true;
	}
	if (!p->has_last) {
		p->last_need = in->t;
		p->has_last = true;
	}
	p->last_t = in->t;

	if (want >= p->mode) {
		p->mode = want;
		p->last_need = in->t;
	} else if (in->t - p->last_need >= MEMZ_PACE_CALM) {
		p->mode = p->mode == MEMZ_MODE_FAST ? MEMZ_MODE_NORMAL
						    : MEMZ_MODE_ECO;
		/* the next step down needs its own calm period */
		p->last_need = in->t;
	}

	switch (s->pace) {
	case MEMZ_PACE_ECO:
		return MEMZ_MODE_ECO;
	case MEMZ_PACE_NORMAL:
		return MEMZ_MODE_NORMAL;
	case MEMZ_PACE_FAST:
		return MEMZ_MODE_FAST;
	case MEMZ_PACE_AUTO:
		break;
	}
	return p->mode;
}

unsigned memz_pace_interval_ms(enum memz_pace_mode m)
{
	switch (m) {
	case MEMZ_MODE_ECO:
		return 2000;
	case MEMZ_MODE_NORMAL:
		return 1000;
	case MEMZ_MODE_FAST:
		break;
	}
	return 500;
}

const char *memz_pace_name(enum memz_pace_mode m)
{
	switch (m) {
	case MEMZ_MODE_ECO:
		return "eco";
	case MEMZ_MODE_NORMAL:
		return "normal";
	case MEMZ_MODE_FAST:
		break;
	}
	return "fast";
}
