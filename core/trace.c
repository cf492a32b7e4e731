#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "memz/trace.h"

static const char *const col_name[MEMZ_TRACE_FIELDS] = {
	"t", "pid", "start", "name", "pss_kb", "rss_kb", "anon_kb", "swap_kb",
	"pss_anon_kb", "pss_file_kb", "pss_shmem_kb", "age_s", "pss_error_kb",
	"vm_kb"
};

void memz_trace_reader_init(struct memz_trace_reader *r, FILE *f,
			    const char *path)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	r->path = path;
	r->line = 1;
}

static int fail(struct memz_trace_reader *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct memz_trace_reader *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof r->err, "%s:%u: ", r->path,
			 r->row_line);

	if (n < 0 || (size_t)n >= sizeof r->err)
		return rc;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

/* A line ends at LF or CRLF; returns the next byte with CRLF folded. */
static int next_byte(struct memz_trace_reader *r, bool *bare_cr)
{
	int c = getc(r->f);

	*bare_cr = false;
	if (c == '\r') {
		int d = getc(r->f);
		if (d == '\n')
			return '\n';
		if (d != EOF)
			ungetc(d, r->f);
		*bare_cr = true;
	}
	return c;
}

/* Byte c onto field nf (out, *len bytes so far): quoted or not, a field
 * holds no NUL and fits its buffer. */
static int field_byte(struct memz_trace_reader *r, char *out, size_t *len,
		      int c, unsigned nf)
{
	if (c == '\0')
		return fail(r, -EINVAL, "NUL byte in field %u", nf + 1);
	if (*len + 1 >= MEMZ_TRACE_FIELD_MAX)
		return fail(r, -EINVAL, "field %u longer than %d bytes",
			    nf + 1, MEMZ_TRACE_FIELD_MAX - 1);
	out[(*len)++] = (char)c;
	return 0;
}

/*
 * One record into r->field. Returns the number of fields (>= 1), 0 at EOF
 * before any byte, or an error. Comment lines and blank lines are skipped.
 */
static int read_record(struct memz_trace_reader *r)
{
	unsigned nf;
	int c, rc;
	bool cr;

	for (;;) {
		r->row_line = r->line;
		c = next_byte(r, &cr);
		if (c == EOF)
			return ferror(r->f) ? fail(r, -EIO, "read error") : 0;
		if (c == '\n') {
			r->line++;
			continue;
		}
		if (c != '#')
			break;
		while ((c = getc(r->f)) != EOF && c != '\n')
			;
		r->line++;
		if (c == EOF)
			return ferror(r->f) ? fail(r, -EIO, "read error") : 0;
	}

	nf = 0;
	r->flen[0] = 0;
	for (;;) {
		/* c is the first byte of field nf */
		char *out = r->field[nf < MEMZ_TRACE_FIELDS ? nf : 0];
		size_t len = 0;

		if (c == '"') {
			for (;;) {
				c = getc(r->f);
				if (c == EOF)
					return fail(r, -EINVAL,
						    "unterminated quoted field %u",
						    nf + 1);
				if (c == '"') {
					c = getc(r->f);
					if (c != '"')
						break;
				}
				if (c == '\n')
					r->line++;
				if ((rc = field_byte(r, out, &len, c, nf)))
					return rc;
			}
			if (c == '\r') {
				int d = getc(r->f);
				if (d != '\n')
					return fail(r, -EINVAL,
						    "bare CR after quoted field %u",
						    nf + 1);
				c = '\n';
			}
			if (c != ',' && c != '\n' && c != EOF)
				return fail(r, -EINVAL,
					    "unexpected byte after closing quote of field %u",
					    nf + 1);
		} else {
			while (c != ',' && c != '\n' && c != EOF) {
				if (cr)
					return fail(r, -EINVAL,
						    "bare CR in field %u", nf + 1);
				if (c == '"')
					return fail(r, -EINVAL,
						    "quote inside unquoted field %u",
						    nf + 1);
				if ((rc = field_byte(r, out, &len, c, nf)))
					return rc;
				c = next_byte(r, &cr);
			}
		}
		out[len] = '\0';
		if (nf < MEMZ_TRACE_FIELDS)
			r->flen[nf] = len;
		nf++;
		if (c == '\n')
			r->line++;
		if (c != ',') {
			if (c == EOF && ferror(r->f))
				return fail(r, -EIO, "read error");
			return (int)nf;
		}
		c = next_byte(r, &cr);
	}
}

