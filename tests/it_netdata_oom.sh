#!/bin/sh
# A leaker in a memory-limited cgroup under a real netdata: memz.plugin
# charts its cgroup's time to OOM falling, the shipped memz_time_to_oom
# alarm raises for that scope, and when the kernel kills it the scope's
# memz.oom_kills chart counts it, memz_oom_kills goes CRITICAL and
# error.log names the victim. OomWarn is not its default here: the plugin
# sets it on each time to OOM chart as $oom_warn, and the alarm's
# thresholds follow it (warning under 60 s, critical under 10 s, where the
# default's 3600 and 600 would make it critical at once). The cgroup is
# nested under the test's own
# and removed afterwards; the test skips (77) where it cannot make one.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
. "$top_srcdir/tests/oom/cg.sh"
nd_need_netdata
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"
ND_TMP=$(mktemp -d /tmp/memz-ndoom.XXXXXX)
trap 'oc_remove; nd_cleanup' EXIT
oc_make nd $((64 << 20)) || nd_skip "$OC_WHY"

PORT=$(nd_pick_port 29518)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memzoom
printf 'OomWarn = 60\n' >> "$D/etc/memz.conf"
nd_start "$D" "$PORT"
nd_poll 30 eval 'nd_api $PORT "/api/v1/chart?chart=memz.time_to_oom_machine" > /dev/null' ||
	nd_fail "memz.time_to_oom_machine never appeared"
nd_poll 30 eval 'nd_api $PORT "/api/v1/chart?chart=memz.time_to_oom_$OC_ID" > /dev/null' ||
	nd_fail "memz.time_to_oom_$OC_ID never appeared"

NAME="mzoomnd$$"
oc_exec "$OC_DIR" "$LEAKER" --name "$NAME" --start-mib 8 --rate 1024 \
	> "$ND_TMP/leaker.out" &
SPID=$!
ND_EXTRA_PIDS=$(nd_id "$SPID")
# the leaker prints its pid once it has its name
nd_poll 5 grep -qs . "$ND_TMP/leaker.out" || nd_fail "leaker did not start"
LPID=$(head -n 1 "$ND_TMP/leaker.out")
# not LPID: the wrapper SPID reaps the leaker when the kernel kills it, and
# its pid may be another process's (pid_max is 32768) by the cleanup;
# oc_remove kills what is left in the cgroup, only this test's helpers
t0=$(nd_now_ms)

# the latest value of a scope chart's only dimension, or fail when none
latest() {
	nd_api "$PORT" "/api/v1/data?chart=$1&after=-3&points=1&group=min&format=json" \
		> "$ND_TMP/data.json" &&
	python3 - "$ND_TMP/data.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["data"][0][1] if d["data"] else None
# a chart younger than the window reads 0 before its first value
if not v:
    sys.exit(1)
print(v)
PY
}
alarm() {
	nd_api "$PORT" "/api/v1/alarms?all" > "$ND_TMP/alarms.json" &&
	python3 - "$ND_TMP/alarms.json" "$1" "$2" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"]
st = [v["status"] for v in a.values()
      if v["name"] == sys.argv[1 + 1] and v["chart"] == sys.argv[3]]
print(st[0] if st else "none")
PY
}
alarm_in() {
	s=$(alarm "$1" "$2") && case " $3 " in *" $s "*) return 0 ;; esac
	return 1
}

