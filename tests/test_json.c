#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "check.h"
#include "memz/json.h"

#define KiB 1024ll

static yajl_val snapshot_json(const char *fixture, char **text)
{
	struct memz_settings set;
	struct memz_sampler *s;
	struct memz_snapshot snap;
	char path[MEMZ_PATH_MAX], err[256];
	size_t len;
	FILE *f = open_memstream(text, &len);
	yajl_val v;

	memz_settings_init(&set);
	snprintf(path, sizeof path, "%s/%s/proc", MEMZ_FIXTURES, fixture);
	memz_settings_set(&set, "ProcRoot", path, NULL, 0);
	snprintf(path, sizeof path, "%s/%s/sys", MEMZ_FIXTURES, fixture);
	memz_settings_set(&set, "SysRoot", path, NULL, 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 5.0, &snap), 0);
	CHECK_INT(memz_json_print(f, &snap), 0);
	fclose(f);
	memz_sampler_free(&s);
	v = yajl_tree_parse(*text, err, sizeof err);
	if (!v)
		fprintf(stderr, "parse error: %s\n%s\n", err, *text);
	CHECK(v != NULL);
	return v;
}

static long long num(yajl_val root, const char **path)
{
	yajl_val v = yajl_tree_get(root, path, yajl_t_number);

	return v ? YAJL_GET_INTEGER(v) : -1;
}

static yajl_val proc_with_pid(yajl_val root, long long pid)
{
	const char *path[] = { "processes", NULL };
	yajl_val a = yajl_tree_get(root, path, yajl_t_array);
	const char *pidp[] = { "pid", NULL };

	for (size_t i = 0; a && i < YAJL_GET_ARRAY(a)->len; i++)
		if (num(YAJL_GET_ARRAY(a)->values[i], pidp) == pid)
			return YAJL_GET_ARRAY(a)->values[i];
	return NULL;
}

/* The helpers as text: every figure finite or null, any bytes a string. */
static void test_helpers(void)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t len;

	yajl_gen_map_open(g);
	memz_json_kv_double(g, "nan", NAN);
	memz_json_kv_double(g, "inf", -INFINITY);
	memz_json_kv_double(g, "half", 0.5);
	memz_json_kv_fixed(g, "f1", 41.0, 1);
	memz_json_kv_fixed(g, "f2", 0.2500, 3);
	memz_json_kv_fixed(g, "f3", -0.01, 1);
	memz_json_kv_fixed(g, "f4", NAN, 1);
	memz_json_kv_int(g, "i", -3);
	memz_json_kv_u64(g, "u", UINT64_MAX);
	memz_json_kv_bool(g, "b", true);
	memz_json_kv_str(g, "null", NULL);
	memz_json_kv_str(g, "k\xff", "a\xc3");
	yajl_gen_map_close(g);
	CHECK(yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok);
	CHECK_STR((const char *)buf,
		  "{\"nan\":null,\"inf\":null,\"half\":0.5,\"f1\":41.0,"
		  "\"f2\":0.25,\"f3\":0.0,\"f4\":null,\"i\":-3,"
		  "\"u\":9223372036854775807,\"b\":true,\"null\":null,"
		  "\"k\xef\xbf\xbd\":\"a\xef\xbf\xbd\"}");
	yajl_gen_free(g);
}

