# fuzz area: libFuzzer targets, one per parser family (configure
# --enable-fuzzing: clang, ASan, UBSan). `make fuzz FUZZ_SECONDS=N` runs each
# for N seconds from its seed corpus in tests/fuzz/corpus/<target>/; what it
# finds new goes to fuzz-corpus/<target>/ in the build tree, a crash to
# fuzz-corpus/<target>-crash-*, and the run fails.
FUZZ_TARGETS = tests/fuzz/fuzz_procfs tests/fuzz/fuzz_smaps \
	tests/fuzz/fuzz_trace tests/fuzz/fuzz_settings tests/fuzz/fuzz_ndfunc \
	tests/fuzz/fuzz_emit tests/fuzz/fuzz_cgroup tests/fuzz/fuzz_cgname \
	tests/fuzz/fuzz_baseline tests/fuzz/fuzz_pagemap
FUZZ_SECONDS = 10
# Passed to every target after the defaults, e.g. FUZZ_FLAGS=-jobs=2.
FUZZ_FLAGS =

EXTRA_DIST += tests/fuzz/corpus tests/fuzz/fuzz_util.h \
	tests/fuzz/fuzz_procfs.c tests/fuzz/fuzz_smaps.c tests/fuzz/fuzz_trace.c \
	tests/fuzz/fuzz_settings.c tests/fuzz/fuzz_ndfunc.c tests/fuzz/fuzz_emit.c \
	tests/fuzz/fuzz_cgroup.c tests/fuzz/fuzz_cgname.c \
	tests/fuzz/fuzz_baseline.c tests/fuzz/fuzz_pagemap.c

if FUZZING
noinst_PROGRAMS += $(FUZZ_TARGETS)
FUZZ_LINKFLAGS = $(AM_LDFLAGS) $(FUZZ_LINK)
tests_fuzz_fuzz_procfs_SOURCES = tests/fuzz/fuzz_procfs.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_procfs_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_procfs_LDADD = libmemz.la
tests_fuzz_fuzz_smaps_SOURCES = tests/fuzz/fuzz_smaps.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_smaps_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_smaps_LDADD = libmemz.la
tests_fuzz_fuzz_trace_SOURCES = tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_trace_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_trace_LDADD = libmemz.la
tests_fuzz_fuzz_settings_SOURCES = tests/fuzz/fuzz_settings.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_settings_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_settings_LDADD = libmemz.la
# netdata's function-call parser is linked as memz.plugin has it, not copied.
tests_fuzz_fuzz_ndfunc_SOURCES = tests/fuzz/fuzz_ndfunc.c tests/fuzz/fuzz_util.h \
	plugins/netdata/functions.c plugins/netdata/functions.h \
	plugins/netdata/ndtable.c plugins/netdata/ndtable.h \
	plugins/netdata/fnviews.c plugins/netdata/fnviews.h \
	plugins/netdata/fninspect.c plugins/netdata/fninspect.h
tests_fuzz_fuzz_ndfunc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/netdata
tests_fuzz_fuzz_ndfunc_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_ndfunc_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_ndfunc_LDADD = libmemz.la $(YAJL_LIBS)
tests_fuzz_fuzz_emit_SOURCES = tests/fuzz/fuzz_emit.c tests/fuzz/fuzz_util.h \
	$(ND_EMIT)
tests_fuzz_fuzz_emit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/netdata
tests_fuzz_fuzz_emit_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_emit_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_emit_LDADD = libmemz.la $(YAJL_LIBS)
tests_fuzz_fuzz_cgroup_SOURCES = tests/fuzz/fuzz_cgroup.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_cgroup_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_cgroup_LDADD = libmemz.la
tests_fuzz_fuzz_cgname_SOURCES = tests/fuzz/fuzz_cgname.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_cgname_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_cgname_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_cgname_LDADD = libmemz.la $(YAJL_LIBS)
# the baseline parser is the CLI's, linked as memz has it, not copied
tests_fuzz_fuzz_baseline_SOURCES = tests/fuzz/fuzz_baseline.c \
	tests/fuzz/fuzz_util.h plugins/cli/baseline.c plugins/cli/cli.h
tests_fuzz_fuzz_baseline_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/cli
tests_fuzz_fuzz_baseline_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS)
tests_fuzz_fuzz_baseline_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_baseline_LDADD = libmemz.la $(YAJL_LIBS)
tests_fuzz_fuzz_pagemap_SOURCES = tests/fuzz/fuzz_pagemap.c tests/fuzz/fuzz_util.h
tests_fuzz_fuzz_pagemap_LDFLAGS = $(FUZZ_LINKFLAGS)
tests_fuzz_fuzz_pagemap_LDADD = libmemz.la

# One line per target: executions, coverage (edges) and features, from
# libFuzzer's final stats.
fuzz: $(FUZZ_TARGETS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  n=$${t##*/}; mkdir -p fuzz-corpus/$$n; \
	  if ! ./$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	      -rss_limit_mb=2048 -print_final_stats=1 \
	      -artifact_prefix=fuzz-corpus/$$n- $(FUZZ_FLAGS) \
	      fuzz-corpus/$$n $(srcdir)/tests/fuzz/corpus/$$n \
	      >fuzz-$$n.log 2>&1; then \
	    tail -n 40 fuzz-$$n.log; echo "$$n: FAILED (fuzz-$$n.log)"; exit 1; \
	  fi; \
	  ex=$$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz-$$n.log); \
	  cov=$$(grep -o 'cov: [0-9]*' fuzz-$$n.log | tail -n 1); \
	  ft=$$(grep -o 'ft: [0-9]*' fuzz-$$n.log | tail -n 1); \
	  echo "$$n: $$ex executions, $$cov, $$ft in $(FUZZ_SECONDS) s"; \
	done
else
fuzz:
	@echo "make fuzz: configure with --enable-fuzzing (clang and libFuzzer)" >&2
	@exit 1
endif
CLEANFILES += fuzz-*.log
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf fuzz-corpus
.PHONY: fuzz clean-fuzz
