#!/bin/sh
# LOG_COMPILER for `make check-valgrind`: a C test binary under memcheck;
# shell tests run as they are.
case "$1" in
*.sh) exec "$@" ;;
esac
# memcheck looks for memory errors, which two noise seeds of
# test_detector's cases reach as well as thirty, in a fifteenth of the time
DETECTOR_SEEDS=${DETECTOR_SEEDS:-2}
export DETECTOR_SEEDS
exec "${top_builddir:-.}/libtool" --mode=execute valgrind --quiet \
  --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
  --track-fds=no "$@"
