#!/bin/sh
# Two helpers leak 256 KiB/s. Each is a suspect at once: an INFO line
# "[LEAK?] process NAME (pid P) grows" in collectd's log (which Debian's
# syslog keeps), no notification. Once its verdict has stood LeakAlarmAfter
# (5 s here) and memory would run out within LeakWarnTime at its rate, its
# group's alarm is a WARNING notification "[LEAK] group NAME grows", with
# its meta data (seen through the exec plugin) and a WARNING log line, within
# 45 s of its start. Then one stops growing (SIGUSR1) and the other exits,
# and each group's alarm gets an OKAY. The second one's name is hostile (a
# space, a slash): the message keeps it readable, the plugin instance is
# sanitised.
. "$top_srcdir/tests/collectd/lib.sh"
cd_init leak
[ "$(id -u)" = 0 ] || cd_skip "the exec plugin runs scripts as nobody only for root"

A="$D/a"
GROW="mzgrow$$"
EXIT="mz x/$$"
EXIT_ID="mz_x_$$"
CD_MEMZ="  Process \"$GROW\"
  Process \"$EXIT\""
cd_exec_notifications "$A"
cd_conf "$A" "memzlk$$"
cd_start "$A"
cd_wait_ready "$A"

t0=$(cd_now)
cd_leaker "$D/grow.pid" "$LEAKER" --name "$GROW" --rate 256 --start-mib 4
PG=$LEAKER_PID
cd_leaker "$D/exit.pid" "$LEAKER" --name "$EXIT" --rate 256 --start-mib 4
PE=$LEAKER_PID

left() {
	awk -v t0="$t0" -v t1="$(cd_now)" -v l="$1" \
		'BEGIN { r = l - (t1 - t0); printf "%.1f", (r > 0 ? r : 0) }'
}

for who in "$GROW:$GROW:$PG" "$EXIT:$EXIT_ID:$PE"; do
	name=${who%%:*}
	id=${who#*:}
	id=${id%%:*}
	pid=${who##*:}
	cd_poll "$(left 30)" cd_log_has "$A" "[LEAK?] process $name (pid $pid) grows" ||
		cd_fail "no [LEAK?] log line for $name within 30 s"
	echo "suspect $name (pid $pid) logged $(cd_since "$t0") s after the helpers started"
	cd_poll "$(left 45)" cd_has_notif "$A" WARNING "[LEAK] group $name grows" ||
		cd_fail "no WARNING alarm for $name within 45 s"
	echo "WARNING for group $name $(cd_since "$t0") s after the helpers started"
	cd_notif_line "$A" WARNING "[LEAK] group $name grows" |
		grep -qF "plugin = memz, plugin_instance = $id, type = gauge, type_instance = leak_alarm" ||
		cd_fail "WARNING for $name has the wrong identifier"
	grep -F "[LEAK] group $name grows" "$A/collectd.log" | grep -qv "severity = " ||
		cd_fail "no log line (besides the notification) for $name's alarm"
	# a suspect is no notification
	! grep -F "severity = WARNING" "$A/collectd.log" | grep -qF "[LEAK?] process $name" ||
		cd_fail "a suspect of $name was notified"
	cd_poll 5 cd_has_val "$A" "memz-$id/gauge-leak_alarm" ||
		cd_fail "no leak_alarm value under memz-$id"
	if [ "$name" = "$GROW" ]; then
		kill -USR1 "$pid"
	else
		kill -TERM "$pid"
	fi
	eval "stop_$pid=\$(cd_now)"
done

# Meta data, as a notification script sees it.
for who in "$GROW:$GROW:$PG" "$EXIT:$EXIT_ID:$PE"; do
	name=${who%%:*}
	id=${who#*:}
	id=${id%%:*}
	cd_poll 5 cd_exec_notif "$A" WARNING "$id" >/dev/null ||
		cd_fail "exec plugin got no WARNING for $name"
	f=$(cd_exec_notif "$A" WARNING "$id")
	rate=$(cd_meta "$f" rate_bps) || cd_fail "no rate_bps meta"
	secs=$(cd_meta "$f" seconds) || cd_fail "no seconds meta"
	avail=$(cd_meta "$f" available) || cd_fail "no available meta"
	echo "meta for $name: rate_bps $rate seconds $secs available $avail"
	# 256 KiB/s = 262144 B/s; the estimate must be near it.
	cd_num_cmp "$rate" ">=" 196608 && cd_num_cmp "$rate" "<=" 327680 ||
		cd_fail "rate_bps $rate is not near 262144"
	# the time left is what is available at that rate, under two days
	cd_num_cmp "$secs" ">" 0 && cd_num_cmp "$secs" "<" 172800 ||
		cd_fail "seconds $secs is not under LeakWarnTime"
	grep -qxF "name: $name" "$f" || cd_fail "meta name is not \"$name\""
	grep -qF "[LEAK] group $name grows" "$f" ||
		cd_fail "exec got no [LEAK] message naming $name"
done

for who in "$GROW:$GROW:$PG" "$EXIT:$EXIT_ID:$PE"; do
	name=${who%%:*}
	id=${who#*:}
	id=${id%%:*}
	pid=${who##*:}
	cd_poll 90 cd_has_notif "$A" OKAY "[LEAK] cleared: group $name" ||
		cd_fail "no OKAY for $name within 90 s of it stopping"
	eval "st=\$stop_$pid"
	echo "OKAY for $name $(cd_since "$st") s after it $( [ "$name" = "$GROW" ] && echo stopped growing || echo exited)"
	cd_poll 5 cd_exec_notif "$A" OKAY "$id" >/dev/null ||
		cd_fail "exec plugin got no OKAY for $name"
done

# The stopped helper still runs: it cleared because it is flat, not gone.
cd_alive "$PG" || cd_fail "$GROW exited"
if grep -q '\[error\]' "$A/collectd.log"; then
	cd_fail "errors in the log"
fi
echo "ok"
