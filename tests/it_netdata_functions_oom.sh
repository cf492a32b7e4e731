#!/bin/sh
# What a netdata user sees in memz's functions while a leaker fills a
# memory-limited cgroup, memz.plugin driven as netdata drives it (calls on
# stdin, LeakPartsDelay 2 s): memz-oom's row for the cgroup forecasts with
# the leaker as its driver, the leaker's row in memz-top processes has its
# cgroup's time to OOM and what the leak is made of, and once the kernel
# kills the leaker memz-oom names it with its pid. The cgroup is
# nested under the test's own and removed afterwards; skips (77) where it
# cannot make one.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
. "$top_srcdir/tests/oom/cg.sh"
PLUGIN="$top_builddir/memz.plugin"
LEAKER="$top_builddir/tests/leaker"
[ -x "$PLUGIN" ] || nd_skip "memz.plugin not built"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"
T=$(mktemp -d /tmp/memz-ndfnoom.XXXXXX)
PPID_=""
LPIDS=""
# The leaker is not this shell's child: its wrapper reaps it when the kernel
# OOM-kills it, and its pid may be reused (pid_max is 32768) by the time this
# runs. oc_remove kills whatever is left in the cgroup, only this test's
# helpers; LPIDS holds the wrapper, this shell's child.
cleanup() {
	exec 3>&- 2>/dev/null
	oc_remove
	for p in $LPIDS; do nd_ours "$p" && kill "${p%%:*}" 2>/dev/null; done
	kill "$PPID_" 2>/dev/null
	for p in $LPIDS $PPID_; do wait "${p%%:*}" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
oc_make fn $((64 << 20)) || nd_skip "$OC_WHY"
unset NETDATA_STOCK_CONFIG_DIR NETDATA_HOST_PREFIX
mkdir "$T/user"
printf '[memz]\nLeakPartsDelay = 2\nLeakWarmup = 0\nLeakAlarmAfter = 5\n' > "$T/user/memz.conf"
mkfifo "$T/in"
NETDATA_USER_CONFIG_DIR="$T/user" NETDATA_VERSION=v2.8.1 "$PLUGIN" 1 \
	< "$T/in" > "$T/out" 2> "$T/err" &
PPID_=$!
exec 3> "$T/in"
nd_wait_grep "$T/out" '^END' 20 || nd_fail "memz.plugin sent no data"

NAME="mzfn$$"
oc_exec "$OC_DIR" "$LEAKER" --name "$NAME" --start-mib 8 --rate 2048 \
	> "$T/leaker.out" &
LPIDS=$(nd_id $!)
nd_poll 5 grep -qs . "$T/leaker.out" || nd_fail "leaker did not start"
LPID=$(head -n 1 "$T/leaker.out")
t0=$(nd_now_ms)

# call FN, leave its reply's body in $T/body. Its own wait: it runs inside
# nd_poll, whose deadline a nested nd_poll would overwrite.
N=0
call() {
	N=$((N + 1))
	printf 'FUNCTION q%d 10 "%s"\n' "$N" "$1" >&3
	_cd=$(( $(nd_now_ms) + 10000 ))
	# the body only once its END line is written too
	until awk -v tx="q$N" '$1 == "FUNCTION_RESULT_BEGIN" && $2 == tx {
		getline b; if ((getline e) > 0 && e == "FUNCTION_RESULT_END") {
		print b; f = 1 } } END { exit !f }' "$T/out" > "$T/body"; do
		[ "$(nd_now_ms)" -lt "$_cd" ] || return 1
		sleep 0.1
	done
}
# check: python on $T/body with the test's facts as arguments
check() {
	python3 - "$T/body" "$OC_ID" "$OC_PATH" "$NAME" "$LPID" "$1"
}
forecast() {
	call memz-oom && check scope <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ix = {k: v["index"] for k, v in t["columns"].items()}
rows = [r for r in t["data"] if r[ix["Row"]] == sys.argv[2]]
if not rows or rows[0][ix["TimeToOOM"]] is None:
    sys.exit(1)
r = rows[0]
assert r[ix["Scope"]] == sys.argv[3], r
assert sys.argv[4] in (r[ix["Drivers"]] or ""), r
print("memz-oom: %s OOM in %.0f s, %.1f MiB available, drivers %s" %
      (r[ix["Scope"]], r[ix["TimeToOOM"]], r[ix["Available"]], r[ix["Drivers"]]))
PY
}
nd_poll 40 forecast || nd_fail "memz-oom: no forecast for $OC_PATH within 40 s"
echo "after $(nd_secs_since $t0) s"
proc_row() {
	call "memz-top processes" && check proc <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ix = {k: v["index"] for k, v in t["columns"].items()}
rows = [r for r in t["data"] if r[ix["PID"]] == int(sys.argv[5])]
if not rows or not rows[0][ix["LeakParts"]] or rows[0][ix["TimeToOOM"]] is None:
    sys.exit(1)
r = rows[0]
assert t["columns"]["TimeToOOM"]["visible"], t["columns"]["TimeToOOM"]
assert r[ix["Name"]] == sys.argv[4] and r[ix["Leak"]] is True, r
print("memz-top processes: %s (pid %d) PSS %.1f MiB, OOM in %.0f s, made of: %s" %
      (r[ix["Name"]], r[ix["PID"]], r[ix["PSS"]], r[ix["TimeToOOM"]],
       r[ix["LeakParts"]]))
PY
}
nd_poll 20 proc_row || nd_fail "memz-top processes: no row for $NAME with its time to OOM and leak parts"
echo "after $(nd_secs_since $t0) s"
nd_poll 60 eval '! kill -0 $LPID 2>/dev/null' || nd_fail "$NAME was not killed within 60 s"
killed() {
	call memz-oom && check kill <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ix = {k: v["index"] for k, v in t["columns"].items()}
rows = [r for r in t["data"] if r[ix["Kind"]] == "kill" and r[ix["Scope"]] == sys.argv[3]]
if not rows:
    sys.exit(1)
r = rows[0]
assert r[ix["Victim"]] == sys.argv[4] and r[ix["PID"]] == int(sys.argv[5]), r
print("memz-oom: kill in %s: %s (pid %d), last PSS %.1f MiB, %s, sure %d%%" %
      (r[ix["Scope"]], r[ix["Victim"]], r[ix["PID"]], r[ix["LastPSS"]],
       r[ix["Verdict"]], r[ix["Sure"]]))
PY
}
nd_poll 15 killed || nd_fail "memz-oom does not name $NAME (pid $LPID) as the OOM kill"
echo "after $(nd_secs_since $t0) s"
printf 'QUIT\n' >&3
wait "$PPID_"
PPID_=""
NETDATA_VERSION=v2.8.1 "$top_builddir/tests/ndcheck" --results < "$T/out" > /dev/null ||
	nd_fail "memz.plugin's output breaks the protocol"
exit 0
