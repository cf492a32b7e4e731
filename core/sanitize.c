#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "memz/sanitize.h"

size_t memz_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = n ? s[0] : 0;
	size_t len;
	unsigned cp;

	if (!n)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* n bytes at out[*o] if they fit before the NUL; a UTF-8 sequence or an
 * escape is never cut in two. */
static bool append(char *out, size_t outlen, size_t *o, const void *b,
		   size_t n)
{
	if (*o + n >= outlen)
		return false;
	memcpy(out + *o, b, n);
	*o += n;
	return true;
}

/* The NUL, after "_" where nothing was kept: sanitize.h's promise that no
 * output is empty. */
static size_t finish(char *out, size_t outlen, size_t o)
{
	if (!o && outlen > 1)
		out[o++] = '_';
	out[o] = '\0';
	return o;
}

size_t memz_sanitize_id(const char *in, size_t inlen, char *out, size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < inlen && o + 1 < outlen; i++) {
		unsigned char c = (unsigned char)in[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.' ||
			  c == '-';
		out[o++] = ok ? (char)c : '_';
	}
	return finish(out, outlen, o);
}

#define REP_MAX 5 /* what one byte becomes at most: \xff, and the NUL */

/* What terminal and label share: a valid multibyte UTF-8 sequence kept
 * whole, every other byte (ASCII, or one of an invalid sequence, always
 * 0x80 or above) as one() writes it into rep. */
static size_t utf8_filter(const char *in, size_t inlen, char *out,
			  size_t outlen, size_t (*one)(unsigned char c, char *rep))
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < inlen;) {
		size_t k = memz_utf8_len(s + i, inlen - i), n;
		char rep[REP_MAX];

		if (k > 1) {
			if (!append(out, outlen, &o, s + i, k))
				break;
			i += k;
			continue;
		}
		n = one(s[i], rep);
		if (!append(out, outlen, &o, rep, n))
			break;
		i++;
	}
	return finish(out, outlen, o);
}

static size_t terminal_byte(unsigned char c, char *rep)
{
	if (c >= 0x20 && c < 0x7f && c != '\\') {
		rep[0] = (char)c;
		return 1;
	}
	switch (c) {
	case '\n': return (size_t)snprintf(rep, REP_MAX, "\\n");
	case '\t': return (size_t)snprintf(rep, REP_MAX, "\\t");
	case '\r': return (size_t)snprintf(rep, REP_MAX, "\\r");
	case '\\': return (size_t)snprintf(rep, REP_MAX, "\\\\");
	default: return (size_t)snprintf(rep, REP_MAX, "\\x%02x", c);
	}
}

size_t memz_sanitize_terminal(const char *in, size_t inlen, char *out,
			      size_t outlen)
{
	return utf8_filter(in, inlen, out, outlen, terminal_byte);
}

static size_t label_byte(unsigned char c, char *rep)
{
	bool ok = c >= 0x20 && c < 0x7f && c != '"' && c != '\'' &&
		  c != '\\' && c != '=' && c != '`';

	rep[0] = ok ? (char)c : '_';
	return 1;
}

size_t memz_sanitize_label(const char *in, size_t inlen, char *out,
			   size_t outlen)
{
	return utf8_filter(in, inlen, out, outlen, label_byte);
}
