#!/bin/sh
# configure in a directory that holds our core/ (an in-tree build, or any
# build directory after its first run) prints nothing on stderr: autoconf's
# `rm -f core` must not complain about the directory, and its exit trap must
# go on to remove confdefs.h.
set -u
[ -x "$top_srcdir/configure" ] || { echo "SKIP: no configure"; exit 77; }
t=$(mktemp -d /tmp/memz-confq.XXXXXX)
trap 'rm -rf "$t"' EXIT
mkdir "$t/core"
cd "$t" || exit 1
"$top_srcdir/configure" --help > /dev/null 2> help.err || { cat help.err; exit 1; }
if [ -s help.err ]; then
	echo "FAIL: configure --help wrote to stderr:"; cat help.err; exit 1
fi
# A real run through the compiler checks; the slow parts (libtool, yajl)
# are the same for every check, so the C compiler checks stand for all.
"$top_srcdir/configure" -q --disable-dependency-tracking \
	CC="${CC:-cc}" > run.out 2> run.err
if grep -q "cannot remove 'core'" run.err; then
	echo "FAIL: configure complained about core/:"; cat run.err; exit 1
fi
[ -d core ] || { echo "FAIL: configure removed core/"; exit 1; }
[ ! -e confdefs.h ] || { echo "FAIL: confdefs.h left behind"; exit 1; }
echo "configure quiet about core/ (stderr: $(wc -l < run.err) lines)"
exit 0
