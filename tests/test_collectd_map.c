#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memz/cgroup.h"
#include "memz/report.h"
#include "map.h"
#include "memz/settings.h"

#define MAXV 64

struct seen {
	struct cdm_value v[MAXV];
	size_t n;
};

static void collect(void *ctx, const struct cdm_value *v)
{
	struct seen *s = ctx;

	if (s->n < MAXV)
		s->v[s->n] = *v;
	s->n++;
}

static const struct cdm_value *find(const struct seen *s, const char *pi,
				    const char *type, const char *ti)
{
	for (size_t i = 0; i < s->n && i < MAXV; i++)
		if (!strcmp(s->v[i].plugin_instance, pi) &&
		    !strcmp(s->v[i].type, type) &&
		    !strcmp(s->v[i].type_instance, ti))
			return &s->v[i];
	return NULL;
}

static double val(const struct seen *s, const char *pi, const char *type,
		  const char *ti)
{
	const struct cdm_value *v = find(s, pi, type, ti);
	return v ? v->v[0] : -1;
}

static size_t values(struct memz_report *r, const struct memz_snapshot *s,
		     struct seen *out)
{
	const struct memz_report_view *v;

	out->n = 0;
	CHECK_INT(memz_report_update(r, s, &v), 0);
	return cdm_report_values(v, collect, out);
}

/* Every value's type is one collectd's types.db defines, with as many data
 * sources, and within their range (NaN is a gap): a type collectd does not
 * know drops the value, one out of range stores NaN. Skipped where
 * collectd is not installed (a package build). */
static void check_types_db(const struct seen *out)
{
	const char *path = "/usr/share/collectd/types.db";
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t checked = 0;

	if (!f) {
		fprintf(stderr, "%s: absent, types not checked against it\n",
			path);
		return;
	}
	for (size_t i = 0; i < out->n && i < MAXV; i++) {
		const struct cdm_value *v = &out->v[i];
		bool found = false;

		rewind(f);
		while (fgets(line, sizeof line, f)) {
			char name[64], *ds;
			size_t n = 0;

			if (sscanf(line, "%63s", name) != 1 || name[0] == '#' ||
			    strcmp(name, v->type))
				continue;
			found = true;
			ds = line + strlen(name);
			for (char *tok = strtok(ds, ", \t\n"); tok;
			     tok = strtok(NULL, ", \t\n"), n++) {
				char *min = strchr(tok, ':');
				double lo, hi;

				CHECK(min && (min = strchr(min + 1, ':')));
				if (!min || n >= (size_t)v->n)
					continue;
				lo = min[1] == 'U' ? -INFINITY : atof(min + 1);
				min = strchr(min + 1, ':');
				hi = !min || min[1] == 'U' ? INFINITY : atof(min + 1);
				if (!isnan(v->v[n]) &&
				    !(v->v[n] >= lo && v->v[n] <= hi)) {
					fprintf(stderr, "%s/%s-%s = %g outside %g..%g\n",
						v->plugin_instance, v->type,
						v->type_instance, v->v[n], lo, hi);
					CHECK(0);
				}
			}
			CHECK_INT((int)n, v->n);
			break;
		}
		if (!found)
			fprintf(stderr, "type %s not in %s\n", v->type, path);
		CHECK(found);
		checked++;
	}
	fclose(f);
	CHECK(checked > 0);
}

