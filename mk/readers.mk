# readers area: the /proc and /sys readers and their fixtures
libmemz_la_SOURCES += \
	include/memz/readbuf.h core/readbuf.c \
	include/memz/sysinfo.h core/sysinfo.c \
	include/memz/procfs.h core/procfs.c \
	include/memz/pidwatch.h core/pidwatch.c \
	core/parse_util.h

READERS_TEST_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'

UNIT_TESTS += tests/test_readbuf tests/test_sysinfo tests/test_procfs \
	tests/test_procfs_fixtures tests/test_pidwatch
check_PROGRAMS += tests/test_readbuf tests/test_sysinfo tests/test_procfs \
	tests/test_procfs_fixtures tests/test_pidwatch
tests_test_readbuf_SOURCES = tests/test_readbuf.c tests/check.h
tests_test_readbuf_CPPFLAGS = $(READERS_TEST_CPPFLAGS)
tests_test_readbuf_LDADD = libmemz.la
tests_test_sysinfo_SOURCES = tests/test_sysinfo.c tests/check.h
tests_test_sysinfo_CPPFLAGS = $(READERS_TEST_CPPFLAGS)
tests_test_sysinfo_LDADD = libmemz.la
tests_test_procfs_SOURCES = tests/test_procfs.c tests/check.h
tests_test_procfs_CPPFLAGS = $(READERS_TEST_CPPFLAGS)
tests_test_procfs_LDADD = libmemz.la
tests_test_procfs_fixtures_SOURCES = tests/test_procfs_fixtures.c tests/check.h
tests_test_procfs_fixtures_CPPFLAGS = $(READERS_TEST_CPPFLAGS)
tests_test_procfs_fixtures_LDADD = libmemz.la
tests_test_pidwatch_SOURCES = tests/test_pidwatch.c tests/check.h
tests_test_pidwatch_LDADD = libmemz.la

EXTRA_DIST += tests/fixtures tests/capture-fixture.sh