/* Time to OOM per scope (null when none) and the last kills. */
static void test_oom(void)
{
	struct memz_snapshot s;
	struct memz_oom_view *o = &s.oom;
	char *text = NULL, err[256];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	yajl_val root;
	const char *sc[] = { "oom", "scopes", NULL };
	const char *ki[] = { "oom", "kills", NULL };
	const char *ttl[] = { "time_to_oom", NULL }, *scope[] = { "scope", NULL };
	const char *name[] = { "name", NULL }, *sure[] = { "sure", NULL };
	const char *ver[] = { "cgroup_version", NULL };
	const char *dn[] = { "name", NULL };

	memz_snapshot_init(&s);
	o->n_scopes = 2;
	snprintf(o->scope[0].id, sizeof o->scope[0].id, "machine");
	o->scope[0].seconds = 1500;
	o->scope[0].n_drivers = 1;
	snprintf(o->scope[0].drivers[0].name, MEMZ_OOM_NAME_MAX, "leaker");
	o->scope[0].drivers[0].pid = 42;
	o->scope[0].drivers[0].share = 0.92;
	snprintf(o->scope[1].path, sizeof o->scope[1].path, "/box");
	snprintf(o->scope[1].id, sizeof o->scope[1].id, "cg_box");
	o->scope[1].seconds = NAN;
	o->scope[1].warn = true;
	o->scope[1].warn_level = 3;
	o->scope[1].warn_s = 3600;
	s.stats.pagemap_steps = 7;
	s.stats.pagemap_walks = 2;
	s.stats.pagemap_refused = "42/maps: no address range";
	o->n_kills = 2;
	o->new_kills = 1;
	o->kill[0].known = false;
	snprintf(o->kill[1].name, MEMZ_OOM_NAME_MAX, "old\xff");
	o->kill[1].known = true;
	o->kill[1].sure = 90;
	snprintf(o->kill[1].scope, MEMZ_OOM_PATH_MAX, "/box");
	CHECK_INT(memz_json_print(f, &s), 0);
	fclose(f);
	root = yajl_tree_parse(text, err, sizeof err);
	CHECK(root != NULL);
	if (root) {
		yajl_val a = yajl_tree_get(root, sc, yajl_t_array), k, d;
		const char *drv[] = { "drivers", NULL };

		CHECK(a && YAJL_GET_ARRAY(a)->len == 2);
		if (a && YAJL_GET_ARRAY(a)->len == 2) {
			yajl_val m = YAJL_GET_ARRAY(a)->values[0];
			yajl_val c = YAJL_GET_ARRAY(a)->values[1];

			CHECK_STR(YAJL_GET_STRING(yajl_tree_get(m, scope, yajl_t_string)),
				  "machine");
			CHECK(YAJL_GET_DOUBLE(yajl_tree_get(m, ttl, yajl_t_number)) ==
			      1500.0);
			d = yajl_tree_get(m, drv, yajl_t_array);
			CHECK(d && YAJL_GET_ARRAY(d)->len == 1);
			if (d && YAJL_GET_ARRAY(d)->len == 1)
				CHECK_STR(YAJL_GET_STRING(yajl_tree_get(
						  YAJL_GET_ARRAY(d)->values[0], dn,
						  yajl_t_string)), "leaker");
			CHECK(YAJL_IS_NULL(yajl_tree_get(c, ttl, yajl_t_any)));
			CHECK_INT(num(c, ver), 2);
			/* how far under OomWarn the forecast has fallen */
			const char *wl[] = { "warn_level", NULL };
			const char *ws[] = { "warn_s", NULL };
			CHECK_INT(num(c, wl), 3);
			CHECK(YAJL_GET_DOUBLE(yajl_tree_get(c, ws, yajl_t_number)) ==
			      3600.0);
			CHECK_INT(num(m, wl), 0);
		}
		/* the big processes' walks, beside the exact reads */
		const char *ps[] = { "stats", "pagemap_steps", NULL };
		const char *pw[] = { "stats", "pagemap_walks", NULL };
		const char *pg[] = { "stats", "pagemap_given_up", NULL };
		const char *pr[] = { "stats", "pagemap_refused", NULL };
		CHECK_INT(num(root, ps), 7);
		CHECK_INT(num(root, pw), 2);
		CHECK_INT(num(root, pg), 0);
		CHECK_STR(YAJL_GET_STRING(yajl_tree_get(root, pr, yajl_t_string)),
			  "42/maps: no address range");
		k = yajl_tree_get(root, ki, yajl_t_array);
		CHECK(k && YAJL_GET_ARRAY(k)->len == 2);
		if (k && YAJL_GET_ARRAY(k)->len == 2) {
			yajl_val k0 = YAJL_GET_ARRAY(k)->values[0];
			yajl_val k1 = YAJL_GET_ARRAY(k)->values[1];
			const char *nw[] = { "new", NULL };

			CHECK(YAJL_IS_NULL(yajl_tree_get(k0, name, yajl_t_any)));
			CHECK(YAJL_IS_TRUE(yajl_tree_get(k0, nw, yajl_t_any)));
			CHECK(YAJL_IS_FALSE(yajl_tree_get(k1, nw, yajl_t_any)));
			CHECK_STR(YAJL_GET_STRING(yajl_tree_get(k1, name, yajl_t_string)),
				  "old\xef\xbf\xbd");
			CHECK_INT(num(k1, sure), 90);
			CHECK_STR(YAJL_GET_STRING(yajl_tree_get(k1, scope, yajl_t_string)),
				  "/box");
		}
		yajl_tree_free(root);
	}
	free(text);
}

