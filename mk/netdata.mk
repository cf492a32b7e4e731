# netdata area: memz.plugin, its shipped config and alarms, and its tests.

# The protocol checker is shared by the unit tests and the plugin tests.
NDCHECK = tests/netdata/ndcheck.c tests/netdata/ndcheck.h
ND_EMIT = plugins/netdata/emit.c plugins/netdata/emit.h

UNIT_TESTS += tests/test_netdata_emit
check_PROGRAMS += tests/test_netdata_emit
tests_test_netdata_emit_SOURCES = tests/test_netdata_emit.c tests/check.h \
	$(NDCHECK) $(ND_EMIT)
tests_test_netdata_emit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_test_netdata_emit_LDADD = libmemz.la
