#!/bin/sh
# memz.plugin on its own, driven the way netdata drives it: FUNCTION calls on
# stdin, config from NETDATA_*_CONFIG_DIR, NETDATA_HOST_PREFIX, SIGTERM, a
# closed stdout. Everything it writes goes through the strict checker.
# No netdata needed. Runs under the sanitizer build too (ASan writes to
# stderr, which these checks do not parse, except for exact messages).
set -u
. "$top_srcdir/tests/netdata/lib.sh"

PLUGIN="$top_builddir/memz.plugin"
NDCHECK="$top_builddir/tests/ndcheck"
[ -x "$PLUGIN" ] || nd_skip "memz.plugin not built"
T=$(mktemp -d /tmp/memz-ndplugin.XXXXXX)
PIDS=""
cleanup() {
	# only those still running: the rest were waited for, their pids free
	for p in $PIDS; do nd_ours "$p" && kill "${p%%:*}" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
unset NETDATA_USER_CONFIG_DIR NETDATA_STOCK_CONFIG_DIR NETDATA_HOST_PREFIX

# 10 (started now, checked at the end). With update_every 120 the plugin
# still writes within 30 s (netdata stops a plugin silent for about two
# minutes): PLUGIN_KEEPALIVE for 2.8, a repeat of the data for 1.37.1
ka_start=$(nd_now_ms)
for v in v1.37.1 v2.8.1; do
	NETDATA_VERSION=$v "$PLUGIN" 120 < /dev/null > "$T/ka$v.out" 2>/dev/null &
	PIDS="$PIDS $(nd_id $!)"
	eval "ka_pid_$(echo $v | tr -d v.)=$!"
done

# 1. functions answered, unknown ones 404, output stays valid protocol
{
	nd_wait_grep "$T/f.out" '^END' 10
	printf 'FUNCTION uuid-top 10 "memz-top"\n'
	printf 'FUNCTION uuid-none 10 "no-such-function"\n'
	printf 'FUNCTION uuid-self 10 "memz-inspect %s"\n' "$$"
	printf 'FUNCTION uuid-bad 10 "memz-inspect 12ab"\n'
	printf 'FUNCTION uuid-gone 10 "memz-inspect pid:2147483647"\n'
	printf 'FUNCTION uuid-procs 10 "memz-top processes"\n'
	printf 'FUNCTION uuid-oom 10 "memz-oom"\n'
	printf 'FUNCTION uuid-arg 10 "memz-top bogus"\n'
	# a call split across two writes must still be read whole
	printf 'FUNCTION uuid-split 10 "memz-'
	sleep 0.3
	printf 'top"\n'
	nd_wait_grep "$T/f.out" uuid-split 10
} | "$PLUGIN" 1 > "$T/f.out" 2> "$T/f.err" &
fpid=$!
PIDS="$PIDS $(nd_id $fpid)"
nd_wait_grep "$T/f.out" "FUNCTION_RESULT_BEGIN uuid-split" 20 || nd_fail "no reply to the split call"
kill -TERM "$fpid"
wait "$fpid"
"$NDCHECK" --results < "$T/f.out" > "$T/f.res" || nd_fail "plugin output breaks the protocol"
python3 - "$T/f.res" "$$" <<'EOF' || nd_fail "function replies wrong"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
res = {}
for i in range(0, len(lines) - 1, 2):
    head = lines[i].split(" ")
    if len(head) != 3:
        break
    res[head[0]] = (int(head[1]), head[2], json.loads(lines[i + 1]))
def expect(uuid, status):
    got = res[uuid]
    assert got[0] == status and got[2]["status"] == status, (uuid, got)
    assert got[1] == "application/json", got
    print("%s: status %d" % (uuid, status))
    return got[2]
top = expect("uuid-top", 200)
cols = top["columns"]
assert set(cols) >= {"Group", "PSS", "USS", "Swap", "Growth", "Leak", "rowOptions"}, cols
assert len(top["data"]) > 0
ix = {k: v["index"] for k, v in cols.items()}
for row in top["data"]:
    assert len(row) == len(cols), row
    assert isinstance(row[ix["Group"]], str) and row[ix["PSS"]] >= 0
    assert isinstance(row[ix["Leak"]], bool)
    assert row[ix["rowOptions"]] == {"severity": row[ix["rowOptions"]]["severity"]}, row
    assert row[ix["rowOptions"]]["severity"] in ("normal", "warning", "critical")
pss = [r[ix["PSS"]] for r in top["data"]]
assert pss == sorted(pss, reverse=True), "memz-top not sorted by PSS"
print("memz-top: %d groups, largest %.1f MiB" % (len(pss), pss[0]))
me = expect("uuid-self", 200)
assert me["process"]["pid"] == int(sys.argv[2])
assert me["process"]["pss"] > 0 and me["process"]["rss"] >= me["process"]["pss"], me["process"]
ix = {k: v["index"] for k, v in me["columns"].items()}
rows = {r[ix["Kind"]]: r for r in me["data"]}
assert "heap" in rows and "lib" in rows and "total" in rows, sorted(rows)
# the core's smaps taxonomy, as `memz inspect` shows it: categories add up
# to the total row, and the total to the process's RSS. Compared on RSS:
# the snapshot's figures and the smaps read are moments apart, and PSS
# moves whenever a sharer of the shell's libraries comes or goes, while an
# idle shell's resident pages do not.
catsum = sum(r[ix["RSS"]] for k, r in rows.items() if k != "total")
total = rows["total"][ix["RSS"]]
rss = me["process"]["rss"] / 1048576.0
assert abs(catsum - total) <= 1e-6 * max(total, 1), (catsum, total)
assert abs(total - rss) <= 0.05 * rss, (total, rss)
print("memz-inspect: categories' RSS sum to %.2f MiB of rss %.2f MiB" % (catsum, rss))
expect("uuid-none", 404)
expect("uuid-bad", 400)
expect("uuid-gone", 404)
expect("uuid-split", 200)
procs = expect("uuid-procs", 200)
ix = {k: v["index"] for k, v in procs["columns"].items()}
assert procs["columns"]["PID"]["unique_key"], procs["columns"]["PID"]
assert 0 < len(procs["data"]) <= 500
pss = [r[ix["PSS"]] for r in procs["data"]]
assert pss == sorted(pss, reverse=True), "memz-top processes not sorted by PSS"
assert all(isinstance(r[ix["Estimated"]], bool) and r[ix["PID"]] > 0 for r in procs["data"])
print("memz-top processes: %d processes, largest %.1f MiB" % (len(pss), pss[0]))
oom = expect("uuid-oom", 200)
ix = {k: v["index"] for k, v in oom["columns"].items()}
first = oom["data"][0]
assert first[ix["Row"]] == "machine" and first[ix["Kind"]] == "forecast", first
assert first[ix["Available"]] > 0, first
print("memz-oom: %d rows, machine has %.0f MiB available" % (len(oom["data"]), first[ix["Available"]]))
bad = expect("uuid-arg", 400)
assert "'bogus'" in bad["errorMessage"], bad
assert bad["error_message"] == bad["errorMessage"], bad
EOF

# 2. config: the user dir wins over the stock dir; a bad setting names
# itself on stderr, says DISABLE on stdout and exits non-zero
mkdir -p "$T/user" "$T/stock"
printf '[memz]\nTopGroups = 2\n' > "$T/stock/memz.conf"
printf '# a comment\nLeakMinR2 = 1.5\n' > "$T/user/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/user" NETDATA_STOCK_CONFIG_DIR="$T/stock" \
	timeout 10 "$PLUGIN" 1 < /dev/null > "$T/c.out" 2> "$T/c.err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || nd_fail "bad setting: exit $rc, expected non-zero"
[ "$(cat "$T/c.out")" = "DISABLE" ] || nd_fail "bad setting: stdout '$(cat "$T/c.out")', expected DISABLE"
grep -q 'memz.conf:2: LeakMinR2' "$T/c.err" || nd_fail "bad setting not named: $(cat "$T/c.err")"
echo "bad setting: exit $rc, DISABLE, stderr: $(head -1 "$T/c.err")"

# stock file only: TopGroups = 2 limits the group charts to two (the
# stock file is read, not ignored)
rm "$T/user/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/user" NETDATA_STOCK_CONFIG_DIR="$T/stock" \
	timeout 2.5 "$PLUGIN" 1 < /dev/null > "$T/s.out" 2>/dev/null
n=$(awk '/^BEGIN memz.group_pss/ { n = 0; on = 1; next }
	on && /^SET/ { n++ } /^END/ { if (on) last = n; on = 0 }
	END { print last + 0 }' "$T/s.out")
[ "$n" -le 2 ] || nd_fail "TopGroups = 2 from the stock config: $n groups"
echo "stock config TopGroups=2: $n groups charted"

# 3. NETDATA_HOST_PREFIX: ProcRoot/SysRoot read under it (a fixture tree
# whose MemFree is 4 GiB)
NETDATA_HOST_PREFIX="$top_srcdir/tests/fixtures/tree1" \
	timeout 1.5 "$PLUGIN" 1 < /dev/null > "$T/h.out" 2> "$T/h.err"
free=$(grep -m1 '^SET free = ' "$T/h.out" | sed 's/.*= //')
[ "$free" = 4294967296 ] || nd_fail "NETDATA_HOST_PREFIX: free = '$free', expected 4294967296"
"$NDCHECK" < "$T/h.out" > /dev/null || nd_fail "fixture output breaks the protocol"
NETDATA_HOST_PREFIX="$T/nowhere" timeout 5 "$PLUGIN" 1 < /dev/null > "$T/h2.out" 2>/dev/null
[ "$(cat "$T/h2.out")" = DISABLE ] || nd_fail "missing host prefix tree: expected DISABLE"
echo "host prefix: free = $free"
# and the host's users: GroupBy user names tree1's uids 0 and 1000 from the
# passwd file under the prefix (netdata's container mounts it there)
mkdir -p "$T/host/etc" "$T/hostcfg"
ln -s "$top_srcdir/tests/fixtures/tree1/proc" "$T/host/proc"
ln -s "$top_srcdir/tests/fixtures/tree1/sys" "$T/host/sys"
cp "$top_srcdir/tests/fixtures/users/passwd" "$T/host/etc/passwd"
# (PublishAfter 0: alice's process is younger than a minute by the
# fixture's uptime, and this is about names, not publication)
printf 'GroupBy = user\nPublishAfter = 0\n' > "$T/hostcfg/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/hostcfg" NETDATA_HOST_PREFIX="$T/host" \
	timeout 1.5 "$PLUGIN" 1 < /dev/null > "$T/hu.out" 2>/dev/null
users=$(awk '/^BEGIN memz.group_pss/ { on = 1; next } /^END/ { if (on) exit }
	on && /^SET/ { printf "%s ", $2 }' "$T/hu.out")
[ "$users" = "alice root " ] || nd_fail "host prefix GroupBy user: groups '$users', expected 'alice root '"
echo "host prefix: users named $users"
# the per-user totals beside the groups, by the same names: alice's three
# processes' PSS (tests/fixtures/README), root's two
utot=$(awk '/^BEGIN memz.user_pss/ { on = 1; next } /^END/ { if (on) exit }
	on && /^SET/ { printf "%s=%s ", $2, $4 }' "$T/hu.out")
[ "$utot" = "alice=35520512 root=8912896 " ] ||
	nd_fail "host prefix: memz.user_pss '$utot', expected 'alice=35520512 root=8912896 '"
echo "host prefix: memz.user_pss $utot"

# 4. SIGTERM ends it quickly with status 0, even while netdata keeps stdin
# open and silent
mkfifo "$T/stdin"
"$PLUGIN" 1 < "$T/stdin" > "$T/t.out" 2>/dev/null &
ppid=$!
PIDS="$PIDS $(nd_id $ppid)"
exec 3> "$T/stdin"
nd_wait_grep "$T/t.out" '^END' 10 || nd_fail "no data before SIGTERM"
start=$(nd_now_ms)
kill -TERM "$ppid"
wait "$ppid"
rc=$?
took=$(( $(nd_now_ms) - start ))
exec 3>&-
[ "$rc" -eq 0 ] || nd_fail "SIGTERM: exit $rc"
[ "$took" -lt 1500 ] || nd_fail "SIGTERM: took $took ms"
echo "SIGTERM: exit 0 after $took ms"

# 4b. SIGTERM ends it within a second in any state, here blocked in
# write() on a stdout netdata does not read (the pipe full)
mkfifo "$T/full"
"$PLUGIN" 1 < /dev/null > "$T/full" 2>/dev/null &
ppid=$!
PIDS="$PIDS $(nd_id $ppid)"
exec 4< "$T/full"
in_write() { grep -Eq 'pipe_write|pipe_wait' "/proc/$ppid/wchan" 2>/dev/null; }
nd_poll 30 in_write || nd_fail "full stdout: the plugin never blocked in write()"
start=$(nd_now_ms)
kill -TERM "$ppid"
gone() { ! kill -0 "$ppid" 2>/dev/null; }
if ! nd_poll 2 gone; then
	kill -KILL "$ppid"
	nd_fail "SIGTERM while blocked in write(): still running after 2 s"
fi
wait "$ppid"
rc=$?
took=$(( $(nd_now_ms) - start ))
exec 4<&-
[ "$rc" -eq 0 ] || nd_fail "SIGTERM while blocked in write(): exit $rc"
[ "$took" -lt 1000 ] || nd_fail "SIGTERM while blocked in write(): took $took ms"
echo "SIGTERM while blocked in write(): exit 0 after $took ms"

# 4c. a FIFO where meminfo should be (a hostile ProcRoot or host prefix)
# neither blocks the plugin nor leaves it running: DISABLE, the file named
mkdir -p "$T/fifo/proc" "$T/fifocfg"
mkfifo "$T/fifo/proc/meminfo"
printf 'ProcRoot = %s\n' "$T/fifo/proc" > "$T/fifocfg/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/fifocfg" timeout 10 "$PLUGIN" 1 < /dev/null > "$T/ff.out" 2> "$T/ff.err"
rc=$?
[ "$rc" -ne 124 ] || nd_fail "FIFO meminfo: still running after 10 s"
[ "$(tail -n 1 "$T/ff.out")" = DISABLE ] || nd_fail "FIFO meminfo: no DISABLE"
grep -q "$T/fifo/proc/meminfo" "$T/ff.err" || nd_fail "FIFO meminfo: the file is not named: $(cat "$T/ff.err")"
echo "FIFO meminfo: $(tail -n 1 "$T/ff.err")"

# 5. a closed stdout (netdata went away) ends it cleanly, not by SIGPIPE
mkfifo "$T/stdout"
"$PLUGIN" 1 < /dev/null > "$T/stdout" 2> "$T/p.err" &
ppid=$!
PIDS="$PIDS $(nd_id $ppid)"
head -n 3 < "$T/stdout" > /dev/null
start=$(nd_now_ms)
nd_poll 5 eval '! kill -0 $ppid 2>/dev/null' || nd_fail "closed stdout: still running"
wait "$ppid"
rc=$?
took=$(( $(nd_now_ms) - start ))
[ "$rc" -eq 0 ] || nd_fail "closed stdout: exit $rc (141 = killed by SIGPIPE)"
echo "closed stdout: exit 0 after $took ms"

# 6. update_every from argv[1] reaches the charts, NETDATA_UPDATE_EVERY
# when argv[1] is missing
NETDATA_UPDATE_EVERY=3 timeout 1.5 "$PLUGIN" < /dev/null > "$T/u.out" 2>/dev/null
grep -q '^CHART memz.ram .* stacked 140000 3 ' "$T/u.out" || nd_fail "NETDATA_UPDATE_EVERY=3 not used"
NETDATA_UPDATE_EVERY=3 timeout 1.5 "$PLUGIN" 2 < /dev/null > "$T/u.out" 2>/dev/null
grep -q '^CHART memz.ram .* stacked 140000 2 ' "$T/u.out" || nd_fail "argv[1]=2 not used"
echo "update_every: argv and environment honoured"

# 7. a fatal problem names the file and the setting, says DISABLE, and
# never leaves the plugin running without charts
mkdir -p "$T/noproc/proc" "$T/dirproc/proc/meminfo" "$T/cfg"
printf 'ProcRoot = %s\n' "$T/noproc/proc" > "$T/cfg/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/cfg" timeout 10 "$PLUGIN" 1 < /dev/null > "$T/e.out" 2> "$T/e.err"
[ "$(cat "$T/e.out")" = DISABLE ] || nd_fail "no meminfo: stdout '$(cat "$T/e.out")', expected DISABLE"
grep -q "$T/noproc/proc/meminfo (ProcRoot" "$T/e.err" ||
	nd_fail "no meminfo: the error does not name the file: $(cat "$T/e.err")"
echo "no meminfo: $(cat "$T/e.err")"
printf 'ProcRoot = %s\n' "$T/dirproc/proc" > "$T/cfg/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/cfg" timeout 20 "$PLUGIN" 1 < /dev/null > "$T/e.out" 2> "$T/e.err"
rc=$?
[ "$rc" -ne 124 ] || nd_fail "meminfo a directory: still running after 20 s"
[ "$(tail -n 1 "$T/e.out")" = DISABLE ] || nd_fail "meminfo a directory: no DISABLE"
grep -q "$T/dirproc/proc/meminfo (ProcRoot.*Is a directory" "$T/e.err" ||
	nd_fail "meminfo a directory: the error does not name the file: $(cat "$T/e.err")"
echo "meminfo a directory: $(tail -n 1 "$T/e.err")"

# 8. a flood of function calls (2000 at once, each an smaps read of a
# process with 4000 mappings) delays neither the charts nor SIGTERM: calls
# beyond the queue get 503. Served inline, as they were, the flood took
# seconds and held SIGTERM until it ended.
python3 -c '
import mmap, signal, sys
maps = [mmap.mmap(-1, 4096, prot=mmap.PROT_READ | (mmap.PROT_WRITE if i % 2 else 0))
        for i in range(4000)]
print("ready", flush=True)
signal.pause()
' > "$T/maps.out" &
mapspid=$!
PIDS="$PIDS $(nd_id $mapspid)"
nd_wait_grep "$T/maps.out" ready 10 || nd_fail "flood: the many-mappings helper did not start"
rm -f "$T/stdin"
mkfifo "$T/stdin"
"$PLUGIN" 1 < "$T/stdin" > "$T/fl.out" 2> "$T/fl.err" &
ppid=$!
PIDS="$PIDS $(nd_id $ppid)"
exec 3> "$T/stdin"
nd_wait_grep "$T/fl.out" '^END' 10 || nd_fail "flood: no data before the flood"
python3 -c '
import sys
sys.stdout.write("".join("FUNCTION fl-%d 10 \"memz-inspect pid:%s\"\n" % (i, sys.argv[1]) for i in range(2000)))
' "$mapspid" > "$T/flood.txt"
before=$(grep -c '^BEGIN memz.ram' "$T/fl.out")
start=$(nd_now_ms)
cat "$T/flood.txt" >&3 &
catpid=$!
PIDS="$PIDS $(nd_id $catpid)"
# two more updates of memz.ram within 4 s while the flood is served
charts_moved() { [ "$(grep -c '^BEGIN memz.ram' "$T/fl.out")" -ge $((before + 2)) ]; }
nd_poll 4 charts_moved || nd_fail "flood: charts stopped ($(grep -c '^BEGIN memz.ram' "$T/fl.out") updates, $before before)"
moved=$(( $(grep -c '^BEGIN memz.ram' "$T/fl.out") - before ))
wait "$catpid"
# a second flood, and SIGTERM as soon as its first call is answered: the
# plugin must not finish the flood first
sed 's/ fl-/ f2-/' "$T/flood.txt" >&3 &
catpid=$!
PIDS="$PIDS $(nd_id $catpid)"
nd_wait_grep "$T/fl.out" 'FUNCTION_RESULT_BEGIN f2-' 10 || nd_fail "flood: second flood not answered"
tstart=$(nd_now_ms)
kill -TERM "$ppid"
wait "$ppid"
rc=$?
took=$(( $(nd_now_ms) - tstart ))
exec 3>&-
kill "$catpid" 2>/dev/null
wait "$catpid" 2>/dev/null
[ "$rc" -eq 0 ] || nd_fail "flood: SIGTERM: exit $rc"
[ "$took" -lt 1000 ] || nd_fail "flood: SIGTERM took $took ms"
"$NDCHECK" --results < "$T/fl.out" > "$T/fl.res" || nd_fail "flood: output breaks the protocol"
busy=$(grep -c '^fl-[0-9]* 503 ' "$T/fl.res")
ok=$(grep -c '^fl-[0-9]* 200 ' "$T/fl.res")
[ "$busy" -gt 0 ] || nd_fail "flood: no call answered 503"
echo "flood: $moved chart updates in $(nd_secs_since $start) s, $ok answered, $busy answered 503, SIGTERM after $took ms"

# 9. the same output is valid for netdata 2.8's parser (registrations
# with tags and access, the table schema) and for 1.37.1's
for v in v1.37.1 v2.8.1; do
	{
		nd_wait_grep "$T/v$v.out" '^END' 10
		printf 'FUNCTION v-topinfo 10 "memz-top info" "0x13" "method=api"\n'
		printf 'FUNCTION v-top 10 "memz-top" "0x13" "method=api"\n'
		printf 'FUNCTION v-pid 10 "memz-inspect pid:%s after:-600" "0x13" "method=api"\n' "$$"
		printf 'FUNCTION v-oom 10 "memz-oom" "0x13" "method=api"\n'
		printf 'FUNCTION v-procs 10 "memz-top view:processes after:-600" "0x13" "method=api"\n'
		printf 'FUNCTION v-info 10 "memz-inspect info" "0x13" "method=api"\n'
		nd_wait_grep "$T/v$v.out" 'FUNCTION_RESULT_BEGIN v-info' 10
	} | NETDATA_VERSION=$v "$PLUGIN" 1 > "$T/v$v.out" 2>/dev/null &
	vpid=$!
	PIDS="$PIDS $(nd_id $vpid)"
	nd_wait_grep "$T/v$v.out" 'FUNCTION_RESULT_BEGIN v-info' 20 || nd_fail "$v: no reply"
	kill -TERM "$vpid"
	wait "$vpid"
	NETDATA_VERSION=$v "$NDCHECK" --results < "$T/v$v.out" > "$T/v$v.res" ||
		nd_fail "$v: output breaks netdata $v's protocol"
	python3 - "$T/v$v.res" "$$" <<'EOF' || nd_fail "$v: function replies wrong"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
res = {}
for i in range(0, len(lines) - 1, 2):
    head = lines[i].split(" ")
    if len(head) != 3:
        break
    res[head[0]] = (int(head[1]), json.loads(lines[i + 1]))
for tx in ("v-topinfo", "v-top", "v-pid", "v-info", "v-oom", "v-procs"):
    assert res[tx][0] == 200 and res[tx][1]["type"] == "table", (tx, res[tx])
assert res["v-topinfo"][1]["data"] == [] and res["v-info"][1]["data"] == []
assert len(res["v-top"][1]["data"]) > 0
assert res["v-pid"][1]["process"]["pid"] == int(sys.argv[2])
rp = res["v-info"][1]["required_params"][0]
assert rp["id"] == "pid" and rp["type"] == "select" and rp["options"], rp
EOF
	grep -q '^FUNCTION GLOBAL "memz-oom" 10 ".*" "top" 0x13 22$' "$T/v$v.out" &&
	grep -q '^FUNCTION GLOBAL "memz-top" 10 ".*" "top" 0x13 20$' "$T/v$v.out" ||
		nd_fail "$v: registration without tags and access"
done
echo "NETDATA_VERSION v1.37.1 and v2.8.1: output valid for both"

# 11. TopGroups = 1000 on a machine with 700 distinct names (a fixture
# tree of 700 processes): the report's stated limit of groups is charted,
# no exit 1, no DISABLE (PublishAfter 0: the fixture's processes are seconds
# old, and would wait a minute)
python3 - "$top_srcdir/tests/fixtures/tree1" "$T/many" <<'PY'
import os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst, symlinks=True)
proc = os.path.join(dst, "proc")
tmpl = os.path.join(proc, "300")
for i in range(700):
    pid = str(1000 + i)
    d = os.path.join(proc, pid)
    shutil.copytree(tmpl, d, symlinks=True)
    stat = open(os.path.join(d, "stat")).read().split(" ")
    stat[0], stat[1], stat[21] = pid, "(g%d)" % i, str(9000 + i)
    open(os.path.join(d, "stat"), "w").write(" ".join(stat))
    st = open(os.path.join(d, "status")).read().replace("Name:\tbash", "Name:\tg%d" % i)
    open(os.path.join(d, "status"), "w").write(st)
PY
printf 'ProcRoot = %s\nSysRoot = %s\nTopGroups = 1000\nPublishAfter = 0\n' "$T/many/proc" "$T/many/sys" > "$T/cfg/memz.conf"
NETDATA_USER_CONFIG_DIR="$T/cfg" "$PLUGIN" 1 < /dev/null > "$T/m.out" 2> "$T/m.err" &
mpid=$!
PIDS="$PIDS $(nd_id $mpid)"
two_cycles() { [ -f "$T/m.out" ] && [ "$(grep -c '^BEGIN memz.ram' "$T/m.out")" -ge 2 ]; }
nd_poll 30 two_cycles || nd_fail "700 groups: not two cycles in 30 s (stderr: $(cat "$T/m.err"))"
kill -TERM "$mpid"
wait "$mpid"
rc=$?
[ "$rc" -eq 0 ] || nd_fail "700 groups: exit $rc (stderr: $(cat "$T/m.err"))"
grep -q '^DISABLE' "$T/m.out" && nd_fail "700 groups: DISABLE"
"$NDCHECK" < "$T/m.out" > /dev/null || nd_fail "700 groups: output breaks the protocol"
# the fixture's own groups (bash, ...) count towards the limit too
n=$(grep -c "^CHART memz.grp_[^ ]*_leak '' .* ''" "$T/m.out")
max=$(sed -n 's/^#define MEMZ_TABLE_MAX_PUBLISHED \([0-9]*\).*/\1/p' "$top_srcdir/include/memz/table.h")
[ "$n" -eq "$max" ] || nd_fail "700 groups: $n charted, expected the report's $max"
echo "TopGroups=1000, 700 groups: $n charted (the report's limit), exit 0"

# 10. the keepalives of the plugins started first
ka_new() { grep -q '^PLUGIN_KEEPALIVE$' "$T/kav2.8.1.out"; }
ka_old() { [ -f "$T/kav1.37.1.out" ] && [ "$(grep -c '^BEGIN memz.ram' "$T/kav1.37.1.out")" -ge 2 ]; }
left=$(( 45 - ($(nd_now_ms) - ka_start) / 1000 ))
[ "$left" -gt 0 ] || left=1
nd_poll "$left" ka_new || nd_fail "v2.8.1, update_every 120: no PLUGIN_KEEPALIVE within 45 s"
nd_poll 5 ka_old || nd_fail "v1.37.1, update_every 120: no repeated data within 50 s"
echo "update_every 120: PLUGIN_KEEPALIVE (2.8.1) and repeated data (1.37.1) after $(nd_secs_since $ka_start) s"
kill -TERM "$ka_pid_1371" "$ka_pid_281"
wait "$ka_pid_1371" "$ka_pid_281"
NETDATA_VERSION=v1.37.1 "$NDCHECK" < "$T/kav1.37.1.out" > /dev/null ||
	nd_fail "v1.37.1 keepalive output breaks the protocol"
NETDATA_VERSION=v2.8.1 "$NDCHECK" < "$T/kav2.8.1.out" > /dev/null ||
	nd_fail "v2.8.1 keepalive output breaks the protocol"
exit 0
