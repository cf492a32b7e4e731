/*
 * test_trace.c - the trace reader and writer: RFC 4180 quoting, comments,
 * CRLF, and every rejection with its line number and reason.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "memz/trace.h"

#define H MEMZ_TRACE_HEADER "\n"

static struct memz_trace_reader r;
static struct memz_trace_row row;

/* Read every row of text; returns the last memz_trace_next() result and
 * the number of rows read before it. */
static int read_all(const char *text, size_t len, unsigned *rows)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int rc;

	*rows = 0;
	if (!f)
		return -errno;
	memz_trace_reader_init(&r, f, "x.csv");
	while ((rc = memz_trace_next(&r, &row)) == 1)
		(*rows)++;
	fclose(f);
	return rc;
}

#define READ(text, rows) read_all(text, sizeof(text) - 1, rows)

static void rejects(const char *text, const char *err)
{
	unsigned rows;

	CHECK_INT(read_all(text, strlen(text), &rows), -EINVAL);
	CHECK_STR(r.err, err);
}

static void good(void)
{
	unsigned rows;
	static const char crlf[] = "# c\r\n" MEMZ_TRACE_HEADER "\r\n"
				   "0.5,7,9,x,1,2,3,4\r\n";

	CHECK_INT(READ("# recorded by memz\n#\n" H
		       "0.000,42,1000,api-server,2048,4096,1024,0\n"
		       "# a comment between rows\n\n"
		       "1.5,43,1001,\"a,b \"\"q\"\"\nline2\",1,2,,\n",
		       &rows), 0);
	CHECK_INT(rows, 2);
	CHECK_NEAR(row.t, 1.5, 0);
	CHECK_INT(row.pid, 43);
	CHECK_U64(row.start, 1001);
	CHECK_STR(row.name, "a,b \"q\"\nline2");
	CHECK_INT(row.name_len, 13);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS], 1);
	CHECK_U64(row.kb[MEMZ_TRACE_RSS], 2);
	CHECK(row.has[MEMZ_TRACE_PSS] && row.has[MEMZ_TRACE_RSS]);
	CHECK(!row.has[MEMZ_TRACE_ANON] && !row.has[MEMZ_TRACE_SWAP]);

	/* no trailing newline, CRLF line ends, same t twice */
	CHECK_INT(READ(H "1,1,1,a,1,1,1,1\n1,2,1,b,1,1,1,1", &rows), 0);
	CHECK_INT(rows, 2);
	CHECK_STR(row.name, "b");
	CHECK_INT(READ(crlf, &rows), 0);
	CHECK_INT(rows, 1);
	CHECK_STR(row.name, "x");
	CHECK_U64(row.kb[MEMZ_TRACE_SWAP], 4);

	/* a name that is only a '#' is a field, not a comment */
	CHECK_INT(READ(H "1,1,1,#,1,1,1,1\n", &rows), 0);
	CHECK_STR(row.name, "#");
}

