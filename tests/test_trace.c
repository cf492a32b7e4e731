/*
 * test_trace.c - the trace reader and writer: RFC 4180 quoting, comments,
 * CRLF, and every rejection with its line number and reason.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "memz/trace.h"

/* most cases read version 1, which every reader keeps reading */
#define H MEMZ_TRACE_HEADER_V1 "\n"
#define H2 MEMZ_TRACE_HEADER_V2 "\n"
#define H3 MEMZ_TRACE_HEADER_V3 "\n"
#define H4 MEMZ_TRACE_HEADER_V4 "\n"
#define H5 MEMZ_TRACE_HEADER "\n"
#define BAD_HEADER \
	"bad header (expected " MEMZ_TRACE_HEADER ", or version 4: " \
	MEMZ_TRACE_HEADER_V4 ", or version 3: " \
	MEMZ_TRACE_HEADER_V3 ", or version 2: " MEMZ_TRACE_HEADER_V2 \
	", or version 1: " MEMZ_TRACE_HEADER_V1 ")"

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
	static const char crlf[] = "# c\r\n" MEMZ_TRACE_HEADER_V1 "\r\n"
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
		"x.csv:1: " BAD_HEADER);
	rejects("# c\nt,pid,start,comm,pss_kb,rss_kb,anon_kb,swap_kb\n",
		"x.csv:2: " BAD_HEADER);
	rejects(MEMZ_TRACE_HEADER_V1 ",pss_anon_kb\n", "x.csv:1: " BAD_HEADER);
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

/* Inside quotes as outside: no NUL, and a field fits its buffer. */
static void nul_byte(void)
{
	static const char text[] = H "1,5,1,a\0b,1,1,1,1\n";
	static const char quoted[] = H "1,5,1,\"a\0b\",1,1,1,1\n";
	unsigned rows;

	CHECK_INT(read_all(text, sizeof text - 1, &rows), -EINVAL);
	CHECK_STR(r.err, "x.csv:2: NUL byte in field 4");
	CHECK_INT(read_all(quoted, sizeof quoted - 1, &rows), -EINVAL);
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
	memcpy(text, H "1,5,1,\"", n + 7);
	memset(text + n + 7, 'a', MEMZ_TRACE_FIELD_MAX);
	strcpy(text + n + 7 + MEMZ_TRACE_FIELD_MAX, "\",1,1,1,1\n");
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
		for (int k = 0; k < MEMZ_TRACE_COLS; k++) {
			w.kb[k] = i * 10 + (unsigned)k;
			w.has[k] = k != (int)(i % 4);
		}
		w.has_age = i % 2;
		w.age = 3600.125 * i;
		w.has_error = i == 2;
		w.error_kb = 77;
		w.has_vm = i == 1;
		w.vm_kb = 4096;
		CHECK_INT(memz_trace_write_row(f, &w), 0);
	}
	fclose(f);
	CHECK(strstr(buf, MEMZ_TRACE_HEADER "\n") == buf);
	CHECK(strstr(buf, "\n1.250,2,1001,\"a,b\",10,,12,13,14,15,16,3600.12,,4096\n") != NULL);
	CHECK(strstr(buf, "\n0.000,1,1000,plain,,1,2,3,4,5,6,,,\n") != NULL);
	CHECK(strstr(buf, ",,77,\n") != NULL);
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
		CHECK(row.has_age == (i % 2 == 1));
		CHECK(row.has_error == (i == 2));
		if (row.has_error)
			CHECK_U64(row.error_kb, 77);
		CHECK(row.has_vm == (i == 1));
		if (row.has_vm)
			CHECK_U64(row.vm_kb, 4096);
		if (row.has_age)
			CHECK_NEAR(row.age, 3600.125 * i, 0.006);
		i++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(i, sizeof names / sizeof names[0]);
	fclose(f);
}

