#!/bin/sh
# An install where setcap fails (SETCAP=/bin/false stands in for a file
# system without xattrs; fakeroot is tried too): make install succeeds and
# says in one line what to run; memz.plugin, run by netdata as user netdata
# without capabilities, says once in error.log which capabilities it lacks
# and the exact setcap for its own path, and goes on charting (same pid)
# what it can read, the rest as hidden_anon (a root-owned 64 MiB process
# among it).
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata
command -v getcap > /dev/null || nd_skip "no getcap"

ND_TMP=$(mktemp -d /tmp/memz-ndnocaps.XXXXXX)
trap nd_cleanup EXIT
PORT=$(nd_pick_port 29439)
D="$ND_TMP/nd"
ND_INSTALL_ARGS="SETCAP=/bin/false"
nd_setup "$D" "$PORT" memznocaps
PL=$(readlink -f "$D/plugins")/memz.plugin
[ -z "$(getcap "$PL")" ] || nd_fail "memz.plugin has capabilities: $(getcap "$PL")"
n=$(grep -c . "$D/install.out")
[ "$n" -eq 1 ] || nd_fail "make install said $n lines: $(cat "$D/install.out")"
grep -q "^memz: memz.plugin has no capabilities.*as root run: setcap cap_dac_read_search,cap_sys_ptrace=ep /.*/memz.plugin$" \
	"$D/install.out" || nd_fail "make install's advice: $(cat "$D/install.out")"
echo "make install: $(cat "$D/install.out")"
# fakeroot's setcap only pretends: the same one line
if command -v fakeroot > /dev/null; then
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL fakeroot "${MAKE:-make}" -s \
		-C "$top_builddir" install-exec DESTDIR="$ND_TMP/fr" > "$ND_TMP/fr.log" 2>&1 ||
		nd_fail "make install under fakeroot failed: $(tail -n 5 "$ND_TMP/fr.log")"
	[ "$(grep -c '^memz: memz.plugin has no capabilities' "$ND_TMP/fr.log")" -eq 1 ] ||
		nd_fail "make install under fakeroot did not say what to run"
fi

# a root-owned process of 64 MiB the plugin cannot read: hidden_anon holds
# it whatever else the machine runs (a big process's status, readable by
# all, may put more in process_anon than the unreadable rest)
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"
"$LEAKER" --name "mznocap$$" --once 64 > "$ND_TMP/leaker.out" 2>&1 &
ND_EXTRA_PIDS=$!
nd_start "$D" "$PORT"
nd_poll 30 eval 'nd_api $PORT "/api/v1/chart?chart=memz.ram" > /dev/null' ||
	nd_fail "memz.ram never appeared"
PID1=$(nd_plugin_pid "$D")
[ "$(nd_status_field "$PID1" Uid)" = "$(id -u netdata)" ] ||
	nd_fail "memz.plugin does not run as netdata"
[ "$(nd_status_field "$PID1" CapPrm)" = 0000000000000000 ] ||
	nd_fail "memz.plugin holds capabilities"

LINE="memz.plugin: cannot read [0-9]* processes of other users (uid $(id -u netdata) lacks cap_dac_read_search,cap_sys_ptrace); their memory is counted as hidden_anon. Fix: as root run 'setcap cap_dac_read_search,cap_sys_ptrace=ep $PL' and restart netdata"
nd_wait_grep "$D/log/error.log" "$LINE" 20 ||
	nd_fail "error.log does not say what memz.plugin lacks"
grep "memz.plugin: cannot read" "$D/log/error.log" | sed 's/^.*memz.plugin:/memz.plugin:/'

# still charting, by the same process, and said it once
last_t() {
	nd_api "$PORT" "/api/v1/data?chart=memz.ram&after=-1&points=1&format=json" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0][0])'
}
t1=$(last_t)
later() { [ "$(last_t)" -ge $((t1 + 3)) ]; }
nd_poll 20 later || nd_fail "memz.ram stopped after the complaint"
[ "$(nd_plugin_pid "$D")" = "$PID1" ] || nd_fail "memz.plugin was restarted"
n=$(grep -c "memz.plugin: cannot read" "$D/log/error.log")
[ "$n" -eq 1 ] || nd_fail "said $n times"
pa=$(nd_ram "$PORT" process_anon)
ha=$(nd_ram "$PORT" hidden_anon)
echo "memz.ram as user netdata without capabilities: process_anon $pa MiB, hidden_anon $ha MiB"
awk -v h="$ha" 'BEGIN { exit h >= 60 ? 0 : 1 }' ||
	nd_fail "without capabilities hidden_anon ($ha MiB) does not hold the root-owned 64 MiB process"
exit 0