/* Digits only: no sign, no spaces, no hex, nothing strtoull would forgive. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* A decimal: digits, optionally a point and more digits. */
static bool parse_t(const char *s, double *out)
{
	const char *p = s;
	char *end;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return false;
	if (*p == '.') {
		const char *q = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == q)
			return false;
	}
	if (*p)
		return false;
	*out = strtod(s, &end);
	return *end == '\0' && isfinite(*out);
}

/* The header of version 5, 4, 3, 2 or 1: how many fields a row has. */
static unsigned header_fields(const struct memz_trace_reader *r, int nf)
{
	if (nf != MEMZ_TRACE_FIELDS && nf != MEMZ_TRACE_FIELDS_V4 &&
	    nf != MEMZ_TRACE_FIELDS_V3 &&
	    nf != MEMZ_TRACE_FIELDS_V2 && nf != MEMZ_TRACE_FIELDS_V1)
		return 0;
	for (int i = 0; i < nf; i++)
		if (strcmp(r->field[i], col_name[i]))
			return 0;
	return (unsigned)nf;
}

int memz_trace_next(struct memz_trace_reader *r, struct memz_trace_row *row)
{
	int nf;
	uint64_t v;

	for (;;) {
		nf = read_record(r);
		if (nf <= 0) {
			if (nf == 0 && !r->header_seen) {
				r->row_line = r->line;
				return fail(r, -EINVAL, "no header (expected %s)",
					    MEMZ_TRACE_HEADER);
			}
			return nf;
		}
		if (r->header_seen)
			break;
		r->fields = header_fields(r, nf);
		if (!r->fields)
			return fail(r, -EINVAL,
				    "bad header (expected %s, or version 4: %s, or version 3: %s, or version 2: %s, or version 1: %s)",
				    MEMZ_TRACE_HEADER, MEMZ_TRACE_HEADER_V4,
				    MEMZ_TRACE_HEADER_V3,
				    MEMZ_TRACE_HEADER_V2, MEMZ_TRACE_HEADER_V1);
		r->header_seen = true;
	}
	if ((unsigned)nf != r->fields)
		return fail(r, -EINVAL, "%d fields, expected %u", nf, r->fields);

	if (!parse_t(r->field[0], &row->t))
		return fail(r, -EINVAL, "t \"%s\" is not a decimal number",
			    r->field[0]);
	if (row->t > MEMZ_TRACE_T_MAX)
		return fail(r, -EINVAL, "t \"%s\" is beyond %.0f s",
			    r->field[0], MEMZ_TRACE_T_MAX);
	if (r->has_t && row->t < r->last_t)
		return fail(r, -EINVAL, "t goes backwards (%s after %.3f)",
			    r->field[0], r->last_t);
	r->has_t = true;
	r->last_t = row->t;
	if (!parse_u64(r->field[1], INT_MAX, &v) || v == 0)
		return fail(r, -EINVAL, "pid \"%s\" is not a process id",
			    r->field[1]);
	row->pid = (int)v;
	if (!parse_u64(r->field[2], ULLONG_MAX, &v))
		return fail(r, -EINVAL,
			    "start \"%s\" is not a non-negative integer",
			    r->field[2]);
	row->start = (unsigned long long)v;
	memcpy(row->name, r->field[3], r->flen[3] + 1);
	row->name_len = r->flen[3];
	for (unsigned i = 0; i < MEMZ_TRACE_COLS; i++) {
		const char *f = 4 + i < r->fields ? r->field[4 + i] : "";
		row->has[i] = *f != '\0';
		row->kb[i] = 0;
		if (row->has[i] && !parse_u64(f, UINT64_MAX / 1024, &row->kb[i]))
			return fail(r, -EINVAL,
				    "%s \"%s\" is not a size in KiB (digits, or empty)",
				    col_name[4 + i], f);
	}
	row->has_age = r->fields > MEMZ_TRACE_FIELDS_V2 &&
		       r->field[MEMZ_TRACE_FIELDS_V2][0] != '\0';
	row->age = 0;
	if (row->has_age &&
	    (!parse_t(r->field[MEMZ_TRACE_FIELDS_V2], &row->age) ||
	     row->age > MEMZ_TRACE_T_MAX))
		return fail(r, -EINVAL,
			    "age_s \"%s\" is not a decimal number of seconds up to %.0f (or empty)",
			    r->field[MEMZ_TRACE_FIELDS_V2], MEMZ_TRACE_T_MAX);
	row->has_error = r->fields > MEMZ_TRACE_FIELDS_V3 &&
			 r->field[MEMZ_TRACE_FIELDS_V3][0] != '\0';
	row->error_kb = 0;
	if (row->has_error &&
	    !parse_u64(r->field[MEMZ_TRACE_FIELDS_V3], UINT64_MAX / 1024,
		       &row->error_kb))
		return fail(r, -EINVAL,
			    "pss_error_kb \"%s\" is not a size in KiB (digits, or empty)",
			    r->field[MEMZ_TRACE_FIELDS_V3]);
	row->has_vm = r->fields > MEMZ_TRACE_FIELDS_V4 &&
		      r->field[MEMZ_TRACE_FIELDS_V4][0] != '\0';
	row->vm_kb = 0;
	if (row->has_vm &&
	    !parse_u64(r->field[MEMZ_TRACE_FIELDS_V4], UINT64_MAX / 1024,
		       &row->vm_kb))
		return fail(r, -EINVAL,
			    "vm_kb \"%s\" is not a size in KiB (digits, or empty)",
			    r->field[MEMZ_TRACE_FIELDS_V4]);
	return 1;
}

