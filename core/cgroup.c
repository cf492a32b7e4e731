#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memz/cgroup.h"
#include "memz/docker.h"
#include "memz/readbuf.h"
#include "parse_util.h"

#define BUCKETS 256

/* Does the comma-separated list [s, e) hold the word w? */
static bool lists(const char *s, const char *e, const char *w)
{
	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *t = c ? c : e;

		if (mz_eq(s, t, w))
			return true;
		s = c ? c + 1 : e;
	}
	return false;
}

/* A path too long for out, as "#<hash of the whole path>:<its head>": a
 * process must still be grouped by its cgroup (by its comm, which it sets
 * itself, it could join any group it names), and never by a cut path,
 * which is some other cgroup's, maybe a real ancestor's. No cgroup path
 * starts with '#', so the form is never read as one nor taken for a
 * shorter path; two long paths that share the head differ by the hash of
 * the rest, and two with different heads by the head. */
static int cut_path(const char *s, size_t n, char *out, size_t outlen)
{
	uint64_t h = 14695981039346656037ull;
	int k;

	if (outlen < MEMZ_CGROUP_CUT_MIN)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	k = snprintf(out, outlen, "#%016llx:", (unsigned long long)h);
	memcpy(out + k, s, outlen - 1 - (size_t)k);
	out[outlen - 1] = '\0';
	return 0;
}

/* The path of the memory cgroup's line in buf, [*ps, *pe). */
static int find_path(const char *buf, size_t len, const char **ps,
		     const char **pe, int *version)
{
	const char *p = buf, *end = buf + len, *ls, *le;
	const char *v2 = NULL, *v2_end = NULL, *first = NULL, *first_end = NULL;
	const char *s, *e;

	while (mz_next_line(&p, end, &ls, &le)) {
		const char *c1, *c2;
		unsigned long long id;

		s = ls;
		if (ls == le)
			continue;
		if (memz_parse_u64(&s, le, &id) || s >= le || *s != ':')
			return -EINVAL;
		c1 = s;
		c2 = memchr(c1 + 1, ':', (size_t)(le - c1 - 1));
		if (!c2)
			return -EINVAL;
		if (lists(c1 + 1, c2, "memory")) {
			*version = 1;
			s = c2 + 1;
			e = le;
			goto copy;
		}
		if (!v2 && id == 0 && c2 == c1 + 1) {
			v2 = c2 + 1;
			v2_end = le;
		}
		if (!first) {
			first = c2 + 1;
			first_end = le;
		}
	}
	if (v2) {
		*version = 2;
		s = v2;
		e = v2_end;
	} else if (first) {
		*version = 0;
		s = first;
		e = first_end;
	} else {
		return -EINVAL;
	}
copy:
	/* the kernel names every cgroup from its root: anything else would
	 * be a key no cgroup has, and '#' starts the cut form below */
	if (s == e || *s != '/')
		return -EINVAL;
	*ps = s;
	*pe = e;
	return 0;
}

/* [s, s + n) does not fit in out: its deepest ancestor that does ("/" at
 * least), since a limit set on it limits every cgroup below. */
