#include <stdint.h>
#include <string.h>

#include "memz/intern.h"

struct memz_intern_entry {
	struct memz_intern_entry *next;
	size_t refs, len;
	uint32_t hash;
	char s[];
};

static struct memz_intern_entry *entry_of(const char *s)
{
	return (struct memz_intern_entry *)(void *)(s - offsetof(struct memz_intern_entry, s));
}

void memz_intern_init(struct memz_intern *p, const struct memz_allocator *a)
{
	p->alloc = a;
	p->bucket = NULL;
	p->n_buckets = 0;
	p->n = 0;
}

void memz_intern_release(struct memz_intern *p)
{
	for (size_t i = 0; i < p->n_buckets; i++) {
		struct memz_intern_entry *e = p->bucket[i], *next;
		for (; e; e = next) {
			next = e->next;
			memz_realloc(p->alloc, e, 0);
		}
	}
	memz_free(p->alloc, &p->bucket);
	p->n_buckets = 0;
	p->n = 0;
}

static int rehash(struct memz_intern *p, size_t n)
{
	struct memz_intern_entry **b = memz_realloc(p->alloc, NULL, n * sizeof *b);

	if (!b)
		return -1;
	memset(b, 0, n * sizeof *b);
	for (size_t i = 0; i < p->n_buckets; i++) {
		struct memz_intern_entry *e = p->bucket[i], *next;
		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	memz_free(p->alloc, &p->bucket);
	p->bucket = b;
	p->n_buckets = n;
	return 0;
}

const char *memz_intern_get(struct memz_intern *p, const char *s, size_t len)
{
	uint32_t h = memz_hash_bytes(s, len);
	struct memz_intern_entry *e;

	if (p->n_buckets) {
		for (e = p->bucket[h & (p->n_buckets - 1)]; e; e = e->next)
			if (e->hash == h && e->len == len && !memcmp(e->s, s, len)) {
				e->refs++;
				return e->s;
			}
	}
	if (p->n >= p->n_buckets &&
	    rehash(p, p->n_buckets ? p->n_buckets * 2 : 64) && !p->n_buckets)
		return NULL;
	e = memz_realloc(p->alloc, NULL, sizeof *e + len + 1);
	if (!e)
		return NULL;
	e->refs = 1;
	e->len = len;
	e->hash = h;
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->next = p->bucket[h & (p->n_buckets - 1)];
	p->bucket[h & (p->n_buckets - 1)] = e;
	p->n++;
	return e->s;
}

const char *memz_intern_ref(const char *s)
{
	entry_of(s)->refs++;
	return s;
}

void memz_intern_put(struct memz_intern *p, const char *s)
{
	struct memz_intern_entry *e, **pp;

	if (!s)
		return;
	e = entry_of(s);
	if (--e->refs)
		return;
	for (pp = &p->bucket[e->hash & (p->n_buckets - 1)]; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	p->n--;
	memz_realloc(p->alloc, e, 0);
}

size_t memz_intern_len(const char *s)
{
	return entry_of(s)->len;
}
