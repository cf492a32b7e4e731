#!/bin/sh
# A helper that allocates 64 MiB once and stays flat must raise nothing for
# 60 s, while memz reports its size and a growth rate near zero. A single
# large allocation is the classic false positive of a naive detector.
# TopGroups 0 with a ProcessMatch regex: the helper is reported because the
# regex selects it, and nothing else is.
. "$top_srcdir/tests/collectd/lib.sh"
cd_init flat

A="$D/a"
FLAT="mzflat$$"
CD_MEMZ="  TopGroups 0
  ProcessMatch \"^mzfl.t$$\""
cd_conf "$A" "memzfl$$"
cd_start "$A"
cd_wait_ready "$A"

t0=$(cd_now)
cd_leaker "$D/flat.pid" "$LEAKER" --name "$FLAT" --once 64
PF=$LEAKER_PID
cd_poll 10 cd_has_val "$A" "memz-$FLAT/memory-pss" ||
	cd_fail "group $FLAT not reported within 10 s"

groups=$(cd_listval "$A" | sed -n 's|^[^/]*/memz-\([^/]*\)/memory-pss$|\1|p' | grep -v '^node')
[ "$groups" = "$FLAT" ] || cd_fail "reported groups: $groups (want only $FLAT)"

mentioned() {
	grep -F "Notification:" "$A/collectd.log" | grep -qF "$FLAT"
}
# Polled, so a false alarm fails the test the moment it is raised.
if cd_poll 60 mentioned; then
	cd_notif_line "$A" WARNING "[LEAK?]" >&2
	cd_fail "notification for a flat process $(cd_since "$t0") s after its start"
fi
echo "no notification for $FLAT (pid $PF) in $(cd_since "$t0") s"

pss=$(cd_getval "$A" "memz-$FLAT/memory-pss")
rate=$(cd_getval "$A" "memz-$FLAT/gauge-growth_rate")
conf=$(cd_getval "$A" "memz-$FLAT/percent-leak_confidence")
sus=$(cd_getval "$A" memz/count-leak_suspects)
echo "pss $pss B, growth_rate $rate B/s, leak_confidence $conf, leak_suspects $sus"
# 64 MiB touched, plus the helper's own few hundred KiB.
cd_num_cmp "$pss" ">=" 67108864 && cd_num_cmp "$pss" "<=" 71303168 ||
	cd_fail "PSS $pss is not 64 MiB"
cd_num_cmp "$rate" "<" 4096 && cd_num_cmp "$rate" ">" -4096 ||
	cd_fail "growth_rate $rate for a flat process"
# The detector reports 50 or more only with a leak flag.
cd_num_cmp "$conf" "<" 50 || cd_fail "leak_confidence $conf for a flat process"
cd_alive "$PF" || cd_fail "the helper died"
echo "ok"
