/*
 * counting_alloc.h - an allocator that counts, for tests that prove a
 * steady-state cycle allocates nothing.
 */
#ifndef MEMZ_COUNTING_ALLOC_H
#define MEMZ_COUNTING_ALLOC_H

#include <stdlib.h>

#include "memz/alloc.h"

struct counting {
	unsigned long allocs; /* calls that (re)allocate */
	unsigned long frees;
	long live;            /* blocks allocated and not yet freed */
};

static void *counting_realloc(void *ctx, void *p, size_t n)
{
	struct counting *c = ctx;

	if (n == 0) {
		if (p) {
			c->frees++;
			c->live--;
		}
		free(p);
		return NULL;
	}
	c->allocs++;
	if (!p)
		c->live++;
	return realloc(p, n);
}

#endif