static void bad(void)
{
	rejects("", "x.csv:1: no header (expected " MEMZ_TRACE_HEADER ")");
	rejects("# only\n", "x.csv:2: no header (expected " MEMZ_TRACE_HEADER ")");
	rejects("t,pid,start,name,pss_kb,rss_kb,anon_kb\n",
		"x.csv:1: bad header (expected " MEMZ_TRACE_HEADER ")");
	rejects("# c\nt,pid,start,comm,pss_kb,rss_kb,anon_kb,swap_kb\n",
		"x.csv:2: bad header (expected " MEMZ_TRACE_HEADER ")");
	rejects(H "1,1,1,a,1,1,1\n", "x.csv:2: 7 fields, expected 8");
	rejects(H "1,1,1,a,1,1,1,1,1\n", "x.csv:2: 9 fields, expected 8");
	rejects(H "2,1,1,a,1,1,1,1\n1.999,1,1,a,1,1,1,1\n",
		"x.csv:3: t goes backwards (1.999 after 2.000)");
	rejects(H "-1,1,1,a,1,1,1,1\n",
		"x.csv:2: t \"-1\" is not a decimal number");
	rejects(H "1e3,1,1,a,1,1,1,1\n",
		"x.csv:2: t \"1e3\" is not a decimal number");
	rejects(H "nan,1,1,a,1,1,1,1\n",
		"x.csv:2: t \"nan\" is not a decimal number");
	rejects(H "1.,1,1,a,1,1,1,1\n",
		"x.csv:2: t \"1.\" is not a decimal number");
	rejects(H "1,0,1,a,1,1,1,1\n", "x.csv:2: pid \"0\" is not a process id");
	rejects(H "1,2147483648,1,a,1,1,1,1\n",
		"x.csv:2: pid \"2147483648\" is not a process id");
	rejects(H "1, 5,1,a,1,1,1,1\n", "x.csv:2: pid \" 5\" is not a process id");
	rejects(H "1,5,-1,a,1,1,1,1\n",
		"x.csv:2: start \"-1\" is not a non-negative integer");
	rejects(H "1,5,1,a,12k,1,1,1\n",
		"x.csv:2: pss_kb \"12k\" is not a size in KiB (digits, or empty)");
	rejects(H "1,5,1,a,1,1,1,0x10\n",
		"x.csv:2: swap_kb \"0x10\" is not a size in KiB (digits, or empty)");
	rejects(H "1,5,1,a,1,99999999999999999999,1,1\n",
		"x.csv:2: rss_kb \"99999999999999999999\" is not a size in KiB (digits, or empty)");
	/* quoting errors; the line is where the row starts */
	rejects(H "1,5,1,\"a\nb,1,1,1,1\n",
		"x.csv:2: unterminated quoted field 4");
	rejects(H "1,5,1,\"a\"b,1,1,1,1\n",
		"x.csv:2: unexpected byte after closing quote of field 4");
	rejects(H "1,5,1,a\"b,1,1,1,1\n",
		"x.csv:2: quote inside unquoted field 4");
	rejects(H "1,5,1,\"multi\nline\",1,1,1,1\n1,5,1,a,1,1\n",
		"x.csv:4: 6 fields, expected 8");
	rejects(H "1,5,1,a\rb,1,1,1,1\n", "x.csv:2: bare CR in field 4");
}

static void nul_byte(void)
{
	static const char text[] = H "1,5,1,a\0b,1,1,1,1\n";
	unsigned rows;

	CHECK_INT(read_all(text, sizeof text - 1, &rows), -EINVAL);
	CHECK_STR(r.err, "x.csv:2: NUL byte in field 4");
}

static void long_field(void)
{
	static char text[MEMZ_TRACE_FIELD_MAX + 200];
	size_t n = strlen(H);

	memcpy(text, H "1,5,1,", n + 6);
	memset(text + n + 6, 'a', MEMZ_TRACE_FIELD_MAX);
	strcpy(text + n + 6 + MEMZ_TRACE_FIELD_MAX, ",1,1,1,1\n");
	rejects(text, "x.csv:2: field 4 longer than 1023 bytes");
}

/* What the writer writes, the reader reads back, byte for byte. */
static void round_trip(void)
{
	static const char *const names[] = { "plain", "a,b", "say \"hi\"",
					     "two\nlines", "cr\rx", "#hash",
					     " spaced ", "" };
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof buf, "w");
	unsigned i = 0;
	int rc;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(memz_trace_write_header(f), 0);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct memz_trace_row w = { .t = 1.25 * i, .pid = (int)i + 1,
					    .start = 1000 + i };
		w.name_len = strlen(names[i]);
		memcpy(w.name, names[i], w.name_len + 1);
		for (int k = 0; k < 4; k++) {
			w.kb[k] = i * 10 + (unsigned)k;
			w.has[k] = k != (int)(i % 4);
		}
		CHECK_INT(memz_trace_write_row(f, &w), 0);
	}
	fclose(f);
	CHECK(strstr(buf, "\n1.250,2,1001,\"a,b\",10,,12,13\n") != NULL);
	CHECK(strstr(buf, ",\"say \"\"hi\"\"\",") != NULL);

	f = fmemopen(buf, strlen(buf), "r");
	memz_trace_reader_init(&r, f, "rt.csv");
	i = 0;
	while ((rc = memz_trace_next(&r, &row)) == 1) {
		CHECK_STR(row.name, names[i]);
		CHECK_NEAR(row.t, 1.25 * i, 1e-9);
		CHECK_INT(row.pid, i + 1);
		CHECK(!row.has[i % 4]);
		CHECK_U64(row.kb[(i + 1) % 4], i * 10 + (i + 1) % 4);
		i++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(i, sizeof names / sizeof names[0]);
	fclose(f);
}

int main(void)
{
	good();
	bad();
	nul_byte();
	long_field();
	round_trip();
	return check_status();
}