static void test_values(void)
{
	struct memz_report *r;
	struct memz_snapshot s;
	struct memz_group g[4];
	const struct memz_group *gp[4] = { &g[0], &g[1], &g[2], &g[3] };
	struct seen out = { .n = 0 };
	const struct cdm_value *pc;
	size_t n;

	memset(&s, 0, sizeof s);
	memset(g, 0, sizeof g);
	s.br = (struct memz_breakdown){ .mem_total = 1000, .free = 80,
					.pcp_free = 20, .buffers = 10,
					.cached = 300,
					.slab = 50, .page_tables = 5,
					.process_anon = 400, .hidden_anon = 35,
					.kernel_residual = 100 };
	s.psi.present = true;
	s.psi.some = (struct memz_psi_line){ 1.5, 2.5, 3.5, 0 };
	s.numa.n = 1;
	s.numa.node[0] = (struct memz_numa_node){ .id = 3, .total = 900,
						  .free = 200, .used = 700 };
	s.view.leak_suspects = 2;
	s.interval_ms = 500;

	g[0].name = "a b/c";
	g[0].reported = true;
	g[0].members = 3;
	g[0].threads = 7;
	g[0].pss = 4096;
	g[0].uss = 2048;
	g[0].rss = 8192;
	g[0].swap = 1;
	g[0].anon = 1024;
	g[0].det.verdict.rate_bps = -12.5;
	g[0].det.verdict.confidence = 40;
	g[0].alarm.level = MEMZ_ALARM_CRITICAL;
	g[0].alarm.time_left = 3000;
	g[1].name = "quiet"; /* not reported: no values */
	g[2].name = "a/b c"; /* sanitises to a_b_c too: a_b_c_2 */
	g[2].reported = true;
	g[2].pss = 10;
	g[3].name = "";
	g[3].reported = true;
	g[3].pss = 5;
	s.view.groups = gp;
	s.view.n_groups = 4;

	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	n = values(r, &s, &out);
	CHECK_INT(n, out.n);
	/* 9 breakdown + 3 psi (no full) + 2 node + 2 gauges + 3 groups * 11 */
	CHECK_INT(out.n, 9 + 3 + 2 + 2 + 33);
	check_types_db(&out);

	CHECK(val(&out, "", "memory", "free") == 80);
	CHECK(val(&out, "", "memory", "pcp_free") == 20);
	CHECK(val(&out, "", "memory", "buffers") == 10);
	CHECK(val(&out, "", "memory", "cached") == 300);
	CHECK(val(&out, "", "memory", "slab") == 50);
	CHECK(val(&out, "", "memory", "page_tables") == 5);
	CHECK(val(&out, "", "memory", "process_anon") == 400);
	CHECK(val(&out, "", "memory", "hidden_anon") == 35);
	CHECK(val(&out, "", "memory", "kernel_residual") == 100);
	CHECK(val(&out, "", "percent", "psi_some_avg10") == 1.5);
	CHECK(val(&out, "", "percent", "psi_some_avg60") == 2.5);
	CHECK(val(&out, "", "percent", "psi_some_avg300") == 3.5);
	CHECK(find(&out, "", "percent", "psi_full_avg10") == NULL);
	CHECK(val(&out, "node3", "memory", "used") == 700);
	CHECK(val(&out, "node3", "memory", "free") == 200);
	CHECK(val(&out, "", "count", "leak_suspects") == 2);
	CHECK(val(&out, "", "gauge", "interval") == 0.5);

	CHECK(val(&out, "a_b_c", "memory", "pss") == 4096);
	CHECK(val(&out, "a_b_c", "memory", "uss") == 2048);
	CHECK(val(&out, "a_b_c", "memory", "rss") == 8192);
	CHECK(val(&out, "a_b_c", "memory", "swap") == 1);
	CHECK(val(&out, "a_b_c", "memory", "anon") == 1024);
	CHECK(val(&out, "a_b_c", "gauge", "leak_alarm") == 2);
	CHECK(val(&out, "a_b_c", "timeleft", "leak_time_left") == 3000);
	CHECK(val(&out, "a_b_c", "gauge", "growth_rate") == -12.5);
	CHECK(val(&out, "a_b_c", "percent", "leak_confidence") == 40);
	pc = find(&out, "a_b_c", "ps_count", "");
	CHECK(pc != NULL);
	if (pc) {
		CHECK_INT(pc->n, 2);
		CHECK(pc->v[0] == 3);
		CHECK(pc->v[1] == 7);
	}
	CHECK(val(&out, "a_b_c", "gauge", "leak") == 0);
	CHECK(find(&out, "quiet", "memory", "pss") == NULL);
	CHECK(val(&out, "_", "memory", "pss") == 5);
	/* the second name that sanitises onto a taken id gets a suffix */
	CHECK(val(&out, "a_b_c_2", "memory", "pss") == 10);

	/* a group neither reported nor flagged is published once it leaks,
	 * as in every host */
	g[1].det.verdict.leak = true;
	g[1].det.verdict.rate_bps = 2048;
	values(r, &s, &out);
	CHECK(val(&out, "quiet", "gauge", "growth_rate") == 2048);
	CHECK(val(&out, "quiet", "gauge", "leak") == 1);
	g[1].det.verdict.leak = false;

	/* ids stay with their names: the order of the groups changing does
	 * not swap them */
	gp[0] = &g[2];
	gp[2] = &g[0];
	values(r, &s, &out);
	CHECK(val(&out, "a_b_c", "memory", "pss") == 4096);
	CHECK(val(&out, "a_b_c_2", "memory", "pss") == 10);
	gp[0] = &g[0];
	gp[2] = &g[2];

	/* a value the snapshot holds as NaN goes out as 0 */
	g[0].det.verdict.rate_bps = NAN;
	values(r, &s, &out);
	CHECK(val(&out, "a_b_c", "gauge", "growth_rate") == 0);
	memz_report_free(&r);

	/* a clean name first, then a hostile one that sanitises onto it */
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	g[0].name = "x_y";
	g[2].name = "x y";
	values(r, &s, &out);
	CHECK_INT(out.n, 9 + 3 + 2 + 2 + 33);
	check_types_db(&out);
	CHECK(val(&out, "x_y", "memory", "pss") == 4096);
	CHECK(val(&out, "x_y_2", "memory", "pss") == 10);
	/* and two clean names never hide each other */
	g[2].name = "x_z";
	values(r, &s, &out);
	CHECK_INT(out.n, 9 + 3 + 2 + 2 + 33);
	check_types_db(&out);
	CHECK(val(&out, "x_z", "memory", "pss") == 10);

	/* with full PSI the three full lines follow */
	s.psi.has_full = true;
	s.psi.full.avg10 = 0.25;
	values(r, &s, &out);
	CHECK(val(&out, "", "percent", "psi_full_avg10") == 0.25);
	CHECK(find(&out, "", "percent", "psi_full_avg300") != NULL);
	memz_report_free(&r);
}