/* Version 2 carries the PSS split; version 1 rows have none. */
static void version2(void)
{
	unsigned rows;

	CHECK_INT(READ(H2 "1,7,9,x,100,120,60,0,55,40,5\n", &rows), 0);
	CHECK_INT(rows, 1);
	CHECK_INT(r.fields, MEMZ_TRACE_FIELDS_V2);
	CHECK(!row.has_age);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS], 100);
	CHECK_U64(row.kb[MEMZ_TRACE_ANON], 60);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS_ANON], 55);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS_FILE], 40);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS_SHMEM], 5);
	CHECK(row.has[MEMZ_TRACE_PSS_ANON] && row.has[MEMZ_TRACE_PSS_SHMEM]);
	/* a kernel without the split leaves it empty */
	CHECK_INT(READ(H2 "1,7,9,x,100,120,60,0,,,\n", &rows), 0);
	CHECK(row.has[MEMZ_TRACE_ANON] && !row.has[MEMZ_TRACE_PSS_ANON] &&
	      !row.has[MEMZ_TRACE_PSS_FILE] && !row.has[MEMZ_TRACE_PSS_SHMEM]);

	CHECK_INT(READ(H "1,7,9,x,100,120,60,0\n", &rows), 0);
	CHECK_INT(r.fields, MEMZ_TRACE_FIELDS_V1);
	CHECK(row.has[MEMZ_TRACE_ANON] && !row.has[MEMZ_TRACE_PSS_ANON]);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS_ANON], 0);

	rejects(H2 "1,7,9,x,100,120,60,0\n", "x.csv:2: 8 fields, expected 11");
	rejects(H "1,7,9,x,100,120,60,0,55,40,5\n",
		"x.csv:2: 11 fields, expected 8");
	rejects(H2 "1,7,9,x,1,1,1,1,1,1,5k\n",
		"x.csv:2: pss_shmem_kb \"5k\" is not a size in KiB (digits, or empty)");
}

/* Version 3 adds the process's age; empty is unknown, never zero. */
static void version3(void)
{
	unsigned rows;

	CHECK_INT(READ(H3 "1,7,9,x,100,120,60,0,55,40,5,12.34\n"
		       "2,7,9,x,100,120,60,0,55,40,5,\n", &rows), 0);
	CHECK_INT(rows, 2);
	CHECK_INT(r.fields, MEMZ_TRACE_FIELDS_V3);
	CHECK(!row.has_age && !row.has_error);
	CHECK_INT(READ(H3 "1,7,9,x,100,120,60,0,55,40,5,86400\n", &rows), 0);
	CHECK(row.has_age);
	CHECK_NEAR(row.age, 86400, 1e-9);
	CHECK_U64(row.kb[MEMZ_TRACE_PSS_SHMEM], 5);
	rejects(H3 "1,7,9,x,100,120,60,0,55,40,5,-3\n",
		"x.csv:2: age_s \"-3\" is not a decimal number of seconds up to 1000000000000 (or empty)");
	rejects(H3 "1,7,9,x,100,120,60,0,55,40,5,1e3\n",
		"x.csv:2: age_s \"1e3\" is not a decimal number of seconds up to 1000000000000 (or empty)");
	rejects(H3 "1,7,9,x,100,120,60,0,55,40,5,2000000000000\n",
		"x.csv:2: age_s \"2000000000000\" is not a decimal number of seconds up to 1000000000000 (or empty)");
	rejects(H3 "1,7,9,x,100,120,60,0,55,40,5\n",
		"x.csv:2: 11 fields, expected 12");
}

