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
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
unset NETDATA_USER_CONFIG_DIR NETDATA_STOCK_CONFIG_DIR NETDATA_HOST_PREFIX

# 1. functions answered, unknown ones 404, output stays valid protocol
{
	nd_wait_grep "$T/f.out" '^END' 10
	printf 'FUNCTION uuid-top 10 "memz-top"\n'
	printf 'FUNCTION uuid-none 10 "no-such-function"\n'
	printf 'FUNCTION uuid-self 10 "memz-inspect %s"\n' "$$"
	printf 'FUNCTION uuid-bad 10 "memz-inspect 12ab"\n'
	printf 'FUNCTION uuid-gone 10 "memz-inspect 2147483647"\n'
	# a call split across two writes must still be read whole
	printf 'FUNCTION uuid-split 10 "memz-'
	sleep 0.3
	printf 'top"\n'
	nd_wait_grep "$T/f.out" uuid-split 10
} | "$PLUGIN" 1 > "$T/f.out" 2> "$T/f.err" &
fpid=$!
PIDS="$PIDS $fpid"
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
assert set(cols) >= {"Group", "PSS", "USS", "Swap", "Growth", "Leak"}, cols
assert len(top["data"]) > 0
for row in top["data"]:
    assert len(row) == len(cols), row
    assert isinstance(row[0], str) and row[1] >= 0 and isinstance(row[5], bool)
pss = [r[cols["PSS"]["index"]] for r in top["data"]]
assert pss == sorted(pss, reverse=True), "memz-top not sorted by PSS"
print("memz-top: %d groups, largest %.1f MiB" % (len(pss), pss[0]))
me = expect("uuid-self", 200)
assert me["pid"] == int(sys.argv[2])
fields = {r[0]: r[1] for r in me["data"]}
assert fields["pss"] > 0 and fields["rss"] >= fields["pss"], fields
# the core's smaps taxonomy, as `memz inspect` shows it: categories add up.
# Compared on RSS: the snapshot's figures and the smaps read are moments
# apart, and PSS moves whenever a sharer of the shell's libraries comes or
# goes, while an idle shell's resident pages do not.
cats = ("kernel", "heap", "stack", "exe", "shmem", "device", "lib", "file", "anon")
assert "heap_pss" in fields and "lib_pss" in fields, sorted(fields)
catsum = sum(fields.get(c + "_rss", 0) for c in cats)
assert abs(catsum - fields["rss"]) <= 0.05 * fields["rss"], (catsum, fields["rss"])
print("memz-inspect: categories' RSS sum to %d of rss %d" % (catsum, fields["rss"]))
expect("uuid-none", 404)
expect("uuid-bad", 400)
expect("uuid-gone", 404)
expect("uuid-split", 200)
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

# 4. SIGTERM ends it quickly with status 0, even while netdata keeps stdin
# open and silent
mkfifo "$T/stdin"
"$PLUGIN" 1 < "$T/stdin" > "$T/t.out" 2>/dev/null &
ppid=$!
PIDS="$PIDS $ppid"
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

# 5. a closed stdout (netdata went away) ends it cleanly, not by SIGPIPE
mkfifo "$T/stdout"
"$PLUGIN" 1 < /dev/null > "$T/stdout" 2> "$T/p.err" &
ppid=$!
PIDS="$PIDS $ppid"
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
exit 0
