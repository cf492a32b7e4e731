/* The new-pid watch: the loadavg parser, when the watch turns itself on, and
 * what it says on a fixture tree and on the live /proc. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "memz/pidwatch.h"

static int tasks;

static int parse(const char *s, int *out)
{
	*out = -1;
	tasks = -1;
	return memz_parse_loadavg_pids(s, strlen(s), &tasks, out);
}

static void parser(void)
{
	int v;

	CHECK_INT(parse("0.30 0.57 1.75 2/345 12345\n", &v), 0);
	CHECK_INT(v, 12345);
	CHECK_INT(tasks, 345);
	CHECK_INT(parse("0.00 0.00 0.00 1/1 1", &v), 0);
	CHECK_INT(v, 1);
	CHECK_INT(tasks, 1);
	CHECK_INT(parse("10.50 3.00 1.00 12/1024 4194304 \n", &v), 0);
	CHECK_INT(v, 4194304);
	CHECK_INT(tasks, 1024);

	CHECK_INT(parse("", &v), -EINVAL);
	CHECK_INT(parse("\n", &v), -EINVAL);
	CHECK_INT(parse("12345\n", &v), -EINVAL); /* no running/total before */
	CHECK_INT(parse("1/2 12345\n", &v), -EINVAL); /* nor averages */
	/* no last pid: "2/345" is not a number, "1.75" has no slash */
	CHECK_INT(parse("0.30 0.57 1.75 2/345\n", &v), -EINVAL);
	CHECK_INT(parse("0.30 0.57 1.75 2/345 12x45\n", &v), -EINVAL);
	CHECK_INT(parse("0.30 0.57 1.75 2/345 -1\n", &v), -EINVAL);
	CHECK_INT(parse("0.30 0.57 1.75 2/ 12345\n", &v), -EINVAL);
	CHECK_INT(parse("0.30 0.57 1.75 2/3x5 12345\n", &v), -EINVAL);
	CHECK_INT(parse("0.30 0.57 1.75 2/345 99999999999\n", &v), -ERANGE);
	CHECK_INT(parse("0.30 0.57 1.75 2/99999999999 1\n", &v), -ERANGE);
	CHECK_INT(parse("0.30 0.57 1.75 2/345 99999999999999999999999\n", &v),
		  -ERANGE);
	CHECK_INT(v, -1); /* untouched on error */
	CHECK_INT(tasks, -1);
}

static char tmp[] = "/tmp/memz-pidwatch.XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmp, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void self_link(long pid)
{
	char path[256], target[32];

	snprintf(path, sizeof path, "%s/self", tmp);
	unlink(path);
	snprintf(target, sizeof target, "%ld", pid);
	CHECK_INT(symlink(target, path), 0);
}

/* tmp/<our pid>/ns/pid, the link self/ns/pid resolves to, naming ns. */
static void ns_link(const char *ns)
{
	char path[256];

	snprintf(path, sizeof path, "%s/%ld", tmp, (long)getpid());
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%ld/ns", tmp, (long)getpid());
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%ld/ns/pid", tmp, (long)getpid());
	unlink(path);
	CHECK_INT(symlink(ns, path), 0);
}

/* Open a watch on tmp, as the sampler does with ProcRoot. */
static void open_watch(struct memz_pidwatch *w)
{
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	CHECK(dfd >= 0);
	memz_pidwatch_init(w);
	memz_pidwatch_open(w, dfd);
	close(dfd);
}

#define BOTH (MEMZ_PIDWATCH_NEW | MEMZ_PIDWATCH_GONE)

/* The span of pids handed out between two reads and the change in the task
 * count; still-ness is a third read that leaves them alone. */
static void span_and_still(void)
{
	struct memz_pidwatch w;
	int from = -1, to = -1, delta = -99;

	put("loadavg", "0.00 0.00 0.00 1/100 500\n");
	open_watch(&w);
	CHECK(!memz_pidwatch_span(&w, &from, &to, &delta)); /* no read yet */
	CHECK(!memz_pidwatch_still(&w));
	memz_pidwatch_changed(&w);
	CHECK(!memz_pidwatch_span(&w, &from, &to, &delta)); /* one read */
	CHECK(memz_pidwatch_still(&w));
	put("loadavg", "0.00 0.00 0.00 1/98 510\n");
	CHECK(!memz_pidwatch_still(&w));
	CHECK(!memz_pidwatch_still(&w)); /* it changed nothing */
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	CHECK(memz_pidwatch_span(&w, &from, &to, &delta));
	CHECK_INT(from, 500);
	CHECK_INT(to, 510);
	CHECK_INT(delta, -2);
	CHECK(memz_pidwatch_still(&w));
	put("loadavg", "0.00 0.00 0.00 1/97 510\n"); /* an exit, no fork */
	CHECK(!memz_pidwatch_still(&w));
	CHECK_INT(memz_pidwatch_changed(&w), MEMZ_PIDWATCH_GONE);
	CHECK(memz_pidwatch_span(&w, &from, &to, &delta));
	CHECK_INT(from, 510);
	CHECK_INT(to, 510);
	CHECK_INT(delta, -1);
	put("loadavg", "0.00 0.00 0.00 1/99 7\n"); /* wrapped: not a span */
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	CHECK(!memz_pidwatch_span(&w, &from, &to, &delta));
	put("loadavg", "garbled\n");
	memz_pidwatch_changed(&w);
	CHECK(!memz_pidwatch_still(&w));
	put("loadavg", "0.00 0.00 0.00 1/99 9\n");
	memz_pidwatch_changed(&w); /* after a failed read: starts over */
	CHECK(!memz_pidwatch_span(&w, &from, &to, &delta));
	memz_pidwatch_changed(&w);
	CHECK(memz_pidwatch_span(&w, &from, &to, &delta));
	CHECK_INT(from, 9);
	memz_pidwatch_release(&w);
}

