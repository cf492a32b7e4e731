#!/bin/sh
# A process leaking 256 KiB/s under a real netdata: memz.leaks shows 1 for
# its group and the shipped alarm goes WARNING within 30 s of its start; the
# per-group template raises memz_group_leak on the group's own chart, naming
# the group in its info with its growth rate as the value, within 60 s;
# after the growth stops (leaker: SIGUSR1) both clear. Prints the seconds
# each step took. Works in the sanitizer build (only the API is read).
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

alarm_is() {
	nd_api "$PORT" "/api/v1/alarms?all" > "$ND_TMP/alarms.json" &&
	python3 - "$ND_TMP/alarms.json" "$1" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"]
st = [v["status"] for k, v in a.items() if v["name"] == "memz_leak_suspects"]
sys.exit(0 if st and st[0] == sys.argv[2] else 1)
PY
}

nd_poll 30 nd_leak_is "$PORT" "$NAME" 1 || nd_fail "memz.leaks did not show 1 for $NAME within 30 s"
echo "memz.leaks = 1 for $NAME after $(nd_secs_since $t0) s"
left=$(( 30 - ($(nd_now_ms) - t0) / 1000 ))
[ "$left" -gt 0 ] || left=1
nd_poll "$left" alarm_is WARNING || nd_fail "alarm memz_leak_suspects not WARNING within 30 s"
echo "alarm memz_leak_suspects WARNING after $(nd_secs_since $t0) s"
python3 - "$ND_TMP/alarms.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"]
for v in a.values():
    if v["name"].startswith("memz_"):
        print("  %s on %s: %s, info: %s" % (v["name"], v["chart"], v["status"], v["info"]))
PY

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
    assert 64 <= v["value"] <= 1024, ("value is not the growth rate in KiB/s", v["value"])
    assert v["units"] == "KiB/s", v["units"]
PY
}
left=$(( 60 - ($(nd_now_ms) - t0) / 1000 ))
[ "$left" -gt 0 ] || left=1
nd_poll "$left" group_alarm_is WARNING ||
	nd_fail "alarm memz_group_leak on memz.grp_${NAME}_leak not WARNING (naming $NAME, value its rate) within 60 s"
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
nd_poll 120 nd_leak_is "$PORT" "$NAME" 0 || nd_fail "memz.leaks did not go back to 0 for $NAME within 120 s"
echo "memz.leaks = 0 for $NAME $(nd_secs_since $t1) s after the growth stopped"

# The alarm counts every suspect on the machine; other tests (or a user's
# demo) may be leaking right now. It must clear when memz sees none, and
# otherwise must still be WARNING for exactly those.
others() {
	nd_api "$PORT" "/api/v1/data?chart=memz.leaks&after=-1&points=1&group=max&format=json" \
		> "$ND_TMP/all.json" &&
	python3 - "$ND_TMP/all.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(l for l, v in zip(d["labels"][1:], d["data"][0][1:]) if v))
PY
}
nd_poll 60 group_alarm_is CLEAR ||
	nd_fail "alarm memz_group_leak of $NAME did not clear within 60 s of the growth stopping"
echo "alarm memz_group_leak of $NAME cleared $(nd_secs_since $t1) s after the growth stopped"
# The alarm is evaluated on its own clock, after the chart: when another
# group's leak ends, the chart shows none a while before the alarm clears,
# so the chart and the alarm are read until they agree. A late clear counts
# only if another group was flagged since the growth stopped.
warning_for_others() {
	o=$(others) && [ -n "$o" ] && alarm_is WARNING
}
# others_since SECS: groups but the test's flagged in the last SECS
others_since() {
	nd_api "$PORT" "/api/v1/data?chart=memz.leaks&after=-$1&points=1&group=max&format=json" \
		> "$ND_TMP/since.json" &&
	python3 - "$ND_TMP/since.json" "$NAME" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(l for l, v in zip(d["labels"][1:], d["data"][0][1:])
               if v and l != sys.argv[2]))
PY
}
if nd_poll 60 alarm_is CLEAR; then
	echo "alarm cleared $(nd_secs_since $t1) s after the growth stopped"
else
	nd_poll 30 eval 'o=""; alarm_is CLEAR || warning_for_others' ||
		nd_fail "alarm did not clear within 60 s of the growth stopping, and is not WARNING for other flagged groups (flagged: '$(others)')"
	if [ -n "$o" ]; then
		echo "alarm stays WARNING: other leaking groups on this machine: $o"
	else
		o=$(others_since $(( ($(nd_now_ms) - t1) / 1000 + 1 )))
		[ -n "$o" ] || nd_fail "alarm did not clear within 60 s of the growth stopping, and no other group was flagged"
		echo "alarm cleared $(nd_secs_since $t1) s after the growth stopped, held by other leaking groups on this machine: $o"
	fi
fi
exit 0
