# netdata area: memz.plugin, its shipped config and alarms, and its tests.

# The protocol checker is shared by the unit tests and the plugin tests.
NDCHECK = tests/netdata/ndcheck.c tests/netdata/ndcheck.h
ND_EMIT = plugins/netdata/emit.c plugins/netdata/emit.h

UNIT_TESTS += tests/test_netdata_emit
check_PROGRAMS += tests/test_netdata_emit
tests_test_netdata_emit_SOURCES = tests/test_netdata_emit.c tests/check.h \
	$(NDCHECK) $(ND_EMIT)
tests_test_netdata_emit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_test_netdata_emit_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_test_netdata_emit_LDADD = libmemz.la $(YAJL_LIBS)

UNIT_TESTS += tests/test_netdata_functions
check_PROGRAMS += tests/test_netdata_functions
tests_test_netdata_functions_SOURCES = tests/test_netdata_functions.c \
	tests/check.h tests/sampler_util.h $(NDCHECK) plugins/netdata/functions.c \
	plugins/netdata/ndtable.c plugins/netdata/ndtable.h \
	plugins/netdata/fnviews.c plugins/netdata/fnviews.h \
	plugins/netdata/fninspect.c plugins/netdata/fninspect.h \
	plugins/netdata/functions.h
tests_test_netdata_functions_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_netdata_functions_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_test_netdata_functions_LDADD = libmemz.la $(YAJL_LIBS)

# The plugin goes where netdata looks for external plugins (configure's
# --with-netdata-plugindir; Debian: /usr/lib/netdata/plugins.d). "exec" in
# the name makes automake install it in install-exec, before the hook below.
netdatapluginexecdir = $(netdata_plugindir)
netdatapluginexec_PROGRAMS = memz.plugin
ND_PLUGIN_SOURCES = $(ND_EMIT) \
	plugins/netdata/functions.c plugins/netdata/functions.h \
	plugins/netdata/ndtable.c plugins/netdata/ndtable.h \
	plugins/netdata/fnviews.c plugins/netdata/fnviews.h \
	plugins/netdata/fninspect.c plugins/netdata/fninspect.h \
	plugins/netdata/config.c plugins/netdata/config.h
memz_plugin_SOURCES = plugins/netdata/main.c $(ND_PLUGIN_SOURCES)
memz_plugin_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
memz_plugin_LDADD = libmemz.la $(YAJL_LIBS)

# netdata starts its plugins as user netdata, who may not read other users'
# /proc/PID/smaps_rollup. As Debian does for apps.plugin, the installed
# plugin gets the two capabilities that allow it (and drops or lowers them
# itself, see include/memz/privilege.h), and only root and group netdata may
# run it. setcap fails on filesystems without xattrs, and under fakeroot
# it only pretends (so fakeroot counts as a failure); the install must still
# succeed there, so it says in one line what to run.
ND_CAPS = cap_dac_read_search,cap_sys_ptrace=ep
if INSTALL_CAPS
install-exec-hook: install-netdata-caps
endif
install-netdata-caps:
	@f='$(DESTDIR)$(netdatapluginexecdir)/memz.plugin'; \
	fix='$(netdatapluginexecdir)/memz.plugin'; \
	if [ "$$(id -u)" = 0 ]; then \
	  if getent group netdata > /dev/null 2>&1; then g=netdata; else g=root; fi; \
	  chown "root:$$g" "$$f" && chmod 0750 "$$f" || exit 1; \
	  [ -n '$(SETCAP)' ] && [ -z "$${FAKEROOTKEY:-}" ] && \
	    '$(SETCAP)' '$(ND_CAPS)' "$$f" 2> /dev/null && exit 0; \
	  run="setcap $(ND_CAPS) $$fix"; \
	else \
	  run="chown root:netdata $$fix && chmod 0750 $$fix && setcap $(ND_CAPS) $$fix"; \
	fi; \
	echo "memz: memz.plugin has no capabilities, so it cannot read other users' processes; as root run: $$run"
.PHONY: install-netdata-caps

# distcheck installs under its own prefix, never where this machine's
# netdata keeps its plugins.
AM_DISTCHECK_CONFIGURE_FLAGS = \
	--with-netdata-plugindir='$${libdir}/netdata/plugins.d'

netdatastockconfdir = $(netdata_stockconfdir)
dist_netdatastockconf_DATA = conf/netdata/memz.conf
# One health file per netdata major version, installed as memz.conf: the
# one that fits the netdata configure found (NETDATA_MAJOR=1|2 overrides).
netdatahealthdir = $(netdata_healthdir)
EXTRA_DIST += conf/netdata/health.d/memz-netdata1.conf \
	conf/netdata/health.d/memz-netdata2.conf scripts/netdata-major.sh
install-data-local: install-netdata-health
install-netdata-health:
	major=$$(NETDATA_MAJOR='$(NETDATA_MAJOR)' $(SHELL) $(srcdir)/scripts/netdata-major.sh '$(NETDATA_BIN)') && \
	$(MKDIR_P) '$(DESTDIR)$(netdatahealthdir)' && \
	$(INSTALL_DATA) $(srcdir)/conf/netdata/health.d/memz-netdata$$major.conf \
		'$(DESTDIR)$(netdatahealthdir)/memz.conf'
uninstall-local:
	rm -f '$(DESTDIR)$(netdatahealthdir)/memz.conf'
.PHONY: install-netdata-health

check_PROGRAMS += tests/ndcheck
tests_ndcheck_SOURCES = tests/netdata/ndcheck_main.c $(NDCHECK)
tests_ndcheck_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_ndcheck_LDADD = $(YAJL_LIBS)

# Integration tests: the plugin alone, then inside a real netdata.
INTEGRATION_TESTS += tests/it_netdata_plugin.sh
EXTRA_DIST += tests/it_netdata_plugin.sh tests/netdata/lib.sh
INTEGRATION_TESTS += tests/it_netdata_charts.sh tests/it_netdata_leak.sh
EXTRA_DIST += tests/it_netdata_charts.sh tests/it_netdata_leak.sh
INTEGRATION_TESTS += tests/it_netdata_oom.sh
EXTRA_DIST += tests/it_netdata_oom.sh
INTEGRATION_TESTS += tests/it_netdata_functions.sh tests/it_netdata_functions_oom.sh
EXTRA_DIST += tests/it_netdata_functions.sh tests/it_netdata_functions_oom.sh
INTEGRATION_TESTS += tests/it_netdata_hostile.sh
EXTRA_DIST += tests/it_netdata_hostile.sh
INTEGRATION_TESTS += tests/it_netdata_stream.sh
EXTRA_DIST += tests/it_netdata_stream.sh
INTEGRATION_TESTS += tests/it_netdata_priv.sh tests/it_netdata_nocaps.sh
EXTRA_DIST += tests/it_netdata_priv.sh tests/it_netdata_nocaps.sh
# the same plugin under a netdata 2.x (configure --with-netdata2)
INTEGRATION_TESTS += tests/it_netdata2.sh
EXTRA_DIST += tests/it_netdata2.sh