# the value the poll found, not another read: on a loaded machine the
# next read's window may hold a late second, which reads as none
first_of() { first=$(latest "memz.time_to_oom_$OC_ID"); }
# on failure, what the plugin charted: the scope's time to OOM, and the
# leaker's group (its PSS and leak level), each second
series() {
	for c in "time_to_oom_$OC_ID" "grp_${NAME}_mem" "grp_${NAME}_leak"; do
		echo "--- memz.$c, last 60 s" >&2
		nd_api "$PORT" "/api/v1/data?chart=memz.$c&after=-60&format=csv&options=seconds" |
			tr '\r' ' ' >&2
	done
}
nd_poll 40 first_of || {
	series
	nd_fail "no time to OOM for $OC_PATH within 40 s"
}
echo "time to OOM $first s after $(nd_secs_since $t0) s"
falls() {
	v=$(latest "memz.time_to_oom_$OC_ID") &&
	awk -v a="$v" -v b="$first" 'BEGIN { exit !(a < b - 2) }'
}
nd_poll 10 falls || nd_fail "time to OOM did not fall from $first"
echo "time to OOM fell to $(latest "memz.time_to_oom_$OC_ID") s"
oom_warn() {
	nd_api "$PORT" "/api/v1/alarm_variables?chart=$1" > "$ND_TMP/vars.json" &&
	python3 - "$ND_TMP/vars.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["chart_variables"].get("oom_warn"))
PY
}
w=$(oom_warn "memz.time_to_oom_$OC_ID")
[ "$w" = 60 ] || [ "$w" = 60.0 ] || nd_fail "chart variable oom_warn is '$w', not OomWarn's 60"
# under OomWarn but above a sixth of it: WARNING, not the default's CRITICAL
nd_poll 20 alarm_in memz_time_to_oom "memz.time_to_oom_$OC_ID" "WARNING" || {
	nd_api "$PORT" "/api/v1/alarms?all" | grep -B5 -A40 "\"memz.time_to_oom_$OC_ID\"" | head -80
	nd_api "$PORT" "/api/v1/alarm_variables?chart=memz.time_to_oom_$OC_ID"
	nd_fail "memz_time_to_oom not WARNING for $OC_ID with OomWarn 60 (it is $(alarm memz_time_to_oom "memz.time_to_oom_$OC_ID") at $(latest "memz.time_to_oom_$OC_ID") s)"
}
echo "alarm memz_time_to_oom WARNING at $(latest "memz.time_to_oom_$OC_ID") s to OOM, $(nd_secs_since $t0) s in; \$oom_warn = $w"
nd_poll 60 alarm_in memz_time_to_oom "memz.time_to_oom_$OC_ID" "CRITICAL" ||
	nd_fail "memz_time_to_oom not CRITICAL for $OC_ID under 10 s"
echo "alarm memz_time_to_oom CRITICAL after $(nd_secs_since $t0) s"

nd_poll 60 eval '! kill -0 $LPID 2>/dev/null' || nd_fail "$NAME was not killed within 60 s of its CRITICAL"
nd_poll 10 nd_grep_q "$D/log/error.log" "memz: \[OOM KILL\] cgroup $OC_PATH: $NAME (pid $LPID)" ||
	nd_fail "error.log does not name $NAME (pid $LPID) as the OOM kill"
grep -F "memz: [OOM KILL]" "$D/log/error.log" | grep -F "$NAME" | head -n 1
if ! nd_poll 20 alarm_in memz_oom_kills "memz.oom_kills_$OC_ID" CRITICAL; then
	nd_api "$PORT" "/api/v1/data?chart=memz.oom_kills_$OC_ID&after=-60&format=json&group=max&points=20"
	nd_api "$PORT" "/api/v1/alarms?all" | grep -A30 '"memz_oom_kills' | head -60
	nd_fail "memz_oom_kills not CRITICAL for $OC_ID (it is $(alarm memz_oom_kills "memz.oom_kills_$OC_ID"))"
fi
echo "alarm memz_oom_kills CRITICAL after $(nd_secs_since $t0) s"
# no forecast once the leak is gone: the chart has a gap, and no alarm
# reads it as 0 s left
nd_poll 15 eval '! latest "memz.time_to_oom_$OC_ID" > /dev/null' ||
	nd_fail "time to OOM still charted after the kill"
if c=$(nd_memz_complaints "$D"); then
	nd_fail "netdata complained about memz.plugin: $c"
fi
echo ok
