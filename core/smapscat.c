#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memz/readbuf.h"
#include "memz/smapscat.h"

static const char *const cat_names[MEMZ_CAT_COUNT] = {
	"kernel", "heap", "stack", "exe", "shmem",
	"device", "lib",  "file",  "anon",
};

static const char *const cat_labels[MEMZ_CAT_COUNT] = {
	"kernel special", "heap",   "thread stacks",  "executable",
	"shared memory",  "devices and graphics", "shared libraries",
	"other files",    "other anonymous",
};

const char *memz_mapcat_name(enum memz_mapcat c)
{
	return (unsigned)c < MEMZ_CAT_COUNT ? cat_names[c] : "?";
}

const char *memz_mapcat_label(enum memz_mapcat c)
{
	return (unsigned)c < MEMZ_CAT_COUNT ? cat_labels[c] : "?";
}

int memz_mapcat_parse(const char *name)
{
	for (int i = 0; i < MEMZ_CAT_COUNT; i++)
		if (!strcmp(name, cat_names[i]))
			return i;
	return -1;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool is_anon(const struct memz_mapping *m)
{
	return m->path[0] == '\0' && m->inode == 0;
}

/* A PROT_NONE private anonymous mapping small enough to be a stack guard. */
static bool is_guard(const struct memz_mapping *m)
{
	return m && is_anon(m) && !strcmp(m->perms, "---p") &&
	       m->end - m->start <= MEMZ_GUARD_MAX;
}

static bool is_stack_body(const struct memz_mapping *m)
{
	return m && is_anon(m) && m->perms[0] == 'r' && m->perms[1] == 'w' &&
	       m->perms[3] == 'p';
}

static bool has_vmflag(const struct memz_mapping *m, const char *flag)
{
	size_t n = strlen(flag);

	for (const char *p = m->vm_flags; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (w == n && !strncmp(p, flag, n))
			return true;
		p += w;
	}
	return false;
}

static bool is_stack(const struct memz_mapping *m,
		     const struct memz_mapping *prev,
		     const struct memz_mapping *next)
{
	const char *p = m->path;

	if (starts(p, "[stack]") || starts(p, "[stack:") ||
	    starts(p, "[anon:stack") || starts(p, "[anon:thread stack"))
		return true;
	if (has_vmflag(m, "gd"))
		return true;
	if (is_stack_body(m) && is_guard(prev) && prev->end == m->start)
		return true;
	return is_guard(m) && is_stack_body(next) && m->end == next->start;
}

/* Length of p without a trailing " (deleted)". */
static size_t live_len(const char *p)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(p);

	if (n >= sizeof del - 1 && !strcmp(p + n - (sizeof del - 1), del))
		n -= sizeof del - 1;
	return n;
}

static bool is_exe(const char *path, const char *exe)
{
	size_t n, e;

	if (!exe || !*exe || path[0] == '\0' || path[0] == '[')
		return false;
	n = live_len(path);
	e = live_len(exe);
	return n == e && !memcmp(path, exe, n);
}

static bool is_shmem(const struct memz_mapping *m)
{
	const char *p = m->path;

	if (starts(p, "/dev/shm/") || starts(p, "/SYSV") ||
	    starts(p, "/memfd:") || starts(p, "memfd:") ||
	    starts(p, "[anon_shmem") || starts(p, "/dev/zero"))
		return true;
	return m->perms[3] == 's' && p[0] == '\0';
}

static bool is_device(const char *p)
{
	return starts(p, "/dev/") || starts(p, "/drm mm object") ||
	       starts(p, "/dmabuf:") || starts(p, "anon_inode:");
}

static bool is_lib(const char *p)
{
	const char *base = strrchr(p, '/');
	const char *s;

	base = base ? base + 1 : p;
	if (starts(base, "ld-"))
		return true;
	for (s = strstr(base, ".so"); s; s = strstr(s + 1, ".so"))
		if (s[3] == '\0' || s[3] == '.' || s[3] == ' ')
			return true;
	return false;
}