/* Per-user totals: every published user under plugin instance "users", a
 * memory value per figure and user and a ps_count per user, stock types;
 * a user not reported has none. */
static void test_user_values(void)
{
	struct memz_report *r;
	struct memz_snapshot s;
	struct memz_user_total u[3];
	const struct memz_user_total *up[3] = { &u[0], &u[1], &u[2] };
	struct seen out = { .n = 0 };
	const struct cdm_value *pc;

	memset(&s, 0, sizeof s);
	memset(u, 0, sizeof u);
	u[0] = (struct memz_user_total){ .uid = 1000, .members = 3,
					 .threads = 9, .pss = 4096, .uss = 2048,
					 .rss = 8192, .swap = 512, .anon = 1024,
					 .name = "alice", .reported = true };
	u[1] = (struct memz_user_total){ .uid = 0, .members = 1, .threads = 1,
					 .pss = 100, .name = "root",
					 .reported = true };
	u[2] = (struct memz_user_total){ .uid = 33, .pss = 50,
					 .name = "www-data" };
	s.view.users = up;
	s.view.n_users = 3;
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	values(r, &s, &out);
	/* 9 breakdown + 2 counts + 2 users * (5 memory + ps_count) */
	CHECK_INT(out.n, 9 + 2 + 2 * 6);
	check_types_db(&out);
	CHECK(val(&out, "users", "memory", "pss_alice") == 4096);
	CHECK(val(&out, "users", "memory", "uss_alice") == 2048);
	CHECK(val(&out, "users", "memory", "rss_alice") == 8192);
	CHECK(val(&out, "users", "memory", "swap_alice") == 512);
	CHECK(val(&out, "users", "memory", "anon_alice") == 1024);
	CHECK(val(&out, "users", "memory", "pss_root") == 100);
	pc = find(&out, "users", "ps_count", "alice");
	CHECK(pc != NULL);
	if (pc) {
		CHECK_INT(pc->n, 2);
		CHECK(pc->v[0] == 3);
		CHECK(pc->v[1] == 9);
	}
	CHECK(find(&out, "users", "memory", "pss_www-data") == NULL);
	/* nothing per user under the groups' names */
	CHECK(find(&out, "alice", "memory", "pss") == NULL);
	memz_report_free(&r);
}

/* GroupBy cgroup: under the operator's name, the cgroup's usage and limit
 * beside the PSS; no limit, no value; no cgroup, neither. */
