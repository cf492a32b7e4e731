#!/bin/sh
# LOG_COMPILER for `make check-valgrind`: a C test binary under memcheck;
# shell tests run as they are.
case "$1" in
*.sh) exec "$@" ;;
esac
exec "${top_builddir:-.}/libtool" --mode=execute valgrind --quiet \
  --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
  --track-fds=no "$@"
