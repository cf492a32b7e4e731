#!/bin/sh
# Set up a Debian 12 machine and run the whole memz test suite:
#   1. warnings-as-errors build, `make check` (unit and integration tests
#      against the real collectd and netdata);
#   2. AddressSanitizer + UBSan build, `make check` again (integration
#      tests included: the daemons load the sanitized plugins);
#   3. unit tests under valgrind;
#   4. libFuzzer build (clang), every fuzz target for a few seconds from its
#      seed corpus;
#   5. make distcheck-unit: the release tarball builds out of tree, passes
#      its unit tests (the integration tests ran in stages 1 and 2), and
#      installs and uninstalls cleanly; CI has 45 minutes on 2 cores.
# Exits non-zero on the first failing stage; each failing test names itself.
#
# Before stage 1 it builds a netdata 2.x (v2.10.4, offline) for the 2.x
# tests into /opt/memz-netdata2 (NETDATA2_PREFIX), with build.sh from
# MEMZ_NETDATA2_SRC (default: the first of ../shared/netdata2 beside the
# checkout and /work/shared/netdata2 that exists). The prefix is a cache:
# build.sh returns at once when it holds a build of the same tarball. With
# neither the folder nor a built prefix the 2.x tests skip, saying why.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/install-deps.sh"
cd "$src"

NETDATA2_PREFIX=${NETDATA2_PREFIX:-/opt/memz-netdata2}
if [ -z "${MEMZ_NETDATA2_SRC:-}" ]; then
	for d in "$src/../shared/netdata2" /work/shared/netdata2; do
		if [ -f "$d/build.sh" ]; then MEMZ_NETDATA2_SRC=$d; break; fi
	done
fi
if [ -n "${MEMZ_NETDATA2_SRC:-}" ]; then
	echo "=== memz: netdata 2.x in $NETDATA2_PREFIX (from $MEMZ_NETDATA2_SRC) ==="
	t=$(date +%s)
	sh "$MEMZ_NETDATA2_SRC/build.sh" "$NETDATA2_PREFIX"
	echo "netdata 2.x ready after $(( $(date +%s) - t )) s"
elif [ ! -x "$NETDATA2_PREFIX/usr/sbin/netdata" ]; then
	echo "=== memz: no netdata 2.x (no MEMZ_NETDATA2_SRC, nothing in $NETDATA2_PREFIX): its tests will skip ==="
fi
# configure reads it: the 2.x tests run where it holds a netdata
[ -x "$NETDATA2_PREFIX/usr/sbin/netdata" ] && export NETDATA2_PREFIX ||
	unset NETDATA2_PREFIX
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
# it_netdata2 (five minutes, most of them waiting on netdata 2.x's 150 s
# grid) runs in the werror stage only: the sanitized plugin meets the real
# daemons in every other integration test, and CI has 45 minutes; so does
# it_packages, whose packages are built from make dist with Debian's flags
(cd "$src/build-sanitizers" && MEMZ_SKIP_NETDATA2="the werror stage ran it" \
	MEMZ_SKIP_PACKAGES="built without sanitizers: the werror stage ran it" \
	make -j"$jobs" check) || { report "$src/build-sanitizers"; exit 1; }

(cd "$src/build-werror" && make -j"$jobs" check-valgrind) || { report "$src/build-werror"; exit 1; }

# clang-14 is Debian's clang with libFuzzer (libclang-rt-14-dev)
(CC=clang-14; export CC; stage fuzzing --enable-werror --enable-fuzzing)
(cd "$src/build-fuzzing" && make fuzz FUZZ_SECONDS=8) || exit 1

echo "=== memz: distcheck ==="
(cd "$src/build-werror" && make -j"$jobs" distcheck-unit >distcheck.log 2>&1) || {
	tail -n 60 "$src/build-werror/distcheck.log"
	find "$src/build-werror" -path '*_build*' -name test-suite.log -exec cat {} +
	exit 1
}
echo "memz: all test stages passed"