static void test_cgroup_values(void)
{
	struct memz_report *r;
	struct memz_snapshot s;
	struct memz_group g[3];
	const struct memz_group *gp[3] = { &g[0], &g[1], &g[2] };
	struct memz_cgroup web, unit;
	struct seen out = { .n = 0 };

	memset(&s, 0, sizeof s);
	memset(g, 0, sizeof g);
	memset(&web, 0, sizeof web);
	memset(&unit, 0, sizeof unit);
	snprintf(web.n.name, sizeof web.n.name, "docker:web");
	web.has_mem = true;
	web.mem.usage = 3000;
	web.mem.limited = true;
	web.mem.limit = 8000;
	snprintf(unit.n.name, sizeof unit.n.name, "nginx.service");
	unit.has_mem = true;
	unit.mem.usage = 700;
	for (int i = 0; i < 3; i++) {
		g[i].reported = true;
		g[i].pss = 100u - (unsigned)i;
	}
	g[0].name = "/system.slice/docker-x.scope";
	g[0].cgroup = &web;
	g[1].name = "/system.slice/nginx.service";
	g[1].cgroup = &unit;
	g[2].name = "/init.scope";
	s.view.groups = gp;
	s.view.n_groups = 3;

	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	values(r, &s, &out);
	CHECK(val(&out, "docker_web", "memory", "pss") == 100);
	CHECK(val(&out, "docker_web", "memory", "cgroup_usage") == 3000);
	CHECK(val(&out, "docker_web", "memory", "cgroup_limit") == 8000);
	CHECK(val(&out, "nginx.service", "memory", "cgroup_usage") == 700);
	CHECK(!find(&out, "nginx.service", "memory", "cgroup_limit"));
	CHECK(find(&out, "_init.scope", "memory", "pss") != NULL);
	CHECK(!find(&out, "_init.scope", "memory", "cgroup_usage"));
	memz_report_free(&r);
}

/* What a leak is made of: a WARNING after the verdict's, naming the
 * categories in its message and its meta data. */
static void test_leakpart(void)
{
	struct memz_leakpart lp;
	struct cdm_notif m;

	memset(&lp, 0, sizeof lp);
	snprintf(lp.name, sizeof lp.name, "a\nb");
	lp.pid = 7;
	lp.over_s = 300;
	snprintf(lp.text, sizeof lp.text, "heap +12.0 MiB, thread stacks +0 B");
	cdm_leakpart(&lp, &m);
	CHECK(!m.okay);
	CHECK_STR(m.message, "[LEAK?] process a_b (pid 7) is made of: heap "
			     "+12.0 MiB, thread stacks +0 B (PSS change over 300 s)");
	CHECK_STR(m.parts, "heap +12.0 MiB, thread stacks +0 B");
	CHECK_STR(m.kind, "process");
	CHECK_STR(m.plugin_instance, "a_b");
	CHECK_INT(m.pid, 7);
	lp.is_group = true;
	memset(lp.text, 'x', sizeof lp.text - 1);
	lp.text[sizeof lp.text - 1] = '\0';
	cdm_leakpart(&lp, &m);
	CHECK(!strncmp(m.message, "[LEAK?] group a_b (largest member pid 7) is "
				  "made of: xxx", 50));
	CHECK_INT(strlen(m.message), CDM_MESSAGE_MAX - 1);
	CHECK_STR(m.kind, "group");
}

