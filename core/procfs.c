#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memz/alloc.h"
#include "memz/cgroup.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"
#include "parse_util.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A number of a space-separated record: it must end at a blank, a newline
 * or the end, so "12x" is malformed rather than 12. */
static int field_u64(const char **p, const char *end, unsigned long long *v)
{
	int rc = memz_parse_u64(p, end, v);

	if (rc)
		return rc;
	if (*p < end && !is_blank(**p) && **p != '\n')
		return -EINVAL;
	return 0;
}

/* Skip one blank-separated field, which may be signed ("-1"). */
static int skip_field(const char **p, const char *end)
{
	const char *s = mz_skip_blanks(*p, end), *t = s;

	while (t < end && !is_blank(*t) && *t != '\n')
		t++;
	if (t == s)
		return -EINVAL;
	*p = t;
	return 0;
}

int memz_parse_stat(const char *buf, size_t len, struct memz_pstat *out)
{
	const char *end = buf + len, *open, *close, *s;
	unsigned long long v[23]; /* by field number; unparsed ones unused */
	struct memz_pstat st;
	size_t n;
	int field, rc;

	open = memchr(buf, '(', len);
	if (!open)
		return -EINVAL;
	for (close = end; close > open && close[-1] != ')'; close--)
		;
	if (close == open)
		return -EINVAL;
	close--; /* at the last ')' */
	s = buf;
	rc = field_u64(&s, open, &v[1]);
	if (rc || mz_skip_blanks(s, open) != open)
		return -EINVAL;

	memset(&st, 0, sizeof(st));
	n = (size_t)(close - open - 1);
	if (n > MEMZ_COMM_MAX - 1)
		n = MEMZ_COMM_MAX - 1;
	memcpy(st.comm, open + 1, n);
	st.comm[n] = '\0';

	s = close + 1;
	if (s >= end || *s != ' ')
		return -EINVAL;
	s++;
	if (s >= end || is_blank(*s) || *s == '\n' || s + 1 >= end ||
	    s[1] != ' ')
		return -EINVAL;
	st.state = *s++;
	for (field = 4; field <= 22; field++) {
		switch (field) {
		case 4: case 9: case 14: case 15: case 20: case 22:
			if (s >= end || !is_blank(*s))
				return -EINVAL;
			rc = field_u64(&s, end, &v[field]);
			break;
		default:
			rc = skip_field(&s, end);
			break;
		}
		if (rc)
			return rc;
	}
	if (v[4] > INT_MAX || v[20] > LONG_MAX)
		return -ERANGE;
	st.ppid = (int)v[4];
	st.flags = v[9];
	st.utime = v[14];
	st.stime = v[15];
	st.num_threads = (long)v[20];
	st.start_time = v[22];
	*out = st;
	return 0;
}

/* Below this, v * 10 + 9 cannot overflow. */
#define U64_TENTH (UINT64_MAX / 10 - 1)

/*
 * statm is parsed for every process every cycle, so it has a parser of its
 * own: the rules of field_u64 (blanks before a number, a blank, newline or
 * the end after it), but a comparison per digit instead of a division, and
 * the page-size bound computed once.
 */
int memz_parse_statm(const char *buf, size_t len, uint64_t page_size,
		     struct memz_statm *out)
{
	const char *s = buf, *end = buf + len;
	uint64_t v[7], lim;

	if (page_size == 0)
		return -EINVAL;
	lim = UINT64_MAX / page_size;
	for (int i = 0; i < 7; i++) {
		const char *digits;
		uint64_t x = 0;

		if (i > 0) {
			if (s >= end || *s != ' ')
				return -EINVAL;
			s++;
		}
		while (s < end && is_blank(*s))
			s++;
		for (digits = s; s < end && (unsigned)(*s - '0') <= 9; s++) {
			unsigned d = (unsigned)(*s - '0');

			if (x >= U64_TENTH && x > (UINT64_MAX - d) / 10)
				return -ERANGE;
			x = x * 10 + d;
		}
		if (s == digits ||
		    (s < end && !is_blank(*s) && *s != '\n'))
			return -EINVAL;
		if (x > lim)
			return -ERANGE;
		v[i] = x;
	}
	if (s < end && *s == '\n')
		s++;
	if (s != end)
		return -EINVAL;
	/* size resident shared text lib data dt: lib and dt are always 0. */
	out->size = v[0] * page_size;
	out->resident = v[1] * page_size;
	out->shared = v[2] * page_size;
	out->text = v[3] * page_size;
	out->data = v[5] * page_size;
	return 0;
}

