#!/bin/sh
# A process leaking 256 KiB/s under a real netdata: memz.leaks shows 1 for
# its group within 30 s of its start (a suspect); once the verdict has stood
# LeakAlarmAfter (5 s here; the test config judges young processes,
# LeakWarmup 0) and memory would run out within two days at its rate, the
# group's alarm level is 1 and the shipped memz_group_leak template raises a
# WARNING on the group's own chart, naming the group in its info, within
# 60 s; after the growth stops (leaker: SIGUSR1) both clear within 60 s.
# Prints the seconds each step took. Works in the sanitizer build (only the
# API is read).
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"

ND_TMP=$(mktemp -d /tmp/memz-ndleak.XXXXXX)
trap nd_cleanup EXIT
PORT=$(nd_pick_port 29418)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memzleak
nd_start "$D" "$PORT"
nd_poll 30 eval 'nd_api $PORT "/api/v1/chart?chart=memz.leaks" > /dev/null' ||
	nd_fail "memz.leaks never appeared"

NAME="mzleak$$"
"$LEAKER" --name "$NAME" --rate 256 --start-mib 4 > "$ND_TMP/leaker.out" &
LPID=$!
ND_EXTRA_PIDS="$LPID"
t0=$(nd_now_ms)

nd_poll 30 nd_leak_is "$PORT" "$NAME" 1 || nd_fail "memz.leaks did not show 1 for $NAME within 30 s"
echo "memz.leaks = 1 for $NAME after $(nd_secs_since $t0) s"

# the group's own alarm: on memz.grp_<group>_leak, naming the group
group_alarm_is() {
	nd_api "$PORT" "/api/v1/alarms?all" > "$ND_TMP/galarms.json" &&
	python3 - "$ND_TMP/galarms.json" "memz.grp_${NAME}_leak" "$1" "$NAME" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"]
st = [v for v in a.values() if v["name"] == "memz_group_leak" and v["chart"] == sys.argv[2]]
if not st or st[0]["status"] != sys.argv[3]:
    sys.exit(1)
if sys.argv[3] == "WARNING":
    v = st[0]
    assert sys.argv[4] in v["info"], ("info does not name the group", v["info"])
    assert "$label" not in v["info"], ("label not replaced", v["info"])
    assert v["value"] == 1, ("value is not the alarm level", v["value"])
    assert v["units"] == "level", v["units"]
PY
}
left=$(( 60 - ($(nd_now_ms) - t0) / 1000 ))
[ "$left" -gt 0 ] || left=1
nd_poll "$left" group_alarm_is WARNING ||
	nd_fail "alarm memz_group_leak on memz.grp_${NAME}_leak not WARNING (naming $NAME, value level 1) within 60 s"
echo "alarm memz_group_leak on memz.grp_${NAME}_leak WARNING after $(nd_secs_since $t0) s"
python3 - "$ND_TMP/galarms.json" "memz.grp_${NAME}_leak" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"]
for k, v in a.items():
    if v["name"] == "memz_group_leak" and v["chart"] == sys.argv[2]:
        keep = ("id", "name", "chart", "family", "status", "units", "info",
                "value", "value_string", "lookup_dimensions", "calc", "warn")
        print("  /api/v1/alarms: " + json.dumps({f: v.get(f) for f in keep}))
PY

kill -USR1 "$LPID"
t1=$(nd_now_ms)
# on failure, the series the plugin judged: the group's PSS, and its leak
# level, each second since the leak began
series() {
	for c in mem leak; do
		echo "--- memz.grp_${NAME}_$c, last 200 s" >&2
		nd_api "$PORT" "/api/v1/data?chart=memz.grp_${NAME}_$c&after=-200&format=csv&options=seconds" |
			tr '\r' ' ' >&2
	done
}
nd_poll 120 nd_leak_is "$PORT" "$NAME" 0 || {
	series
	nd_fail "memz.leaks did not go back to 0 for $NAME within 120 s"
}
echo "memz.leaks = 0 for $NAME $(nd_secs_since $t1) s after the growth stopped"

nd_poll 60 group_alarm_is CLEAR ||
	nd_fail "alarm memz_group_leak of $NAME did not clear within 60 s of the growth stopping"
echo "alarm memz_group_leak of $NAME cleared $(nd_secs_since $t1) s after the growth stopped"
exit 0
