#!/bin/sh
# A <Plugin memz> key the settings table does not know, and a value out of
# range, each stop collectd at start (non-zero exit) with a log line naming
# the key; the shipped example, uncommented, is accepted as it stands.
. "$top_srcdir/tests/collectd/lib.sh"
cd_init badconf

exited() {
	! cd_alive "$1"
}

# expect_refused DIR WHAT KEY-TEXT: collectd must exit non-zero within 10 s
# and log an error from memz containing KEY-TEXT.
expect_refused() {
	cd_conf "$1" "memzbc$$"
	t0=$(cd_now)
	cd_start "$1"
	pid=$CD_PID
	cd_poll 10 exited "$pid" || cd_fail "$2: collectd still running after 10 s"
	wait "$pid"
	rc=$?
	echo "$2: collectd exited with $rc after $(cd_since "$t0") s"
	[ "$rc" -ne 0 ] || cd_fail "$2: collectd exited 0"
	line=$(grep -F '[error] memz plugin:' "$1/collectd.log" | head -n 1)
	echo "$2: $line"
	case $line in
	*"$3"*) ;;
	*) cd_fail "$2: no error naming $3" ;;
	esac
}

CD_MEMZ='  TopGroups 5
  LeakMinRatee 1024'
expect_refused "$D/key" "unknown key" 'unknown setting "LeakMinRatee" (value "1024")'

CD_MEMZ='  LeakMinR2 1.5'
expect_refused "$D/value" "bad value" 'LeakMinR2: "1.5" is out of range (a number from 0 to 1)'

CD_MEMZ='  GroupBy "colour"'
expect_refused "$D/enum" "bad choice" 'GroupBy: "colour" is not one of name, exe, cgroup, user, none'

CD_MEMZ='  ProcessMatch "(unclosed"'
expect_refused "$D/regex" "bad regex" 'ProcessMatch: "(unclosed" is not a valid extended regex'

CD_MEMZ='  TopGroups 5 6'
expect_refused "$D/twovalues" "two values" 'TopGroups: takes exactly one value, got 2'

# The example: every "#  Key value" line of its <Plugin memz> block
# uncommented, defaults and all. collectd -T runs init, one read and
# shutdown, and exits 0 only if all went well.
CD_MEMZ=$(sed -n 's/^#\(  [A-Z][A-Za-z0-9]* .*\)$/\1/p' \
	"$top_srcdir/conf/collectd.d/memz.conf")
n=$(printf '%s\n' "$CD_MEMZ" | grep -c .)
[ "$n" -ge 20 ] || cd_fail "only $n settings found in the example"
cd_conf "$D/example" "memzbc$$"
"$COLLECTD_BIN" -T -C "$D/example/collectd.conf" >"$D/example/stdout" 2>&1 ||
	cd_fail "the shipped example with its $n settings is refused"
if grep -q '\[error\]' "$D/example/collectd.log"; then
	cd_fail "errors with the shipped example"
fi
echo "shipped example with $n settings accepted"
echo "ok"
