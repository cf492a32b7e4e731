# tests/: what tests more than one folder, and the tools beside the tests.

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

# The leaking helper: every host's integration tests measure against it, so
# it is built whether or not the collectd plugin is.
check_PROGRAMS += tests/leaker
tests_leaker_SOURCES = tests/leaker.c

# the programs the live traces under tests/traces were recorded from
# (tests/record-traces.sh); built with the tests so they keep building
check_PROGRAMS += tests/shapes
tests_shapes_SOURCES = tests/shapes.c

# Recordings of a busy host and of real software (tests/busy-host/ made
# them; docs/trace-format.md says what they hold), replayed against their
# labels: any verdict on a process that is not a planted leak, a planted
# leak missed or late, or a stopped growth whose verdict stays, fails.
UNIT_TESTS += tests/test_busy_host.sh
EXTRA_DIST += tests/test_busy_host.sh \
	tests/busy-host/record.sh tests/busy-host/record-one.sh \
	tests/busy-host/make-traces.sh \
	tests/busy-host/planted.c tests/busy-host/leak.py \
	tests/busy-host/browse.py tests/busy-host/Heap.java \
	tests/busy-host/record-mix.sh tests/busy-host/schedule.sh \
	tests/busy-host/spiky.cpp \
	tests/busy-host/node.js tests/busy-host/Leak.java \
	tests/busy-host/leak.pl tests/busy-host/np.py \
	tests/busy-host/run/notes tests/busy-host/run/jvm.csv.xz \
	tests/busy-host/run-mix/notes \
	tests/traces/busy-host.csv.xz tests/traces/busy-host.labels \
	tests/traces/busy-host2.csv.xz tests/traces/busy-host2.labels \
	tests/traces/busy-host3.csv.xz tests/traces/busy-host3.labels \
	tests/traces/real-arena.csv.xz tests/traces/real-arena.labels \
	tests/traces/real-pgbench.csv.xz tests/traces/real-pgbench.labels \
	tests/traces/real-cache.csv.xz tests/traces/real-cache.labels \
	tests/traces/real-jvm.csv.xz tests/traces/real-jvm.labels \
	tests/traces/real-memfd.csv.xz tests/traces/real-memfd.labels \
	tests/traces/real-netdata.csv.xz tests/traces/real-netdata.labels \
	tests/traces/real-once.csv.xz tests/traces/real-once.labels \
	tests/traces/real-postgres.csv.xz tests/traces/real-postgres.labels \
	tests/traces/real-python.csv.xz tests/traces/real-python.labels \
	tests/traces/real-redis.csv.xz tests/traces/real-redis.labels \
	tests/traces/real-slow1.csv.xz tests/traces/real-slow1.labels \
	tests/traces/real-spiky8.csv.xz tests/traces/real-spiky8.labels \
	tests/traces/real-step.csv.xz tests/traces/real-step.labels \
	tests/traces/real-stop256.csv.xz tests/traces/real-stop256.labels

# the README checked against the settings table, and the quick start

noinst_PROGRAMS += tests/gen_docs
tests_gen_docs_SOURCES = tests/gen_docs.c
tests_gen_docs_LDADD = libmemz.la

UNIT_TESTS += tests/test_docs.sh
EXTRA_DIST += tests/test_docs.sh README.md

# Rewrite the README's settings table from the core's table.
update-docs: tests/gen_docs$(EXEEXT)
	./tests/gen_docs markdown > settings.md.tmp
	awk 'BEGIN { skip = 0 } \
	  /<!-- settings:begin -->/ { print; while ((getline l < "settings.md.tmp") > 0) print l; skip = 1; next } \
	  /<!-- settings:end -->/ { skip = 0 } \
	  !skip { print }' $(srcdir)/README.md > README.md.tmp
	mv README.md.tmp $(srcdir)/README.md
	rm -f settings.md.tmp

.PHONY: update-docs

# configure quiet in a directory holding core/ (configure.ac says why)
UNIT_TESTS += tests/test_configure_quiet.sh
EXTRA_DIST += tests/test_configure_quiet.sh

INTEGRATION_TESTS += tests/it_quickstart.sh
EXTRA_DIST += tests/it_quickstart.sh scripts/quickstart.sh \
	scripts/netdata-conf.sh scripts/collectd-conf.sh \
	scripts/install-deps.sh scripts/test-all.sh

# dashboard: the netdata dashboard seen in a real (headless) browser.
# tests/it_dashboard.sh is the test (the rendered page must show the memz
# section and the raised alarm) and, with --screenshot, makes
# docs/dashboard.png, the picture in the README. It skips itself (77) without
# chromium or netdata, and in sanitizer builds.
INTEGRATION_TESTS += tests/it_dashboard.sh
EXTRA_DIST += tests/it_dashboard.sh docs/dashboard.png

# benchmarks: `make bench` prints figures; nothing here is a test
noinst_PROGRAMS += tests/bench_sampler tests/bench/procs tests/bench/reader \
	tests/bench/stall
tests_bench_sampler_SOURCES = tests/bench_sampler.c tests/bench/naive.h
tests_bench_sampler_LDADD = libmemz.la
tests_bench_procs_SOURCES = tests/bench/procs.c
tests_bench_stall_SOURCES = tests/bench/stall.c
tests_bench_reader_SOURCES = tests/bench/reader.c tests/bench/naive.h
tests_bench_reader_LDADD = libmemz.la
dist_noinst_SCRIPTS += scripts/bench.sh scripts/stall-trace.sh

bench: tests/bench_sampler$(EXEEXT) tests/bench/procs$(EXEEXT) \
	  tests/bench/reader$(EXEEXT) tests/bench/stall$(EXEEXT) all
	ulimit -n 65536 2>/dev/null || ulimit -n 8192; \
	  top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	  $(SHELL) $(top_srcdir)/scripts/bench.sh

# valgrind --tool=callgrind tests/bench_detector: instructions per sample
noinst_PROGRAMS += tests/bench_detector
tests_bench_detector_SOURCES = tests/bench_detector.c
tests_bench_detector_LDADD = libmemz.la

# pid churn in the suite; a soak outside it
INTEGRATION_TESTS += tests/it_churn.sh
EXTRA_DIST += tests/it_churn.sh tests/soak.sh

# memz watching itself for SOAK_SECONDS (default 900); not in make check.
SOAK_SECONDS = 900
soak: all
	SOAK_SECONDS=$(SOAK_SECONDS) top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(top_srcdir)/tests/soak.sh
.PHONY: soak
