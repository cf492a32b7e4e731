/* fuzz_util.h - what every fuzz target needs: the input as the
 * NUL-terminated buffer the parsers take, and a sink for output. */
#ifndef MEMZ_FUZZ_UTIL_H
#define MEMZ_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fresh heap copy, so ASan sees a read one byte past the terminator. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static inline FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

#endif
