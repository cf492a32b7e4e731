#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memz/pagemap.h"

void memz_pagemap_begin(struct memz_pagemap_walk *w, int maps_fd,
			int pagemap_fd, uint64_t page_size)
{
	w->maps_fd = maps_fd;
	w->pagemap_fd = pagemap_fd;
	w->page_size = page_size ? page_size : 4096;
	w->next = 0;
	w->map_end = 0;
	memset(&w->c, 0, sizeof w->c);
	w->entries = 0;
	w->skip_line = false;
	w->maps_eof = false;
	w->why = NULL;
	w->gap_ns = 0;
	w->pauses = 0;
	w->pos = w->have = 0;
}

static int bad(struct memz_pagemap_walk *w, const char *why)
{
	w->why = why;
	return -EINVAL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number of 1 to 16 digits at *p, ended by `end_ch`, which is
 * passed. */
static bool hex_field(const char **p, const char *end, char end_ch,
		      uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (s < end && hexval(*s) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)hexval(*s++);
	}
	if (n == 0 || s >= end || *s != end_ch)
		return false;
	*out = v;
	*p = s + 1;
	return true;
}

/* One maps line (or the start of one too long for lines[]):
 * "start-end perms offset major:minor inode [path]". Only the range and
 * the permissions are kept, but every field before the path is checked,
 * so that what is read is a maps line and not something that resembles
 * one. */
