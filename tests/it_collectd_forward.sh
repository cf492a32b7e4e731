#!/bin/sh
# How a fleet runs memz: every host's collectd forwards through the network
# plugin to a central one. The receiver (a second collectd on 127.0.0.1,
# without memz) must get memz's values and its [LEAK] alarm notifications.
. "$top_srcdir/tests/collectd/lib.sh"
cd_init forward

R="$D/recv"
S="$D/send"
PORT=$(cd_free_udp_port)
SHOST="memzfs$$"
LEAK="mzfwd$$"

CD_STOCK="LoadPlugin network
<Plugin network>
  Listen \"127.0.0.1\" \"$PORT\"
</Plugin>"
CD_MEMZ_LOAD=""
cd_conf "$R" "memzfr$$"
cd_start "$R"
cd_wait_ready "$R"

# Without FlushInterval the sender holds values for many seconds.
CD_STOCK="<LoadPlugin network>
  FlushInterval 1
</LoadPlugin>
<Plugin network>
  Server \"127.0.0.1\" \"$PORT\"
</Plugin>"
CD_MEMZ_LOAD="LoadPlugin memz"
CD_MEMZ="  Process \"$LEAK\""
cd_conf "$S" "$SHOST"
t0=$(cd_now)
cd_start "$S"
cd_wait_ready "$S"

recv_has() {
	cd_getval_host "$R" "$SHOST" "$1" >/dev/null
}
cd_poll 15 recv_has memz/memory-free ||
	cd_fail "receiver got no memz/memory-free from $SHOST within 15 s (port $PORT)"
echo "receiver has $SHOST/memz/memory-free $(cd_since "$t0") s after the sender started"
for id in memz/memory-kernel_residual memz/gauge-interval memz/count-leak_suspects; do
	cd_poll 5 recv_has "$id" || cd_fail "receiver lacks $SHOST/$id"
done

t1=$(cd_now)
cd_leaker "$D/leak.pid" "$LEAKER" --name "$LEAK" --rate 256 --start-mib 4
PL=$LEAKER_PID
cd_poll 15 recv_has "memz-$LEAK/memory-pss" ||
	cd_fail "receiver got no memz-$LEAK/memory-pss"
cd_poll 45 cd_has_notif "$R" WARNING "[LEAK] group $LEAK grows" ||
	cd_fail "receiver got no [LEAK] WARNING for $LEAK within 45 s"
echo "receiver got the WARNING for $LEAK $(cd_since "$t1") s after the helper started"
cd_notif_line "$R" WARNING "[LEAK] group $LEAK grows" |
	grep -qF "host = $SHOST, plugin = memz, plugin_instance = $LEAK, type = gauge, type_instance = leak_alarm" ||
	cd_fail "forwarded WARNING has the wrong identifier"
# The forwarded group value is the helper's: at least its 4 MiB start.
pss=$(cd_getval_host "$R" "$SHOST" "memz-$LEAK/memory-pss")
cd_num_cmp "$pss" ">=" 4194304 || cd_fail "forwarded pss $pss"

kill -TERM "$PL"
cd_poll 30 cd_has_notif "$R" OKAY "[LEAK] cleared: group $LEAK" ||
	cd_fail "receiver got no OKAY after the helper exited"
echo "receiver got the OKAY"
for d in "$R" "$S"; do
	if grep -q '\[error\]' "$d/collectd.log"; then
		cd_fail "errors in $d/collectd.log"
	fi
done
echo "ok"
