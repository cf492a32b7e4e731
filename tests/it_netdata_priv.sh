#!/bin/sh
# The real install: memz.plugin installed by `make install` as root and
# started by a netdata running as user netdata (Debian's way) holds exactly
# cap_dac_read_search and cap_sys_ptrace, keeps them out of its effective
# set between reads, sees other users' processes (hidden_anon under 10% of
# process memory, and no more than root's own memz sees hidden), and charts
# and flags a root-owned 256 KiB/s leaker within 60 s. Prints the figures
# and the latency.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"
command -v getcap > /dev/null || nd_skip "no getcap"

ND_TMP=$(mktemp -d /tmp/memz-ndpriv.XXXXXX)
trap nd_cleanup EXIT
PORT=$(nd_pick_port 29432)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memzpriv
PL=$(readlink -f "$D/plugins")/memz.plugin
perm=$(stat -c '%a %U:%G' "$PL")
want="750 root:$(getent group netdata > /dev/null && echo netdata || echo root)"
[ "$perm" = "$want" ] || nd_fail "installed memz.plugin is $perm, expected $want"
caps=$(getcap "$PL" | awk '{ print $2 }')
[ "$caps" = "cap_dac_read_search,cap_sys_ptrace=ep" ] ||
	nd_fail "installed memz.plugin has capabilities '$caps'"
! grep -q . "$D/install.out" || nd_fail "make install said: $(cat "$D/install.out")"
echo "installed: $perm, $caps"

# Its config is read with no capability in effect: a memz.conf that user
# netdata may not read stays unread (the plugin says so and DISABLEs),
# though cap_dac_read_search would have read it.
mkdir -p "$ND_TMP/conf"
chmod 755 "$ND_TMP/conf"
printf 'TopGroups = 2\n' > "$ND_TMP/conf/memz.conf"
chmod 600 "$ND_TMP/conf/memz.conf"
NETDATA_USER_CONFIG_DIR="$ND_TMP/conf" timeout 10 setpriv --reuid=netdata \
	--regid=netdata --init-groups "$PL" 1 < /dev/null > "$ND_TMP/conf.out" 2> "$ND_TMP/conf.err"
rc=$?
[ "$rc" -eq 1 ] && grep -qx DISABLE "$ND_TMP/conf.out" &&
	grep -q "memz.conf: Permission denied" "$ND_TMP/conf.err" ||
	nd_fail "a memz.conf netdata may not read: exit $rc, $(head -c 300 "$ND_TMP/conf.err")"
echo "unreadable memz.conf: $(cat "$ND_TMP/conf.err")"

# DockerRoot is read with privilege, so it is checked as ProcRoot and
# SysRoot are: one below /tmp, which anyone may write (swap for a symlink
# to a root-only file), is not read at all; /proc is still read with the
# capabilities.
mkdir -p "$ND_TMP/docker"
printf 'DockerRoot = %s/docker\n' "$ND_TMP" > "$ND_TMP/conf/memz.conf"
chmod 644 "$ND_TMP/conf/memz.conf"
NETDATA_USER_CONFIG_DIR="$ND_TMP/conf" timeout 5 setpriv --reuid=netdata \
	--regid=netdata --init-groups "$PL" 1 < /dev/null > /dev/null 2> "$ND_TMP/docker.err"
grep -q "DockerRoot is not behind root's directories (Operation not permitted): container names are not read from it" \
	"$ND_TMP/docker.err" ||
	nd_fail "a DockerRoot others may swap: $(head -c 300 "$ND_TMP/docker.err")"
grep -q "ProcRoot or SysRoot" "$ND_TMP/docker.err" &&
	nd_fail "a DockerRoot others may swap took the capabilities for /proc"
echo "swappable DockerRoot: $(cat "$ND_TMP/docker.err")"

nd_start "$D" "$PORT"
nd_poll 30 eval 'nd_api $PORT "/api/v1/chart?chart=memz.leaks" > /dev/null' ||
	nd_fail "memz.leaks never appeared"
PPID_=$(nd_plugin_pid "$D")
[ -n "$PPID_" ] || nd_fail "no memz.plugin under netdata"
uid=$(nd_status_field "$PPID_" Uid)
[ "$uid" = "$(id -u netdata)" ] || nd_fail "memz.plugin runs as uid $uid"
prm=$(nd_status_field "$PPID_" CapPrm)
[ "$prm" = 0000000000080004 ] || nd_fail "memz.plugin's permitted set is $prm"
[ "$(nd_status_field "$PPID_" CapInh)" = 0000000000000000 ] ||
	nd_fail "memz.plugin's inheritable set is not empty"
# raised only while it reads /proc, a few ms a second
eff_lowered() { [ "$(nd_status_field "$PPID_" CapEff)" = 0000000000000000 ]; }
nd_poll 10 eff_lowered || nd_fail "memz.plugin keeps its capabilities in effect"
echo "memz.plugin pid $PPID_: uid $uid, CapPrm $prm, CapEff 0 between reads"

# A root service's worth of memory (an idle test machine has little else,
# and its supervisor's few MiB no one may read, root included).
"$LEAKER" --name "mzprivbal$$" --once 64 > /dev/null &
ND_EXTRA_PIDS="$!"
NAME="mzpriv$$"
"$LEAKER" --name "$NAME" --rate 256 --start-mib 4 > "$ND_TMP/leaker.out" &
LPID=$!
ND_EXTRA_PIDS="$ND_EXTRA_PIDS $LPID"
t0=$(nd_now_ms)
[ "$(nd_status_field "$LPID" Uid)" = 0 ] || nd_fail "the leaker is not root's"

nd_poll 60 nd_leak_is "$PORT" "$NAME" 1 || nd_fail "root's leaker $NAME not flagged within 60 s"
echo "root-owned 256 KiB/s leaker flagged on memz.leaks after $(nd_secs_since "$t0") s"

pa=$(nd_ram "$PORT" process_anon)
ha=$(nd_ram "$PORT" hidden_anon)
echo "memz.ram as user netdata with capabilities: process_anon $pa MiB, hidden_anon $ha MiB"
root_ha=$("$top_builddir/memz" json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["breakdown"]["hidden_anon"] / 1048576)')
echo "memz json as root at the same time: hidden_anon $root_ha MiB"
awk -v p="$pa" -v h="$ha" 'BEGIN { exit (p + h > 0 && h / (p + h) < 0.10) ? 0 : 1 }' ||
	nd_fail "hidden_anon $ha MiB is not under 10% of $pa + $ha MiB"
# what it cannot read, root cannot either, within 5% of process memory: the
# two readings are seconds apart and the plugin's figures between exact
# reads are estimates
awk -v h="$ha" -v r="$root_ha" -v p="$pa" 'BEGIN { exit h <= r + 0.05 * (p + h) ? 0 : 1 }' ||
	nd_fail "as netdata hidden_anon $ha MiB, as root $root_ha MiB"
o=$(nd_memz_complaints "$D") && nd_fail "error.log complains: $o"
exit 0