int memz_parse_status(const char *buf, size_t len, struct memz_pstatus *out)
{
	static const struct mz_key keys[] = {
		{ "VmHWM", offsetof(struct memz_pstatus, vm_hwm) },
		{ "VmRSS", offsetof(struct memz_pstatus, vm_rss) },
		{ "VmSwap", offsetof(struct memz_pstatus, vm_swap) },
		{ "RssAnon", offsetof(struct memz_pstatus, rss_anon) },
		{ "RssFile", offsetof(struct memz_pstatus, rss_file) },
		{ "RssShmem", offsetof(struct memz_pstatus, rss_shmem) },
	};
	const char *p = buf, *end = buf + len, *ls, *le;
	struct memz_pstatus st;
	unsigned seen = 0;
	bool has_uid = false;

	memset(&st, 0, sizeof(st));
	while (mz_next_line(&p, end, &ls, &le)) {
		const char *colon = memchr(ls, ':', (size_t)(le - ls));
		int rc;

		/* Unknown lines are skipped whatever they hold: Name is
		 * the hostile comm, escaped by the kernel but still not ours
		 * to judge. */
		if (!colon)
			continue;
		if (mz_eq(ls, colon, "Uid")) {
			unsigned long long uid;
			const char *s = colon + 1;

			rc = field_u64(&s, le, &uid);
			if (rc)
				return rc;
			if (uid > UINT32_MAX)
				return -ERANGE;
			st.uid = (uint32_t)uid;
			has_uid = true;
			continue;
		}
		if (mz_eq(ls, colon, "Tgid")) {
			unsigned long long tgid;
			const char *s = colon + 1;

			rc = field_u64(&s, le, &tgid);
			if (rc)
				return rc;
			if (tgid == 0 || tgid > INT_MAX)
				return -ERANGE;
			st.tgid = (int)tgid;
			continue;
		}
		rc = mz_parse_key_line(keys, 6, &st, ls, colon, le,
				       &seen);
		if (rc)
			return rc;
	}
	if (!has_uid)
		return -EINVAL;
	/* All or none: a kernel thread has no mm and so no Vm* lines; a
	 * process with some but not all is a cut-short file. */
	if ((seen & 7u) != 0 && (seen & 7u) != 7u)
		return -EINVAL;
	st.has_vm = (seen & 7u) != 0;
	/* the split came in one release, after Vm*: with Vm* or not at all */
	if ((seen & 0x38u) != 0 && ((seen & 0x38u) != 0x38u || !st.has_vm))
		return -EINVAL;
	st.has_rss_split = (seen & 0x38u) != 0;
	*out = st;
	return 0;
}

#define RO(field) offsetof(struct memz_rollup, field)
/* Rss and Pss first: required (bits 0, 1); then Pss_Anon/File/Shmem. */
static const struct mz_key rollup_keys[] = {
	{ "Rss", RO(rss) },
	{ "Pss", RO(pss) },
	{ "Pss_Anon", RO(pss_anon) },
	{ "Pss_File", RO(pss_file) },
	{ "Pss_Shmem", RO(pss_shmem) },
	{ "Shared_Clean", RO(shared_clean) },
	{ "Shared_Dirty", RO(shared_dirty) },
	{ "Private_Clean", RO(private_clean) },
	{ "Private_Dirty", RO(private_dirty) },
	{ "Anonymous", RO(anonymous) },
	{ "Swap", RO(swap) },
	{ "SwapPss", RO(swap_pss) },
};
#define N_ROLLUP_KEYS (sizeof(rollup_keys) / sizeof(rollup_keys[0]))

