# bounded collection cost: the budget scheduler, its tests and `make bench`
libmemz_la_SOURCES += include/memz/budget.h core/budget.c

UNIT_TESTS += tests/test_budget
check_PROGRAMS += tests/test_budget
tests_test_budget_SOURCES = tests/test_budget.c tests/check.h
tests_test_budget_LDADD = libmemz.la

UNIT_TESTS += tests/test_budget_live
check_PROGRAMS += tests/test_budget_live
tests_test_budget_live_SOURCES = tests/test_budget_live.c tests/check.h
tests_test_budget_live_CPPFLAGS = $(AM_CPPFLAGS) \
	-DMEMZ_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_test_budget_live_LDADD = libmemz.la

# benchmarks: `make bench` prints figures; nothing here is a test
noinst_PROGRAMS += tests/bench_sampler tests/bench/procs tests/bench/reader
tests_bench_sampler_SOURCES = tests/bench_sampler.c tests/bench/naive.h
tests_bench_sampler_LDADD = libmemz.la
tests_bench_procs_SOURCES = tests/bench/procs.c
tests_bench_reader_SOURCES = tests/bench/reader.c tests/bench/naive.h
tests_bench_reader_LDADD = libmemz.la
dist_noinst_SCRIPTS += scripts/bench.sh

bench: tests/bench_sampler$(EXEEXT) tests/bench/procs$(EXEEXT) \
	  tests/bench/reader$(EXEEXT) all
	ulimit -n 65536 2>/dev/null || ulimit -n 8192; \
	  top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	  $(SHELL) $(top_srcdir)/scripts/bench.sh
