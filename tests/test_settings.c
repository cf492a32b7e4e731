#include <errno.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "memz/settings.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void refused(const char *pat, const char *why)
{
	struct memz_settings s;
	char err[512], want[512];
	double t0 = cpu_now();

	memz_settings_init(&s);
	CHECK_INT(memz_settings_set(&s, "ProcessMatch", pat, err, sizeof err),
		  -EINVAL);
	/* without the check regcomp takes seconds to minutes on these */
	CHECK(cpu_now() - t0 < 0.5);
	snprintf(want, sizeof want,
		 "ProcessMatch: \"%s\" is too costly to compile: it %s", pat, why);
	CHECK_STR(err, want);
	CHECK_INT(s.process_match.n, 0);
}

static void accepted(const char *pat)
{
	struct memz_settings s;
	char err[512] = "";

	memz_settings_init(&s);
	CHECK_INT(memz_settings_set(&s, "ProcessMatch", pat, err, sizeof err), 0);
	if (*err)
		fprintf(stderr, "%s: %s\n", pat, err);
	CHECK_INT(s.process_match.n, 1);
}

/* The review's reproducer: "a" and 25 "+", 26 bytes, 10 s and 7 GB in
 * regcomp; and the other shapes whose cost explodes. */
static void costly_regex(void)
{
	char plus[32] = "a", nest[128] = "";
	char why[128];

	memset(plus + 1, '+', 25);
	plus[26] = '\0';
	refused(plus, "nests repetitions 4 deep (at most 3)");
	for (int i = 0; i < 30; i++)
		strcat(nest, "(");
	strcat(nest, "a");
	for (int i = 0; i < 30; i++)
		strcat(nest, ")+");
	refused(nest, "nests repetitions 4 deep (at most 3)");
	refused("a{1,32767}", "repeats 32767 times (at most 255)");
	refused("a{256}", "repeats 256 times (at most 255)");
	refused("a{,32767}", "repeats 32767 times (at most 255)");
	refused("((a{1,100}){1,100}){1,100}", "repeats to more than 10000 atoms");
	refused("a{1,255}{1,255}", "repeats to more than 10000 atoms");
	refused("(a{1,200}b{1,200}c{1,200}){1,20}",
		"repeats to more than 10000 atoms");

	CHECK_INT(memz_regex_check("a++++", why, sizeof why), -E2BIG);
	CHECK_INT(memz_regex_check("a+++", why, sizeof why), 0);

	/* what people write, and operators that are not repetitions */
	accepted("^(java|python[0-9.]*)$");
	accepted("^kworker/[0-9]+:[0-9]+H?$");
	accepted("[[:alpha:]_]{1,255}");
	accepted("x{0,255}y{0,255}z{0,255}");
	accepted("((a{1,10}){1,10}){1,10}");
	accepted("[+*?{]+[]+*]*\\+\\+\\+\\+\\+");
	accepted("a{,3}");
}

