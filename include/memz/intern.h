/*
 * intern.h - a pool of reference-counted, immutable strings.
 *
 * Every process with the same name points at one copy, so a cycle that meets
 * a known name allocates nothing and comparing names is comparing pointers.
 * A string lives while it has references; memz_intern_put() drops one.
 * Strings may hold any byte but NUL (they are NUL-terminated, and the length
 * is kept, so embedded newlines and the like are fine).
 */
#ifndef MEMZ_INTERN_H
#define MEMZ_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "memz/alloc.h"

struct memz_intern_entry;

struct memz_intern {
	const struct memz_allocator *alloc;
	struct memz_intern_entry **bucket;
	size_t n_buckets, n;
};

/* FNV-1a: the pool's hash, also used by tables keyed by these strings. */
static inline uint32_t memz_hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Empty pool; allocates nothing. */
void memz_intern_init(struct memz_intern *p, const struct memz_allocator *a);
/* Frees every string, referenced or not. */
void memz_intern_release(struct memz_intern *p);

/* A reference to the interned copy of s[0..len), creating it; NULL on
 * -ENOMEM. */
const char *memz_intern_get(struct memz_intern *p, const char *s, size_t len);
/* Take one more reference to an interned string. */
const char *memz_intern_ref(const char *s);
/* Drop one reference (NULL is ignored). */
void memz_intern_put(struct memz_intern *p, const char *s);
/* Its length. */
size_t memz_intern_len(const char *s);

#endif
