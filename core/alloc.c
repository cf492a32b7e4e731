#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memz/alloc.h"

static void *libc_realloc(void *ctx, void *p, size_t n)
{
	(void)ctx;
	if (n == 0) {
		free(p);
		return NULL;
	}
	return realloc(p, n);
}

static const struct memz_allocator libc_allocator = { libc_realloc, NULL };

const struct memz_allocator *memz_allocator_libc(void)
{
	return &libc_allocator;
}

int memz_grow(const struct memz_allocator *a, void *arr, size_t *cap,
	      size_t need, size_t size)
{
	void **pp = arr;
	size_t n = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	p = memz_realloc(a, *pp, n * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*pp = p;
	*cap = n;
	return 0;
}

void memz_free(const struct memz_allocator *a, void *pp)
{
	void **p = pp;

	if (*p)
		memz_realloc(a, *p, 0);
	*p = NULL;
}
