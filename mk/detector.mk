# detector area: leak detector, pace policy, trace format, record/replay
libmemz_la_SOURCES += \
	include/memz/detector.h core/detector.c \
	include/memz/pace.h core/pace.c \
	include/memz/trace.h core/trace.c

UNIT_TESTS += tests/test_detector tests/test_pace tests/test_trace
check_PROGRAMS += tests/test_detector tests/test_pace tests/test_trace
tests_test_detector_SOURCES = tests/test_detector.c tests/check.h
tests_test_detector_LDADD = libmemz.la
tests_test_pace_SOURCES = tests/test_pace.c tests/check.h
tests_test_pace_LDADD = libmemz.la
tests_test_trace_SOURCES = tests/test_trace.c tests/check.h
tests_test_trace_LDADD = libmemz.la

# memz record / replay: mk/cli.mk adds $(CLI_EXTRA) to memz_SOURCES (a name
# ending in _SOURCES would make automake look for a program "CLI_EXTRA")
CLI_EXTRA = plugins/cli/record.c plugins/cli/replay.c

UNIT_TESTS += tests/test_replay.sh
EXTRA_DIST += tests/test_replay.sh \
	tests/traces/leak.csv tests/traces/leak.expected \
	tests/traces/leak-minrate.expected \
	tests/traces/flat.csv tests/traces/flat.expected \
	tests/traces/pidreuse.csv tests/traces/pidreuse.expected \
	tests/traces/group.csv tests/traces/group.expected \
	tests/traces/group-by-name.expected tests/traces/group-minrate.expected \
	tests/traces/bad-backwards.csv tests/traces/bad-fields.csv \
	tests/traces/bad-header.csv tests/traces/bad-number.csv \
	tests/traces/bad-quote.csv

# valgrind --tool=callgrind tests/bench_detector: instructions per sample
noinst_PROGRAMS += tests/bench_detector
tests_bench_detector_SOURCES = tests/bench_detector.c
tests_bench_detector_LDADD = libmemz.la
