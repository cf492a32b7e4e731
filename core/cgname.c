#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "memz/cgname.h"
#include "memz/json.h"

#define MAX_COMPONENTS 64

const char *memz_cgname_kind_name(enum memz_cgname_kind k)
{
	switch (k) {
	case MEMZ_CGNAME_UNIT:
		return "unit";
	case MEMZ_CGNAME_CONTAINER:
		return "container";
	case MEMZ_CGNAME_POD:
		return "pod";
	case MEMZ_CGNAME_PATH:
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
			 struct memz_cgname *out)
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
static bool pod_of(const struct comp *c, struct memz_cgname *out)
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

int memz_cgname_parse(const char *path, struct memz_cgname *out)
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
		out->kind = MEMZ_CGNAME_POD;
		if (ctr > pod)
			snprintf(out->name, sizeof out->name, "k8s:%s/%.12s",
				 out->pod_uid, out->id);
		else
			snprintf(out->name, sizeof out->name, "k8s:%s",
				 out->pod_uid);
		return 0;
	}
	if (ctr >= 0) {
		out->kind = MEMZ_CGNAME_CONTAINER;
		snprintf(out->name, sizeof out->name, "%s:%.12s",
			 out->runtime[0] ? out->runtime : "container", out->id);
		return 0;
	}
	out->id[0] = out->runtime[0] = '\0';
	if (unit < 0)
		unit = slice;
	if (unit >= 0) {
		out->kind = MEMZ_CGNAME_UNIT;
		put(out->name, sizeof out->name, c[unit].s, c[unit].n);
		return 0;
	}
raw:
	memset(out, 0, sizeof *out);
	out->kind = MEMZ_CGNAME_PATH;
	put(out->name, sizeof out->name, path, strlen(path));
	return 0;
}

int memz_cgname_docker(const char *buf, size_t len, char *out,
			    size_t outlen)
{
	const char *key[] = { "Name", NULL };
	yajl_val root, v;
	const char *s;
	int rc = -EINVAL;

	/* yajl_tree_parse wants a string: the caller's buffer ends in NUL
	 * where it ends, or it is not a file this was read from */
	if (!outlen || strlen(buf) != len ||
	    !memz_json_depth_within(buf, len, MEMZ_JSON_DEPTH_MAX))
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

void memz_cgname_apply_docker(struct memz_cgname *n,
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
			n->kind = MEMZ_CGNAME_POD;
			snprintf(n->name, sizeof n->name, "k8s:%.*s/%.*s/%.*s",
				 (int)fl[2], f[2], (int)fl[1], f[1], (int)fl[0],
				 f[0]);
			return;
		}
	}
	snprintf(n->name, sizeof n->name, "docker:%s", dn);
}
