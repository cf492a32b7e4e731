/*
 * test_users - uid to name for GroupBy user: the passwd parser's bounds on
 * a hostile file (tests/fixtures/users/passwd), re-reading only when the
 * file changed, and the names as group names through the sampler on the
 * tree1 fixture (uids 0 and 1000).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
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

int main(void)
{
	fixture_file();
	bounds();
	refresh();
	by_user(PASSWD, "root", "alice");
	by_user(MEMZ_FIXTURES "/users/no-such-passwd", "0", "1000");
	return check_status();
}
