# tests that span folders: every host's formatter over one report
UNIT_TESTS += tests/test_hosts_agree
check_PROGRAMS += tests/test_hosts_agree
tests_test_hosts_agree_SOURCES = tests/test_hosts_agree.c tests/check.h \
	plugins/collectd/map.c plugins/collectd/map.h \
	plugins/netdata/emit.c plugins/netdata/emit.h \
	tests/netdata/ndcheck.c tests/netdata/ndcheck.h
tests_test_hosts_agree_CPPFLAGS = $(AM_CPPFLAGS) $(YAJL_CFLAGS) \
	-I$(top_srcdir)/plugins/collectd -I$(top_srcdir)/tests
tests_test_hosts_agree_LDADD = libmemz.la $(YAJL_LIBS)
