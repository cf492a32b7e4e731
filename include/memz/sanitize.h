/*
 * sanitize.h - process-controlled strings made safe for each destination.
 *
 * A process chooses its own name; these turn it into something that can
 * never break the line, identifier or terminal it lands in. Every function
 * writes a NUL-terminated result of at most outlen-1 bytes and returns its
 * length. Output is never empty ("_" stands in for an empty name).
 */
#ifndef MEMZ_SANITIZE_H
#define MEMZ_SANITIZE_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 (also
 * for n == 0). Overlongs, surrogates and code points above U+10FFFF are
 * invalid. */
size_t memz_utf8_len(const unsigned char *s, size_t n);

/* An identifier: [A-Za-z0-9_.-] kept, every other byte becomes '_'
 * (collectd plugin_instance, netdata ids). */
size_t memz_sanitize_id(const char *in, size_t inlen, char *out,
			size_t outlen);

/* For a terminal: printable ASCII and valid UTF-8 kept, control bytes and
 * invalid bytes shown escaped (\n, \t, \x1b, \\). */
size_t memz_sanitize_terminal(const char *in, size_t inlen, char *out,
			      size_t outlen);

/* For a quoted netdata name or a collectd message: printable, no quotes,
 * no control bytes, valid UTF-8 kept; anything else becomes '_'. */
size_t memz_sanitize_label(const char *in, size_t inlen, char *out,
			   size_t outlen);

#endif