static void fixture(void)
{
	struct memz_pidwatch w;

	if (!mkdtemp(tmp)) {
		CHECK(0);
		return;
	}
	/* off: always "new and gone" */
	open_watch(&w); /* no self, no loadavg */
	CHECK(!memz_pidwatch_on(&w));
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	memz_pidwatch_release(&w);

	put("loadavg", "0.00 0.00 0.00 1/100 500\n");
	open_watch(&w); /* loadavg but no self: another namespace's, maybe */
	CHECK(!memz_pidwatch_on(&w));
	memz_pidwatch_release(&w);

	self_link((long)getpid() + 1); /* not us: another namespace */
	open_watch(&w);
	CHECK(!memz_pidwatch_on(&w));
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	memz_pidwatch_release(&w);

	self_link((long)getpid());
	put("loadavg", "0.00 0.00 0.00 1/100 0\n"); /* a kernel that says 0 */
	open_watch(&w);
	CHECK(!memz_pidwatch_on(&w));
	memz_pidwatch_release(&w);

	put("loadavg", "garbled\n");
	open_watch(&w);
	CHECK(!memz_pidwatch_on(&w));
	memz_pidwatch_release(&w);

	/* in a container: new pids are told, exits never ruled out, since
	 * the count is every namespace's (a fork on the host hides an exit) */
	ns_link("pid:[4026532199]");
	put("loadavg", "0.00 0.00 0.00 1/100 500\n");
	open_watch(&w);
	CHECK(memz_pidwatch_on(&w));
	CHECK(!memz_pidwatch_counts_exits(&w));
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	CHECK_INT(memz_pidwatch_changed(&w), MEMZ_PIDWATCH_GONE);
	CHECK(!memz_pidwatch_still(&w));
	put("loadavg", "0.00 0.00 0.00 1/99 504\n");
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	{
		int from = -1, to = -1, delta = -99;

		CHECK(memz_pidwatch_span(&w, &from, &to, &delta));
		CHECK_INT(from, 500);
		CHECK_INT(to, 504);
		CHECK_INT(delta, 0);
	}
	memz_pidwatch_release(&w);

	/* on, in the initial namespace */
	ns_link("pid:[4026531836]");
	put("loadavg", "0.00 0.00 0.00 1/100 500\n");
	open_watch(&w);
	CHECK(memz_pidwatch_on(&w));
	CHECK(memz_pidwatch_counts_exits(&w));
	CHECK_INT(memz_pidwatch_changed(&w), BOTH); /* the first look */
	CHECK_INT(memz_pidwatch_changed(&w), 0);
	CHECK_INT(memz_pidwatch_changed(&w), 0);
	put("loadavg", "0.10 0.00 0.00 2/101 501\n"); /* a fork */
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	CHECK_INT(memz_pidwatch_changed(&w), 0);
	put("loadavg", "0.50 0.10 0.00 1/100 501\n"); /* an exit */
	CHECK_INT(memz_pidwatch_changed(&w), MEMZ_PIDWATCH_GONE);
	CHECK_INT(memz_pidwatch_changed(&w), 0);
	put("loadavg", "0.50 0.10 0.00 3/100 501\n"); /* only the load moved */
	CHECK_INT(memz_pidwatch_changed(&w), 0);
	put("loadavg", "0.50 0.10 0.00 1/100 300\n"); /* pids wrapped around */
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	/* a read that does not parse says both, and the next good one
	 * starts over rather than comparing with a value from before it */
	put("loadavg", "0.50 0.10 0.00\n");
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	put("loadavg", "0.50 0.10 0.00 1/100 300\n");
	CHECK_INT(memz_pidwatch_changed(&w), BOTH);
	CHECK_INT(memz_pidwatch_changed(&w), 0);
	memz_pidwatch_release(&w);
	CHECK(!memz_pidwatch_on(&w));
	memz_pidwatch_release(&w); /* twice is fine */

	span_and_still();

	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
		CHECK_INT(system(cmd), 0);
	}
}

/* On the live /proc of our own namespace the watch is on, and a fork is
 * seen. (That nothing changed cannot be asserted: the machine is shared.) */
static void live(void)
{
	struct memz_pidwatch w;
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pid_t pid;

	CHECK(dfd >= 0);
	memz_pidwatch_init(&w);
	memz_pidwatch_open(&w, dfd);
	close(dfd);
	CHECK(memz_pidwatch_on(&w));
	{
		char link[64] = "";
		ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);

		if (n > 0)
			link[n] = '\0';
		CHECK(memz_pidwatch_counts_exits(&w) ==
		      !strcmp(link, "pid:[4026531836]"));
	}
	memz_pidwatch_changed(&w);
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0);
	waitpid(pid, NULL, 0);
	CHECK(memz_pidwatch_changed(&w) & MEMZ_PIDWATCH_NEW);
	memz_pidwatch_release(&w);
}

int main(void)
{
	parser();
	fixture();
	live();
	return check_status();
}
