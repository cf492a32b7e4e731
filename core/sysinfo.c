#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memz/readbuf.h"
#include "memz/sysinfo.h"
#include "parse_util.h"

#define MI(field) offsetof(struct memz_meminfo, field)

/* The first six are required; keep them first (bit i of `seen`). */
static const struct mz_key meminfo_keys[] = {
	{ "MemTotal", MI(mem_total) },        { "MemFree", MI(mem_free) },
	{ "Buffers", MI(buffers) },           { "Cached", MI(cached) },
	{ "Slab", MI(slab) },                 { "PageTables", MI(page_tables) },
	{ "MemAvailable", MI(mem_available) }, { "SwapCached", MI(swap_cached) },
	{ "KernelStack", MI(kernel_stack) },  { "VmallocUsed", MI(vmalloc_used) },
	{ "Percpu", MI(percpu) },             { "AnonPages", MI(anon_pages) },
	{ "Shmem", MI(shmem) },               { "SReclaimable", MI(s_reclaimable) },
	{ "SUnreclaim", MI(s_unreclaim) },    { "SwapTotal", MI(swap_total) },
	{ "SwapFree", MI(swap_free) },
};
#define MEMINFO_REQUIRED 0x3fu
#define N_MEMINFO_KEYS (sizeof(meminfo_keys) / sizeof(meminfo_keys[0]))

int memz_parse_meminfo(const char *buf, size_t len, struct memz_meminfo *out)
{
	const char *p = buf, *end = buf + len;
	struct memz_meminfo m;
	unsigned seen = 0;
	int rc;

	memset(&m, 0, sizeof(m));
	rc = mz_parse_key_lines(&p, end, meminfo_keys, N_MEMINFO_KEYS, &m, &seen);
	if (rc)
		return rc;
	if ((seen & MEMINFO_REQUIRED) != MEMINFO_REQUIRED)
		return -EINVAL;
	m.has_mem_available = seen & (1u << 6);
	m.has_percpu = seen & (1u << 10);
	m.has_anon_pages = seen & (1u << 11);
	*out = m;
	return 0;
}

/*
 * A PSI average: "12.34". Parsed by hand rather than with strtod, which
 * follows the locale's decimal point and a host may have set LC_NUMERIC.
 */
static int parse_decimal(const char **p, const char *end, double *out)
{
	const char *s = *p;
	unsigned long long ip;
	double frac = 0, scale = 1;
	int rc = memz_parse_u64(&s, end, &ip);

	if (rc)
		return rc;
	if (s < end && *s == '.') {
		const char *d = ++s;

		while (s < end && *s >= '0' && *s <= '9') {
			if (scale < 1e15) {
				frac = frac * 10 + (*s - '0');
				scale *= 10;
			}
			s++;
		}
		if (s == d)
			return -EINVAL;
	}
	*out = (double)ip + frac / scale;
	*p = s;
	return 0;
}

/* Expect the literal w at *p (after blanks). */
static bool expect(const char **p, const char *end, const char *w)
{
	const char *s = mz_skip_blanks(*p, end);
	size_t n = strlen(w);

	if ((size_t)(end - s) < n || memcmp(s, w, n) != 0)
		return false;
	*p = s + n;
	return true;
}

/* zoneinfo is parsed a line at a time, so that the reader can feed it
 * piece by piece and the pure parser a whole buffer, the same way. */
struct zi_state {
	struct memz_zoneinfo z;
	bool in_zone, in_pagesets, want_count;
};

static int zi_line(struct zi_state *st, const char *ls, const char *le)
{
	const char *s = mz_skip_blanks(ls, le);
	unsigned long long v;
	int rc;

	if (s == le)
		return 0;
	if (s == ls && expect(&s, le, "Node ")) {
		/* "Node 0, zone   Normal" */
		if (memz_parse_u64(&s, le, &v) || !expect(&s, le, ", zone") ||
		    mz_skip_blanks(s, le) == s || mz_skip_blanks(s, le) == le)
			return -EINVAL;
		if (st->want_count)
			return -EINVAL;
		st->in_zone = true;
		st->in_pagesets = false;
		st->z.zones++;
		return 0;
	}
	if (!st->in_zone)
		return -EINVAL;
	if (mz_eq(s, le, "pagesets")) {
		st->in_pagesets = true;
		return 0;
	}
	if (expect(&s, le, "cpu:")) {
		if (!st->in_pagesets || st->want_count)
			return -EINVAL;
		rc = mz_parse_whole_u64(s, le, &v);
		if (rc)
			return rc;
		st->want_count = true;
		st->z.cpus++;
		return 0;
	}
	if (expect(&s, le, "count:")) {
		if (!st->want_count)
			return -EINVAL;
		rc = mz_parse_whole_u64(s, le, &v);
		if (rc)
			return rc;
		if (v > UINT64_MAX - st->z.pages)
			return -ERANGE;
		st->z.pages += v;
		st->want_count = false;
		return 0;
	}
	/* a cpu's count comes first; anything else between is not zoneinfo */
	return st->want_count ? -EINVAL : 0;
}