static int ancestor(const char *s, size_t n, char *out, size_t outlen)
{
	if (outlen < 2)
		return -ENAMETOOLONG;
	/* the last '/' at most outlen - 1 in: what precedes it is an
	 * ancestor that fits ("/" when only the root does) */
	n = outlen - 1;
	while (n > 0 && s[n] != '/')
		n--;
	if (n == 0)
		n = 1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* The memory cgroup's path in /proc/PID/cgroup into out, or too_long()'s
 * form of it when it does not fit: the one reader behind both callers. */
static int of_proc(const char *buf, size_t len, char *out, size_t outlen,
		   int *version,
		   int (*too_long)(const char *, size_t, char *, size_t))
{
	const char *s, *e;
	size_t n;
	int rc = find_path(buf, len, &s, &e, version);

	if (rc)
		return rc;
	n = (size_t)(e - s);
	if (outlen && n <= outlen - 1) {
		memcpy(out, s, n);
		out[n] = '\0';
		return 0;
	}
	return too_long(s, n, out, outlen);
}

int memz_cgroup_of_proc(const char *buf, size_t len, char *out,
			size_t outlen, int *version)
{
	return of_proc(buf, len, out, outlen, version, cut_path);
}

int memz_cgroup_memcg_of_proc(const char *buf, size_t len, char *out,
			      size_t outlen, int *version)
{
	return of_proc(buf, len, out, outlen, version, ancestor);
}

/* v1 reports "unlimited" as LONG_MAX rounded down to a page; no machine
 * has 2^62 bytes, so anything from there on is no limit. */
#define V1_UNLIMITED (1ull << 62)

int memz_cgroup_parse_limit(const char *buf, size_t len, uint64_t *out)
{
	const char *s = buf, *e = buf + len;
	unsigned long long v;

	while (e > s && (e[-1] == '\n' || e[-1] == ' '))
		e--;
	if (mz_eq(s, e, "max")) {
		*out = UINT64_MAX;
		return 0;
	}
	if (memz_parse_u64(&s, e, &v) || s != e)
		return -EINVAL;
	*out = v >= V1_UNLIMITED ? UINT64_MAX : v;
	return 0;
}

int memz_cgroup_parse_key(const char *buf, size_t len, const char *key,
			  uint64_t *out)
{
	const char *p = buf, *end = buf + len, *ls, *le;

	while (mz_next_line(&p, end, &ls, &le)) {
		const char *sp = memchr(ls, ' ', (size_t)(le - ls));
		const char *s;
		unsigned long long v;

		if (!sp || !mz_eq(ls, sp, key))
			continue;
		s = sp;
		if (memz_parse_u64(&s, le, &v) || s != le)
			return -EINVAL;
		*out = v;
		return 0;
	}
	return -ENOENT;
}

int memz_cgroup_root_at(const char *sys_root, const char *rel, int version,
			struct memz_cgroup_root *r)
{
	int w = snprintf(r->dir, sizeof r->dir, "%s%s", sys_root, rel);

	r->version = version;
	if (w < 0 || (size_t)w >= sizeof r->dir) {
		r->version = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Does a v2 hierarchy's cgroup.controllers list memory? */
static bool v2_has_memory(const struct memz_cgroup_root *r)
{
	char file[sizeof r->dir + 32], buf[512];
	size_t len;

	snprintf(file, sizeof file, "%s/cgroup.controllers", r->dir);
	if (memz_read_file_at(AT_FDCWD, file, buf, sizeof buf, &len))
		return false;
	for (char *p = buf; p < buf + len;) {
		char *e = p + strcspn(p, " \n");

		if (mz_eq(p, e, "memory"))
			return true;
		p = e + 1;
	}
	return false;
}

int memz_cgroup_find_root(const char *sys_root, struct memz_cgroup_root *r)
{
	struct stat st;

	if (!memz_cgroup_root_at(sys_root, "/fs/cgroup/memory", 1, r) &&
	    !stat(r->dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	if (!memz_cgroup_root_at(sys_root, "/fs/cgroup", 2, r) &&
	    v2_has_memory(r))
		return 0;
	if (!memz_cgroup_root_at(sys_root, "/fs/cgroup/unified", 2, r) &&
	    v2_has_memory(r))
		return 0;
	r->version = 0;
	return -ENOENT;
}

/* No component of path may climb out of the hierarchy or stand for it. */
static bool safe_path(const char *path)
{
	const char *p = path;

	if (path[0] != '/')
		return false;
	while (*p) {
		const char *e;

		while (*p == '/')
			p++;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if ((e - p == 1 && p[0] == '.') ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p = e;
	}
	return true;
}

static int read_file(const struct memz_cgroup_root *r, const char *path,
		     enum memz_cgroup_file f, char *buf, size_t cap,
		     size_t *len, uint64_t *ino)
{
	static const char *const name[2][6] = {
		{ "memory.limit_in_bytes", "memory.usage_in_bytes",
		  "memory.oom_control", "memory.stat",
		  "memory.memsw.limit_in_bytes", "cgroup.events" },
		{ "memory.max", "memory.current", "memory.events",
		  "memory.stat", "memory.swap.max", "cgroup.events" },
	};
	char file[sizeof r->dir + 1024];
	const char *leaf;
	size_t nd, np, nl;

	if (r->version != 1 && r->version != 2)
		return -ENOENT;
	if (*path && !safe_path(path))
		return -EINVAL;
	if (!strcmp(path, "/"))
		path = "";
	/* joined by hand: this runs for every watched cgroup every cycle,
	 * and snprintf cost more than the read */
	leaf = name[r->version - 1][f];
	nd = strlen(r->dir);
	np = strlen(path);
	nl = strlen(leaf);
	if (nd + np + 1 + nl >= sizeof file)
		return -ENAMETOOLONG;
	memcpy(file, r->dir, nd);
	memcpy(file + nd, path, np);
	file[nd + np] = '/';
	memcpy(file + nd + np + 1, leaf, nl + 1);
	if (!ino)
		return memz_read_file_at(AT_FDCWD, file, buf, cap, len);
	{
		struct stat st;
		int fd = memz_open_at(AT_FDCWD, file), rc;

		if (fd < 0)
			return fd;
		rc = fstat(fd, &st) ? -errno : 0;
		if (!rc) {
			*ino = (uint64_t)st.st_ino;
			rc = memz_pread_file(fd, buf, cap, len);
		}
		close(fd);
		return rc;
	}
}

int memz_cgroup_read_file(const struct memz_cgroup_root *r, const char *path,
			  enum memz_cgroup_file f, char *buf, size_t cap,
			  size_t *len)
{
	return read_file(r, path, f, buf, cap, len, NULL);
}

/* A file that holds one number. */
static int read_number(const struct memz_cgroup_root *r, const char *path,
		       enum memz_cgroup_file f, char *buf, size_t cap,
		       uint64_t *v)
{
	const char *s = buf, *e;
	unsigned long long x;
	size_t len;
	int rc = memz_cgroup_read_file(r, path, f, buf, cap, &len);

	if (rc)
		return rc;
	e = buf + len;
	while (e > s && (e[-1] == '\n' || e[-1] == ' '))
		e--;
	if (memz_parse_u64(&s, e, &x) || s != e)
		return -EINVAL;
	*v = x;
	return 0;
}

int memz_cgroup_limit(const struct memz_cgroup_root *r, const char *path,
		      char *buf, size_t cap, uint64_t *limit)
{
	size_t len;
	int rc = memz_cgroup_read_file(r, path, MEMZ_CGF_LIMIT, buf, cap, &len);

	return rc ? rc : memz_cgroup_parse_limit(buf, len, limit);
}

int memz_cgroup_swap_max(const struct memz_cgroup_root *r, const char *path,
			 char *buf, size_t cap, uint64_t *swap)
{
	uint64_t limit, memsw;
	size_t len;
	int rc = memz_cgroup_read_file(r, path, MEMZ_CGF_SWAP_MAX, buf, cap,
				       &len);

	if (!rc)
		rc = memz_cgroup_parse_limit(buf, len, &memsw);
	if (rc)
		return rc;
	if (r->version == 2 || memsw == UINT64_MAX) {
		*swap = memsw;
		return 0;
	}
	/* v1's is memory and swap together */
	rc = memz_cgroup_limit(r, path, buf, cap, &limit);
	if (rc)
		return rc;
	*swap = limit == UINT64_MAX ? UINT64_MAX
				    : memsw > limit ? memsw - limit : 0;
	return 0;
}

int memz_cgroup_usage(const struct memz_cgroup_root *r, const char *path,
		      char *buf, size_t cap, uint64_t *usage)
{
	return read_number(r, path, MEMZ_CGF_USAGE, buf, cap, usage);
}

static int read_key(const struct memz_cgroup_root *r, const char *path,
		    enum memz_cgroup_file f, const char *key, char *buf,
		    size_t cap, uint64_t *v)
{
	size_t len;
	int rc = memz_cgroup_read_file(r, path, f, buf, cap, &len);

	return rc ? rc : memz_cgroup_parse_key(buf, len, key, v);
}

int memz_cgroup_populated(const struct memz_cgroup_root *r, const char *path,
			  char *buf, size_t cap, bool *populated)
{
	uint64_t v;
	int rc = read_key(r, path, MEMZ_CGF_CGEVENTS, "populated", buf, cap,
			  &v);

	if (!rc)
		*populated = v != 0;
	return rc;
}

int memz_cgroup_oom_kills(const struct memz_cgroup_root *r, const char *path,
			  char *buf, size_t cap, uint64_t *kills, uint64_t *id)
{
	size_t len;
	int rc;

	*id = 0;
	rc = read_file(r, path, MEMZ_CGF_EVENTS, buf, cap, &len, id);
	return rc ? rc : memz_cgroup_parse_key(buf, len, "oom_kill", kills);
}

int memz_cgroup_inactive_file(const struct memz_cgroup_root *r,
			      const char *path, char *buf, size_t cap,
			      uint64_t *inactive)
{
	return read_key(r, path, MEMZ_CGF_STAT,
			r->version == 1 ? "total_inactive_file" : "inactive_file",
			buf, cap, inactive);
}

struct walk {
	const struct memz_cgroup_root *r;
	unsigned max_dirs, max_depth, visited;
	size_t path_max;
	char *buf;
	size_t cap;
	memz_cgroup_walk_fn *fn;
	void *ctx;
};

static void walk(struct walk *w, const char *path, unsigned depth)
{
	char dir[sizeof w->r->dir + 1024], sub[1024];
	struct dirent *de;
	DIR *d;
	int n;

	n = snprintf(dir, sizeof dir, "%s%s", w->r->dir, path);
	if (n < 0 || (size_t)n >= sizeof dir)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while (w->visited < w->max_dirs && (de = readdir(d))) {
		uint64_t limit;
		int rc;

		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		n = snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
		if (n < 0 || (size_t)n >= sizeof sub || (size_t)n >= w->path_max)
			continue;
		rc = memz_cgroup_limit(w->r, sub, w->buf, w->cap, &limit);
		if (rc == -ENOENT || rc == -ENOTDIR)
			continue; /* not a cgroup (or gone) */
		w->visited++;
		if (!rc)
			w->fn(w->ctx, sub, limit);
		if (depth + 1 < w->max_depth)
			walk(w, sub, depth + 1);
	}
	closedir(d);
}

unsigned memz_cgroup_walk(const struct memz_cgroup_root *r, unsigned max_dirs,
			  unsigned max_depth, size_t path_max, char *buf,
			  size_t cap, memz_cgroup_walk_fn *fn, void *ctx)
{
	struct walk w = { r, max_dirs, max_depth, 0, path_max, buf, cap, fn,
			  ctx };

	if (r->version == 1 || r->version == 2)
		walk(&w, "", 0);
	return w.visited;
}

/* usage and limit of path in r; the root cgroup has usage but no limit
 * file. */
static int read_pair(const struct memz_cgroup_root *r, const char *path,
		     struct memz_cgroup_mem *out)
{
	char buf[64];
	int rc = memz_cgroup_usage(r, path, buf, sizeof buf, &out->usage);

	if (rc)
		return rc;
	rc = memz_cgroup_limit(r, path, buf, sizeof buf, &out->limit);
	if (rc == -ENOENT) {
		out->limit = UINT64_MAX;
		rc = 0;
	}
	if (rc)
		return rc;
	out->limited = out->limit != UINT64_MAX;
	if (!out->limited)
		out->limit = 0;
	return 0;
}

int memz_cgroup_read_mem(const char *sys_root, const char *path,
			 struct memz_cgroup_mem *out)
{
	static const struct {
		const char *rel;
		int version;
	} h[] = {
		{ "/fs/cgroup", 2 },
		{ "/fs/cgroup/unified", 2 },
		{ "/fs/cgroup/memory", 1 },
	};
	struct memz_cgroup_root r;
	int rc = -ENOENT;

	memset(out, 0, sizeof *out);
	if (!safe_path(path))
		return -EINVAL;
	for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
		rc = memz_cgroup_root_at(sys_root, h[i].rel, h[i].version, &r);
		if (!rc)
			rc = read_pair(&r, path, out);
		if (!rc) {
			out->version = h[i].version;
			return 0;
		}
		if (rc != -ENOENT && rc != -ENOTDIR)
			break;
	}
	memset(out, 0, sizeof *out);
	return rc == -ENOTDIR ? -ENOENT : rc;
}

struct ent {
	struct memz_cgroup pub; /* first */
	char *path;
	size_t path_cap;
	uint32_t hash;
	struct ent *next; /* in its bucket, or on the free list */
};

struct memz_cgroups {
	const struct memz_allocator *a;
	char sys_root[256];
	struct memz_docker docker;
	double refresh;
	struct ent *bucket[BUCKETS];
	struct ent *free_list;
	size_t n;
	unsigned long sweep, reads;
};

int memz_cgroups_new(struct memz_cgroups **out, const char *sys_root,
		     const char *docker_root, double refresh,
		     const struct memz_allocator *a)
{
	struct memz_cgroups *c = memz_realloc(a, NULL, sizeof *c);

	*out = NULL;
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof *c);
	c->a = a;
	snprintf(c->sys_root, sizeof c->sys_root, "%s", sys_root);
	memz_docker_init(&c->docker, docker_root, a);
	c->refresh = refresh;
	*out = c;
	return 0;
}

static void free_ent(const struct memz_allocator *a, struct ent *e)
{
	memz_free(a, &e->path);
	memz_free(a, &e);
}

void memz_cgroups_free(struct memz_cgroups **pc)
{
	struct memz_cgroups *c = *pc;

	if (!c)
		return;
	for (size_t b = 0; b < BUCKETS; b++)
		while (c->bucket[b]) {
			struct ent *e = c->bucket[b];

			c->bucket[b] = e->next;
			free_ent(c->a, e);
		}
	while (c->free_list) {
		struct ent *e = c->free_list;

		c->free_list = e->next;
		free_ent(c->a, e);
	}
	memz_docker_release(&c->docker);
	memz_free(c->a, pc);
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void refresh(struct memz_cgroups *c, struct ent *e, double now)
{
	e->pub.has_mem = !memz_cgroup_read_mem(c->sys_root, e->pub.path,
					       &e->pub.mem);
	e->pub.read_t = now;
	c->reads++;
}

int memz_cgroups_get(struct memz_cgroups *c, const char *path, double now,
		     const struct memz_cgroup **out)
{
	uint32_t h = hash(path);
	struct ent *e;
	struct memz_cgname n;
	size_t len = strlen(path);
	int rc;

	*out = NULL;
	for (e = c->bucket[h % BUCKETS]; e; e = e->next)
		if (e->hash == h && !strcmp(e->path, path))
			break;
	if (e) {
		e->pub.used = c->sweep;
		if (now - e->pub.read_t >= c->refresh)
			refresh(c, e, now);
		*out = &e->pub;
		return 0;
	}
	if (memz_cgname_parse(path, &n) || c->n >= MEMZ_CGROUP_MAX)
		return 0;
	if (c->free_list) {
		e = c->free_list;
		c->free_list = e->next;
	} else {
		e = memz_realloc(c->a, NULL, sizeof *e);
		if (!e)
			return -ENOMEM;
		memset(e, 0, sizeof *e);
	}
	if (len + 1 > e->path_cap) {
		char *p = memz_realloc(c->a, e->path, len + 1);

		if (!p) {
			e->next = c->free_list;
			c->free_list = e;
			return -ENOMEM;
		}
		e->path = p;
		e->path_cap = len + 1;
	}
	memcpy(e->path, path, len + 1);
	e->hash = h;
	e->pub.path = e->path;
	if ((rc = memz_docker_name(&c->docker, &n))) {
		e->next = c->free_list;
		c->free_list = e;
		return rc;
	}
	e->pub.n = n;
	e->pub.used = c->sweep;
	refresh(c, e, now);
	e->next = c->bucket[h % BUCKETS];
	c->bucket[h % BUCKETS] = e;
	c->n++;
	*out = &e->pub;
	return 0;
}

void memz_cgroups_sweep(struct memz_cgroups *c)
{
	for (size_t b = 0; b < BUCKETS; b++) {
		struct ent **pp = &c->bucket[b];

		while (*pp) {
			struct ent *e = *pp;

			if (e->pub.used != c->sweep) {
				*pp = e->next;
				e->next = c->free_list;
				c->free_list = e;
				c->n--;
			} else {
				pp = &e->next;
			}
		}
	}
	c->sweep++;
}

size_t memz_cgroups_count(const struct memz_cgroups *c)
{
	return c->n;
}

unsigned long memz_cgroups_reads(const struct memz_cgroups *c)
{
	return c->reads + c->docker.reads;
}
