/*
 * parse_util.h - private helpers shared by the /proc and /sys parsers.
 *
 * Everything works on [begin, end) ranges and never reads at or past end, so
 * a parser is safe on a buffer that is not NUL-terminated where expected.
 */
#ifndef MEMZ_PARSE_UTIL_H
#define MEMZ_PARSE_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "memz/readbuf.h"

/* Next line of [*p, end): [*ls, *le) without the '\n'. False at the end. */
static inline bool mz_next_line(const char **p, const char *end,
				const char **ls, const char **le)
{
	const char *s = *p, *nl;

	if (s >= end)
		return false;
	nl = memchr(s, '\n', (size_t)(end - s));
	*ls = s;
	*le = nl ? nl : end;
	*p = nl ? nl + 1 : end;
	return true;
}

static inline const char *mz_skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Does [s, e) equal the NUL-terminated word w? Key lookups try every key
 * on every line, so a different first character answers before strlen. */
static inline bool mz_eq(const char *s, const char *e, const char *w)
{
	size_t n;

	if (s < e && *s != *w)
		return false;
	n = strlen(w);
	return (size_t)(e - s) == n && memcmp(s, w, n) == 0;
}

/* " 123 kB" (blanks around allowed) filling all of [s, e): bytes. */
static inline int mz_parse_kb(const char *s, const char *e, uint64_t *out)
{
	unsigned long long v;
	int rc = memz_parse_u64(&s, e, &v);

	if (rc)
		return rc;
	if (s >= e || (*s != ' ' && *s != '\t'))
		return -EINVAL;
	s = mz_skip_blanks(s, e);
	if (e - s < 2 || s[0] != 'k' || s[1] != 'B')
		return -EINVAL;
	s = mz_skip_blanks(s + 2, e);
	if (s != e)
		return -EINVAL;
	if (v > UINT64_MAX / 1024)
		return -ERANGE;
	*out = (uint64_t)v * 1024;
	return 0;
}

/* A bare number filling all of [s, e) (blanks around allowed). */
static inline int mz_parse_whole_u64(const char *s, const char *e,
				     unsigned long long *out)
{
	int rc = memz_parse_u64(&s, e, out);

	if (rc)
		return rc;
	return mz_skip_blanks(s, e) == e ? 0 : -EINVAL;
}

/*
 * "Key: value" tables: a parser lists the keys it knows with the offset of
 * their uint64_t in its output struct; the index in the table is the bit in
 * a "seen" mask, which is how required fields are checked.
 */
struct mz_key {
	const char *name;
	size_t off;
};

/* Index of [s, e) in keys[0..n), or -1. */
static inline int mz_find_key(const struct mz_key *keys, size_t n,
			      const char *s, const char *e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (mz_eq(s, e, keys[i].name))
			return (int)i;
	return -1;
}

static inline uint64_t *mz_field(void *base, const struct mz_key *k)
{
	return (uint64_t *)(void *)((char *)base + k->off);
}

/* One "Key: N kB" line, key in [s, colon): a known key's value goes into
 * its field of base and its bit into *seen; an unknown key is skipped. */
static inline int mz_parse_key_line(const struct mz_key *keys, size_t n,
				    void *base, const char *s,
				    const char *colon, const char *le,
				    unsigned *seen)
{
	int k = mz_find_key(keys, n, s, colon), rc;

	if (k < 0)
		return 0;
	rc = mz_parse_kb(colon + 1, le, mz_field(base, &keys[k]));
	if (!rc)
		*seen |= 1u << k;
	return rc;
}

/* The rest of a file made only of "Key: N kB" lines (blank lines allowed):
 * meminfo, smaps_rollup after its header. */
static inline int mz_parse_key_lines(const char **p, const char *end,
				     const struct mz_key *keys, size_t n,
				     void *base, unsigned *seen)
{
	const char *ls, *le, *colon;
	int rc;

	while (mz_next_line(p, end, &ls, &le)) {
		if (ls == le)
			continue;
		colon = memchr(ls, ':', (size_t)(le - ls));
		if (!colon)
			return -EINVAL;
		rc = mz_parse_key_line(keys, n, base, ls, colon, le, seen);
		if (rc)
			return rc;
	}
	return 0;
}

#endif
