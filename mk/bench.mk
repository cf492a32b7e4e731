# benchmarks: `make bench` prints figures; nothing here is a test
noinst_PROGRAMS += tests/bench_sampler
tests_bench_sampler_SOURCES = tests/bench_sampler.c
tests_bench_sampler_LDADD = libmemz.la

bench: tests/bench_sampler$(EXEEXT)
	ulimit -n 65536 2>/dev/null || ulimit -n 8192; \
	  ./tests/bench_sampler -n $${BENCH_PROCS:-1000} -c $${BENCH_CYCLES:-30}