int memz_trace_write_header(FILE *f)
{
	return fputs(MEMZ_TRACE_HEADER "\n", f) < 0 ? -EIO : 0;
}

static bool needs_quotes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			return true;
	return false;
}

int memz_trace_write_row(FILE *f, const struct memz_trace_row *row)
{
	bool q = needs_quotes(row->name, row->name_len);
	int rc = 0;

	if (!(row->t >= 0 && row->t <= MEMZ_TRACE_T_MAX) ||
	    (row->has_age && !(row->age >= 0 && row->age <= MEMZ_TRACE_T_MAX)))
		return -ERANGE;
	if (fprintf(f, "%.3f,%d,%llu,", row->t, row->pid, row->start) < 0)
		return -EIO;
	if (q)
		rc |= putc('"', f) == EOF;
	for (size_t i = 0; i < row->name_len; i++) {
		if (row->name[i] == '"')
			rc |= putc('"', f) == EOF;
		rc |= putc((unsigned char)row->name[i], f) == EOF;
	}
	if (q)
		rc |= putc('"', f) == EOF;
	for (int i = 0; i < MEMZ_TRACE_COLS; i++) {
		rc |= putc(',', f) == EOF;
		if (row->has[i])
			rc |= fprintf(f, "%" PRIu64, row->kb[i]) < 0;
	}
	rc |= putc(',', f) == EOF;
	if (row->has_age)
		rc |= fprintf(f, "%.2f", row->age) < 0;
	rc |= putc(',', f) == EOF;
	if (row->has_error)
		rc |= fprintf(f, "%" PRIu64, row->error_kb) < 0;
	rc |= putc(',', f) == EOF;
	if (row->has_vm)
		rc |= fprintf(f, "%" PRIu64, row->vm_kb) < 0;
	rc |= putc('\n', f) == EOF;
	return rc ? -EIO : 0;
}
