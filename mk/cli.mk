# plugins/cli/: the memz command line tool and its tests.

bin_PROGRAMS += memz
memz_SOURCES = plugins/cli/main.c plugins/cli/cli.h plugins/cli/util.c \
	plugins/cli/top.c plugins/cli/inspect.c plugins/cli/jsoncmd.c \
	plugins/cli/record.c plugins/cli/replay.c plugins/cli/baseline.c
memz_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
memz_LDADD = libmemz.la $(YAJL_LIBS)

# memz inspect across a pid's reuse, the fixture changed between cycles
UNIT_TESTS += tests/test_cli_inspect
check_PROGRAMS += tests/test_cli_inspect
tests_test_cli_inspect_SOURCES = tests/test_cli_inspect.c tests/check.h \
	plugins/cli/cli.h plugins/cli/inspect.c plugins/cli/util.c
tests_test_cli_inspect_CPPFLAGS = $(CORE_FIXTURES_CPPFLAGS) \
	-I$(top_srcdir)/plugins/cli
tests_test_cli_inspect_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_test_cli_inspect_LDADD = libmemz.la $(YAJL_LIBS)

# test_cli.sh runs memz against tests/fixtures/cli and against live children
check_PROGRAMS += tests/cli_mapper
tests_cli_mapper_SOURCES = tests/cli_mapper.c
INTEGRATION_TESTS += tests/test_cli.sh
EXTRA_DIST += tests/test_cli.sh

# memz replay over recorded traces
UNIT_TESTS += tests/test_replay.sh
EXTRA_DIST += tests/test_replay.sh docs/trace-format.md \
	tests/traces/leak.csv tests/traces/leak.expected \
	tests/traces/leak-minrate.expected tests/traces/real-redis-10s.expected \
	tests/traces/busy-java-10s.expected \
	tests/traces/flat.csv tests/traces/flat.expected \
	tests/traces/pidreuse.csv tests/traces/pidreuse.expected \
	tests/traces/group.csv tests/traces/group.expected \
	tests/traces/group-by-name.expected tests/traces/group-minrate.expected \
	tests/traces/bad-backwards.csv tests/traces/bad-fields.csv \
	tests/traces/bad-header.csv tests/traces/bad-number.csv \
	tests/traces/bad-quote.csv tests/traces/bad-time.csv \
	tests/traces/v2.csv tests/traces/v2.expected \
	tests/record-traces.sh \
	tests/traces/live-late.csv tests/traces/live-late.expected \
	tests/traces/live-late-10s.expected \
	tests/traces/live-stairs.csv tests/traces/live-stairs.expected \
	tests/traces/live-stairs-10s.expected \
	tests/traces/live-churn.csv tests/traces/live-churn.expected \
	tests/traces/live-churn-10s.expected \
	tests/traces/live-filemap.csv tests/traces/live-filemap.expected \
	tests/traces/live-filemap-10s.expected \
	tests/traces/live-fork.csv tests/traces/live-fork.expected \
	tests/traces/live-fork-10s.expected
