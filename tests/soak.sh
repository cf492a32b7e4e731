#!/bin/sh
# soak.sh - memz watching itself for SOAK_SECONDS (default 900): memz.plugin
# runs on a pipe as netdata runs it while `memz top` follows it and itself
# with the leak detector. Passes when no memz process was ever
# flagged and memz.plugin's fds did not grow; prints its RSS and fds at the
# start (after a minute's warm-up, or a tenth of the run) and at the end.
# `make soak` runs it (not part of make check: minutes to hours).
set -u
: "${top_builddir:?}"
MEMZ=$top_builddir/memz
PLUGIN=$top_builddir/memz.plugin
SOAK_SECONDS=${SOAK_SECONDS:-900}
TMP=$(mktemp -d /tmp/memz-soak.XXXXXX)
PIDS=""
cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

mkfifo "$TMP/stdin"
NETDATA_USER_CONFIG_DIR=$TMP NETDATA_STOCK_CONFIG_DIR=$TMP \
	"$PLUGIN" 1 <"$TMP/stdin" >/dev/null 2>"$TMP/plugin.err" &
plugin=$!
PIDS="$PIDS $plugin"
exec 3>"$TMP/stdin"
# by pid: the plugin and this memz top itself (the shell's pid, which exec
# hands on), not other memz processes on the machine
plugin=$plugin MEMZ=$MEMZ sh -c 'exec "$MEMZ" top -p -b --match "^($$|$plugin)\$" --watch 2' \
	>"$TMP/top.out" 2>"$TMP/top.err" &
top=$!
PIDS="$PIDS $top"

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
# the plugin keeps an fd per process (statm), so its fds follow how many
# processes the machine has: a leak of fds is what that does not explain
nprocs() { ls -d /proc/[0-9]* 2>/dev/null | wc -l; }
alive() {
	kill -0 "$plugin" 2>/dev/null || fail "memz.plugin died: $(cat "$TMP/plugin.err")"
	kill -0 "$top" 2>/dev/null || fail "memz top died: $(cat "$TMP/top.err")"
}
t0=$(date +%s)
warm=$((SOAK_SECONDS / 10 < 60 ? SOAK_SECONDS / 10 : 60))
while [ $(( $(date +%s) - t0 )) -lt "$warm" ]; do alive; sleep 1; done
rss0=$(rss_kib "$plugin") fds0=$(fds "$plugin") np0=$(nprocs)
while [ $(( $(date +%s) - t0 )) -lt "$SOAK_SECONDS" ]; do alive; sleep 1; done
rss1=$(rss_kib "$plugin") fds1=$(fds "$plugin") np1=$(nprocs)
echo "soak ${SOAK_SECONDS} s: memz.plugin RSS ${rss0} -> ${rss1} KiB, fds $fds0 -> $fds1 (processes $np0 -> $np1)"
if grep -q '\[LEAK?\]' "$TMP/top.out"; then
	grep '\[LEAK?\]' "$TMP/top.out" | head -5 >&2
	fail "memz flagged one of its own processes"
fi
more=$((np1 > np0 ? np1 - np0 : 0))
[ "$fds1" -le $((fds0 + more + 2)) ] ||
	fail "memz.plugin fds grew: $fds0 -> $fds1 while processes went $np0 -> $np1"
[ "$(awk 'NF >= 7 && $1 ~ /^[0-9]+$/' "$TMP/top.out" | wc -l)" -gt 0 ] || fail "memz top never listed memz"
echo "soak: $(awk '$1 ~ /^[0-9]+$/ && NF >= 7 { n[$1]++ } END { for (p in n) printf "%s ", p }' "$TMP/top.out")watched; none flagged, fds flat"
exit 0
