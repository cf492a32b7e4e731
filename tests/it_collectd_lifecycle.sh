#!/bin/sh
# memz behaves like a stock plugin over its life: an init failure unloads
# memz alone (the daemon and its other plugins go on), no read takes longer
# than the interval memz registered it with, not even the first on a host of
# 6000 processes (collectd would warn and advise changing Interval or
# ReadThreads), and a daemon run under valgrind shows no error and no block
# memz allocated still held at exit (shutdown frees everything).
. "$top_srcdir/tests/collectd/lib.sh"
cd_init lifecycle

# 1. init fails: there is no /proc at ProcRoot.
A="$D/noproc"
CD_MEMZ="  ProcRoot \"$D/no-such-proc\""
cd_conf "$A" "memzlc$$"
cd_start "$A"
cd_wait_ready "$A"
cd_poll 5 cd_log_has "$A" "memz plugin: cannot start sampling" ||
	cd_fail "no error from memz's failed init"
grep -F '[error] memz plugin:' "$A/collectd.log" | head -n 1
# and names the file it could not read
cd_log_has "$A" "cannot start sampling: $D/no-such-proc/meminfo: No such file" ||
	cd_fail "memz's init error does not name the file"
# The daemon is up and its other plugins work: the socket answers and csv
# keeps writing collectd's own values (if any), while memz has no values.
cd_alive "$CD_PID" || cd_fail "collectd died with memz's init"
cd_listval "$A" >/dev/null || cd_fail "unixsock stopped answering"
if cd_listval "$A" | grep -q '/memz'; then
	cd_fail "memz values despite its failed init"
fi
cd_log_has "$A" "Initialization of plugin \`memz' failed" ||
	cd_fail "collectd did not see memz's init fail"
kill -TERM "$CD_PID"
cd_poll 10 eval '! cd_alive "$CD_PID"' || cd_fail "collectd did not stop"
# collectd 5.12 itself exits 1 at the end of a run in which an init failed.
wait "$CD_PID"
echo "init failure: memz unloaded, collectd and its socket ran on until SIGTERM"

# 2. 6000 processes: the first sample reads each one exactly, about a second.
PROCS="$top_builddir/tests/bench/procs"
[ -x "$PROCS" ] || cd_fail "$PROCS not built"
"$PROCS" -n 6000 -k 64 >"$D/procs.out" &
PP=$!
cd_track "$PP"
cd_poll 120 grep -qs ready "$D/procs.out" || cd_fail "6000 processes not started in 120 s"
R="$D/reads"
CD_MEMZ=""
cd_conf "$R" "memzrd$$"
cd_start "$R"
cd_wait_ready "$R"
dispatches() {
	[ "$(cat "$R"/csv/*/memz/memory-free-* 2>/dev/null | grep -vc '^epoch')" -ge "$1" ]
}
# the first read, and the few after it, which sample again
cd_poll 60 dispatches 5 || cd_fail "fewer than 5 dispatches in 60 s with 6000 processes"
grep -F 'first sample:' "$R/collectd.log" | head -n 1
if grep -F 'read interval' "$R/collectd.log" | grep -F memz >&2; then
	cd_fail "a read of memz took longer than its interval"
fi
first=$(sed -n 's/.*memz plugin: first sample: .* in \([0-9.]*\) s$/\1/p' "$R/collectd.log")
[ -n "$first" ] || cd_fail "memz did not say what its first sample took"
cd_num_cmp "$first" ">" 0.5 ||
	echo "note: the first sample took $first s, under the 0.5 s tick; this host shows no slow first read"
kill -TERM "$CD_PID" "$PP"
cd_poll 30 eval '! cd_alive "$CD_PID" && ! cd_alive "$PP"' || cd_fail "collectd or procs did not stop"
wait "$CD_PID" "$PP"
echo "6000 processes: no read above its interval"

# 3. valgrind: memz samples and dispatches a few times, then shutdown.
command -v valgrind >/dev/null || cd_skip "no valgrind (init failure part passed)"
V="$D/vg"
CD_MEMZ='  Pace "fast"
  TopGroups 3'
cd_conf "$V" "memzvg$$"
t0=$(cd_now)
cd_start "$V" valgrind --leak-check=full --show-leak-kinds=all \
	--num-callers=30 --log-file="$D/valgrind.log"
cd_poll 60 cd_has_val "$V" memz/memory-free ||
	cd_fail "no values under valgrind within 60 s"
rows() {
	[ "$(cat "$V"/csv/*/memz/memory-free-* 2>/dev/null | grep -vc '^epoch')" -ge 4 ]
}
cd_poll 30 rows || cd_fail "fewer than 4 dispatches under valgrind"
kill -TERM "$CD_PID"
cd_poll 30 eval '! cd_alive "$CD_PID"' || cd_fail "collectd under valgrind did not stop"
wait "$CD_PID"
echo "valgrind run: $(cd_since "$t0") s"
grep -q "ERROR SUMMARY: 0 errors" "$D/valgrind.log" || {
	cat "$D/valgrind.log" >&2
	cd_fail "valgrind found errors"
}
# A loss record is memz's when one of its frames is a memz function: the
# names collectd keeps from module_register's registrations are collectd's.
held=$(awk '
	/ loss record / { rec = $0; inrec = 1; hit = 0; next }
	inrec && /^==[0-9]+== *$/ { if (hit) print rec "\n"; inrec = 0; next }
	inrec { rec = rec "\n" $0; if ($0 ~ /: (memz_|cdm_)/) hit = 1 }
	END { if (inrec && hit) print rec }' "$D/valgrind.log")
if [ -n "$held" ]; then
	echo "$held" >&2
	cd_fail "memory memz allocated is still held at exit"
fi
echo "valgrind: 0 errors, nothing of memz's held at exit"
echo "ok"
