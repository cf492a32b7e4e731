#include <errno.h>
#include <string.h>

#include "check.h"
#include "memz/settings.h"

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
	CHECK_INT(s.pace, MEMZ_PACE_AUTO);
	CHECK_INT(s.process.n, 0);

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
	return check_status();
}