int main(void)
{
	test_helpers();
	test_oom();
	char *text = NULL;
	yajl_val root = snapshot_json("tree1", &text), p;
	const char *total[] = { "breakdown", "mem_total", NULL };
	const char *anon[] = { "breakdown", "process_anon", NULL };
	const char *resid[] = { "breakdown", "kernel_residual", NULL };
	const char *pss[] = { "pss", NULL }, *sub[] = { "subtree_pss", NULL };
	const char *name[] = { "name", NULL }, *group[] = { "group", NULL };
	const char *leak[] = { "verdict", "leak", NULL };
	const char *mode[] = { "pace", "mode", NULL };
	const char *psi[] = { "psi", "full", "total", NULL };
	const char *g0[] = { "groups", NULL };

	if (root) {
		CHECK_INT(num(root, total), 8388608 * KiB);
		CHECK_INT(num(root, anon), 37888 * KiB);
		CHECK_INT(num(root, resid), 2698240 * KiB);
		CHECK_INT(num(root, psi), 456);
		CHECK(yajl_tree_get(root, mode, yajl_t_string) != NULL);
		p = proc_with_pid(root, 200);
		CHECK(p != NULL);
		if (p) {
			CHECK_INT(num(p, pss), 11520 * KiB);
			CHECK_STR(YAJL_GET_STRING(yajl_tree_get(p, name, yajl_t_string)), "worker");
			CHECK_STR(YAJL_GET_STRING(yajl_tree_get(p, group, yajl_t_string)), "worker");
			CHECK(YAJL_IS_FALSE(yajl_tree_get(p, leak, yajl_t_any)));
		}
		p = proc_with_pid(root, 100);
		CHECK(p && num(p, sub) == 36352 * KiB);
		CHECK_INT(YAJL_GET_ARRAY(yajl_tree_get(root, g0, yajl_t_array))->len, 4);
		yajl_tree_free(root);
	}
	free(text);

	/* a name with a newline, parentheses and quotes survives intact */
	text = NULL;
	root = snapshot_json("weird-comm", &text);
	if (root) {
		p = proc_with_pid(root, 4242);
		CHECK(p != NULL);
		if (p)
			CHECK_STR(YAJL_GET_STRING(yajl_tree_get(p, name, yajl_t_string)),
				  "a) (b\nc ) Z");
		yajl_tree_free(root);
	}
	free(text);

	/* bytes that are not UTF-8 become U+FFFD, so the output always parses */
	{
		yajl_gen g = yajl_gen_alloc(NULL);
		const unsigned char *buf;
		size_t len;

		CHECK_INT(memz_json_string(g, "a\xff" "b\xc3(\xe2\x82\xac", 8), 0);
		yajl_gen_get_buf(g, &buf, &len);
		CHECK_INT(len, 14);
		CHECK(!memcmp(buf, "\"a\xef\xbf\xbd" "b\xef\xbf\xbd(\xe2\x82\xac\"", 14));
		yajl_gen_free(g);
	}
	return check_status();
}