static int zi_finish(const struct zi_state *st, struct memz_zoneinfo *out)
{
	if (!st->z.zones || st->want_count)
		return -EINVAL;
	*out = st->z;
	return 0;
}

int memz_parse_zoneinfo(const char *buf, size_t len, struct memz_zoneinfo *out)
{
	const char *p = buf, *end = buf + len, *ls, *le;
	struct zi_state st;
	int rc;

	memset(&st, 0, sizeof st);
	while (mz_next_line(&p, end, &ls, &le)) {
		rc = zi_line(&st, ls, le);
		if (rc)
			return rc;
	}
	return zi_finish(&st, out);
}

static int parse_psi_line(const char *s, const char *e,
			  struct memz_psi_line *out)
{
	static const char *const names[] = { "avg10=", "avg60=", "avg300=" };
	double *avg[3];
	struct memz_psi_line l;
	unsigned long long t;
	int i, rc;

	avg[0] = &l.avg10;
	avg[1] = &l.avg60;
	avg[2] = &l.avg300;
	for (i = 0; i < 3; i++) {
		if ((i > 0 && (s >= e || *s != ' ')) || !expect(&s, e, names[i]))
			return -EINVAL;
		rc = parse_decimal(&s, e, avg[i]);
		if (rc)
			return rc;
	}
	if (s >= e || *s != ' ' || !expect(&s, e, "total="))
		return -EINVAL;
	rc = mz_parse_whole_u64(s, e, &t);
	if (rc)
		return rc;
	l.total = t;
	*out = l;
	return 0;
}

int memz_parse_psi(const char *buf, size_t len, struct memz_psi *out)
{
	const char *p = buf, *end = buf + len, *ls, *le;
	struct memz_psi r;
	bool has_some = false;

	memset(&r, 0, sizeof(r));
	while (mz_next_line(&p, end, &ls, &le)) {
		const char *s = ls;
		int rc;

		if (ls == le)
			continue;
		if (expect(&s, le, "some ")) {
			rc = parse_psi_line(s, le, &r.some);
			has_some = true;
		} else if (expect(&s, le, "full ")) {
			rc = parse_psi_line(s, le, &r.full);
			r.has_full = true;
		} else {
			return -EINVAL;
		}
		if (rc)
			return rc;
	}
	if (!has_some)
		return -EINVAL;
	r.present = true;
	*out = r;
	return 0;
}

int memz_parse_node_meminfo(const char *buf, size_t len, int id,
			    struct memz_numa_node *out)
{
	static const struct mz_key keys[] = {
		{ "MemTotal", offsetof(struct memz_numa_node, total) },
		{ "MemFree", offsetof(struct memz_numa_node, free) },
		{ "MemUsed", offsetof(struct memz_numa_node, used) },
	};
	const char *p = buf, *end = buf + len, *ls, *le;
	struct memz_numa_node n;
	unsigned seen = 0;

	memset(&n, 0, sizeof(n));
	n.id = id;
	while (mz_next_line(&p, end, &ls, &le)) {
		const char *s = ls, *key, *colon;
		unsigned long long nid;
		int rc;

		if (ls == le)
			continue;
		if (!expect(&s, le, "Node ") || memz_parse_u64(&s, le, &nid) ||
		    nid != (unsigned long long)id)
			return -EINVAL;
		key = mz_skip_blanks(s, le);
		if (key == s)
			return -EINVAL;
		colon = memchr(key, ':', (size_t)(le - key));
		if (!colon)
			return -EINVAL;
		rc = mz_parse_key_line(keys, 3, &n, key, colon, le,
				       &seen);
		if (rc)
			return rc;
	}
	if (seen != 7u)
		return -EINVAL;
	*out = n;
	return 0;
}

