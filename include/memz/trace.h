/*
 * trace.h - the trace format of docs/trace-format.md (version 1): CSV
 * as in RFC 4180, '#' comment lines, the header
 *   t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb
 * and one row per process per cycle.
 *
 * The reader is strict: a row whose t goes backwards, whose number of fields
 * is wrong or whose numbers do not parse is rejected with "FILE:LINE: reason"
 * (LINE is where the row starts, counting from 1), never guessed at. It
 * keeps every buffer inside its struct, so reading allocates nothing; the
 * caller owns the FILE and closes it.
 */
#ifndef MEMZ_TRACE_H
#define MEMZ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MEMZ_TRACE_HEADER "t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb"
#define MEMZ_TRACE_FIELDS 8
#define MEMZ_TRACE_FIELD_MAX 1024 /* bytes of one field; longer is an error */

enum memz_trace_col { MEMZ_TRACE_PSS, MEMZ_TRACE_RSS, MEMZ_TRACE_ANON,
		      MEMZ_TRACE_SWAP };

struct memz_trace_row {
	double t;
	int pid;
	unsigned long long start;
	char name[MEMZ_TRACE_FIELD_MAX]; /* raw bytes, NUL-terminated */
	size_t name_len;
	uint64_t kb[4];  /* indexed by enum memz_trace_col */
	bool has[4];     /* false: the field was empty (not readable) */
};

struct memz_trace_reader {
	FILE *f;
	const char *path; /* for messages; not owned */
	unsigned line;    /* physical line being read */
	unsigned row_line; /* line where the last record started */
	bool header_seen, has_t;
	double last_t;
	char err[MEMZ_TRACE_FIELD_MAX + 256];
	char field[MEMZ_TRACE_FIELDS][MEMZ_TRACE_FIELD_MAX];
	size_t flen[MEMZ_TRACE_FIELDS];
};

void memz_trace_reader_init(struct memz_trace_reader *r, FILE *f,
			    const char *path);

/*
 * The next row: 1 and *row filled, 0 at the end of the file, or -EINVAL
 * (malformed) / -EIO (read error) with r->err holding "FILE:LINE: reason".
 * A file without a header is malformed, as is an empty one.
 */
int memz_trace_next(struct memz_trace_reader *r, struct memz_trace_row *row);

/* Writing: the header line, then one line per row. t is written with
 * millisecond precision; the name is quoted when it needs to be. 0 or -EIO. */
int memz_trace_write_header(FILE *f);
int memz_trace_write_row(FILE *f, const struct memz_trace_row *row);

#endif
