/*
 * memz inspect --samples N follows the process, not the pid: when the pid
 * is another process's by the last look (its stat gives another start
 * time), it says the process exited instead of showing the other one. The
 * fixture is changed between two cycles of the watch through
 * cli_inspect_between (cli.h), so nothing waits on a clock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* optind = 0: getopt starts over */
#endif

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"

static char dir[] = "/tmp/memz-cliinspect-XXXXXX";
static char stat_text[1024];
static unsigned hook_calls;

/* pid 100 is now another process: its stat gives a later start */
static void reuse_pid(unsigned cycle)
{
	char path[128], *start;
	FILE *f;

	hook_calls++;
	if (cycle != 0)
		return;
	start = strstr(stat_text, " 500000 ");
	CHECK(start != NULL);
	if (!start)
		return;
	memcpy(start, " 500100 ", 8);
	snprintf(path, sizeof path, "%s/proc/100/stat", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(stat_text, f);
	fclose(f);
}

static void keep_pid(unsigned cycle)
{
	(void)cycle;
	hook_calls++;
}

/* memz inspect 100 -n samples on the copy; its exit status, stderr in err */
static int inspect(const char *samples, char *err, size_t cap)
{
	char proc[128], sys[128], errf[128];
	char *argv[] = { "inspect", "100", "-n", (char *)samples, "-i", "0.001",
			 "--set", proc, "--set", sys, NULL };
	int saved_out, saved_err, fd, rc;
	ssize_t n;

	snprintf(proc, sizeof proc, "ProcRoot=%s/proc", dir);
	snprintf(sys, sizeof sys, "SysRoot=%s/sys", dir);
	snprintf(errf, sizeof errf, "%s/err", dir);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 1);
	close(fd);
	optind = 0;
	rc = cli_inspect(10, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	fd = open(errf, O_RDONLY);
	n = fd >= 0 ? read(fd, err, cap - 1) : -1;
	err[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return rc;
}

static void put_stat(void)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/proc/100/stat", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(stat_text, f);
		fclose(f);
	}
}

int main(void)
{
	char cmd[512], err[4096], path[128];
	const char *orig = " 500100 ";
	FILE *f;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof cmd, "cp -r '%s/cli/proc' '%s/cli/sys' '%s/'",
		 MEMZ_FIXTURES, MEMZ_FIXTURES, dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof path, "%s/proc/100/stat", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = f ? fread(stat_text, 1, sizeof stat_text - 1, f) : 0;
	stat_text[n] = '\0';
	if (f)
		fclose(f);

	/* the same process throughout: shown */
	cli_inspect_between = keep_pid;
	CHECK_INT(inspect("2", err, sizeof err), 0);
	CHECK_INT(hook_calls, 1);
	CHECK_STR(err, "");

	/* reused after the first look and the first cycle: exited */
	hook_calls = 0;
	cli_inspect_between = reuse_pid;
	CHECK_INT(inspect("2", err, sizeof err), 1);
	CHECK_INT(hook_calls, 1);
	CHECK_STR(err, "memz inspect: process 100 exited (pid 100 is another "
		       "process's now)\n");

	/* -n 3: the first cycle knows the start, the last look tells */
	memcpy(strstr(stat_text, orig), " 500000 ", 8);
	put_stat();
	hook_calls = 0;
	CHECK_INT(inspect("3", err, sizeof err), 1);
	CHECK_INT(hook_calls, 2);
	CHECK(strstr(err, "process 100 exited") != NULL);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return check_status();
}