enum memz_mapcat memz_mapcat_classify(const struct memz_mapping *m,
				      const struct memz_mapping *prev,
				      const struct memz_mapping *next,
				      const char *exe_path)
{
	const char *p = m->path;

	if (!strcmp(p, "[vdso]") || !strcmp(p, "[vvar]") ||
	    !strcmp(p, "[vvar_vclock]") || !strcmp(p, "[vsyscall]") ||
	    !strcmp(p, "[uprobes]"))
		return MEMZ_CAT_KERNEL;
	if (!strcmp(p, "[heap]") || starts(p, "[anon:libc_malloc"))
		return MEMZ_CAT_HEAP;
	if (is_stack(m, prev, next))
		return MEMZ_CAT_STACK;
	if (is_exe(p, exe_path))
		return MEMZ_CAT_EXE;
	if (is_shmem(m))
		return MEMZ_CAT_SHMEM;
	if (is_device(p))
		return MEMZ_CAT_DEVICE;
	if (p[0] == '/' && is_lib(p))
		return MEMZ_CAT_LIB;
	if (p[0] == '/')
		return MEMZ_CAT_FILE;
	return MEMZ_CAT_ANON;
}

void memz_smapscat_init(struct memz_smapscat *s)
{
	memset(s, 0, sizeof *s);
}

static void sum_add(struct memz_catsum *c, const struct memz_mapping *m)
{
	c->count++;
	c->size += m->size;
	c->rss += m->rss;
	c->pss += m->pss;
	c->private_dirty += m->private_dirty;
	c->swap += m->swap;
}

void memz_smapscat_add(struct memz_smapscat *s, const struct memz_mapping *m,
		       enum memz_mapcat c)
{
	if ((unsigned)c >= MEMZ_CAT_COUNT)
		c = MEMZ_CAT_ANON;
	sum_add(&s->cat[c], m);
	sum_add(&s->total, m);
}

/* A three-mapping window: fn sees a mapping once its successor is known. */
struct walk {
	struct memz_mapping win[3];
	unsigned n; /* mappings seen so far */
	const char *exe;
	int (*fn)(const struct memz_mapping *, enum memz_mapcat, void *);
	void *ctx;
};

static int walk_emit(struct walk *w, const struct memz_mapping *next)
{
	const struct memz_mapping *cur = &w->win[(w->n - 1) % 3];
	const struct memz_mapping *prev =
		w->n >= 2 ? &w->win[(w->n - 2) % 3] : NULL;

	return w->fn(cur, memz_mapcat_classify(cur, prev, next, w->exe),
		     w->ctx);
}

static int walk_one(const struct memz_mapping *m, void *ctx)
{
	struct walk *w = ctx;
	int rc;

	if (w->n > 0) {
		rc = walk_emit(w, m);
		if (rc)
			return rc;
	}
	w->win[w->n % 3] = *m;
	w->n++;
	return 0;
}

int memz_smapscat_walk(const char *buf, size_t len, const char *exe_path,
		       int (*fn)(const struct memz_mapping *m,
				 enum memz_mapcat c, void *ctx),
		       void *ctx)
{
	struct walk w = { .exe = exe_path, .fn = fn, .ctx = ctx };
	int rc = memz_parse_smaps(buf, len, walk_one, &w);

	if (rc)
		return rc;
	return w.n ? walk_emit(&w, NULL) : 0;
}

/* Where the last mapping header in buf[0, len) starts, after a newline:
 * everything before it is whole records. 0 when there is none past 0. */
