# plugins/collectd/: memz.so, its shipped config and its tests.

# The translation layer needs no collectd headers, so its unit test runs in
# every build, sanitizers and valgrind included.
UNIT_TESTS += tests/test_collectd_map
check_PROGRAMS += tests/test_collectd_map
tests_test_collectd_map_SOURCES = tests/test_collectd_map.c tests/check.h \
	plugins/collectd/map.c plugins/collectd/map.h
tests_test_collectd_map_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/collectd
tests_test_collectd_map_LDADD = libmemz.la

EXTRA_DIST += tests/collectd/lib.sh
EXTRA_DIST += conf/collectd.d/memz.conf

if BUILD_COLLECTD
collectdplugindir = $(collectd_plugindir)
collectdplugin_LTLIBRARIES = memz.la
memz_la_SOURCES = plugins/collectd/memz.c plugins/collectd/map.c \
	plugins/collectd/map.h
memz_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/collectd
memz_la_CFLAGS = $(AM_CFLAGS) $(COLLECTD_CFLAGS)
# No -Wl,--no-undefined: collectd's symbols resolve against the daemon.
memz_la_LDFLAGS = -module -avoid-version -shared \
	-export-symbols-regex '^module_register$$'
memz_la_LIBADD = libmemz.la

collectdconfdir = $(collectd_confdir)
collectdconf_DATA = conf/collectd.d/memz.conf
endif

# Integration tests with the real collectd (each skips itself when it
# cannot run: no collectd, no memz.so, or a sanitizer build).
INTEGRATION_TESTS += tests/it_collectd_breakdown.sh
EXTRA_DIST += tests/it_collectd_breakdown.sh
INTEGRATION_TESTS += tests/it_collectd_leak.sh tests/it_collectd_leakparts.sh
EXTRA_DIST += tests/it_collectd_leak.sh tests/it_collectd_leakparts.sh
INTEGRATION_TESTS += tests/it_collectd_flat.sh
EXTRA_DIST += tests/it_collectd_flat.sh
INTEGRATION_TESTS += tests/it_collectd_badconf.sh
EXTRA_DIST += tests/it_collectd_badconf.sh
INTEGRATION_TESTS += tests/it_collectd_unpriv.sh
EXTRA_DIST += tests/it_collectd_unpriv.sh
INTEGRATION_TESTS += tests/it_collectd_forward.sh
EXTRA_DIST += tests/it_collectd_forward.sh
INTEGRATION_TESTS += tests/it_collectd_lifecycle.sh
EXTRA_DIST += tests/it_collectd_lifecycle.sh
INTEGRATION_TESTS += tests/it_collectd_oom.sh
EXTRA_DIST += tests/it_collectd_oom.sh tests/oom/cg.sh tests/oom/accuracy.sh