/* "start-end " with both in hex: the first token of a mapping header. */
static bool is_map_header(const char *s, const char *e)
{
	const char *t = s;

	while (t < e && ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f')))
		t++;
	if (t == s || t >= e || *t != '-')
		return false;
	s = ++t;
	while (t < e && ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f')))
		t++;
	return t != s && t < e && *t == ' ';
}

int memz_parse_rollup(const char *buf, size_t len, struct memz_rollup *out)
{
	const char *p = buf, *end = buf + len, *ls, *le;
	struct memz_rollup r;
	unsigned seen = 0;
	int rc;

	if (!mz_next_line(&p, end, &ls, &le) || !is_map_header(ls, le))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	rc = mz_parse_key_lines(&p, end, rollup_keys, N_ROLLUP_KEYS, &r, &seen);
	if (rc)
		return rc;
	if ((seen & 3u) != 3u)
		return -EINVAL;
	/* Pss_Anon, Pss_File and Pss_Shmem came in one kernel release: some
	 * without the others is a cut-short file. */
	if ((seen & 0x1cu) != 0 && (seen & 0x1cu) != 0x1cu)
		return -EINVAL;
	r.has_pss_anon = (seen & 0x1cu) != 0;
	if (!r.has_pss_anon)
		r.pss_anon = r.anonymous;
	*out = r;
	return 0;
}

static int sum_mapping(const struct memz_mapping *m, void *ctx)
{
	struct memz_rollup *r = ctx;

	r->rss += m->rss;
	r->pss += m->pss;
	r->shared_clean += m->shared_clean;
	r->shared_dirty += m->shared_dirty;
	r->private_clean += m->private_clean;
	r->private_dirty += m->private_dirty;
	r->anonymous += m->anonymous;
	r->swap += m->swap;
	r->swap_pss += m->swap_pss;
	return 0;
}

int memz_parse_smaps_sum(const char *buf, size_t len, struct memz_rollup *out)
{
	struct memz_rollup r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = memz_parse_smaps(buf, len, sum_mapping, &r);
	if (rc)
		return rc;
	/* The kernel prints Pss_Anon only in smaps_rollup, never per
	 * mapping, so a sum of smaps always takes the documented fallback. */
	r.has_pss_anon = false;
	r.pss_anon = r.anonymous;
	*out = r;
	return 0;
}

int memz_parse_oom_score_adj(const char *buf, size_t len, int *out)
{
	const char *s = buf, *end = buf + len;
	unsigned long long v;
	bool neg = false;
	int rc;

	s = mz_skip_blanks(s, end);
	if (s < end && *s == '-') {
		neg = true;
		s++;
	}
	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	rc = memz_parse_u64(&s, end, &v);
	if (rc)
		return rc;
	if (s < end && *s == '\n')
		s++;
	if (s != end)
		return -EINVAL;
	if (v > 1000)
		return -ERANGE;
	*out = neg ? -(int)v : (int)v;
	return 0;
}

/* cgroup.c holds the one reader of /proc/PID/cgroup. */
int memz_parse_cgroup(const char *buf, size_t len, char *out, size_t outlen)
{
	int version;

	return memz_cgroup_of_proc(buf, len, out, outlen, &version);
}

static int parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (s < end) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else
			break;
		if (v > (UINT64_MAX >> 4))
			return -ERANGE;
		v = v << 4 | d;
		s++;
	}
	if (s == *p)
		return -EINVAL;
	*out = v;
	*p = s;
	return 0;
}

/* Copy the next blank-delimited word into out[outlen]; it must fit. */
static int copy_word(const char **p, const char *end, char *out, size_t outlen)
{
	const char *s = mz_skip_blanks(*p, end), *t = s;

	while (t < end && !is_blank(*t))
		t++;
	if (t == s || (size_t)(t - s) >= outlen)
		return -EINVAL;
	memcpy(out, s, (size_t)(t - s));
	out[t - s] = '\0';
	*p = t;
	return 0;
}

/* "start-end perms offset dev inode [path]" */
static int parse_map_header(const char *s, const char *e,
			    struct memz_mapping *m)
{
	unsigned long long inode;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (parse_hex(&s, e, &m->start) || s >= e || *s++ != '-' ||
	    parse_hex(&s, e, &m->end) || m->end < m->start)
		return -EINVAL;
	if (copy_word(&s, e, m->perms, sizeof(m->perms)))
		return -EINVAL;
	s = mz_skip_blanks(s, e);
	if (parse_hex(&s, e, &m->offset) || s >= e || !is_blank(*s))
		return -EINVAL;
	if (copy_word(&s, e, m->dev, sizeof(m->dev)))
		return -EINVAL;
	if (s >= e || !is_blank(*s) || field_u64(&s, e, &inode))
		return -EINVAL;
	m->inode = inode;
	s = mz_skip_blanks(s, e);
	/* The path runs to the end of the line, spaces and all. */
	n = (size_t)(e - s);
	if (n > sizeof(m->path) - 1)
		n = sizeof(m->path) - 1;
	memcpy(m->path, s, n);
	m->path[n] = '\0';
	return 0;
}

#define MP(field) offsetof(struct memz_mapping, field)
/* Size, Rss, Pss first: required in every record (bits 0-2). */
static const struct mz_key smaps_keys[] = {
	{ "Size", MP(size) },
	{ "Rss", MP(rss) },
	{ "Pss", MP(pss) },
	{ "Pss_Anon", MP(pss_anon) },
	{ "Pss_File", MP(pss_file) },
	{ "Pss_Shmem", MP(pss_shmem) },
	{ "Shared_Clean", MP(shared_clean) },
	{ "Shared_Dirty", MP(shared_dirty) },
	{ "Private_Clean", MP(private_clean) },
	{ "Private_Dirty", MP(private_dirty) },
	{ "Anonymous", MP(anonymous) },
	{ "Swap", MP(swap) },
	{ "SwapPss", MP(swap_pss) },
	{ "Locked", MP(locked) },
};
#define N_SMAPS_KEYS (sizeof(smaps_keys) / sizeof(smaps_keys[0]))