static size_t last_header(const char *buf, size_t len)
{
	for (size_t i = len; i-- > 1;) {
		const char *s = buf + i, *e = buf + len, *t = s;

		if (s[-1] != '\n')
			continue;
		while (t < e && ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f')))
			t++;
		if (t == s || t >= e || *t != '-')
			continue;
		s = ++t;
		while (t < e && ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f')))
			t++;
		if (t != s && t < e && *t == ' ')
			return i;
	}
	return 0;
}

/* Parse the whole records in buf[0, len) without the rest: the byte at len
 * is made the terminator the parser wants, then put back. */
static int walk_part(struct walk *w, char *buf, size_t len)
{
	char save = buf[len];
	int rc;

	buf[len] = '\0';
	rc = memz_parse_smaps(buf, len, walk_one, w);
	buf[len] = save;
	return rc;
}

int memz_smapscat_walk_file(int dirfd, const char *name, const char *exe_path,
			    char **buf, size_t *cap,
			    const struct memz_allocator *a,
			    int (*fn)(const struct memz_mapping *m,
				      enum memz_mapcat c, void *ctx),
			    void *ctx)
{
	struct walk w = { .exe = exe_path, .fn = fn, .ctx = ctx };
	size_t have = 0, room;
	int fd, rc = 0;

	if (*cap < MEMZ_SMAPS_WINDOW &&
	    memz_grow(a, buf, cap, MEMZ_SMAPS_WINDOW, 1))
		return -ENOMEM;
	room = MEMZ_SMAPS_WINDOW - 1;
	fd = memz_open_at(dirfd, name);
	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n = read(fd, *buf + have, room - have);
		size_t cut;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		have += (size_t)n;
		if (n == 0) {
			rc = have ? walk_part(&w, *buf, have) : 0;
			if (!rc && w.n)
				rc = walk_emit(&w, NULL);
			break;
		}
		cut = last_header(*buf, have);
		if (!cut) {
			if (have == room) {
				rc = -EFBIG;
				break;
			}
			continue;
		}
		rc = walk_part(&w, *buf, cut);
		if (rc)
			break;
		memmove(*buf, *buf + cut, have - cut);
		have -= cut;
	}
	close(fd);
	return rc;
}

bool memz_mapfilter_match(const struct memz_mapfilter *f,
			  const struct memz_mapping *m, enum memz_mapcat c)
{
	if (f->cats && !(f->cats & (1u << c)))
		return false;
	if ((f->perms & MEMZ_MAPF_WRITABLE) && m->perms[1] != 'w')
		return false;
	if ((f->perms & MEMZ_MAPF_EXEC) && m->perms[2] != 'x')
		return false;
	if ((f->perms & MEMZ_MAPF_SHARED) && m->perms[3] != 's')
		return false;
	if ((f->perms & MEMZ_MAPF_PRIVATE) && m->perms[3] != 'p')
		return false;
	return true;
}

static int cmp_diff(const void *pa, const void *pb)
{
	const struct memz_catdiff *a = pa, *b = pb;

	if (a->pss != b->pss)
		return a->pss > b->pss ? -1 : 1;
	return (int)a->cat - (int)b->cat;
}

size_t memz_smapscat_diff(const struct memz_smapscat *then,
			  const struct memz_smapscat *now,
			  struct memz_catdiff out[MEMZ_CAT_COUNT])
{
	static const enum memz_mapcat usual[] = { MEMZ_CAT_HEAP, MEMZ_CAT_STACK,
						  MEMZ_CAT_ANON };
	size_t n = 0;

	for (int c = 0; c < MEMZ_CAT_COUNT; c++) {
		int64_t d = (int64_t)(now->cat[c].pss - then->cat[c].pss);

		if (d)
			out[n++] = (struct memz_catdiff){ (enum memz_mapcat)c, d };
	}
	qsort(out, n, sizeof *out, cmp_diff);
	for (size_t i = 0; i < sizeof usual / sizeof usual[0]; i++)
		if (now->cat[usual[i]].pss == then->cat[usual[i]].pss)
			out[n++] = (struct memz_catdiff){ usual[i], 0 };
	return n;
}

/* One signed size the way a person reads it: "+12.0 MiB", "-512 B". */
static void fmt_delta(int64_t d, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	uint64_t m = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
	double x = (double)m;
	int u = -1;

	if (m < 1024) {
		snprintf(buf, len, "%c%llu B", d < 0 ? '-' : '+',
			 (unsigned long long)m);
		return;
	}
	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%c%.1f %s", d < 0 ? '-' : '+', x, unit[u]);
}

const char *memz_smapscat_diff_format(const struct memz_catdiff *d, size_t n,
				      char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char one[64], v[32];
		int k;

		fmt_delta(d[i].pss, v, sizeof v);
		k = snprintf(one, sizeof one, "%s%s %s", i ? ", " : "",
			     memz_mapcat_label(d[i].cat), v);
		/* room for this entry, and a ", ..." after it unless last */
		if (used + (size_t)k + (i + 1 < n ? 5 : 0) >= len) {
			if (used && used + 5 < len)
				memcpy(buf + used, ", ...", 6);
			break;
		}
		memcpy(buf + used, one, (size_t)k + 1);
		used += (size_t)k;
	}
	return buf;
}
