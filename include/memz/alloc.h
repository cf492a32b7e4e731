/*
 * alloc.h - the allocator every allocating core function goes through.
 *
 * The core owns no globals, so there is no process-wide hook: whoever creates
 * a sampler (or any other allocating object) hands it an allocator, and the
 * object keeps that pointer for its whole life. Tests pass a counting
 * allocator to prove that steady-state cycles allocate nothing.
 *
 * realloc follows the C realloc contract: (p == NULL) allocates, (n == 0)
 * frees and returns NULL; on failure it returns NULL and leaves p untouched.
 */
#ifndef MEMZ_ALLOC_H
#define MEMZ_ALLOC_H

#include <stddef.h>

struct memz_allocator {
	void *(*realloc)(void *ctx, void *p, size_t n);
	void *ctx;
};

/* malloc/realloc/free from libc. */
const struct memz_allocator *memz_allocator_libc(void);

/* Grow *arr to hold at least `need` elements of `size` bytes, doubling.
 * Returns 0 or -ENOMEM (then *arr and *cap are unchanged). */
int memz_grow(const struct memz_allocator *a, void *arr, size_t *cap,
	      size_t need, size_t size);

static inline void *memz_realloc(const struct memz_allocator *a, void *p,
				 size_t n)
{
	return a->realloc(a->ctx, p, n);
}

/* Free *pp and set it to NULL. */
void memz_free(const struct memz_allocator *a, void *pp);

#endif
