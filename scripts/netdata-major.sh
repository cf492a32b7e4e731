#!/bin/sh
# Print the major version (1 or 2) of the netdata whose binary is $1, for
# choosing memz's health file: 1.x and 2.x write label variables in `info`
# differently and only 2.x reads `summary:`. NETDATA_MAJOR set in the
# environment wins; a netdata that cannot be asked counts as 2, what
# netdata's own packages install.
set -u
case ${NETDATA_MAJOR:-} in 1|2) echo "$NETDATA_MAJOR"; exit 0;; esac
v=$( { [ -n "${1:-}" ] && "$1" -V 2>/dev/null; } | sed -n 's/^netdata v\{0,1\}\([0-9][0-9]*\)\..*/\1/p' | head -n 1)
case $v in 1) echo 1;; *) echo 2;; esac
