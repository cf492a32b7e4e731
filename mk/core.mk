# core/: libmemz (include/memz/ + core/) and the unit test of each module.
libmemz_la_SOURCES += \
	include/memz/alloc.h core/alloc.c \
	include/memz/settings.h core/settings.c \
	include/memz/alarm.h core/alarm.c \
	include/memz/sanitize.h core/sanitize.c \
	include/memz/intern.h core/intern.c \
	include/memz/readbuf.h core/readbuf.c \
	include/memz/sysinfo.h core/sysinfo.c \
	include/memz/procfs.h core/procfs.c core/parse_util.h \
	include/memz/pidwatch.h core/pidwatch.c \
	include/memz/pidfiles.h core/pidfiles.c \
	include/memz/cgname.h core/cgname.c \
	include/memz/docker.h core/docker.c \
	include/memz/cgroup.h core/cgroup.c \
	include/memz/smapscat.h core/smapscat.c \
	include/memz/pagemap.h core/pagemap.c \
	include/memz/inspect.h core/inspect.c \
	include/memz/leakparts.h core/leakparts.c \
	include/memz/detector.h core/detector.c \
	core/detfit_int.h core/detfit.c \
	core/dethist_int.h core/dethist.c \
	core/dethold_int.h core/dethold.c \
	include/memz/pace.h core/pace.c \
	include/memz/budget.h core/budget.c \
	include/memz/users.h core/users.c \
	include/memz/table.h core/table.c core/table_int.h \
	include/memz/oom.h core/oom.c \
	include/memz/breakdown.h core/breakdown.c \
	include/memz/sampler.h core/sampler.c \
	core/sampler_int.h core/exact.c \
	include/memz/trace.h core/trace.c \
	include/memz/report.h core/report.c \
	include/memz/json.h core/json.c \
	include/memz/privilege.h core/privilege.c

# Tests that read fixture /proc and /sys trees are told where they are.
CORE_FIXTURES_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
EXTRA_DIST += tests/fixtures tests/capture-fixture.sh

UNIT_TESTS += tests/test_settings tests/test_sanitize
check_PROGRAMS += tests/test_settings tests/test_sanitize
tests_test_settings_SOURCES = tests/test_settings.c tests/check.h
tests_test_settings_LDADD = libmemz.la
tests_test_sanitize_SOURCES = tests/test_sanitize.c tests/check.h
tests_test_sanitize_LDADD = libmemz.la

UNIT_TESTS += tests/test_users
check_PROGRAMS += tests/test_users
tests_test_users_SOURCES = tests/test_users.c tests/check.h \
	tests/counting_alloc.h tests/sampler_util.h
tests_test_users_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_users_LDADD = libmemz.la

UNIT_TESTS += tests/test_table
check_PROGRAMS += tests/test_table
tests_test_table_SOURCES = tests/test_table.c tests/check.h tests/counting_alloc.h
tests_test_table_LDADD = libmemz.la

UNIT_TESTS += tests/test_sampler tests/test_sampler_live
check_PROGRAMS += tests/test_sampler tests/test_sampler_live
tests_test_sampler_SOURCES = tests/test_sampler.c tests/check.h \
	tests/counting_alloc.h tests/sampler_util.h
tests_test_sampler_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_sampler_LDADD = libmemz.la
tests_test_sampler_live_SOURCES = tests/test_sampler_live.c tests/check.h \
	tests/sampler_util.h
tests_test_sampler_live_CPPFLAGS = $(tests_test_sampler_CPPFLAGS)
tests_test_sampler_live_LDADD = libmemz.la

UNIT_TESTS += tests/test_privilege
check_PROGRAMS += tests/test_privilege
tests_test_privilege_SOURCES = tests/test_privilege.c tests/check.h
tests_test_privilege_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_privilege_LDADD = libmemz.la

UNIT_TESTS += tests/test_json
check_PROGRAMS += tests/test_json
tests_test_json_SOURCES = tests/test_json.c tests/check.h
tests_test_json_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS) $(YAJL_CFLAGS)
tests_test_json_LDADD = libmemz.la $(YAJL_LIBS)

UNIT_TESTS += tests/test_report
check_PROGRAMS += tests/test_report
tests_test_report_SOURCES = tests/test_report.c tests/check.h tests/counting_alloc.h
tests_test_report_LDADD = libmemz.la

UNIT_TESTS += tests/test_pidfiles
check_PROGRAMS += tests/test_pidfiles
tests_test_pidfiles_SOURCES = tests/test_pidfiles.c tests/check.h tests/counting_alloc.h
tests_test_pidfiles_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_pidfiles_LDADD = libmemz.la

UNIT_TESTS += tests/test_breakdown
check_PROGRAMS += tests/test_breakdown
tests_test_breakdown_SOURCES = tests/test_breakdown.c tests/check.h
tests_test_breakdown_LDADD = libmemz.la

UNIT_TESTS += tests/test_readbuf tests/test_sysinfo tests/test_procfs \
	tests/test_procfs_fixtures tests/test_pidwatch
check_PROGRAMS += tests/test_readbuf tests/test_sysinfo tests/test_procfs \
	tests/test_procfs_fixtures tests/test_pidwatch
