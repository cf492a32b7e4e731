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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cli.h"
#include "memz/json.h"

/* A snapshot of ten thousand processes is a few MiB; this leaves room
 * without reading a file that is not one. */
#define BASELINE_MAX (256u << 20)

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

static bool number(yajl_val o, const char *key, double *out)
{
	const char *path[] = { key, NULL };
	yajl_val v = yajl_tree_get(o, path, yajl_t_number);

	if (!v)
		return false;
	*out = YAJL_GET_DOUBLE(v);
	return *out >= 0;
}

/* The entries of one array: groups need a name, processes a pid and a
 * start; every entry a pss. */
static int load(yajl_val root, const char *key, bool procs,
		struct cli_base_list *l, char *err, size_t errlen)
{
	const char *path[] = { key, NULL };
	yajl_val arr = yajl_tree_get(root, path, yajl_t_array);

	if (!arr) {
		snprintf(err, errlen, "no \"%s\" array", key);
		return -EINVAL;
	}
	l->e = calloc(YAJL_GET_ARRAY(arr)->len + 1, sizeof *l->e);
	if (!l->e)
		return -ENOMEM;
	for (size_t i = 0; i < YAJL_GET_ARRAY(arr)->len; i++) {
		yajl_val o = YAJL_GET_ARRAY(arr)->values[i];
		const char *np[] = { "name", NULL };
		yajl_val name = yajl_tree_get(o, np, yajl_t_string);
		struct cli_base_entry *e = &l->e[l->n];
		double pss, pid = 0, start = 0;
		const char *nm;

		if (!YAJL_IS_OBJECT(o) || !number(o, "pss", &pss) ||
		    (!procs && !name) ||
		    (procs && (!number(o, "pid", &pid) ||
			       !number(o, "start", &start)))) {
			snprintf(err, errlen, "%s[%zu] lacks %s", key, i,
				 procs ? "pid, start or pss" : "name or pss");
			return -EINVAL;
		}
		nm = name ? YAJL_GET_STRING(name) : NULL;
		e->name = strdup(nm ? nm : "");
		if (!e->name)
			return -ENOMEM;
		e->pss = (uint64_t)pss;
		e->pid = (int)pid;
		e->start = (unsigned long long)start;
		l->n++;
	}
	qsort(l->e, l->n, sizeof *l->e, procs ? cmp_proc : cmp_group);
	return 0;
}

int cli_baseline_load(struct cli_baseline *b, const char *file, char *err,
		      size_t errlen)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	yajl_val root;
	int rc = 0;

	memset(b, 0, sizeof *b);
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	for (;;) {
		size_t n;

		if (len + 1 >= cap) {
			char *nb;

			if (cap >= BASELINE_MAX) {
				snprintf(err, errlen, "larger than %u MiB",
					 BASELINE_MAX >> 20);
				rc = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - 1 - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "read error");
		rc = -EIO;
	}
	fclose(f);
	if (rc) {
		free(buf);
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		return rc;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		snprintf(err, errlen, "not JSON (a NUL byte)");
		free(buf);
		return -EINVAL;
	}
	if (!memz_json_depth_within(buf, len, MEMZ_JSON_DEPTH_MAX)) {
		snprintf(err, errlen, "nested deeper than %d levels",
			 MEMZ_JSON_DEPTH_MAX);
		free(buf);
		return -EINVAL;
	}
	root = yajl_tree_parse(buf, NULL, 0);
	free(buf);
	if (!root || !YAJL_IS_OBJECT(root)) {
		snprintf(err, errlen, "not a memz json snapshot");
		yajl_tree_free(root);
		return -EINVAL;
	}
	rc = load(root, "groups", false, &b->groups, err, errlen);
	if (!rc)
		rc = load(root, "processes", true, &b->procs, err, errlen);
	yajl_tree_free(root);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc)
		cli_baseline_free(b);
	return rc;
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
