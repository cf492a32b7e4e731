/*
 * test_users - uid to name for GroupBy user: the passwd parser's bounds on
 * a hostile file (tests/fixtures/users/passwd), re-reading only when the
 * file changed, names kept unique, and the names as group names through
 * the sampler on the tree1 fixture (uids 0 and 1000); the per-user totals
 * beside any grouping, their publication and their report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/report.h"
#include "memz/sampler.h"
#include "memz/users.h"
#include "sampler_util.h"

#define PASSWD MEMZ_FIXTURES "/users/passwd"

static void fixture_file(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_users us;

	memz_users_init(&us);
	CHECK_INT(memz_users_refresh(&us, PASSWD, a), 0);
	CHECK_INT(us.n, 6);
	CHECK_STR(memz_users_name(&us, 0), "root"); /* not toor: first wins */
	CHECK_STR(memz_users_name(&us, 1), "daemon");
	CHECK_STR(memz_users_name(&us, 1000), "alice");
	CHECK_STR(memz_users_name(&us, 11), "ev__2J_l"); /* ESC, [ and blank */
	CHECK_STR(memz_users_name(&us, 33), "www-data");
	CHECK_STR(memz_users_name(&us, 14), "hank");     /* no final newline */
	/* an empty name, a sign, a blank, junk, uid -1, an overflow, a name
	 * too long to keep whole, a cut line, a compat entry: no one */
	for (uint32_t uid = 2; uid < 14; uid++)
		if (uid != 11)
			CHECK(memz_users_name(&us, uid) == NULL);
	CHECK(memz_users_name(&us, 7) == NULL);
	CHECK(memz_users_name(&us, 4294967295u) == NULL);
	CHECK(memz_users_name(&us, 999) == NULL);
	memz_users_free(&us, a);
}