int memz_parse_vmstat(const char *buf, size_t len, struct memz_vmstat *out)
{
	const char *p = buf, *end = buf + len, *ls, *le;
	struct memz_vmstat v;
	unsigned seen = 0;

	memset(&v, 0, sizeof(v));
	while (mz_next_line(&p, end, &ls, &le)) {
		const char *sp;
		unsigned long long x;
		uint64_t *dst;
		unsigned bit;
		int rc;

		if (ls == le)
			continue;
		sp = memchr(ls, ' ', (size_t)(le - ls));
		if (!sp)
			return -EINVAL;
		if (mz_eq(ls, sp, "pswpin")) {
			dst = &v.pswpin;
			bit = 1;
		} else if (mz_eq(ls, sp, "pswpout")) {
			dst = &v.pswpout;
			bit = 2;
		} else if (mz_eq(ls, sp, "oom_kill")) {
			dst = &v.oom_kill;
			bit = 4;
		} else {
			continue;
		}
		rc = mz_parse_whole_u64(sp, le, &x);
		if (rc)
			return rc;
		*dst = x;
		seen |= bit;
	}
	/* Neither counter: a kernel built without VM event counters, which
	 * is a kernel without the numbers, not a malformed file. One alone is. */
	v.has_oom_kill = (seen & 4u) != 0;
	seen &= 3u;
	if (seen == 0) {
		*out = v;
		return 0;
	}
	if (seen != 3u)
		return -EINVAL;
	v.present = true;
	*out = v;
	return 0;
}

void memz_sysfiles_init(struct memz_sysfiles *f)
{
	unsigned i;

	long ps = sysconf(_SC_PAGESIZE);

	f->meminfo_fd = f->psi_fd = f->vmstat_fd = f->zoneinfo_fd = -1;
	f->n_nodes = 0;
	f->has_psi = f->has_vmstat = f->has_zoneinfo = f->unkept = false;
	f->reads = 0;
	f->page_size = ps > 0 ? (uint64_t)ps : 4096;
	f->proc_root[0] = f->sys_root[0] = f->failed[0] = '\0';
	for (i = 0; i < MEMZ_MAX_NODES; i++) {
		f->node_id[i] = -1;
		f->node_fd[i] = -1;
	}
}

void memz_sysfiles_release(struct memz_sysfiles *f)
{
	unsigned i;

	if (f->meminfo_fd >= 0)
		close(f->meminfo_fd);
	if (f->psi_fd >= 0)
		close(f->psi_fd);
	if (f->vmstat_fd >= 0)
		close(f->vmstat_fd);
	if (f->zoneinfo_fd >= 0)
		close(f->zoneinfo_fd);
	for (i = 0; i < f->n_nodes; i++)
		if (f->node_fd[i] >= 0)
			close(f->node_fd[i]);
	memz_sysfiles_init(f);
}

/* Open root/rel; -ENAMETOOLONG rather than a truncated path. A failure
 * leaves the path in f->failed. */
static int open_under(struct memz_sysfiles *f, const char *root,
		      const char *rel)
{
	int n = snprintf(f->failed, sizeof(f->failed), "%s/%s", root, rel);
	int rc;

	if (n < 0 || (size_t)n >= sizeof(f->failed))
		return -ENAMETOOLONG;
	rc = memz_open_at(AT_FDCWD, f->failed);
	if (rc >= 0)
		f->failed[0] = '\0';
	return rc;
}

/* An optional file: absent (ENOENT; EOPNOTSUPP is what PSI gives when the
 * kernel was booted with psi=0) leaves fd at -1; other errors are errors. */
static int open_optional(struct memz_sysfiles *f, const char *root,
			 const char *rel, int *fd)
{
	int rc = open_under(f, root, rel);

	if (rc == -ENOENT || rc == -EOPNOTSUPP) {
		f->failed[0] = '\0';
		return 0;
	}
	if (rc < 0)
		return rc;
	*fd = rc;
	return 0;
}

static void node_rel(char *rel, size_t len, int id)
{
	snprintf(rel, len, "devices/system/node/node%d/meminfo", id);
}