static void test_events(void)
{
	struct memz_event e;
	struct cdm_notif m;

	memset(&e, 0, sizeof e);
	e.kind = MEMZ_EVENT_LEAK;
	e.pid = 4242;
	e.name = "ev\nil\"x/y";
	e.verdict = (struct memz_verdict){ .leak = true, .rate_bps = 262144,
					   .r2 = 0.987, .samples = 12,
					   .confidence = 81 };
	cdm_event(&e, &m);
	CHECK(!m.okay);
	CHECK_STR(m.plugin_instance, "ev_il_x_y");
	CHECK_STR(m.message, "[LEAK?] process ev_il_x/y (pid 4242) grows "
			     "256.0 KiB/s, R^2 0.99 over 12 samples, "
			     "confidence 81%");
	CHECK_STR(m.kind, "process");
	CHECK_STR(m.horizon, "short");
	CHECK_INT(m.pid, 4242);
	CHECK(m.rate_bps == 262144);
	CHECK(m.r2 == 0.987);
	CHECK_INT(m.samples, 12);
	CHECK_INT(m.confidence, 81);

	/* a group of one: the core gives its member's pid, and the message
	 * names the process, so one leak reads the same either way */
	e.is_group = true;
	cdm_event(&e, &m);
	CHECK_INT(m.pid, 4242);
	CHECK_STR(m.kind, "process");
	CHECK(strstr(m.message, "[LEAK?] process ") == m.message);
	CHECK(strstr(m.message, "(pid 4242) grows") != NULL);

	e.kind = MEMZ_EVENT_CLEAR;
	e.is_group = true;
	e.pid = 0;
	e.start = 0;
	e.name = "web";
	e.verdict = (struct memz_verdict){ .rate_bps = 3 * 1048576.0,
					   .r2 = 0.5, .samples = 9,
					   .horizon = MEMZ_HORIZON_LONG };
	cdm_event(&e, &m);
	CHECK(m.okay);
	CHECK_INT(m.pid, 0);
	CHECK_STR(m.kind, "group");
	CHECK_STR(m.horizon, "long");
	CHECK_STR(m.plugin_instance, "web");
	CHECK_STR(m.message, "[LEAK?] cleared: group web is no longer flagged "
			     "(last rate 3.0 MiB/s, R^2 0.50 over 9 buckets)");

	/* a name longer than an instance is cut, never overflows */
	e.name = "0123456789012345678901234567890123456789012345678901234567890123456789";
	cdm_event(&e, &m);
	CHECK_INT(strlen(m.plugin_instance), CDM_INSTANCE_MAX - 1);
	CHECK(strlen(m.message) < CDM_MESSAGE_MAX);
}

/* A group's alarm level, as the notification a collectd user is woken by:
 * severity follows the level, the message names the group and its time. */
static void test_alarm(void)
{
	struct memz_group g;
	struct cdm_oom_notif m;

	memset(&g, 0, sizeof g);
	g.name = "le\naky";
	g.alarm.level = MEMZ_ALARM_WARNING;
	g.alarm.rate_bps = 262144;
	g.alarm.time_left = 81920;
	g.alarm.headroom = 20ull << 30;
	cdm_alarm(&g, &m);
	CHECK_INT(m.severity, CDM_WARNING);
	CHECK_STR(m.plugin_instance, "le_aky");
	CHECK_STR(m.type, "gauge"); /* a level, not a count */
	CHECK_STR(m.type_instance, "leak_alarm");
	CHECK_STR(m.message, "[LEAK] group le_aky grows 256.0 KiB/s; at that "
			     "rate memory runs out in 23 h (20.0 GiB left)");
	CHECK(m.seconds == 81920);
	CHECK(m.rate_bps == 262144);

	g.alarm.level = MEMZ_ALARM_CRITICAL;
	g.alarm.time_left = 1800;
	cdm_alarm(&g, &m);
	CHECK_INT(m.severity, CDM_FAILURE);
	CHECK(strstr(m.message, "runs out in 30 min") != NULL);

	memz_alarm_init(&g.alarm);
	cdm_alarm(&g, &m);
	CHECK_INT(m.severity, CDM_OKAY);
	CHECK_STR(m.message, "[LEAK] cleared: group le_aky no longer grows "
			     "toward running out of memory");
	{
		struct memz_event e = { .kind = MEMZ_EVENT_CLEAR,
					.is_group = true, .name = "a b",
					.alarm_level = MEMZ_ALARM_WARNING };

		cdm_alarm_gone(&e, &m);
		CHECK_INT(m.severity, CDM_OKAY);
		CHECK_STR(m.plugin_instance, "a_b");
		CHECK_STR(m.message,
			  "[LEAK] cleared: group a b has no processes left");
	}
}

static void test_config_text(void)
{
	char buf[64];
	struct memz_settings s;
	char err[256];

	CHECK_INT(cdm_config_text(CDM_CFG_NUMBER, NULL, 10, false, buf, sizeof buf), 0);
	CHECK_STR(buf, "10");
	cdm_config_text(CDM_CFG_NUMBER, NULL, 0.7, false, buf, sizeof buf);
	CHECK_STR(buf, "0.7");
	cdm_config_text(CDM_CFG_NUMBER, NULL, 1e12, false, buf, sizeof buf);
	CHECK_STR(buf, "1000000000000");
	cdm_config_text(CDM_CFG_BOOLEAN, NULL, 0, true, buf, sizeof buf);
	CHECK_STR(buf, "true");
	cdm_config_text(CDM_CFG_STRING, "name", 0, false, buf, sizeof buf);
	CHECK_STR(buf, "name");
	CHECK_INT(cdm_config_text(CDM_CFG_STRING, "toolong", 0, false, buf, 4), -1);

	/* collectd hands TopGroups 5 over as the double 5.0: the integer
	 * setting must accept its text */
	memz_settings_init(&s);
	cdm_config_text(CDM_CFG_NUMBER, NULL, 5.0, false, buf, sizeof buf);
	CHECK_INT(memz_settings_set(&s, "TopGroups", buf, err, sizeof err), 0);
	CHECK_INT(s.top_groups, 5);
}