static int parse_line(struct memz_pagemap_walk *w, const char *s, size_t len,
		      uint64_t *start, uint64_t *end, bool *no_access)
{
	const char *p = s, *e = s + len;
	uint64_t off, maj, min;
	int digits = 0;

	if (!hex_field(&p, e, '-', start) || !hex_field(&p, e, ' ', end))
		return bad(w, "maps line: no start-end range");
	if (*start >= *end || *start % w->page_size || *end % w->page_size)
		return bad(w, "maps line: range empty or not page aligned");
	if (e - p < 5 || (p[0] != 'r' && p[0] != '-') ||
	    (p[1] != 'w' && p[1] != '-') || (p[2] != 'x' && p[2] != '-') ||
	    (p[3] != 'p' && p[3] != 's') || p[4] != ' ')
		return bad(w, "maps line: permissions not [r-][w-][x-][ps]");
	*no_access = p[0] == '-' && p[1] == '-' && p[2] == '-';
	p += 5;
	if (!hex_field(&p, e, ' ', &off) || !hex_field(&p, e, ':', &maj) ||
	    !hex_field(&p, e, ' ', &min))
		return bad(w, "maps line: no offset or device");
	while (p < e && *p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (digits == 0 || digits > 20 || (p < e && *p != ' '))
		return bad(w, "maps line: no inode");
	return 0;
}

static ssize_t read_retry(int fd, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

static ssize_t pread_retry(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r;

	do
		r = pread(fd, buf, n, off);
	while (r < 0 && errno == EINTR);
	return r;
}

/* The next mapping of maps: 1 with its range, 0 at the end, -errno. Each
 * read() adds to *spent. */
static int next_mapping(struct memz_pagemap_walk *w, uint64_t *spent,
			uint64_t *start, uint64_t *end, bool *no_access)
{
	for (;;) {
		char *b = w->lines + w->pos;
		size_t n = w->have - w->pos;
		char *nl = n ? memchr(b, '\n', n) : NULL;
		ssize_t r;

		if (nl && w->skip_line) {
			w->skip_line = false;
			w->pos += (size_t)(nl - b) + 1;
			continue;
		}
		if (nl) {
			w->pos += (size_t)(nl - b) + 1;
			return parse_line(w, b, (size_t)(nl - b), start, end,
					  no_access) ?
				       -EINVAL :
				       1;
		}
		if (w->skip_line) {
			w->pos = w->have = 0;
		} else if (w->pos == 0 && w->have == sizeof w->lines) {
			/* a path of thousands of bytes: the fields that
			 * matter are at the start */
			w->pos = w->have = 0;
			w->skip_line = true;
			return parse_line(w, w->lines, sizeof w->lines, start,
					  end, no_access) ?
				       -EINVAL :
				       1;
		}
		if (w->maps_eof) {
			if (w->have > w->pos || w->skip_line)
				return bad(w, "maps ends inside a line");
			return 0;
		}
		memmove(w->lines, w->lines + w->pos, w->have - w->pos);
		w->have -= w->pos;
		w->pos = 0;
		r = read_retry(w->maps_fd, w->lines + w->have,
			       sizeof w->lines - w->have);
		*spent += MEMZ_PAGEMAP_CALL_COST;
		if (r < 0)
			return -errno;
		if (r == 0)
			w->maps_eof = true;
		w->have += (size_t)r;
	}
}

static void count(struct memz_pagemap_counts *c, const uint64_t *ent,
		  size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t e = ent[i];

		if (e & MEMZ_PAGEMAP_PRESENT) {
			c->present++;
			if (e & MEMZ_PAGEMAP_EXCLUSIVE)
				c->exclusive++;
			if (e & MEMZ_PAGEMAP_FILE)
				c->file++;
		} else if (e & MEMZ_PAGEMAP_SWAPPED) {
			c->swapped++;
		}
	}
}

/* maps reads as ended once the process has exited; pagemap then refuses
 * (ESRCH), so one entry read tells a whole walk from a cut one. */
static int still_there(struct memz_pagemap_walk *w)
{
	uint64_t e;

	return pread_retry(w->pagemap_fd, &e, sizeof e, 0) < 0 ? -errno : 1;
}

/* Let a writer that waits for the lock have it (see pagemap.h). */
static void pause_for_writers(struct memz_pagemap_walk *w)
{
	struct timespec ts = { w->gap_ns / 1000000000L, w->gap_ns % 1000000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	w->pauses++;
}

int memz_pagemap_step(struct memz_pagemap_walk *w, uint64_t allowance)
{
	uint64_t spent = 0;
	bool read_one = false;

	while (spent < allowance) {
		uint64_t n, left;
		ssize_t r;

		if (w->map_end == 0) {
			uint64_t start, end;
			bool no_access;
			int rc = next_mapping(w, &spent, &start, &end, &no_access);

			if (rc < 0)
				return rc;
			if (rc == 0)
				return still_there(w);
			/* the address space changed between two steps:
			 * what lies below the resume point was counted */
			if (no_access || end <= w->next)
				continue;
			if (start > w->next)
				w->next = start;
			w->map_end = end;
		}
		n = (w->map_end - w->next) / w->page_size;
		left = spent < allowance ? allowance - spent : 0;
		if (left < MEMZ_PAGEMAP_CALL_COST)
			left = MEMZ_PAGEMAP_CALL_COST;
		if (n > left)
			n = left;
		if (n > MEMZ_PAGEMAP_CHUNK)
			n = MEMZ_PAGEMAP_CHUNK;
		if (read_one && w->gap_ns > 0)
			pause_for_writers(w);
		read_one = true;
		r = pread_retry(w->pagemap_fd, w->ent, (size_t)n * sizeof *w->ent,
				(off_t)(w->next / w->page_size * sizeof *w->ent));
		if (r < 0)
			return -errno;
		if (r % (ssize_t)sizeof *w->ent)
			return bad(w, "pagemap read ended inside an entry");
		n = (uint64_t)r / sizeof *w->ent;
		spent += n > MEMZ_PAGEMAP_CALL_COST ? n : MEMZ_PAGEMAP_CALL_COST;
		if (n == 0) {
			/* past what pagemap shows: [vsyscall] lies above
			 * the task size */
			w->map_end = 0;
			continue;
		}
		count(&w->c, w->ent, (size_t)n);
		w->entries += n;
		w->next += n * w->page_size;
		if (w->next >= w->map_end)
			w->map_end = 0;
	}
	return 0;
}

uint64_t memz_pagemap_shared(const struct memz_pagemap_counts *c,
			     uint64_t page_size, uint64_t rss_end)
{
	uint64_t excl = c->exclusive * page_size;
	uint64_t by_walk = (c->present - c->exclusive) * page_size;
	uint64_t by_status = rss_end > excl ? rss_end - excl : 0;

	return by_walk < by_status ? by_walk : by_status;
}

void memz_pagemap_estimate(uint64_t rss, uint64_t shared,
			   struct memz_pss_estimate *out)
{
	uint64_t s = shared < rss ? shared : rss;

	out->uss = rss - s;
	/* PSS lies in [uss, uss + s/2]: its middle, and half the width
	 * rounded up so the bound holds (not as (s + 3) / 4, which wraps to
	 * 0 for s within 3 of 2^64) */
	out->pss = out->uss + s / 4;
	out->error = s / 4 + (s % 4 != 0);
}