tests_test_readbuf_SOURCES = tests/test_readbuf.c tests/check.h
tests_test_readbuf_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_readbuf_LDADD = libmemz.la
tests_test_sysinfo_SOURCES = tests/test_sysinfo.c tests/check.h
tests_test_sysinfo_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_sysinfo_LDADD = libmemz.la
tests_test_procfs_SOURCES = tests/test_procfs.c tests/check.h
tests_test_procfs_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_procfs_LDADD = libmemz.la
tests_test_procfs_fixtures_SOURCES = tests/test_procfs_fixtures.c tests/check.h
tests_test_procfs_fixtures_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_procfs_fixtures_LDADD = libmemz.la
tests_test_pidwatch_SOURCES = tests/test_pidwatch.c tests/check.h
tests_test_pidwatch_LDADD = libmemz.la

UNIT_TESTS += tests/test_smapscat
check_PROGRAMS += tests/test_smapscat
tests_test_smapscat_SOURCES = tests/test_smapscat.c tests/check.h
tests_test_smapscat_LDADD = libmemz.la

UNIT_TESTS += tests/test_detector tests/test_pace tests/test_trace
check_PROGRAMS += tests/test_detector tests/test_pace tests/test_trace
tests_test_detector_SOURCES = tests/test_detector.c tests/check.h
tests_test_detector_LDADD = libmemz.la
UNIT_TESTS += tests/test_detfit
check_PROGRAMS += tests/test_detfit
tests_test_detfit_SOURCES = tests/test_detfit.c tests/check.h
tests_test_detfit_LDADD = libmemz.la
UNIT_TESTS += tests/test_alarm
check_PROGRAMS += tests/test_alarm
tests_test_alarm_SOURCES = tests/test_alarm.c tests/check.h
tests_test_alarm_LDADD = libmemz.la

UNIT_TESTS += tests/test_dethist
check_PROGRAMS += tests/test_dethist
tests_test_dethist_SOURCES = tests/test_dethist.c tests/check.h
tests_test_dethist_LDADD = libmemz.la
UNIT_TESTS += tests/test_dethold
check_PROGRAMS += tests/test_dethold
tests_test_dethold_SOURCES = tests/test_dethold.c tests/check.h
tests_test_dethold_LDADD = libmemz.la
tests_test_pace_SOURCES = tests/test_pace.c tests/check.h
tests_test_pace_LDADD = libmemz.la
tests_test_trace_SOURCES = tests/test_trace.c tests/check.h
tests_test_trace_LDADD = libmemz.la

UNIT_TESTS += tests/test_budget
check_PROGRAMS += tests/test_budget
tests_test_budget_SOURCES = tests/test_budget.c tests/check.h
tests_test_budget_LDADD = libmemz.la

UNIT_TESTS += tests/test_budget_live
check_PROGRAMS += tests/test_budget_live
tests_test_budget_live_SOURCES = tests/test_budget_live.c tests/check.h
tests_test_budget_live_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_budget_live_LDADD = libmemz.la

UNIT_TESTS += tests/test_inspect
check_PROGRAMS += tests/test_inspect
tests_test_inspect_SOURCES = tests/test_inspect.c tests/check.h tests/counting_alloc.h
tests_test_inspect_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS)
tests_test_inspect_LDADD = libmemz.la

UNIT_TESTS += tests/test_cgname
check_PROGRAMS += tests/test_cgname
tests_test_cgname_SOURCES = tests/test_cgname.c tests/check.h tests/cgpaths.h
tests_test_cgname_LDADD = libmemz.la

UNIT_TESTS += tests/test_cgroup
check_PROGRAMS += tests/test_cgroup
tests_test_cgroup_SOURCES = tests/test_cgroup.c tests/check.h tests/counting_alloc.h \
	tests/cgpaths.h
tests_test_cgroup_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS) $(YAJL_CFLAGS)
tests_test_cgroup_LDADD = libmemz.la $(YAJL_LIBS)

UNIT_TESTS += tests/test_docker
check_PROGRAMS += tests/test_docker
tests_test_docker_SOURCES = tests/test_docker.c tests/check.h tests/counting_alloc.h \
	tests/cgpaths.h
tests_test_docker_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS) $(YAJL_CFLAGS)
tests_test_docker_LDADD = libmemz.la $(YAJL_LIBS)
# what is in effect while docker's JSON is parsed (test_docker.c)
tests_test_docker_LDFLAGS = -Wl,--wrap=yajl_tree_parse

UNIT_TESTS += tests/test_leakparts
check_PROGRAMS += tests/test_leakparts
tests_test_leakparts_SOURCES = tests/test_leakparts.c tests/check.h tests/counting_alloc.h
tests_test_leakparts_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS) $(YAJL_CFLAGS)
tests_test_leakparts_LDADD = libmemz.la $(YAJL_LIBS)

UNIT_TESTS += tests/test_oom
check_PROGRAMS += tests/test_oom
tests_test_oom_SOURCES = tests/test_oom.c tests/check.h
tests_test_oom_LDADD = libmemz.la

UNIT_TESTS += tests/test_pagemap
check_PROGRAMS += tests/test_pagemap
tests_test_pagemap_SOURCES = tests/test_pagemap.c tests/check.h
tests_test_pagemap_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS) $(YAJL_CFLAGS)
tests_test_pagemap_LDADD = libmemz.la $(YAJL_LIBS)