static void test_config_span(void)
{
	int first, count;
	bool ign;
	char err[128];

	CHECK_INT(cdm_config_span("TopGroups", 1, &first, &count, &ign, err, sizeof err), 0);
	CHECK_INT(first, 0);
	CHECK_INT(count, 1);
	CHECK(!ign);
	CHECK_INT(cdm_config_span("topgroups", 2, &first, &count, &ign, err, sizeof err), -1);
	CHECK_STR(err, "TopGroups: takes exactly one value, got 2");
	/* Process is repeatable, also on one line */
	CHECK_INT(cdm_config_span("Process", 3, &first, &count, &ign, err, sizeof err), 0);
	CHECK_INT(count, 3);
	/* the processes plugin's form: name, regex -> the regex alone */
	CHECK_INT(cdm_config_span("ProcessMatch", 2, &first, &count, &ign, err, sizeof err), 0);
	CHECK_INT(first, 1);
	CHECK_INT(count, 1);
	CHECK(ign);
	CHECK_INT(cdm_config_span("ProcessMatch", 1, &first, &count, &ign, err, sizeof err), 0);
	CHECK_INT(first, 0);
	CHECK(!ign);
	CHECK_INT(cdm_config_span("ProcessMatch", 3, &first, &count, &ign, err, sizeof err), -1);
	CHECK_STR(err, "ProcessMatch: takes a regex, or a name and a regex, got 3 values");
	/* unknown keys pass through to the table's own message */
	CHECK_INT(cdm_config_span("Bogus", 1, &first, &count, &ign, err, sizeof err), 0);
	CHECK_INT(count, 1);
}

static void test_example_conf(void)
{
	const char *top = getenv("top_srcdir");
	char path[1024], line[512], want[512], def[256];
	const struct memz_setting_desc *t;
	struct memz_settings s;
	size_t n;
	FILE *f;
	static char text[32768];
	size_t len;

	snprintf(path, sizeof path, "%s/conf/collectd.d/memz.conf",
		 top ? top : ".");
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	len = fread(text, 1, sizeof text - 1, f);
	text[len] = '\0';
	fclose(f);

	memz_settings_init(&s);
	t = memz_settings_table(&n);
	for (size_t i = 0; i < n; i++) {
		bool quoted = t[i].type == MEMZ_SETTING_PATH ||
			      t[i].type == MEMZ_SETTING_ENUM;
		if (t[i].type == MEMZ_SETTING_LIST ||
		    t[i].type == MEMZ_SETTING_REGEX_LIST) {
			snprintf(want, sizeof want, "#%s \"", t[i].name);
		} else {
			memz_setting_format(&s, &t[i], def, sizeof def);
			snprintf(want, sizeof want, "#  %s %s%s%s\n", t[i].name,
				 quoted ? "\"" : "", def, quoted ? "\"" : "");
		}
		if (!strstr(text, want)) {
			snprintf(line, sizeof line, "%s", want);
			fprintf(stderr, "memz.conf lacks: %s\n", line);
			CHECK(strstr(text, want) != NULL);
		}
	}
}