int memz_parse_smaps(const char *buf, size_t len,
		     int (*fn)(const struct memz_mapping *m, void *ctx),
		     void *ctx)
{
	const char *p = buf, *end = buf + len, *ls, *le;
	struct memz_mapping m;
	bool open = false;
	unsigned seen = 0;
	int rc;

	while (mz_next_line(&p, end, &ls, &le)) {
		const char *colon;

		if (ls == le)
			continue;
		if (is_map_header(ls, le)) {
			if (open) {
				if ((seen & 7u) != 7u)
					return -EINVAL;
				rc = fn(&m, ctx);
				if (rc)
					return rc;
			}
			if (parse_map_header(ls, le, &m))
				return -EINVAL;
			open = true;
			seen = 0;
			continue;
		}
		if (!open)
			return -EINVAL;
		colon = memchr(ls, ':', (size_t)(le - ls));
		if (!colon)
			return -EINVAL;
		if (mz_eq(ls, colon, "VmFlags")) {
			const char *s = mz_skip_blanks(colon + 1, le), *t = le;
			size_t n;

			while (t > s && is_blank(t[-1]))
				t--;
			n = (size_t)(t - s);
			if (n > sizeof(m.vm_flags) - 1)
				n = sizeof(m.vm_flags) - 1;
			memcpy(m.vm_flags, s, n);
			m.vm_flags[n] = '\0';
			continue;
		}
		rc = mz_parse_key_line(smaps_keys, N_SMAPS_KEYS, &m, ls, colon, le,
				       &seen);
		if (rc)
			return rc;
	}
	if (open) {
		if ((seen & 7u) != 7u)
			return -EINVAL;
		return fn(&m, ctx);
	}
	return 0;
}

int memz_read_exe_name(int piddir_fd, char *out, size_t outlen)
{
	static const char deleted[] = " (deleted)";
	const size_t dlen = sizeof(deleted) - 1;
	char link[PATH_MAX];
	const char *base, *e;
	ssize_t n;
	size_t bn;

	if (outlen == 0)
		return -EINVAL;
	n = readlinkat(piddir_fd, "exe", link, sizeof(link));
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(link))
		return -ENAMETOOLONG;
	e = link + n;
	if ((size_t)n > dlen && memcmp(e - dlen, deleted, dlen) == 0)
		e -= dlen;
	for (base = e; base > link && base[-1] != '/'; base--)
		;
	if (base == e)
		return -EINVAL;
	/* A display name: cut like the kernel cuts comm, not refused. */
	bn = (size_t)(e - base);
	if (bn > outlen - 1)
		bn = outlen - 1;
	memcpy(out, base, bn);
	out[bn] = '\0';
	return 0;
}

int memz_read_file_grow(const struct memz_allocator *a, int dirfd,
			const char *name, char **buf, size_t *cap, size_t *len)
{
	size_t off = 0;
	int fd, rc = 0;

	fd = memz_open_at(dirfd, name);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n;

		if (off + 1 >= *cap) {
			rc = memz_grow(a, buf, cap, *cap < 4096 ? 4096 : *cap + 1,
				       1);
			if (rc)
				break;
		}
		n = read(fd, *buf + off, *cap - 1 - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0) {
			(*buf)[off] = '\0';
			*len = off;
			break;
		}
		off += (size_t)n;
	}
	close(fd);
	return rc;
}

int memz_parse_pid(const char *s, size_t len, int *pid)
{
	long long v = 0;

	if (!s || !len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
		if (v > INT_MAX)
			return -ERANGE;
	}
	if (!v)
		return -EINVAL;
	*pid = (int)v;
	return 0;
}

int memz_parse_uptime(const char *buf, size_t len, double *out)
{
	const char *p = buf, *end = buf + len;
	unsigned long long whole, frac = 0;
	double scale = 1;

	if (memz_parse_u64(&p, end, &whole))
		return -EINVAL;
	if (p < end && *p == '.') {
		const char *q = ++p;
		/* the kernel writes centiseconds; more digits are not a
		 * different clock, only more of them */
		for (; p < end && *p >= '0' && *p <= '9' && p - q < 9; p++) {
			frac = frac * 10 + (unsigned long long)(*p - '0');
			scale *= 10;
		}
		if (p == q)
			return -EINVAL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && *p != ' ' && *p != '\n')
		return -EINVAL;
	*out = (double)whole + (double)frac / scale;
	return 0;
}
