# cli area: the memz command line tool and the core's mapping taxonomy
libmemz_la_SOURCES += include/memz/smapscat.h core/smapscat.c

UNIT_TESTS += tests/test_smapscat
check_PROGRAMS += tests/test_smapscat
tests_test_smapscat_SOURCES = tests/test_smapscat.c tests/check.h
tests_test_smapscat_LDADD = libmemz.la
