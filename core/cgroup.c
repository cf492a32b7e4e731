#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "memz/cgroup.h"
#include "memz/readbuf.h"

#define MAX_COMPONENTS 64
#define SHORT_ID 12
#define BUCKETS 256

const char *memz_cgroup_kind_name(enum memz_cgroup_kind k)
{
	switch (k) {
	case MEMZ_CGROUP_UNIT:
		return "unit";
	case MEMZ_CGROUP_CONTAINER:
		return "container";
	case MEMZ_CGROUP_POD:
		return "pod";
	case MEMZ_CGROUP_PATH:
		break;
	}
	return "path";
}

struct comp {
	const char *s;
	size_t n;
};

static bool has_prefix(const struct comp *c, const char *p)
{
	size_t n = strlen(p);

	return c->n >= n && !memcmp(c->s, p, n);
}

static bool has_suffix(const struct comp *c, const char *p)
{
	size_t n = strlen(p);

	return c->n >= n && !memcmp(c->s + c->n - n, p, n);
}

static bool is_word(const struct comp *c, const char *w)
{
	return c->n == strlen(w) && !memcmp(c->s, w, c->n);
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Copies at most outlen - 1 bytes, never cutting a UTF-8 sequence, since
 * a cut name is still shown to someone. */
static void put(char *out, size_t outlen, const char *s, size_t n)
{
	if (n > outlen - 1) {
		n = outlen - 1;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, s, n);
	out[n] = '\0';
}

/* A container's cgroup: "<runtime>-<64 hex>.scope", or the bare id, whose
 * runtime only its parent tells (docker's cgroupfs driver uses /docker). */
static bool container_of(const struct comp *c, const struct comp *parent,
			 struct memz_cgroup_name *out)
{
	static const struct {
		const char *prefix, *runtime;
	} rt[] = {
		{ "docker-", "docker" },
		{ "libpod-", "podman" },
		{ "cri-containerd-", "containerd" },
		{ "crio-", "crio" },
	};

	if (c->n == 64 && all_hex(c->s, 64)) {
		put(out->id, sizeof out->id, c->s, 64);
		snprintf(out->runtime, sizeof out->runtime, "%s",
			 parent && is_word(parent, "docker") ? "docker" : "");
		return true;
	}
	for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++) {
		size_t pl = strlen(rt[i].prefix);

		if (has_prefix(c, rt[i].prefix) && has_suffix(c, ".scope") &&
		    c->n == pl + 64 + 6 && all_hex(c->s + pl, 64)) {
			put(out->id, sizeof out->id, c->s + pl, 64);
			snprintf(out->runtime, sizeof out->runtime, "%s",
				 rt[i].runtime);
			return true;
		}
	}
	return false;
}

/* A pod's cgroup: systemd's "kubepods[-qos]-pod<uid, _ for ->.slice" or
 * cgroupfs's "pod<uid>". */
static bool pod_of(const struct comp *c, struct memz_cgroup_name *out)
{
	const char *u;
	size_t n;

	if (has_prefix(c, "kubepods") && has_suffix(c, ".slice")) {
		const char *end = c->s + c->n - 6;

		u = NULL;
		for (const char *p = c->s; p + 4 <= end; p++)
			if (!memcmp(p, "-pod", 4))
				u = p + 4;
		if (!u)
			return false;
		n = (size_t)(end - u);
	} else if (has_prefix(c, "pod")) {
		u = c->s + 3;
		n = c->n - 3;
	} else {
		return false;
	}
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = u[i];

		if (ch == '_')
			ch = '-';
		if (!(ch == '-' || all_hex(&ch, 1)))
			return false;
		out->pod_uid[i] = ch;
	}
	out->pod_uid[n] = '\0';
	return true;
}

static bool is_unit(const struct comp *c)
{
	return has_suffix(c, ".service") || has_suffix(c, ".scope");
}