/* Version 4 adds an estimate's error; empty is an exact read. */
static void version4(void)
{
	unsigned rows;

	CHECK_INT(READ(H4 "1,7,9,x,600000,600000,50,0,50,10,599940,12.5,600000\n"
		       "2,7,9,x,100,120,60,0,55,40,5,13.5,\n", &rows), 0);
	CHECK_INT(rows, 2);
	CHECK_INT(r.fields, MEMZ_TRACE_FIELDS_V4);
	CHECK(!row.has_error);
	CHECK(!row.has_vm);
	CHECK_INT(READ(H4 "1,7,9,x,600000,600000,50,0,50,10,599940,12.5,1024\n",
		       &rows), 0);
	CHECK(row.has_error);
	CHECK_U64(row.error_kb, 1024);
	rejects(H4 "1,7,9,x,100,120,60,0,55,40,5,1,-1\n",
		"x.csv:2: pss_error_kb \"-1\" is not a size in KiB (digits, or empty)");
	rejects(H4 "1,7,9,x,100,120,60,0,55,40,5,1\n",
		"x.csv:2: 12 fields, expected 13");
}

/* Version 5 adds the address space's size; empty is not known. */
static void version5(void)
{
	unsigned rows;

	CHECK_INT(READ(H5 "1,7,9,x,100,120,60,0,55,40,5,12.5,,1048576\n"
		       "2,7,9,x,100,120,60,0,55,40,5,13.5,,\n", &rows), 0);
	CHECK_INT(rows, 2);
	CHECK_INT(r.fields, MEMZ_TRACE_FIELDS);
	CHECK(!row.has_vm);
	CHECK_INT(READ(H5 "1,7,9,x,100,120,60,0,55,40,5,12.5,,1048576\n",
		       &rows), 0);
	CHECK(row.has_vm);
	CHECK_U64(row.vm_kb, 1048576);
	rejects(H5 "1,7,9,x,100,120,60,0,55,40,5,1,,0x10\n",
		"x.csv:2: vm_kb \"0x10\" is not a size in KiB (digits, or empty)");
	rejects(H5 "1,7,9,x,100,120,60,0,55,40,5,1,\n",
		"x.csv:2: 13 fields, expected 14");
}

/*
 * A t the detector cannot hold (it becomes a bucket number, an integer) is
 * refused where it is read, and never written.
 */
static void huge_time(void)
{
	char text[512], t[302];
	struct memz_trace_row w = { .pid = 1 };
	unsigned rows;
	FILE *f;
	char buf[256];

	memset(t, '0', sizeof t - 1);
	t[0] = '1';
	t[sizeof t - 1] = '\0'; /* 1e300 */
	snprintf(text, sizeof text, H "1,1,1,a,1,1,1,1\n%s,1,1,a,1,1,1,1\n", t);
	CHECK_INT(read_all(text, strlen(text), &rows), -EINVAL);
	CHECK_INT(rows, 1);
	CHECK(strstr(r.err, "x.csv:3: t \"1000") == r.err);
	CHECK(strstr(r.err, "\" is beyond 1000000000000 s") != NULL);
	rejects(H "1000000000000.001,1,1,a,1,1,1,1\n",
		"x.csv:2: t \"1000000000000.001\" is beyond 1000000000000 s");
	CHECK_INT(READ(H "1000000000000.000,1,1,a,1,1,1,1\n", &rows), 0);
	CHECK_INT(rows, 1);

	f = fmemopen(buf, sizeof buf, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	w.t = 1e300;
	CHECK_INT(memz_trace_write_row(f, &w), -ERANGE);
	w.t = NAN;
	CHECK_INT(memz_trace_write_row(f, &w), -ERANGE);
	w.t = -1;
	CHECK_INT(memz_trace_write_row(f, &w), -ERANGE);
	w.t = MEMZ_TRACE_T_MAX;
	CHECK_INT(memz_trace_write_row(f, &w), 0);
	fclose(f);
	CHECK(strncmp(buf, "1000000000000.000,1,0,,", 23) == 0);
}

int main(void)
{
	good();
	version2();
	version3();
	version4();
	version5();
	huge_time();
	bad();
	nul_byte();
	long_field();
	round_trip();
	return check_status();
}