/* Time to OOM: values per scope (none is NaN), and the notifications. */
static void test_oom(void)
{
	struct memz_report *r;
	struct memz_snapshot s;
	struct seen out = { .n = 0 };
	struct memz_oom_scope *m, *c;
	struct memz_oom_kill *k;
	struct cdm_oom_notif n;

	memset(&s, 0, sizeof s);
	s.oom.n_scopes = 2;
	m = &s.oom.scope[0];
	c = &s.oom.scope[1];
	snprintf(m->id, sizeof m->id, "machine");
	m->seconds = 1500;
	m->available = 370u << 20;
	m->growth_bps = 256 * 1024 * 100 / 92.0;
	m->confidence = 80;
	m->kills = 1;
	m->warn = m->warn_changed = true;
	m->n_drivers = 2;
	snprintf(m->drivers[0].name, sizeof m->drivers[0].name,
		 "memz-demo-leak");
	m->drivers[0].pid = 4242;
	m->drivers[0].rate_bps = 256 * 1024;
	m->drivers[0].share = 0.92;
	snprintf(c->path, sizeof c->path, "/box\n\"x");
	snprintf(c->id, sizeof c->id, "cg_box__x");
	c->seconds = NAN;
	c->available = 1 << 20;

	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	values(r, &s, &out);
	check_types_db(&out);
	CHECK(val(&out, "", "timeleft", "time_to_oom") == 1500);
	CHECK(val(&out, "", "memory", "available") == 370u << 20);
	CHECK(val(&out, "", "count", "oom_kills") == 1);
	CHECK(val(&out, "", "percent", "oom_confidence") == 80);
	CHECK(find(&out, "cg_box__x", "timeleft", "time_to_oom") != NULL);
	CHECK(isnan(val(&out, "cg_box__x", "timeleft", "time_to_oom")));
	CHECK(val(&out, "cg_box__x", "memory", "available") == 1 << 20);
	CHECK(find(&out, "", "memory", "limit") == NULL); /* a detail */
	memz_report_free(&r);

	cdm_oom_forecast(m, &n);
	CHECK_INT(n.severity, CDM_WARNING);
	CHECK_STR(n.plugin_instance, "");
	CHECK_STR(n.type, "timeleft"); /* the value's own type */
	CHECK_STR(n.type_instance, "time_to_oom");
	CHECK_STR(n.message, "[OOM in 25 min] memz-demo-leak grows 256 KiB/s "
			     "(92% of the growth) and others; 370 MiB available");
	CHECK_STR(n.name, "memz-demo-leak");
	CHECK_INT(n.pid, 4242);
	/* warned again as the forecast halves: a new WARNING, new figure */
	m->seconds = 700;
	m->warn_level = 3;
	cdm_oom_forecast(m, &n);
	CHECK_INT(n.severity, CDM_WARNING);
	CHECK(n.seconds == 700);
	CHECK_STR(n.message, "[OOM in 12 min] memz-demo-leak grows 256 KiB/s "
			     "(92% of the growth) and others; 370 MiB available");

	c->warn = false;
	c->warn_changed = true;
	cdm_oom_forecast(c, &n);
	CHECK_INT(n.severity, CDM_OKAY);
	CHECK_STR(n.plugin_instance, "cg_box__x");
	CHECK_STR(n.scope, "/box__x"); /* label-safe */
	CHECK_STR(n.message, "[OOM] cleared: cgroup /box__x: no longer forecast "
			     "to run out of memory; 1.00 MiB available");

	k = &s.oom.kill[0];
	memset(k, 0, sizeof *k);
	snprintf(k->scope, sizeof k->scope, "/box");
	snprintf(k->scope_id, sizeof k->scope_id, "cg_box");
	k->known = true;
	snprintf(k->name, sizeof k->name, "leak\x1b[2J");
	k->pid = 77;
	k->pss = 64u << 20;
	k->leak = true;
	k->leak_confidence = 88;
	k->sure = 90;
	cdm_oom_kill(k, &n);
	CHECK_INT(n.severity, CDM_FAILURE);
	CHECK_STR(n.plugin_instance, "cg_box");
	CHECK_STR(n.type, "count");
	CHECK_STR(n.type_instance, "oom_kills");
	CHECK_STR(n.message, "[OOM KILL] leak_[2J (pid 77) in cgroup /box: PSS "
			     "64.0 MiB, leak suspect (confidence 88%); sure 90%");
	k->known = false;
	k->scope[0] = '\0';
	cdm_oom_kill(k, &n);
	CHECK_STR(n.plugin_instance, "");
	CHECK_STR(n.message, "[OOM KILL] a process on the machine; which one is "
			     "unknown (no process that left fits)");
}

int main(void)
{
	test_user_values();
	test_values();
	test_cgroup_values();
	test_leakpart();
	test_oom();
	test_events();
	test_alarm();
	test_config_text();
	test_config_span();
	test_example_conf();
	return check_status();
}