int memz_cgroup_parse(const char *path, struct memz_cgroup_name *out)
{
	struct comp c[MAX_COMPONENTS];
	size_t n = 0;
	int ctr = -1, pod = -1, unit = -1, slice = -1;

	memset(out, 0, sizeof *out);
	if (!path || path[0] != '/')
		return -EINVAL;
	for (const char *p = path; *p;) {
		const char *e;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (n == MAX_COMPONENTS)
			goto raw;
		c[n++] = (struct comp){ p, (size_t)(e - p) };
		p = e;
	}
	for (size_t i = n; i-- > 0;) {
		if (ctr < 0 && container_of(&c[i], i ? &c[i - 1] : NULL, out))
			ctr = (int)i;
		if (pod < 0 && pod_of(&c[i], out))
			pod = (int)i;
		/* init.scope holds a manager: the unit is the one it runs */
		if (unit < 0 && is_unit(&c[i]) &&
		    !(i > 0 && is_word(&c[i], "init.scope")))
			unit = (int)i;
		if (slice < 0 && has_suffix(&c[i], ".slice"))
			slice = (int)i;
	}
	if (pod >= 0) {
		out->kind = MEMZ_CGROUP_POD;
		if (ctr > pod)
			snprintf(out->name, sizeof out->name, "k8s:%s/%.12s",
				 out->pod_uid, out->id);
		else
			snprintf(out->name, sizeof out->name, "k8s:%s",
				 out->pod_uid);
		return 0;
	}
	if (ctr >= 0) {
		out->kind = MEMZ_CGROUP_CONTAINER;
		snprintf(out->name, sizeof out->name, "%s:%.12s",
			 out->runtime[0] ? out->runtime : "container", out->id);
		return 0;
	}
	out->id[0] = out->runtime[0] = '\0';
	if (unit < 0)
		unit = slice;
	if (unit >= 0) {
		out->kind = MEMZ_CGROUP_UNIT;
		put(out->name, sizeof out->name, c[unit].s, c[unit].n);
		return 0;
	}
raw:
	memset(out, 0, sizeof *out);
	out->kind = MEMZ_CGROUP_PATH;
	put(out->name, sizeof out->name, path, strlen(path));
	return 0;
}

int memz_cgroup_docker_name(const char *buf, size_t len, char *out,
			    size_t outlen)
{
	const char *key[] = { "Name", NULL };
	yajl_val root, v;
	const char *s;
	int rc = -EINVAL;

	/* yajl_tree_parse wants a string: the caller's buffer ends in NUL
	 * where it ends, or it is not a file this was read from */
	if (!outlen || strlen(buf) != len)
		return -EINVAL;
	root = yajl_tree_parse(buf, NULL, 0);
	if (!root)
		return -EINVAL;
	v = yajl_tree_get(root, key, yajl_t_string);
	s = v ? YAJL_GET_STRING(v) : NULL;
	if (s && *s == '/')
		s++;
	if (s && *s) {
		put(out, outlen, s, strlen(s));
		rc = 0;
	}
	yajl_tree_free(root);
	return rc;
}

