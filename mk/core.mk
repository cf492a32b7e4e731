# core area: the table, sampler, accounting, JSON, settings
libmemz_la_SOURCES += \
	include/memz/alloc.h core/alloc.c \
	include/memz/settings.h core/settings.c \
	include/memz/sanitize.h core/sanitize.c \
	include/memz/intern.h core/intern.c \
	include/memz/table.h core/table.c \
	include/memz/pidfiles.h core/pidfiles.c \
	include/memz/breakdown.h core/breakdown.c \
	include/memz/sampler.h core/sampler.c \
	core/sampler_int.h core/exact.c \
	include/memz/json.h core/json.c \
	include/memz/report.h core/report.c

UNIT_TESTS += tests/test_settings tests/test_sanitize
check_PROGRAMS += tests/test_settings tests/test_sanitize
tests_test_settings_SOURCES = tests/test_settings.c tests/check.h
tests_test_settings_LDADD = libmemz.la
tests_test_sanitize_SOURCES = tests/test_sanitize.c tests/check.h
tests_test_sanitize_LDADD = libmemz.la

UNIT_TESTS += tests/test_table
check_PROGRAMS += tests/test_table
tests_test_table_SOURCES = tests/test_table.c tests/check.h tests/counting_alloc.h
tests_test_table_LDADD = libmemz.la

UNIT_TESTS += tests/test_sampler tests/test_sampler_live
check_PROGRAMS += tests/test_sampler tests/test_sampler_live
tests_test_sampler_SOURCES = tests/test_sampler.c tests/check.h \
	tests/counting_alloc.h tests/sampler_util.h
tests_test_sampler_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_sampler_LDADD = libmemz.la
tests_test_sampler_live_SOURCES = tests/test_sampler_live.c tests/check.h \
	tests/sampler_util.h
tests_test_sampler_live_CPPFLAGS = $(tests_test_sampler_CPPFLAGS)
tests_test_sampler_live_LDADD = libmemz.la

UNIT_TESTS += tests/test_json
check_PROGRAMS += tests/test_json
tests_test_json_SOURCES = tests/test_json.c tests/check.h
tests_test_json_CPPFLAGS = $(AM_CPPFLAGS) $(YAJL_CFLAGS) \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_json_LDADD = libmemz.la $(YAJL_LIBS)

UNIT_TESTS += tests/test_report
check_PROGRAMS += tests/test_report
tests_test_report_SOURCES = tests/test_report.c tests/check.h tests/counting_alloc.h
tests_test_report_LDADD = libmemz.la

UNIT_TESTS += tests/test_pidfiles
check_PROGRAMS += tests/test_pidfiles
tests_test_pidfiles_SOURCES = tests/test_pidfiles.c tests/check.h tests/counting_alloc.h
tests_test_pidfiles_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_pidfiles_LDADD = libmemz.la

UNIT_TESTS += tests/test_breakdown
check_PROGRAMS += tests/test_breakdown
tests_test_breakdown_SOURCES = tests/test_breakdown.c tests/check.h
tests_test_breakdown_LDADD = libmemz.la
