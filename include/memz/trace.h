/*
 * trace.h - the trace format of docs/trace-format.md: CSV as in RFC 4180,
 * '#' comment lines, a header naming the columns and one row per process
 * per cycle. Version 5 (written) has the header
 *   t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb,pss_anon_kb,pss_file_kb,pss_shmem_kb,age_s,pss_error_kb,vm_kb
 * version 4 (still read) the first thirteen of those, version 3 the first
 * twelve, version 2 the first eleven, version 1 the first eight; rows of a
 * version without a column read as if it were empty (has_age, has_error,
 * has_vm false; version 1's no PSS split: has[] false there).
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

#define MEMZ_TRACE_HEADER_V1 "t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb"
#define MEMZ_TRACE_HEADER_V2 MEMZ_TRACE_HEADER_V1 ",pss_anon_kb,pss_file_kb,pss_shmem_kb"
#define MEMZ_TRACE_HEADER_V3 MEMZ_TRACE_HEADER_V2 ",age_s"
#define MEMZ_TRACE_HEADER_V4 MEMZ_TRACE_HEADER_V3 ",pss_error_kb"
#define MEMZ_TRACE_HEADER MEMZ_TRACE_HEADER_V4 ",vm_kb"
#define MEMZ_TRACE_FIELDS_V1 8
#define MEMZ_TRACE_FIELDS_V2 11
#define MEMZ_TRACE_FIELDS_V3 12
#define MEMZ_TRACE_FIELDS_V4 13
#define MEMZ_TRACE_FIELDS 14
#define MEMZ_TRACE_FIELD_MAX 1024 /* bytes of one field; longer is an error */
/* The latest t a reader accepts, in seconds (31,700 years): what the leak
 * detector takes (MEMZ_DET_T_MAX), and exact to the millisecond. */
#define MEMZ_TRACE_T_MAX 1e12

enum memz_trace_col { MEMZ_TRACE_PSS, MEMZ_TRACE_RSS, MEMZ_TRACE_ANON,
		      MEMZ_TRACE_SWAP, MEMZ_TRACE_PSS_ANON, MEMZ_TRACE_PSS_FILE,
		      MEMZ_TRACE_PSS_SHMEM, MEMZ_TRACE_COLS };

struct memz_trace_row {
	double t;
	int pid;
	unsigned long long start;
	char name[MEMZ_TRACE_FIELD_MAX]; /* raw bytes, NUL-terminated */
	size_t name_len;
	uint64_t kb[MEMZ_TRACE_COLS]; /* indexed by enum memz_trace_col */
	bool has[MEMZ_TRACE_COLS];    /* false: empty (not readable), or a
				       * column version 1 does not have */
	/* seconds the process had run at t (from its start time and the
	 * boot clock); has_age false: empty, or a version before 3 */
	double age;
	bool has_age;
	/* an estimated PSS (a process above ExactMaxRss): |PSS - pss_kb|
	 * <= error_kb; has_error false: read exactly, or a version before 4 */
	uint64_t error_kb;
	bool has_error;
	/* the address space's size (VmSize); has_vm false: empty, or a
	 * version before 5 */
	uint64_t vm_kb;
	bool has_vm;
};

struct memz_trace_reader {
	FILE *f;
	const char *path; /* for messages; not owned */
	unsigned line;    /* physical line being read */
	unsigned row_line; /* line where the last record started */
	bool header_seen, has_t;
	unsigned fields;  /* per row: the header's, MEMZ_TRACE_FIELDS(_V1) */
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
 * A file without a header is malformed, as is an empty one, and so is a t
 * beyond MEMZ_TRACE_T_MAX.
 */
int memz_trace_next(struct memz_trace_reader *r, struct memz_trace_row *row);

/* Writing (version 4): the header line, then one line per row. t is
 * written with millisecond precision, the age with centiseconds (the
 * clock ticks start times are counted in); the name is quoted when it needs to
 * be. 0, -EIO, or -ERANGE for a t that is negative, not finite or beyond
 * MEMZ_TRACE_T_MAX (the reader would refuse it); an age likewise. */
int memz_trace_write_header(FILE *f);
int memz_trace_write_row(FILE *f, const struct memz_trace_row *row);

#endif