void memz_cgroup_apply_docker_name(struct memz_cgroup_name *n,
				   const char *dn)
{
	/* k8s_<container>_<pod>_<namespace>_<uid>_<attempt>: Kubernetes names
	 * are DNS labels, so '_' only ever separates the fields */
	if (!strncmp(dn, "k8s_", 4)) {
		const char *f[4];
		size_t fl[4], k = 0;
		const char *p = dn + 4;

		while (k < 4) {
			const char *e = strchr(p, '_');

			f[k] = p;
			fl[k] = e ? (size_t)(e - p) : strlen(p);
			k++;
			if (!e)
				break;
			p = e + 1;
		}
		if (k == 4 && fl[0] && fl[1] && fl[2]) {
			n->kind = MEMZ_CGROUP_POD;
			snprintf(n->name, sizeof n->name, "k8s:%.*s/%.*s/%.*s",
				 (int)fl[2], f[2], (int)fl[1], f[1], (int)fl[0],
				 f[0]);
			return;
		}
	}
	snprintf(n->name, sizeof n->name, "docker:%s", dn);
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

/* One number (or "max") from a cgroup file. */
static int read_value(const char *file, uint64_t *v, bool *max)
{
	char buf[64];
	const char *p = buf;
	unsigned long long x;
	size_t len;
	int fd, rc;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = memz_pread_file(fd, buf, sizeof buf, &len);
	close(fd);
	if (rc)
		return rc;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	*max = false;
	if (!strcmp(buf, "max")) {
		*max = true;
		*v = 0;
		return 0;
	}
	if (memz_parse_u64(&p, buf + len, &x) || p != buf + len)
		return -EINVAL;
	*v = x;
	return 0;
}

static int read_pair(const char *dir, const char *path, const char *limit,
		     const char *usage, struct memz_cgroup_mem *out)
{
	char file[1024];
	bool max;
	int rc;

	if (snprintf(file, sizeof file, "%s%s/%s", dir, path, usage) >=
	    (int)sizeof file)
		return -ENAMETOOLONG;
	rc = read_value(file, &out->usage, &max);
	if (rc)
		return rc;
	if (max)
		return -EINVAL;
	snprintf(file, sizeof file, "%s%s/%s", dir, path, limit);
	rc = read_value(file, &out->limit, &max);
	if (rc == -ENOENT) {
		/* the root cgroup has usage but no limit file */
		out->limited = false;
		out->limit = 0;
		return 0;
	}
	if (rc)
		return rc;
	/* v1 writes "no limit" as LLONG_MAX rounded down to a page */
	out->limited = !max && out->limit < 0x7ffffffffff00000ull;
	if (!out->limited)
		out->limit = 0;
	return 0;
}

int memz_cgroup_read_mem(const char *sys_root, const char *path,
			 struct memz_cgroup_mem *out)
{
	static const char *const v2[] = { "/fs/cgroup", "/fs/cgroup/unified" };
	char dir[512];
	int rc;

	memset(out, 0, sizeof *out);
	if (!safe_path(path))
		return -EINVAL;
	if (!strcmp(path, "/"))
		path = "";
	for (size_t i = 0; i < 2; i++) {
		snprintf(dir, sizeof dir, "%s%s", sys_root, v2[i]);
		rc = read_pair(dir, path, "memory.max", "memory.current", out);
		if (!rc) {
			out->version = 2;
			return 0;
		}
		if (rc != -ENOENT && rc != -ENOTDIR)
			return rc;
	}
	snprintf(dir, sizeof dir, "%s/fs/cgroup/memory", sys_root);
	rc = read_pair(dir, path, "memory.limit_in_bytes",
		       "memory.usage_in_bytes", out);
	if (!rc)
		out->version = 1;
	else
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
	char sys_root[256], docker_root[256];
	double refresh;
	struct ent *bucket[BUCKETS];
	struct ent *free_list;
	size_t n;
	unsigned long sweep, reads;
	char *cfg; /* MEMZ_CGROUP_CONFIG_MAX + 1, made when first needed */
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
	snprintf(c->docker_root, sizeof c->docker_root, "%s", docker_root);
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
	memz_free(c->a, &c->cfg);
	memz_free(c->a, pc);
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The docker name, when docker's file for the container is there and
 * small enough to read whole. */
static void docker_name(struct memz_cgroups *c, struct memz_cgroup_name *n)
{
	char file[512], name[MEMZ_CGROUP_NAME_MAX];
	size_t len;
	int fd, rc;

	/* a bare id under a pod has no runtime in its path: docker's file
	 * tells whether it is docker's */
	if ((n->runtime[0] && strcmp(n->runtime, "docker")) || !n->id[0] ||
	    !c->docker_root[0])
		return;
	if (!c->cfg) {
		c->cfg = memz_realloc(c->a, NULL, MEMZ_CGROUP_CONFIG_MAX + 1);
		if (!c->cfg)
			return;
	}
	snprintf(file, sizeof file, "%s/containers/%s/config.v2.json",
		 c->docker_root, n->id);
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	rc = memz_pread_file(fd, c->cfg, MEMZ_CGROUP_CONFIG_MAX + 1, &len);
	close(fd);
	c->reads++;
	if (!rc && !memz_cgroup_docker_name(c->cfg, len, name, sizeof name)) {
		snprintf(n->runtime, sizeof n->runtime, "docker");
		memz_cgroup_apply_docker_name(n, name);
	}
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
	struct memz_cgroup_name n;
	size_t len = strlen(path);

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
	if (memz_cgroup_parse(path, &n) || c->n >= MEMZ_CGROUP_MAX)
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
	docker_name(c, &n);
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
	return c->reads;
}
