#!/bin/sh
# memz.plugin under a real netdata 2.x (configure --with-netdata2; CI builds
# v2.10.4 into /opt/memz-netdata2), installed by make install with its
# capabilities and run as user netdata, as netdata's own packages run it:
# - a bad memz.conf: the plugin's stderr line, naming the file and line,
#   lands raw in collector.log (2.x has no error.log);
# - charts, the memz.group_leak context and its memz_group label, and the
#   per-user totals (root's and netdata's, root's PSS as /proc has it);
# - a root-owned process leaking 256 KiB/s (LeakWarmup 0, LeakAlarmAfter 5,
#   so that it is judged at once and its verdict counts after 5 s): the
#   shipped 2.x health file raises memz_group_leak WARNING on its group's
#   chart, naming the group in `info` and `summary` (/api/v1/alarms) and in
#   the alert's title (/api/v2/alerts); the machine's time to OOM alarm gets
#   a value; the OOM kills alarm is loaded;
# - the functions: listed for signed-in users, refused anonymously (412),
#   and called through the agent's MCP endpoint (a "claimed" agent): each
#   one's info, every view with its required parameter, a call without it,
#   and the errors a bad view or a gone pid get;
# - keepalive: at update every 150 netdata hears nothing from memz between
#   collections but its PLUGIN_KEEPALIVE lines, and still stores the next
#   point, 150 s after the first, from the same plugin process (netdata
#   2.10.4 stops reading a plugin silent for 120 s: the 2 * 60 s read
#   timeout in src/plugins.d/pluginsd_parser.c).
# Prints what each step took.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata2
[ -z "${MEMZ_SKIP_NETDATA2:-}" ] || nd_skip "MEMZ_SKIP_NETDATA2: $MEMZ_SKIP_NETDATA2"
# automake's distcheck builds in $(distdir)/_build/sub: the release check
# is about the tarball, and the five minutes this takes (most of them the
# keepalive's) are spent in the werror stage already
case "$(cd "$top_builddir" && pwd -P)" in
"$(cd "$top_srcdir" && pwd -P)"/_build/*) nd_skip "under make distcheck" ;;
esac
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"
echo "netdata: $("$NETDATA_BIN" -V 2>&1 | head -n 1) ($NETDATA_BIN)"

ND_TMP=$(mktemp -d /tmp/memz-nd2.XXXXXX)
trap nd_cleanup EXIT

# The keepalive agent starts first: its part takes longest and runs beside
# the rest.
KPORT=$(nd_pick_port 29711)
K="$ND_TMP/keep"
nd_setup "$K" "$KPORT" memzkeep2
printf '[plugin:memz]\n    update every = 150\n' >> "$K/netdata.conf"
nd_start "$K" "$KPORT"
tk=$(nd_now_ms)
nd_poll 20 eval 'KPID=$(nd_plugin_pid "$K") && [ -n "$KPID" ]' ||
	nd_fail "netdata (keepalive) did not start memz.plugin"
[ "$(tr '\0' ' ' < "/proc/$KPID/cmdline")" = "$K/plugins/memz.plugin 150 " ] ||
	nd_fail "memz.plugin not started with update every 150: $(tr '\0' ' ' < "/proc/$KPID/cmdline")"
nd_poll 20 eval 'nd_api $KPORT "/api/v1/chart?chart=memz.ram" > /dev/null' ||
	nd_fail "memz.ram never appeared at update every 150"

# A bad setting: the plugin says so on stderr and disables itself.
EPORT=$(nd_pick_port 29718)
E="$ND_TMP/bad"
nd_setup "$E" "$EPORT" memzbad2
printf '# a comment\nLeakMinR2 = 1.5\n' > "$E/etc/memz.conf"
nd_start "$E" "$EPORT"
nd_wait_grep "$E/log/collector.log" '^memz\.plugin: .*memz\.conf:2: LeakMinR2' 20 ||
	nd_fail "collector.log does not hold memz.plugin's complaint about memz.conf:2"
echo "collector.log: $(grep '^memz\.plugin: ' "$E/log/collector.log" | head -n 1)"
nd_stop "$E"

# The agent the rest is about.
PORT=$(nd_pick_port 29704)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memztest2
printf 'LeakWarmup = 0\nLeakAlarmAfter = 5\n' > "$D/etc/memz.conf"
nd_claim "$D" || nd_fail "cannot claim the agent in $D"
t0=$(nd_now_ms)
nd_start "$D" "$PORT"

charts() {
	nd_api "$PORT" /api/v1/charts > "$ND_TMP/charts.json" &&
	python3 - "$ND_TMP/charts.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["charts"]
want = ("memz.ram", "memz.leaks", "memz.time_to_oom_machine",
        "memz.oom_kills_machine")
if not all(w in c for w in want):
    sys.exit(1)
g = [k for k, v in c.items() if v["context"] == "memz.group_leak"]
if not g:
    sys.exit(1)
print("%d charts, %d on memz.group_leak" % (len(c), len(g)))
PY
}
nd_poll 30 eval 'n=$(charts)' || nd_fail "memz's charts did not appear"
echo "$n after $(nd_secs_since $t0) s"

NAME="mz2leak$$"
"$LEAKER" --name "$NAME" --rate 256 --start-mib 4 > "$ND_TMP/leaker.out" &
LPID=$!
ND_EXTRA_PIDS=$(nd_id "$LPID")
t1=$(nd_now_ms)
[ "$(nd_status_field "$LPID" Uid)" = 0 ] || nd_fail "the leaker is not root's"

# the group's chart carries its name as the memz_group label, and the
# context lists it among the label's values
labelled() {
	nd_api "$PORT" "/api/v1/chart?chart=memz.grp_${NAME}_leak" > "$ND_TMP/chart.json" &&
	nd_api "$PORT" "/api/v2/contexts?scope_contexts=memz.group_leak&options=labels" \
		> "$ND_TMP/contexts.json" &&
	python3 - "$ND_TMP/chart.json" "$ND_TMP/contexts.json" "$NAME" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
assert c["context"] == "memz.group_leak", c["context"]
assert c["chart_labels"].get("memz_group") == sys.argv[3], c["chart_labels"]
x = json.load(open(sys.argv[2]))["contexts"]["memz.group_leak"]
sys.exit(0 if sys.argv[3] in x["labels"]["memz_group"] else 1)
PY
}
nd_poll 30 labelled ||
	nd_fail "memz.grp_${NAME}_leak is not on memz.group_leak labelled memz_group=$NAME"
echo "memz.grp_${NAME}_leak labelled memz_group=$NAME after $(nd_secs_since $t1) s"

# memz_group_leak on the group's chart, as /api/v1/alarms and
# /api/v2/alerts show it
group_alarm() {
	nd_api "$PORT" "/api/v1/alarms?all" > "$ND_TMP/alarms.json" &&
	nd_api "$PORT" "/api/v2/alerts?options=summary,instances,values" \
		> "$ND_TMP/alerts.json" &&
	python3 - "$ND_TMP/alarms.json" "$ND_TMP/alerts.json" "$NAME" <<'PY'
import json, sys
name = sys.argv[3]
chart = "memz.grp_%s_leak" % name
a = [v for v in json.load(open(sys.argv[1]))["alarms"].values()
     if v["name"] == "memz_group_leak" and v["chart"] == chart]
if not a or a[0]["status"] != "WARNING":
    sys.exit(1)
a = a[0]
assert name in a["info"] and "label" not in a["info"], ("info", a["info"])
assert a["summary"] == "Memory leak in " + name, ("summary", a["summary"])
assert a["value"] == 1 and a["units"] == "level", a
v2 = [i for i in json.load(open(sys.argv[2]))["alert_instances"]
      if i["nm"] == "memz_group_leak" and i["ch"] == chart]
if not v2 or v2[0]["st"] != "WARNING":
    sys.exit(1)
assert v2[0]["sum"] == "Memory leak in " + name, ("v2 sum", v2[0]["sum"])
print("  /api/v1/alarms: summary '%s', info '%s'" % (a["summary"], a["info"]))
# 2.10.4 shows the template's info here, unsubstituted; the title is the
# alert's own
print("  /api/v2/alerts: sum '%s', info '%s'" % (v2[0]["sum"], v2[0]["info"]))
PY
}
nd_poll 60 eval 'out=$(group_alarm)' ||
	nd_fail "memz_group_leak on memz.grp_${NAME}_leak not WARNING naming $NAME within 60 s of the leak's start"
echo "memz_group_leak WARNING for $NAME $(nd_secs_since $t1) s after the leak started"
echo "$out"

# the machine's time to OOM counts the sustained leak; the kills alarm is
# loaded for the machine
oom_alarms() {
	nd_api "$PORT" "/api/v1/alarms?all" > "$ND_TMP/alarms.json" &&
	python3 - "$ND_TMP/alarms.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"]
def one(name, chart):
    v = [v for v in a.values() if v["name"] == name and v["chart"] == chart]
    assert v, "%s on %s not loaded" % (name, chart)
    v = v[0]
    assert "scope machine" in v["info"] and v["summary"].endswith(" in machine"), v
    return v
t = one("memz_time_to_oom", "memz.time_to_oom_machine")
k = one("memz_oom_kills", "memz.oom_kills_machine")
if not t["value"] or t["value"] <= 0:
    sys.exit(1)
print("memz_time_to_oom on the machine: %s, %.0f s; memz_oom_kills: %s" %
      (t["status"], t["value"], k["status"]))
PY
}
nd_poll 30 eval 'out=$(oom_alarms)' ||
	nd_fail "memz_time_to_oom has no value for the machine, or an OOM alarm is not loaded: $(oom_alarms 2>&1 | tail -n 1)"
echo "$out"

# the per-user totals, as under 1.37.1 (it_netdata_charts); user netdata's
# processes started with the agent, so its dimension comes PublishAfter
# (60 s) after them
t2=$(nd_now_ms)
nd_poll 90 nd_users_ok "$PORT" ||
	nd_fail "memz.user_pss: no root and netdata users, or root's PSS is not /proc's"
echo "per-user totals after $(nd_secs_since $t2) s more"

# Functions: listed for signed-in users only, and refused anonymously as
# netdata refuses apps.plugin's processes.
listed() {
	nd_api "$PORT" /api/v3/functions > "$ND_TMP/functions.json" &&
	python3 - "$ND_TMP/functions.json" <<'PY'
import json, sys
f = {x["name"]: x for x in json.load(open(sys.argv[1]))["functions"]}
want = ("memz-top", "memz-inspect", "memz-oom")
if not all(w in f for w in want):
    sys.exit(1)
for w in want:
    assert "signed-in" in f[w]["access"], f[w]
PY
}
nd_poll 10 listed || nd_fail "/api/v3/functions does not list memz's functions for signed-in users"
code=$(curl -s -o "$ND_TMP/anon.json" -w '%{http_code}' --max-time 15 \
	"http://127.0.0.1:$PORT/api/v3/function?function=memz-top%20info")
[ "$code" = 412 ] || nd_fail "an anonymous memz-top call got HTTP $code, not 412"
echo "functions listed for signed-in users; an anonymous call: HTTP $code"

# Through MCP. A call prints, for the checks below: ERROR and the JSON-RPC
# error, or the texts of the answer, the last one (a table's JSON, or
# netdata's prompt for a required parameter) on its own after a line TABLE.
nd_poll 10 test -s "$D/lib/mcp_dev_preview_api_key" ||
	nd_fail "the claimed agent wrote no MCP key"
mcp_id=0
mcp() {
	mcp_id=$((mcp_id + 1))
	nd_mcp "$D" "$PORT" "$mcp_id" "$1" > "$ND_TMP/mcp.json" ||
		nd_fail "no MCP answer to $1"
	python3 - "$ND_TMP/mcp.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
if "error" in r:
    print("ERROR " + r["error"]["message"])
    sys.exit(0)
t = [c["text"] for c in r["result"]["content"] if c.get("type") == "text"]
print("\n".join(t[:-1]))
print("TABLE")
print(t[-1])
PY
}
# table FILE COLUMN VALUE: the table after TABLE has a row whose COLUMN is
# VALUE; prints how many rows and columns it has
table_has() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
s = open(sys.argv[1]).read().split("\nTABLE\n", 1)
assert len(s) == 2, s
t = json.loads(s[1])
assert t["status"] == 200 and t["type"] == "table", t
ix = t["columns"][sys.argv[2]]["index"]
rows = [r for r in t["data"] if str(r[ix]) == sys.argv[3]]
assert rows, "no row with %s %s in %s" % (sys.argv[2], sys.argv[3], t["data"])
print("%d row(s), %d columns" % (len(t["data"]), len(t["columns"])))
PY
}
node="\"node\":\"memztest2\""

# netdata asks for a function's required parameter before it runs even its
# info: the header, whatever the parameter's value
for f in memz-top memz-inspect memz-oom; do
	case $f in
	memz-top) sel=',"selections":{"view":"groups"}' ;;
	memz-inspect) sel=",\"selections\":{\"pid\":\"$LPID\"}" ;;
	*) sel="" ;;
	esac
	mcp "{$node,\"function\":\"$f info\"$sel}" > "$ND_TMP/info.out"
	grep -q '^ERROR' "$ND_TMP/info.out" && nd_fail "$f info: $(cat "$ND_TMP/info.out")"
	python3 - "$ND_TMP/info.out" "$f" <<'PY' || nd_fail "$f info through MCP: $(cat "$ND_TMP/info.out")"
import json, sys
s = open(sys.argv[1]).read().split("\nTABLE\n", 1)
t = json.loads(s[1])
c = t.get("available_columns") or t.get("columns")
assert c and not t.get("data"), t
print("%s info: %d columns, no rows" % (sys.argv[2], len(c)))
PY
done

# without its required parameter netdata asks for it with memz's options
mcp "{$node,\"function\":\"memz-top\"}" > "$ND_TMP/top0.out"
grep -q "key: 'view'" "$ND_TMP/top0.out" && grep -q "'groups'" "$ND_TMP/top0.out" &&
	grep -q "'processes'" "$ND_TMP/top0.out" ||
	nd_fail "memz-top without a view: no prompt for view groups|processes: $(cat "$ND_TMP/top0.out")"
echo "memz-top without its view: netdata asks for view (groups, processes)"

mcp "{$node,\"function\":\"memz-top\",\"selections\":{\"view\":\"groups\"},\"conditions\":[[\"Group\",\"==\",\"$NAME\"]]}" \
	> "$ND_TMP/groups.out"
r=$(table_has "$ND_TMP/groups.out" Group "$NAME") ||
	nd_fail "memz-top view groups has no row $NAME: $(cat "$ND_TMP/groups.out")"
echo "memz-top view:groups (rows filtered to $NAME): $r"

mcp "{$node,\"function\":\"memz-top\",\"selections\":{\"view\":\"processes\"},\"conditions\":[[\"PID\",\"==\",$LPID]]}" \
	> "$ND_TMP/procs.out"
r=$(table_has "$ND_TMP/procs.out" PID "$LPID") ||
	nd_fail "memz-top view processes has no row for pid $LPID: $(cat "$ND_TMP/procs.out")"
echo "memz-top view:processes (rows filtered to pid $LPID): $r"

mcp "{$node,\"function\":\"memz-top\",\"selections\":{\"view\":\"processes\",\"group\":\"$NAME\"}}" \
	> "$ND_TMP/grp.out"
r=$(table_has "$ND_TMP/grp.out" PID "$LPID") ||
	nd_fail "memz-top group:$NAME has no row for pid $LPID: $(cat "$ND_TMP/grp.out")"
echo "memz-top view:processes group:$NAME: $r"

mcp "{$node,\"function\":\"memz-inspect\"}" > "$ND_TMP/insp0.out"
grep -q "key: 'pid'" "$ND_TMP/insp0.out" ||
	nd_fail "memz-inspect without a pid: no prompt for pid: $(cat "$ND_TMP/insp0.out")"
echo "memz-inspect without its pid: netdata asks for pid ($(grep -c "^ *- '[0-9]*':" "$ND_TMP/insp0.out") offered)"

mcp "{$node,\"function\":\"memz-inspect\",\"selections\":{\"pid\":\"$LPID\"}}" > "$ND_TMP/insp.out"
grep -q '^ERROR' "$ND_TMP/insp.out" && nd_fail "memz-inspect pid:$LPID: $(cat "$ND_TMP/insp.out")"
python3 - "$ND_TMP/insp.out" <<'PY' || nd_fail "memz-inspect pid:$LPID through MCP: $(cat "$ND_TMP/insp.out")"
import json, sys
t = json.loads(open(sys.argv[1]).read().split("\nTABLE\n", 1)[1])
assert t["status"] == 200 and t["type"] == "table" and t["data"], t
print("memz-inspect pid: %d rows" % len(t["data"]))
PY

mcp "{$node,\"function\":\"memz-oom\"}" > "$ND_TMP/oom.out"
r=$(table_has "$ND_TMP/oom.out" Row machine) ||
	nd_fail "memz-oom has no machine row: $(cat "$ND_TMP/oom.out")"
echo "memz-oom: $r"

# errors: netdata passes memz's status and message on
mcp "{$node,\"function\":\"memz-top\",\"selections\":{\"view\":\"bogus\"}}" > "$ND_TMP/err.out"
grep -q '^ERROR .*http error code 400' "$ND_TMP/err.out" &&
	grep -q "view must be groups or processes, not 'bogus'" "$ND_TMP/err.out" ||
	nd_fail "memz-top view:bogus is not a 400 saying why: $(cat "$ND_TMP/err.out")"
# a pid that is no process now: pid_max is at most 4194304
mcp "{$node,\"function\":\"memz-inspect\",\"selections\":{\"pid\":\"2147483647\"}}" > "$ND_TMP/err2.out"
grep -q '^ERROR .*http error code 404' "$ND_TMP/err2.out" ||
	nd_fail "memz-inspect of a gone pid is not a 404: $(cat "$ND_TMP/err2.out")"
echo "errors through MCP: view:bogus 400, a gone pid 404"

if c=$(nd_memz_complaints "$D"); then
	nd_fail "collector.log complains about memz.plugin: $c"
fi

# Keepalive: netdata stores a chart that updates every 150 s on a 150 s
# grid; between its first stored point and the next, 150 s later, memz
# sends netdata nothing but PLUGIN_KEEPALIVE, and netdata stops a plugin
# silent for 120 s. The next point must come from the same process. A
# grid point is stored once a collection at or after it arrives, and memz's
# collections keep their own phase, so it may come up to 300 s after the
# first (150 s when the phases agree).
ram_last() {
	nd_api "$KPORT" "/api/v1/chart?chart=memz.ram" > "$ND_TMP/ram.json" &&
	python3 - "$ND_TMP/ram.json" <<'PY'
import json, sys
print(json.load(open(sys.argv[1])).get("last_entry") or 0)
PY
}
left=$(( 320 - ($(nd_now_ms) - tk) / 1000 ))
[ "$left" -gt 0 ] || left=1
nd_poll "$left" eval 'L1=$(ram_last) && [ "$L1" -gt 0 ]' ||
	nd_fail "memz.ram on the keepalive agent has no point 320 s after its start"
left=$(( L1 + 320 - $(nd_now_ms) / 1000 ))
[ "$left" -gt 0 ] || left=1
nd_poll "$left" eval 'L2=$(ram_last) && [ "$L2" -gt "$L1" ]' ||
	nd_fail "memz.ram on the keepalive agent has no point after $L1 (its first) within 320 s"
echo "update every 150: memz.ram points at $((L1 - tk / 1000)) s and $((L2 - tk / 1000)) s after the agent started"
[ "$(nd_plugin_pid "$K")" = "$KPID" ] ||
	nd_fail "memz.plugin (update every 150) was restarted: pid $KPID, now $(nd_plugin_pid "$K")"
if c=$(nd_memz_complaints "$K"); then
	nd_fail "collector.log complains about memz.plugin at update every 150: $c"
fi
echo "memz.plugin pid $KPID ran throughout; collector.log has no complaint"
exit 0
