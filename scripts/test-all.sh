#!/bin/sh
# Set up a Debian 12 machine and run the whole memz test suite:
#   1. warnings-as-errors build, `make check` (unit and integration tests
#      against the real collectd and netdata);
#   2. AddressSanitizer + UBSan build, `make check` again (integration
#      tests included: the daemons load the sanitized plugins);
#   3. unit tests under valgrind;
#   4. libFuzzer build (clang), every fuzz target for a few seconds from its
#      seed corpus;
#   5. make distcheck: the release tarball builds out of tree, passes its
#      tests, and installs and uninstalls cleanly.
# Exits non-zero on the first failing stage; each failing test names itself.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/install-deps.sh"
cd "$src"
autoreconf -fi >/dev/null

jobs=$(nproc 2>/dev/null || echo 2)
stage() {
	name=$1; shift
	dir="$src/build-$name"
	rm -rf "$dir"; mkdir -p "$dir"
	echo "=== memz: $name build ==="
	(cd "$dir" && "$src/configure" -q "$@" >/dev/null && make -s -j"$jobs" >/dev/null)
}
report() {
	# automake writes test-suite.log; show it when a stage fails
	[ -f "$1/test-suite.log" ] && cat "$1/test-suite.log"
}

stage werror --enable-werror
(cd "$src/build-werror" && make -j"$jobs" check) || { report "$src/build-werror"; exit 1; }

stage sanitizers --enable-werror --enable-sanitizers
(cd "$src/build-sanitizers" && make -j"$jobs" check) || { report "$src/build-sanitizers"; exit 1; }

(cd "$src/build-werror" && make -j"$jobs" check-valgrind) || { report "$src/build-werror"; exit 1; }

# clang-14 is Debian's clang with libFuzzer (libclang-rt-14-dev)
(CC=clang-14; export CC; stage fuzzing --enable-werror --enable-fuzzing)
(cd "$src/build-fuzzing" && make fuzz FUZZ_SECONDS=8) || exit 1

echo "=== memz: distcheck ==="
(cd "$src/build-werror" && make -j"$jobs" distcheck >distcheck.log 2>&1) || {
	tail -n 60 "$src/build-werror/distcheck.log"
	find "$src/build-werror" -path '*_build*' -name test-suite.log -exec cat {} +
	exit 1
}
echo "memz: all test stages passed"