int main(void)
{
	struct memz_settings s, before;
	char err[512], buf[512];
	size_t n;
	const struct memz_setting_desc *t = memz_settings_table(&n);

	memz_settings_init(&s);
	CHECK_STR(s.proc_root, "/proc");
	CHECK_STR(s.sys_root, "/sys");
	CHECK_INT(s.group_by, MEMZ_GROUP_NAME);
	CHECK_INT(s.top_groups, 10);
	CHECK_INT(s.leak_min_samples, 8);
	CHECK_NEAR(s.leak_min_rate, 32768, 0);
	CHECK_NEAR(s.leak_min_r2, 0.7, 1e-12);
	CHECK_NEAR(s.leak_max_dip, 0.333, 1e-12);
	CHECK_NEAR(s.cpu_budget, 1, 0);
	/* every process of an 8,000-process machine keeps its statm fd, so
	 * the cost per process stays flat (README, "What it costs") */
	CHECK_INT(s.max_open_files, 16384);
	CHECK_INT(s.pace, MEMZ_PACE_AUTO);
	CHECK_INT(s.process.n, 0);
	/* no read of smaps (leak parts) or smaps_rollup stalls a process for
	 * more than 10 ms: both walk its page tables under its mmap lock at
	 * about 17 ms per GiB resident (issue 26) */
	CHECK_NEAR(s.exact_max_rss, 512.0 * 1048576, 0);
	CHECK_NEAR(s.leak_parts_max_rss, 512.0 * 1048576, 0);

	/* every default parses and formats back to itself */
	for (size_t i = 0; i < n; i++) {
		CHECK(t[i].name && t[i].help && *t[i].help);
		CHECK(memz_setting_find(t[i].name) == &t[i]);
		if (!*t[i].def)
			continue;
		CHECK_INT(memz_setting_format(&s, &t[i], buf, sizeof buf), 0);
		CHECK_STR(buf, t[i].def);
	}

	/* names are case-insensitive, as in collectd.conf */
	CHECK_INT(memz_settings_set(&s, "groupby", "Exe", err, sizeof err), 0);
	CHECK_INT(s.group_by, MEMZ_GROUP_EXE);
	CHECK_INT(memz_settings_set(&s, "LeakMinR2", "0.9", err, sizeof err), 0);
	CHECK_NEAR(s.leak_min_r2, 0.9, 1e-12);
	CHECK_INT(memz_settings_set(&s, "ProcRoot", "/tmp/x", err, sizeof err), 0);
	CHECK_STR(s.proc_root, "/tmp/x");

	/* errors name the setting, the value and what is allowed; s unchanged */
	before = s;
	CHECK_INT(memz_settings_set(&s, "LeakMinR2", "1.5", err, sizeof err),
		  -ERANGE);
	CHECK_STR(err, "LeakMinR2: \"1.5\" is out of range (a number from 0 to 1)");
	CHECK_INT(memz_settings_set(&s, "TopGroups", "12abc", err, sizeof err),
		  -EINVAL);
	CHECK_STR(err, "TopGroups: \"12abc\" is not an integer from 0 to 1000");
	CHECK_INT(memz_settings_set(&s, "TopGroups", "", err, sizeof err), -EINVAL);
	CHECK_INT(memz_settings_set(&s, "TopGroups", "99999999999999999999", err,
				    sizeof err), -EINVAL);
	CHECK_INT(memz_settings_set(&s, "LeakMinRate", "nan", err, sizeof err),
		  -EINVAL);
	CHECK_INT(memz_settings_set(&s, "GroupBy", "color", err, sizeof err),
		  -EINVAL);
	CHECK_STR(err, "GroupBy: \"color\" is not one of name, exe, cgroup, user, none");
	CHECK_INT(memz_settings_set(&s, "Bogus", "1", err, sizeof err), -EINVAL);
	CHECK(strstr(err, "unknown setting \"Bogus\" (value \"1\")") == err);
	CHECK(strstr(err, "LeakMinRate") != NULL);
	CHECK_INT(memz_settings_set(&s, "ProcessMatch", "(", err, sizeof err),
		  -EINVAL);
	CHECK(strstr(err, "ProcessMatch: \"(\" is not a valid extended regex") == err);
	CHECK(memcmp(&s, &before, sizeof s) == 0);

	/* lists append and refuse the 33rd entry */
	for (int i = 0; i < MEMZ_LIST_MAX; i++)
		CHECK_INT(memz_settings_set(&s, "Process", "nginx", err, sizeof err), 0);
	CHECK_INT(memz_settings_set(&s, "Process", "nginx", err, sizeof err),
		  -EINVAL);
	CHECK_INT(s.process.n, MEMZ_LIST_MAX);
	CHECK_INT(memz_settings_set(&s, "ProcessMatch", "^java", err, sizeof err), 0);
	CHECK_INT(memz_setting_format(&s, memz_setting_find("ProcessMatch"), buf,
				      sizeof buf), 0);
	CHECK_STR(buf, "^java");
	costly_regex();
	return check_status();
}