unsigned memz_sysfiles_unkeep(struct memz_sysfiles *f)
{
	unsigned n = 0;

	f->unkept = true;
	if (f->psi_fd >= 0)
		close(f->psi_fd), f->psi_fd = -1, n++;
	if (f->vmstat_fd >= 0)
		close(f->vmstat_fd), f->vmstat_fd = -1, n++;
	if (f->zoneinfo_fd >= 0)
		close(f->zoneinfo_fd), f->zoneinfo_fd = -1, n++;
	for (unsigned i = 0; i < f->n_nodes; i++)
		if (f->node_fd[i] >= 0)
			close(f->node_fd[i]), f->node_fd[i] = -1, n++;
	return n;
}

/* Read a kept fd, or, unkept, open root/rel for this one read. */
static int read_opt(struct memz_sysfiles *f, int fd, const char *root,
		    const char *rel, size_t *len)
{
	int rc;

	if (fd >= 0) {
		rc = memz_pread_file(fd, f->buf, sizeof(f->buf), len);
	} else {
		fd = open_under(f, root, rel);
		if (fd < 0)
			return fd;
		rc = memz_pread_file(fd, f->buf, sizeof(f->buf), len);
		close(fd);
	}
	f->reads += !rc;
	return rc;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Node ids under sys_root/devices/system/node, sorted. More than
 * MEMZ_MAX_NODES: the lowest ids are kept (documented in sysinfo.h). */
static int list_nodes(const char *sys_root, int *ids, unsigned *n)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/devices/system/node",
			   sys_root);
	int all[MEMZ_MAX_NODES * 4];
	unsigned cnt = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d)) != NULL) {
		const char *s = de->d_name, *e;
		unsigned long long id;

		if (strncmp(s, "node", 4) != 0)
			continue;
		s += 4;
		e = s + strlen(s);
		if (mz_parse_whole_u64(s, e, &id) || *s < '0' || *s > '9' ||
		    id > INT_MAX)
			continue;
		if (cnt < sizeof(all) / sizeof(all[0]))
			all[cnt++] = (int)id;
	}
	closedir(d);
	qsort(all, cnt, sizeof(all[0]), cmp_int);
	if (cnt > MEMZ_MAX_NODES)
		cnt = MEMZ_MAX_NODES;
	memcpy(ids, all, cnt * sizeof(all[0]));
	*n = cnt;
	return 0;
}

int memz_sysfiles_open(struct memz_sysfiles *f, const char *proc_root,
		       const char *sys_root)
{
	int ids[MEMZ_MAX_NODES];
	unsigned n, i;
	int rc;

	memz_sysfiles_release(f);
	if (strlen(proc_root) >= sizeof(f->proc_root) ||
	    strlen(sys_root) >= sizeof(f->sys_root))
		return -ENAMETOOLONG;
	strcpy(f->proc_root, proc_root);
	strcpy(f->sys_root, sys_root);
	rc = open_under(f, proc_root, "meminfo");
	if (rc < 0)
		return rc;
	f->meminfo_fd = rc;
	rc = open_optional(f, proc_root, "pressure/memory", &f->psi_fd);
	if (!rc)
		rc = open_optional(f, proc_root, "vmstat", &f->vmstat_fd);
	if (!rc) {
		/* the per-CPU free pages only refine the breakdown: a /proc
		 * that hides zoneinfo costs them, not the sampling */
		rc = open_optional(f, proc_root, "zoneinfo", &f->zoneinfo_fd);
		if (rc == -EACCES || rc == -EPERM) {
			f->failed[0] = '\0';
			rc = 0;
		}
	}
	if (!rc) {
		f->has_psi = f->psi_fd >= 0;
		f->has_vmstat = f->vmstat_fd >= 0;
		f->has_zoneinfo = f->zoneinfo_fd >= 0;
		rc = list_nodes(sys_root, ids, &n);
		if (rc)
			snprintf(f->failed, sizeof(f->failed),
				 "%s/devices/system/node", sys_root);
	}
	if (rc)
		goto fail;
	for (i = 0; i < n; i++) {
		char rel[64];
		int fd;

		node_rel(rel, sizeof(rel), ids[i]);
		fd = -1;
		rc = open_optional(f, sys_root, rel, &fd);
		if (rc)
			goto fail;
		if (fd < 0)
			continue;
		f->node_id[f->n_nodes] = ids[i];
		f->node_fd[f->n_nodes] = fd;
		f->n_nodes++;
	}
	return 0;
fail:
	{
		char failed[sizeof(f->failed)];

		memcpy(failed, f->failed, sizeof(failed));
		memz_sysfiles_release(f);
		memcpy(f->failed, failed, sizeof(failed));
	}
	return rc;
}

