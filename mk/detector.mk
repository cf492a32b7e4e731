# detector area: leak detector, pace policy, trace format, record/replay
libmemz_la_SOURCES += \
	include/memz/detector.h core/detector.c \
	include/memz/pace.h core/pace.c

UNIT_TESTS += tests/test_detector tests/test_pace
check_PROGRAMS += tests/test_detector tests/test_pace
tests_test_detector_SOURCES = tests/test_detector.c tests/check.h
tests_test_detector_LDADD = libmemz.la
tests_test_pace_SOURCES = tests/test_pace.c tests/check.h
tests_test_pace_LDADD = libmemz.la
