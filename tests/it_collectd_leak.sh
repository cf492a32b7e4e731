#!/bin/sh
# Two helpers leak 256 KiB/s. Each must raise a WARNING "[LEAK?]" naming it
# within 30 s of its start, with its meta data (seen through the exec
# plugin); then one stops growing (SIGUSR1) and the other exits, and each
# must get an OKAY. The second one's name is hostile (a space, a slash):
# the message keeps it readable, the plugin instance is sanitised.
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
	cd_poll "$(left 30)" cd_has_notif "$A" WARNING \
		"[LEAK?] process $name (pid $pid) grows" ||
		cd_fail "no WARNING for $name within 30 s"
	echo "WARNING for $name (pid $pid) $(cd_since "$t0") s after the helpers started"
	cd_notif_line "$A" WARNING "[LEAK?] process $name (pid $pid)" |
		grep -qF "plugin = memz, plugin_instance = $id, type = memory, type_instance = pss" ||
		cd_fail "WARNING for $name has the wrong identifier"
	# Group values sit under the sanitised instance too.
	cd_poll 5 cd_has_val "$A" "memz-$id/memory-pss" ||
		cd_fail "no values under memz-$id"
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
	pid=${who##*:}
	cd_poll 5 cd_exec_notif "$A" WARNING "$id" "$pid" >/dev/null ||
		cd_fail "exec plugin got no WARNING with pid $pid for $name"
	f=$(cd_exec_notif "$A" WARNING "$id" "$pid")
	rate=$(cd_meta "$f" rate_bps) || cd_fail "no rate_bps meta"
	r2=$(cd_meta "$f" r2) || cd_fail "no r2 meta"
	samples=$(cd_meta "$f" samples) || cd_fail "no samples meta"
	conf=$(cd_meta "$f" confidence) || cd_fail "no confidence meta"
	echo "meta for $name: pid $pid rate_bps $rate r2 $r2 samples $samples confidence $conf"
	# 256 KiB/s = 262144 B/s; the estimate must be near it.
	cd_num_cmp "$rate" ">=" 196608 && cd_num_cmp "$rate" "<=" 327680 ||
		cd_fail "rate_bps $rate is not near 262144"
	cd_num_cmp "$r2" ">=" 0.7 || cd_fail "r2 $r2 below LeakMinR2"
	cd_num_cmp "$samples" ">=" 8 || cd_fail "samples $samples below LeakMinSamples"
	cd_num_cmp "$conf" ">" 0 && cd_num_cmp "$conf" "<=" 100 ||
		cd_fail "confidence $conf"
	grep -qxF "name: $name" "$f" || cd_fail "meta name is not \"$name\""
	grep -qF "[LEAK?] process $name (pid $pid) grows" "$f" ||
		cd_fail "exec got no [LEAK?] message naming $name"
done

for who in "$GROW:$GROW:$PG" "$EXIT:$EXIT_ID:$PE"; do
	name=${who%%:*}
	id=${who#*:}
	id=${id%%:*}
	pid=${who##*:}
	cd_poll 90 cd_has_notif "$A" OKAY "[LEAK?] cleared: process $name (pid $pid)" ||
		cd_fail "no OKAY for $name within 90 s of it stopping"
	eval "st=\$stop_$pid"
	echo "OKAY for $name $(cd_since "$st") s after it $( [ "$name" = "$GROW" ] && echo stopped growing || echo exited)"
	cd_poll 5 cd_exec_notif "$A" OKAY "$id" "$pid" >/dev/null ||
		cd_fail "exec plugin got no OKAY for $name"
done

# The stopped helper still runs: it cleared because it is flat, not gone.
cd_alive "$PG" || cd_fail "$GROW exited"
if grep -q '\[error\]' "$A/collectd.log"; then
	cd_fail "errors in the log"
fi
echo "ok"