/* zoneinfo piece by piece through buf: whole lines go to the parser, a
 * line cut at the end of a piece moves to the front for the next. */
static int read_zoneinfo_fd(struct memz_sysfiles *f, int fd,
			    struct memz_zoneinfo *out)
{
	struct zi_state st;
	size_t have = 0;
	off_t off = 0;
	int rc;

	memset(&st, 0, sizeof st);
	for (;;) {
		const char *p = f->buf, *end, *nl;
		ssize_t n;

		do {
			n = pread(fd, f->buf + have, sizeof(f->buf) - have,
				  off);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		off += n;
		end = f->buf + have + (size_t)n;
		while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			rc = zi_line(&st, p, nl);
			if (rc)
				return rc;
			p = nl + 1;
		}
		if (n == 0) {
			rc = p < end ? zi_line(&st, p, end) : 0;
			break;
		}
		have = (size_t)(end - p);
		if (have == sizeof(f->buf))
			return -EINVAL; /* no zoneinfo line is 16 KiB long */
		if (off > (off_t)MEMZ_ZONEINFO_MAX)
			return -EFBIG;
		memmove(f->buf, p, have);
	}
	return rc ? rc : zi_finish(&st, out);
}

static int read_pcp_free(struct memz_sysfiles *f, struct memz_meminfo *out)
{
	struct memz_zoneinfo z = { 0, 0, 0 };
	int fd = f->zoneinfo_fd, rc;

	if (fd < 0 && !(f->unkept && f->has_zoneinfo))
		return 0;
	if (fd < 0) {
		fd = open_under(f, f->proc_root, "zoneinfo");
		if (fd < 0)
			return fd;
	}
	rc = read_zoneinfo_fd(f, fd, &z);
	if (fd != f->zoneinfo_fd)
		close(fd);
	if (rc)
		return rc;
	f->reads++;
	if (z.pages > UINT64_MAX / f->page_size)
		return -ERANGE;
	out->pcp_free = z.pages * f->page_size;
	out->has_pcp_free = true;
	return 0;
}

int memz_sysfiles_read_meminfo(struct memz_sysfiles *f,
			       struct memz_meminfo *out)
{
	size_t len;
	int rc;

	if (f->meminfo_fd < 0)
		return -EBADF;
	rc = memz_pread_file(f->meminfo_fd, f->buf, sizeof(f->buf), &len);
	f->reads += !rc;
	if (!rc)
		rc = memz_parse_meminfo(f->buf, len, out);
	if (rc) {
		snprintf(f->failed, sizeof(f->failed), "%s/meminfo",
			 f->proc_root);
		return rc;
	}
	rc = read_pcp_free(f, out);
	if (rc)
		snprintf(f->failed, sizeof(f->failed), "%s/zoneinfo",
			 f->proc_root);
	return rc;
}

int memz_sysfiles_read_psi(struct memz_sysfiles *f, struct memz_psi *out)
{
	size_t len;
	int rc;

	if (f->psi_fd >= 0 || (f->unkept && f->has_psi)) {
		rc = read_opt(f, f->psi_fd, f->proc_root, "pressure/memory",
			      &len);
		if (rc == 0)
			return memz_parse_psi(f->buf, len, out);
		if (rc != -EOPNOTSUPP)
			return rc;
	}
	memset(out, 0, sizeof(*out));
	return 0;
}

int memz_sysfiles_read_numa(struct memz_sysfiles *f, struct memz_numa *out)
{
	unsigned i;

	out->n = 0;
	for (i = 0; i < f->n_nodes; i++) {
		char rel[64];
		size_t len;
		int rc;

		node_rel(rel, sizeof(rel), f->node_id[i]);
		rc = read_opt(f, f->node_fd[i], f->sys_root, rel, &len);

		if (!rc)
			rc = memz_parse_node_meminfo(f->buf, len, f->node_id[i],
						     &out->node[i]);
		if (rc) {
			out->n = 0;
			return rc;
		}
	}
	out->n = f->n_nodes;
	return 0;
}

int memz_sysfiles_read_vmstat(struct memz_sysfiles *f, struct memz_vmstat *out)
{
	size_t len;
	int rc;

	if (f->vmstat_fd < 0 && !(f->unkept && f->has_vmstat)) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	rc = read_opt(f, f->vmstat_fd, f->proc_root, "vmstat", &len);
	if (rc)
		return rc;
	return memz_parse_vmstat(f->buf, len, out);
}
