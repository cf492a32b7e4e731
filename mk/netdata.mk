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

# The plugin goes where netdata looks for external plugins (configure's
# --with-netdata-plugindir; Debian: /usr/lib/netdata/plugins.d).
netdataplugindir = $(netdata_plugindir)
netdataplugin_PROGRAMS = memz.plugin
ND_PLUGIN_SOURCES = $(ND_EMIT) \
	plugins/netdata/functions.c plugins/netdata/functions.h \
	plugins/netdata/config.c plugins/netdata/config.h
memz_plugin_SOURCES = plugins/netdata/main.c $(ND_PLUGIN_SOURCES)
memz_plugin_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
memz_plugin_LDADD = libmemz.la $(YAJL_LIBS)

netdatastockconfdir = $(netdata_stockconfdir)
dist_netdatastockconf_DATA = conf/netdata/memz.conf
netdatahealthdir = $(netdata_healthdir)
dist_netdatahealth_DATA = conf/netdata/health.d/memz.conf

check_PROGRAMS += tests/ndcheck
tests_ndcheck_SOURCES = tests/netdata/ndcheck_main.c $(NDCHECK)

# Integration tests: the plugin alone, then inside a real netdata.
INTEGRATION_TESTS += tests/it_netdata_plugin.sh
EXTRA_DIST += tests/it_netdata_plugin.sh tests/netdata/lib.sh
INTEGRATION_TESTS += tests/it_netdata_charts.sh tests/it_netdata_leak.sh
EXTRA_DIST += tests/it_netdata_charts.sh tests/it_netdata_leak.sh
INTEGRATION_TESTS += tests/it_netdata_hostile.sh
EXTRA_DIST += tests/it_netdata_hostile.sh
INTEGRATION_TESTS += tests/it_netdata_stream.sh
EXTRA_DIST += tests/it_netdata_stream.sh
