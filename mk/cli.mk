# cli area: the memz command line tool and the core's mapping taxonomy
libmemz_la_SOURCES += include/memz/smapscat.h core/smapscat.c

bin_PROGRAMS += memz
memz_SOURCES = plugins/cli/main.c plugins/cli/cli.h plugins/cli/util.c \
	plugins/cli/top.c plugins/cli/inspect.c plugins/cli/jsoncmd.c \
	$(CLI_EXTRA)
memz_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
memz_LDADD = libmemz.la $(YAJL_LIBS)

UNIT_TESTS += tests/test_smapscat
check_PROGRAMS += tests/test_smapscat
tests_test_smapscat_SOURCES = tests/test_smapscat.c tests/check.h
tests_test_smapscat_LDADD = libmemz.la

# test_cli.sh runs memz against tests/fixtures/cli and against live children
check_PROGRAMS += tests/cli_mapper
tests_cli_mapper_SOURCES = tests/cli_mapper.c
INTEGRATION_TESTS += tests/test_cli.sh
EXTRA_DIST += tests/test_cli.sh
