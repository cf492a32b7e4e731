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
