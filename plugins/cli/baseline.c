/*
 * memz top --baseline FILE: a saved `memz json` (memz json --out FILE) read
 * back, so each row can show how far it moved since.
 *
 * Groups are matched by name (the key the table groups by: a cgroup's path,
 * not its display name), processes by (pid, start time) so a reused pid is
 * a new process. Names went through the JSON writer, which replaces
 * invalid UTF-8; a name that held invalid bytes never matches and shows
 * as new.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "cli.h"
#include "memz/json.h"

/* memz json writes about 400 bytes a process and 250 a group, 1 KiB for a
 * process with a hostile name in its own group: 32 MiB holds 50,000
 * processes. The file is parsed as it is read, into the entries alone, so
 * a file of anything else costs no more than its entries. */
#define BASELINE_MAX (32u << 20)

static int cmp_group(const void *pa, const void *pb)
{
	const struct cli_base_entry *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

static int cmp_proc(const void *pa, const void *pb)
{
	const struct cli_base_entry *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

enum list { L_NONE, L_GROUPS, L_PROCS };
enum field { F_OTHER, F_NAME, F_PSS, F_PID, F_START };

/* Where the parse is: depth 1 is the snapshot object, 2 a list of groups
 * or processes, 3 one entry, deeper what memz does not read back. */
struct parse {
	struct cli_baseline *b;
	unsigned depth;
	enum list key1, list;
	enum field field;
	bool seen[3];
	size_t cap[3], idx;
	struct cli_base_entry cur;
	bool has_name, has_pss, has_pid, has_start;
	int rc;
	char *err;
	size_t errlen;
};

static const char *list_name(enum list l)
{
	return l == L_GROUPS ? "groups" : "processes";
}

static struct cli_base_list *list_of(struct parse *p)
{
	return p->list == L_GROUPS ? &p->b->groups : &p->b->procs;
}

static int fail(struct parse *p, int rc, const char *what)
{
	p->rc = rc;
	snprintf(p->err, p->errlen, "%s[%zu] %s", list_name(p->list), p->idx,
		 what);
	return 0;
}

static int lacks(struct parse *p)
{
	return fail(p, -EINVAL, p->list == L_GROUPS ? "lacks name or pss"
						    : "lacks pid, start or pss");
}

/* A value where an entry or a list should be. */
static int scalar(struct parse *p)
{
	if (p->depth == 0) {
		p->rc = -EINVAL;
		return 0;
	}
	if (p->depth == 1 && p->key1 != L_NONE) {
		p->rc = -EINVAL;
		snprintf(p->err, p->errlen, "no \"%s\" array",
			 list_name(p->key1));
		return 0;
	}
	if (p->depth == 2 && p->list != L_NONE)
		return lacks(p);
	return 1;
}

static int on_null(void *ctx)
{
	struct parse *p = ctx;

	if (p->depth == 3 && p->list != L_NONE && p->field != F_OTHER)
		return lacks(p);
	return scalar(p);
}

static int on_bool(void *ctx, int v)
{
	(void)v;
	return on_null(ctx);
}

/* A number range-checked before it is cast: whatever the file says, a pss
 * is a byte count below 2^63, a pid an int, a start a tick count. */
static int on_number(void *ctx, const char *s, size_t len)
{
	struct parse *p = ctx;
	char buf[64];
	double v;
	char *end;

	if (p->depth != 3 || p->list == L_NONE || p->field == F_OTHER)
		return scalar(p);
	if (p->field == F_NAME || len >= sizeof buf)
		return lacks(p);
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (*end || !isfinite(v) || v < 0 || v != floor(v) ||
	    v >= 9223372036854775808.0 ||
	    (p->field == F_PID && v > INT_MAX))
		return fail(p, -ERANGE,
			    p->field == F_PSS   ? "pss out of range"
			    : p->field == F_PID ? "pid out of range"
						: "start out of range");
	switch (p->field) {
	case F_PSS:
		p->cur.pss = (uint64_t)v;
		p->has_pss = true;
		break;
	case F_PID:
		p->cur.pid = (int)v;
		p->has_pid = true;
		break;
	default:
		p->cur.start = (unsigned long long)v;
		p->has_start = true;
		break;
	}
	return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct parse *p = ctx;

	if (p->depth != 3 || p->list == L_NONE || p->field == F_OTHER)
		return scalar(p);
	if (p->field != F_NAME)
		return lacks(p);
	free(p->cur.name);
	p->cur.name = malloc(len + 1);
	if (!p->cur.name) {
		p->rc = -ENOMEM;
		return 0;
	}
	memcpy(p->cur.name, s, len);
	p->cur.name[len] = '\0';
	p->has_name = true;
	return 1;
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
	struct parse *p = ctx;

#define IS(w) (len == sizeof w - 1 && !memcmp(s, w, len))
	if (p->depth == 1) {
		p->key1 = L_NONE;
		if (IS("groups"))
			p->key1 = L_GROUPS;
		else if (IS("processes"))
			p->key1 = L_PROCS;
	} else if (p->depth == 3 && p->list != L_NONE) {
		p->field = F_OTHER;
		if (IS("pss"))
			p->field = F_PSS;
		else if (p->list == L_GROUPS && IS("name"))
			p->field = F_NAME;
		else if (p->list == L_PROCS && IS("pid"))
			p->field = F_PID;
		else if (p->list == L_PROCS && IS("start"))
			p->field = F_START;
	}
#undef IS
	return 1;
}

static int open_level(struct parse *p, bool map)
{
	if (p->depth >= MEMZ_JSON_DEPTH_MAX) {
		p->rc = -EINVAL;
		snprintf(p->err, p->errlen, "nested deeper than %d levels",
			 MEMZ_JSON_DEPTH_MAX);
		return 0;
	}
	if (p->depth == 0 && !map) {
		p->rc = -EINVAL;
		return 0;
	}
	if (p->depth == 1 && p->key1 != L_NONE) {
		if (map)
			return scalar(p);
		if (p->seen[p->key1]) {
			p->rc = -EINVAL;
			snprintf(p->err, p->errlen, "two \"%s\" arrays",
				 list_name(p->key1));
			return 0;
		}
		p->list = p->key1;
		p->seen[p->list] = true;
		p->idx = 0;
	} else if (p->depth == 2 && p->list != L_NONE) {
		if (!map)
			return lacks(p);
		memset(&p->cur, 0, sizeof p->cur);
		p->has_name = p->has_pss = p->has_pid = p->has_start = false;
		p->field = F_OTHER;
	} else if (p->depth == 3 && p->list != L_NONE &&
		   p->field != F_OTHER) {
		return lacks(p);
	}
	p->depth++;
	return 1;
}

static int on_start_map(void *ctx)
{
	return open_level(ctx, true);
}

static int on_start_array(void *ctx)
{
	return open_level(ctx, false);
}

/* An entry complete: kept if it has what it is matched by. */
static int end_entry(struct parse *p)
{
	struct cli_base_list *l = list_of(p);
	size_t *cap = &p->cap[p->list];

	if (!p->has_pss || (p->list == L_GROUPS && !p->has_name) ||
	    (p->list == L_PROCS && (!p->has_pid || !p->has_start)))
		return lacks(p);
	if (!p->cur.name) {
		p->cur.name = strdup("");
		if (!p->cur.name) {
			p->rc = -ENOMEM;
			return 0;
		}
	}
	if (l->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct cli_base_entry *ne = realloc(l->e, nc * sizeof *ne);

		if (!ne) {
			p->rc = -ENOMEM;
			return 0;
		}
		l->e = ne;
		*cap = nc;
	}
	l->e[l->n++] = p->cur;
	p->cur.name = NULL;
	p->idx++;
	return 1;
}

static int on_end(void *ctx)
{
	struct parse *p = ctx;

	p->depth--;
	if (p->depth == 2 && p->list != L_NONE)
		return end_entry(p);
	if (p->depth == 1 && p->list != L_NONE)
		p->list = L_NONE;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

static int parse_file(FILE *f, struct parse *p)
{
	yajl_handle h = yajl_alloc(&callbacks, NULL, p);
	unsigned char buf[1 << 16];
	size_t total = 0;
	yajl_status st = yajl_status_ok;

	if (!h)
		return -ENOMEM;
	for (;;) {
		size_t n = fread(buf, 1, sizeof buf, f);

		if (n == 0)
			break;
		total += n;
		if (total > BASELINE_MAX) {
			snprintf(p->err, p->errlen, "larger than %u MiB",
				 BASELINE_MAX >> 20);
			p->rc = -EFBIG;
			break;
		}
		if (memchr(buf, '\0', n)) {
			snprintf(p->err, p->errlen, "not JSON (a NUL byte)");
			p->rc = -EINVAL;
			break;
		}
		st = yajl_parse(h, buf, n);
		if (st != yajl_status_ok)
			break;
	}
	if (!p->rc && st == yajl_status_ok) {
		if (ferror(f)) {
			snprintf(p->err, p->errlen, "read error");
			p->rc = -EIO;
		} else {
			st = yajl_complete_parse(h);
		}
	}
	yajl_free(h);
	if (!p->rc && st != yajl_status_ok)
		p->rc = -EINVAL;
	if (p->rc == -EINVAL && !p->err[0])
		snprintf(p->err, p->errlen, "not a memz json snapshot");
	if (!p->rc && (!p->seen[L_GROUPS] || !p->seen[L_PROCS])) {
		snprintf(p->err, p->errlen, "no \"%s\" array",
			 list_name(p->seen[L_GROUPS] ? L_PROCS : L_GROUPS));
		p->rc = -EINVAL;
	}
	return p->rc;
}

int cli_baseline_load(struct cli_baseline *b, const char *file, char *err,
		      size_t errlen)
{
	FILE *f = fopen(file, "rb");
	struct parse p = { .b = b, .err = err, .errlen = errlen };
	int rc;

	memset(b, 0, sizeof *b);
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	err[0] = '\0';
	rc = parse_file(f, &p);
	fclose(f);
	free(p.cur.name);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc) {
		cli_baseline_free(b);
		return rc;
	}
	if (b->groups.n)
		qsort(b->groups.e, b->groups.n, sizeof *b->groups.e,
		      cmp_group);
	if (b->procs.n)
		qsort(b->procs.e, b->procs.n, sizeof *b->procs.e, cmp_proc);
	return 0;
}

static void free_list(struct cli_base_list *l)
{
	for (size_t i = 0; l->e && i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
	memset(l, 0, sizeof *l);
}

void cli_baseline_free(struct cli_baseline *b)
{
	free_list(&b->groups);
	free_list(&b->procs);
}

struct cli_base_entry *cli_baseline_group(struct cli_baseline *b,
					  const char *name)
{
	struct cli_base_entry key = { .name = (char *)(uintptr_t)name };

	return b->groups.n ? bsearch(&key, b->groups.e, b->groups.n,
				     sizeof key, cmp_group)
			   : NULL;
}

struct cli_base_entry *cli_baseline_proc(struct cli_baseline *b, int pid,
					 unsigned long long start)
{
	struct cli_base_entry key = { .pid = pid, .start = start };

	return b->procs.n ? bsearch(&key, b->procs.e, b->procs.n, sizeof key,
				    cmp_proc)
			  : NULL;
}