static void bounds(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_users us;
	char *big;
	size_t n = 0;

	memz_users_init(&us);
	/* more users than the bound: the first MEMZ_USERS_MAX kept */
	big = malloc((size_t)(MEMZ_USERS_MAX + 10) * 24);
	CHECK(big != NULL);
	if (!big)
		return;
	for (unsigned i = 0; i < MEMZ_USERS_MAX + 10; i++)
		n += (size_t)sprintf(big + n, "u%u:x:%u:0::/:\n", i, i);
	CHECK_INT(memz_users_parse(&us, big, n, a), 0);
	CHECK_INT(us.n, MEMZ_USERS_MAX);
	CHECK_STR(memz_users_name(&us, MEMZ_USERS_MAX - 1), "u65535");
	CHECK(memz_users_name(&us, MEMZ_USERS_MAX) == NULL);
	free(big);
	/* empty, and the name exactly as long as kept */
	CHECK_INT(memz_users_parse(&us, "", 0, a), 0);
	CHECK_INT(us.n, 0);
	CHECK_INT(memz_users_parse(&us,
		"abcdefghijklmnopqrstuvwxyz012345:x:7:7::/:\n", 44, a), 0);
	CHECK_STR(memz_users_name(&us, 7), "abcdefghijklmnopqrstuvwxyz012345");
	memz_users_free(&us, a);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* Read once; a cycle with the file unchanged allocates nothing; a change
 * is read; a file gone names no one. */
static void refresh(void)
{
	struct counting c = { 0, 0, 0 };
	struct memz_allocator ca = { counting_realloc, &c };
	char dir[] = "/tmp/memz-users.XXXXXX", path[64];
	struct memz_users us;
	unsigned long allocs;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/passwd", dir);
	write_file(path, "root:x:0:0::/:\nalice:x:1000:1000::/:\n");
	memz_users_init(&us);
	CHECK_INT(memz_users_refresh(&us, path, &ca), 0);
	CHECK_STR(memz_users_name(&us, 1000), "alice");
	allocs = c.allocs;
	for (int i = 0; i < 5; i++)
		CHECK_INT(memz_users_refresh(&us, path, &ca), 0);
	CHECK_INT(c.allocs, allocs);
	/* renamed (the size changes, whatever the clock's granularity) */
	write_file(path, "root:x:0:0::/:\nalicia:x:1000:1000::/:\n");
	CHECK_INT(memz_users_refresh(&us, path, &ca), 0);
	CHECK_STR(memz_users_name(&us, 1000), "alicia");
	unlink(path);
	CHECK_INT(memz_users_refresh(&us, path, &ca), -ENOENT);
	CHECK(memz_users_name(&us, 1000) == NULL);
	CHECK_INT(memz_users_refresh(&us, path, &ca), -ENOENT);
	/* not a regular file: never opened (a FIFO would block) */
	CHECK_INT(memz_users_refresh(&us, dir, &ca), -EISDIR);
	CHECK_INT(us.n, 0);
	memz_users_free(&us, &ca);
	CHECK_INT(c.live, 0);
	rmdir(dir);
}

static const struct memz_group *group_named(const struct memz_snapshot *s,
					    const char *name)
{
	for (size_t i = 0; i < s->view.n_groups; i++)
		if (!strcmp(s->view.groups[i]->name, name))
			return s->view.groups[i];
	return NULL;
}

/* tree1 by user: pids 1 and 100 are uid 0's, 200, 201 and 300 uid 1000's
 * (tests/fixtures/README); named from the fixture passwd file, or by
 * number where it cannot be read. */
static void by_user(const char *passwd, const char *name0,
		    const char *name1000)
{
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	const struct memz_group *g;

	settings_for(&set, "tree1");
	CHECK_INT(memz_settings_set(&set, "GroupBy", "user", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "PasswdFile", passwd, NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	if (!s)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 10.0, &snap), 0);
	CHECK_INT(snap.view.n_groups, 2);
	g = group_named(&snap, name0);
	CHECK(g != NULL);
	if (g)
		CHECK_INT(g->members, 2);
	g = group_named(&snap, name1000);
	CHECK(g != NULL);
	if (g)
		CHECK_INT(g->members, 3);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
}

/* Two names that sanitise alike, and a name that is another uid's number:
 * each user keeps a name of its own, the lowest uid the plain one. */
static void unique_names(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	static const char text[] = "a b:x:1001:1::/:\n"
				   "a_b:x:1000:1::/:\n"
				   "a?b:x:1002:1::/:\n"
				   "1000:x:5:5::/:\n"
				   "7:x:7:7::/:\n"
				   "abcdefghijklmnopqrstuvwxyz01234_:x:70000:1::/:\n"
				   "abcdefghijklmnopqrstuvwxyz01234?:x:4000000000:1::/:\n";
	struct memz_users us;

	memz_users_init(&us);
	CHECK_INT(memz_users_parse(&us, text, sizeof text - 1, a), 0);
	CHECK_INT(us.n, 7);
	CHECK_STR(memz_users_name(&us, 1000), "a_b");
	CHECK_STR(memz_users_name(&us, 1001), "a_b_1001");
	CHECK_STR(memz_users_name(&us, 1002), "a_b_1002");
	CHECK_STR(memz_users_name(&us, 5), "1000_5");
	CHECK_STR(memz_users_name(&us, 7), "7"); /* its own number */
	CHECK_STR(memz_users_name(&us, 70000),
		  "abcdefghijklmnopqrstuvwxyz01234_");
	/* the same once sanitised: cut so that the suffix fits the 32 bytes
	 * kept */
	CHECK_STR(memz_users_name(&us, 4000000000u),
		  "abcdefghijklmnopqrstu_4000000000");
	memz_users_free(&us, a);
}

static struct memz_user_sample sample(uint32_t uid, uint64_t pss,
				      double start)
{
	return (struct memz_user_sample){ .uid = uid, .threads = 2,
					  .pss = pss, .uss = pss / 2,
					  .rss = pss * 2, .swap = 1,
					  .anon = pss / 4, .start = start };
}

static const struct memz_user_total *
total_of(const struct memz_user_totals *ut, uint32_t uid)
{
	for (size_t i = 0; i < ut->n; i++)
		if (ut->order[i]->uid == uid)
			return ut->order[i];
	return NULL;
}

/* The totals alone: sums, order, names, the publication rule (TopUsers,
 * PublishAfter from the oldest process, PublishHold), a uid gone, and no
 * allocation in a steady cycle. */
static void totals(void)
{
	struct counting c = { 0, 0, 0 };
	struct memz_allocator ca = { counting_realloc, &c };
	struct memz_user_totals ut;
	struct memz_users us;
	const struct memz_user_total *u;
	struct memz_user_sample sm;
	unsigned long allocs;

	memz_users_init(&us);
	CHECK_INT(memz_users_parse(&us, "alice:x:1000:1::/:\n", 19, &ca), 0);
	memz_user_totals_init(&ut);

	/* t=100: uid 1000 has two processes, one started at 0; uid 33 one
	 * started at 90; TopUsers 1, PublishAfter 60, PublishHold 300 */
	memz_user_totals_begin(&ut);
	sm = sample(1000, 300, 50);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	sm = sample(33, 100, 90);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	sm = sample(1000, 200, 0);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	CHECK_INT(memz_user_totals_end(&ut, &us, 100, 1, 60, 300, &ca), 0);
	CHECK_INT(ut.n, 2);
	CHECK_INT(ut.order[0]->uid, 1000);
	u = total_of(&ut, 1000);
	CHECK_STR(u->name, "alice");
	CHECK_INT(u->members, 2);
	CHECK_INT(u->threads, 4);
	CHECK_INT(u->pss, 500);
	CHECK_INT(u->uss, 250);
	CHECK_INT(u->rss, 1000);
	CHECK_INT(u->swap, 2);
	CHECK_INT(u->anon, 75 + 50);
	CHECK(u->reported); /* 100 s old, the largest */
	u = total_of(&ut, 33);
	CHECK_STR(u->name, "33"); /* not in the file */
	CHECK(!u->reported);      /* not among the TopUsers 1 largest */

	/* t=110: uid 33 grew past alice: it is the largest but 20 s old, so
	 * not yet; alice is held */
	allocs = c.allocs;
	memz_user_totals_begin(&ut);
	sm = sample(1000, 500, 0);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	sm = sample(33, 900, 90);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	CHECK_INT(memz_user_totals_end(&ut, &us, 110, 1, 60, 300, &ca), 0);
	CHECK_INT(c.allocs, allocs); /* steady: nothing allocated */
	CHECK_INT(ut.order[0]->uid, 33);
	CHECK(!total_of(&ut, 33)->reported);
	CHECK(total_of(&ut, 1000)->reported);
	CHECK_INT(total_of(&ut, 1000)->members, 1);

	/* t=200: uid 33 is 110 s old and the largest: reported; alice fell
	 * out at 100 and is held until 400 */
	memz_user_totals_begin(&ut);
	sm = sample(1000, 500, 0);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	sm = sample(33, 900, 90);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	CHECK_INT(memz_user_totals_end(&ut, &us, 200, 1, 60, 300, &ca), 0);
	CHECK(total_of(&ut, 33)->reported);
	CHECK(total_of(&ut, 1000)->reported);
	memz_user_totals_begin(&ut);
	sm = sample(1000, 500, 0);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	sm = sample(33, 900, 90);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	CHECK_INT(memz_user_totals_end(&ut, &us, 400.5, 1, 60, 300, &ca), 0);
	CHECK(total_of(&ut, 33)->reported);
	CHECK(!total_of(&ut, 1000)->reported);

	/* uid 33's processes are gone: so is its line */
	memz_user_totals_begin(&ut);
	sm = sample(1000, 500, 0);
	CHECK_INT(memz_user_totals_add(&ut, &sm, &ca), 0);
	CHECK_INT(memz_user_totals_end(&ut, &us, 401, 1, 60, 300, &ca), 0);
	CHECK_INT(ut.n, 1);
	CHECK(total_of(&ut, 33) == NULL);
	CHECK(total_of(&ut, 1000)->reported); /* the largest again */

	memz_user_totals_free(&ut, &ca);
	memz_users_free(&us, &ca);
	CHECK_INT(c.live, 0);
}

static const struct memz_user_total *user_named(const struct memz_snapshot *s,
						const char *name)
{
	for (size_t i = 0; i < s->view.n_users; i++)
		if (!strcmp(s->view.users[i]->name, name))
			return s->view.users[i];
	return NULL;
}

/* tree1 grouped by name (the default): the per-user totals are there
 * beside the groups, each user's processes summed (tests/fixtures/README:
 * root has init and sshd, alice the two workers and bash), and the report
 * publishes a user only once it is PublishAfter old: alice's oldest process
 * is 49 s old at the first cycle, root's 99.95 s. */
static void totals_in_snapshot(void)
{
	struct memz_settings set;
	struct memz_sampler *s = NULL;
	struct memz_snapshot snap;
	struct memz_report *r = NULL;
	const struct memz_report_view *rv;
	const struct memz_user_total *u;

	settings_for(&set, "tree1");
	CHECK_INT(memz_settings_set(&set, "PasswdFile", PASSWD, NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	if (!s || !r)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 10.0, &snap), 0);
	CHECK(snap.view.n_groups > 2); /* by name: init, sshd, worker, bash */
	CHECK_INT(snap.view.n_users, 2);
	u = snap.view.users[0];
	CHECK_STR(u->name, "alice");
	CHECK_INT(u->uid, 1000);
	CHECK_INT(u->members, 3);
	CHECK_INT(u->pss, (11520 + 21760 + 1408) * 1024ull);
	CHECK_INT(u->uss, (10496 + 20736 + 1152) * 1024ull);
	CHECK_INT(u->rss, (13568 + 23808 + 2176) * 1024ull);
	CHECK_INT(u->anon, (10240 + 20480 + 1024) * 1024ull);
	CHECK(!u->reported);
	u = user_named(&snap, "root");
	CHECK(u != NULL);
	if (u) {
		CHECK_INT(u->members, 2);
		CHECK_INT(u->pss, (5632 + 3072) * 1024ull);
		CHECK_INT(u->anon, (4096 + 2048) * 1024ull);
		CHECK(u->reported);
	}
	CHECK_INT(memz_report_update(r, &snap, &rv), 0);
	CHECK_INT(rv->n_users, 1);
	CHECK_STR(rv->users[0]->name, "root");
	CHECK_INT(memz_series_value(memz_series_find(&memz_series_user, "pss"),
				    rv->users[0]),
		  (5632 + 3072) * 1024.0);

	/* 11 s later alice is 60 s old: both published, largest first */
	CHECK_INT(memz_sampler_run(s, 21.0, &snap), 0);
	CHECK_INT(memz_report_update(r, &snap, &rv), 0);
	CHECK_INT(rv->n_users, 2);
	CHECK_STR(rv->users[0]->name, "alice");
	CHECK_STR(rv->users[1]->name, "root");
	memz_report_free(&r);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);

	/* TopUsers 0: listed, never published */
	settings_for(&set, "tree1");
	CHECK_INT(memz_settings_set(&set, "TopUsers", "0", NULL, 0), 0);
	CHECK_INT(memz_settings_set(&set, "PublishAfter", "0", NULL, 0), 0);
	CHECK_INT(memz_sampler_new(&s, &set, memz_allocator_libc()), 0);
	CHECK_INT(memz_report_new(&r, memz_allocator_libc()), 0);
	if (!s || !r)
		return;
	memz_snapshot_init(&snap);
	CHECK_INT(memz_sampler_run(s, 10.0, &snap), 0);
	CHECK_INT(snap.view.n_users, 2);
	CHECK_INT(memz_report_update(r, &snap, &rv), 0);
	CHECK_INT(rv->n_users, 0);
	memz_report_free(&r);
	memz_snapshot_release(&snap);
	memz_sampler_free(&s);
}

int main(void)
{
	unique_names();
	totals();
	totals_in_snapshot();
	fixture_file();
	bounds();
	refresh();
	by_user(PASSWD, "root", "alice");
	by_user(MEMZ_FIXTURES "/users/no-such-passwd", "0", "1000");
	return check_status();
}
