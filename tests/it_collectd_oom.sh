#!/bin/sh
# A leaker in a memory-limited cgroup under the real collectd: memz.so
# sends a WARNING "[OOM in ...]" naming it (and again as the forecast
# halves), its cgroup's time_to_oom falls
# as it grows, and when the kernel kills it a FAILURE "[OOM KILL]" names
# it with its pid. The cgroup is nested under the test's own and removed
# afterwards; the test skips (77) where it cannot make one.
. "$top_srcdir/tests/collectd/lib.sh"
. "$top_srcdir/tests/oom/cg.sh"
cd_init oom
trap 'rc=$?; oc_remove; (exit $rc); cd_cleanup' EXIT
oc_make cd $((64 << 20)) || cd_skip "$OC_WHY"

A="$D/a"
NAME="mzoomcd$$"
cd_conf "$A" "memzoom$$"
cd_start "$A"
cd_wait_ready "$A"
t0=$(cd_now)
# 8 MiB, then 2 MiB/s: the 64 MiB limit is hit about 28 s in
cd_leaker "$D/leak.pid" oc_exec "$OC_DIR" "$LEAKER" --name "$NAME" \
	--start-mib 8 --rate 2048
P=$LEAKER_PID
P_START=$(cd_starttime "$P")

# the machine, or another cgroup on it, may be warned about first
oom_warning() {
	line=$(grep -F "severity = WARNING," "$A/collectd.log" | grep -F "[OOM in" |
		grep -F "cgroup $OC_PATH: $NAME grows" | head -n 1) && [ -n "$line" ]
}
cd_poll 40 oom_warning ||
	cd_fail "no [OOM in ...] WARNING naming $NAME in its cgroup within 40 s"
echo "after $(cd_since "$t0") s: ${line#*message = }"
echo "$line" | grep -qF "plugin_instance = $OC_ID, type = timeleft, type_instance = time_to_oom" ||
	cd_fail "the WARNING has the wrong identifier"

ttl() {
	v=$(cd_getval "$A" "memz-$OC_ID/timeleft-time_to_oom") || return 1
	case $v in nan|-nan|"") return 1 ;; esac
	echo "$v"
}
first=$(cd_poll 10 ttl) || cd_fail "no time_to_oom value for memz-$OC_ID"
first=$(ttl)
falls() {
	v=$(ttl) && cd_num_cmp "$v" "<" "$first - 2"
}
cd_poll 10 falls || cd_fail "time_to_oom did not fall from $first"
echo "time_to_oom fell from $first s to $(ttl) s"

cd_poll 60 cd_has_notif "$A" FAILURE "[OOM KILL] $NAME (pid $P) in cgroup $OC_PATH" ||
	cd_fail "no [OOM KILL] FAILURE naming $NAME (pid $P) within 60 s"
line=$(cd_notif_line "$A" FAILURE "[OOM KILL] $NAME")
echo "after $(cd_since "$t0") s: ${line#*message = }"
echo "$line" | grep -qF "leak suspect" || cd_fail "the kill does not say it was a leak suspect"
# not a zombie its wrapper has yet to reap, nor a process given its pid since
cd_ours "$P:$P_START" && cd_fail "$NAME is still alive"
# warned again as the forecast halved on its way to the kill
warned=$(grep -F "severity = WARNING," "$A/collectd.log" | grep -F "[OOM in" |
	grep -F "cgroup $OC_PATH: $NAME grows" | sed 's/.*message = \[OOM in \([^]]*\)\].*/\1/')
[ "$(echo "$warned" | wc -l)" -ge 2 ] ||
	cd_fail "one WARNING ($warned) as the forecast fell: none at its halving"
echo "WARNINGs as it fell: $(echo $warned | sed 's/ s/s,/g')"
if grep -q '\[error\]' "$A/collectd.log"; then
	cd_fail "errors in the log"
fi
echo "ok"
