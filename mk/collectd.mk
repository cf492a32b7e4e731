# collectd area

# The leaking helper: every host's integration tests measure against it, so
# it is built whether or not the collectd plugin is.
check_PROGRAMS += tests/leaker
tests_leaker_SOURCES = tests/leaker.c
