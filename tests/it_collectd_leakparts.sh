#!/bin/sh
# A helper leaks 256 KiB/s of anonymous mmaps. After its suspect's log line
# "[LEAK?] ... grows", memz reads its smaps, again LeakPartsDelay (3 s)
# later, and a second line must say what grew: other anonymous memory, by
# at least the 3 s of growth, and the heap not at all. Both are INFO lines
# of collectd's log (a suspect is no notification; its alarm is).
. "$top_srcdir/tests/collectd/lib.sh"
cd_init leakparts

A="$D/a"
NAME="mzparts$$"
CD_MEMZ="  Process \"$NAME\"
  LeakPartsDelay 3"
cd_conf "$A" "memzlp$$"
cd_start "$A"
cd_wait_ready "$A"

t0=$(cd_now)
cd_leaker "$D/leak.pid" "$LEAKER" --name "$NAME" --rate 256 --start-mib 4
PL=$LEAKER_PID
cd_poll 30 cd_log_has "$A" "[LEAK?] process $NAME (pid $PL) grows" ||
	cd_fail "no [LEAK?] line for $NAME within 30 s"
echo "verdict $(cd_since "$t0") s after the helper started"
cd_poll 15 cd_log_has "$A" "[LEAK?] process $NAME (pid $PL) is made of: other anonymous +" ||
	cd_fail "no 'is made of' line for $NAME within 15 s of its verdict: $(grep -F "$NAME" "$A/collectd.log" | tail -n 3)"
line=$(grep -F "[LEAK?] process $NAME (pid $PL) is made of" "$A/collectd.log" | head -n 1)
echo "$line"
printf '%s\n' "$line" | grep -qF "[info] memz plugin: " ||
	cd_fail "'is made of' is not memz's INFO line"
printf '%s\n' "$line" | grep -qF "heap +0 B" || cd_fail "the heap grew, or is not named"
# 256 KiB/s over at least 3 s: at least 0.7 MiB in anon (KiB or MiB)
grow=$(printf '%s\n' "$line" | sed -n 's/.*other anonymous +\([0-9.]*\) \([KM]i\)B.*/\1 \2/p')
case "$grow" in
*Mi) cd_num_cmp "${grow% *}" ">=" 0.7 || cd_fail "anon grew only $grow";;
*Ki) cd_num_cmp "${grow% *}" ">=" 700 || cd_fail "anon grew only $grow";;
*) cd_fail "no anon growth figure in: $line";;
esac
kill -TERM "$PL"

if grep -q '\[error\]' "$A/collectd.log"; then
	cd_fail "collectd logged errors: $(grep '\[error\]' "$A/collectd.log" | head -n 3)"
fi
echo "ok"
