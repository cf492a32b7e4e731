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

size_t memz_sanitize_terminal(const char *in, size_t inlen, char *out,
			      size_t outlen)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < inlen;) {
		char esc[5];
		size_t k = memz_utf8_len(s + i, inlen - i), elen;

		if (k > 1 || (k == 1 && s[i] >= 0x20 && s[i] < 0x7f &&
			      s[i] != '\\')) {
			if (!append(out, outlen, &o, s + i, k))
				break;
			i += k;
			continue;
		}
		switch (s[i]) {
		case '\n': elen = (size_t)snprintf(esc, sizeof esc, "\\n"); break;
		case '\t': elen = (size_t)snprintf(esc, sizeof esc, "\\t"); break;
		case '\r': elen = (size_t)snprintf(esc, sizeof esc, "\\r"); break;
		case '\\': elen = (size_t)snprintf(esc, sizeof esc, "\\\\"); break;
		default:
			elen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", s[i]);
		}
		if (!append(out, outlen, &o, esc, elen))
			break;
		i++;
	}
	return finish(out, outlen, o);
}

size_t memz_sanitize_label(const char *in, size_t inlen, char *out,
			   size_t outlen)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < inlen;) {
		size_t k = memz_utf8_len(s + i, inlen - i);
		unsigned char c;

		if (k > 1) {
			if (!append(out, outlen, &o, s + i, k))
				break;
			i += k;
			continue;
		}
		c = (k == 1 && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' &&
		     s[i] != '\'' && s[i] != '\\' && s[i] != '=' &&
		     s[i] != '`') ? s[i] : '_';
		if (!append(out, outlen, &o, &c, 1))
			break;
		i++;
	}
	return finish(out, outlen, o);
}
