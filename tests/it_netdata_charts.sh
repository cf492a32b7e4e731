#!/bin/sh
# memz.plugin inside a real netdata: the memz charts appear in
# /api/v1/charts with memz.plugin as their plugin, memz.ram's parts add up
# to MemTotal within 1%, and memz.user_pss holds root's PSS as /proc has it.
# Works in the sanitizer build: the plugin's ASan output would go to
# error.log, which this test does not read.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata

ND_TMP=$(mktemp -d /tmp/memz-ndcharts.XXXXXX)
trap nd_cleanup EXIT
PORT=$(nd_pick_port 29411)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memzcharts
start=$(nd_now_ms)
nd_start "$D" "$PORT"

charts_ok() {
	nd_api "$PORT" /api/v1/charts > "$ND_TMP/charts.json" &&
	python3 - "$ND_TMP/charts.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["charts"]
want = ["memz.ram", "memz.kernel", "memz.group_pss", "memz.group_uss",
        "memz.group_swap", "memz.group_growth", "memz.leaks",
        "memz.leak_suspects", "memz.pace"]
# netdata parses a cycle's lines as they come: a look in the middle of the
# first cycle can see the shared charts before the groups' own ones
inst = [k for k, v in c.items() if v["context"] == "memz.group_leak"]
sys.exit(0 if all(w in c for w in want) and inst else 1)
PY
}
nd_poll 30 charts_ok || nd_fail "memz charts did not appear in /api/v1/charts"
echo "charts appeared after $(( $(nd_now_ms) - start )) ms"

python3 - "$ND_TMP/charts.json" <<'PY' || nd_fail "chart metadata"
import json, sys
c = json.load(open(sys.argv[1]))["charts"]
for cid, ch in c.items():
    if not cid.startswith("memz."):
        continue
    assert ch["plugin"] == "memz.plugin", (cid, ch["plugin"])
    assert ch["module"] == "memz", (cid, ch["module"])
    if cid.startswith("memz.grp_"):
        # a group's own chart: one of the shared contexts
        assert ch["context"] in ("memz.group_mem", "memz.group_growth_rate",
                                 "memz.group_leak"), (cid, ch["context"])
        continue
    if cid.startswith(("memz.time_to_oom_", "memz.oom_kills_")):
        # a scope's own chart (the machine, a limited cgroup)
        assert ch["context"] in ("memz.time_to_oom", "memz.oom_kills"), \
            (cid, ch["context"])
        continue
    assert ch["context"] == cid, (cid, ch["context"])
    assert ch["priority"] >= 140000, (cid, ch["priority"])
ram = c["memz.ram"]
assert ram["units"] == "MiB" and ram["chart_type"] == "stacked", ram
dims = {d["name"] for d in ram["dimensions"].values()}
assert dims == {"free", "pcp_free", "buffers", "cached", "slab",
                "page_tables", "process_anon", "hidden_anon",
                "kernel_residual"}, dims
print("memz.ram dims:", sorted(dims))
gdims = set(c["memz.group_pss"]["dimensions"])
inst = [k for k, v in c.items() if v["context"] == "memz.group_leak"]
print("memz.group_pss groups:", len(gdims), "memz.group_leak instances:", len(inst))
# netdata keeps a vanished group's dimension but drops its obsoleted
# instance charts, so groups that came and went since the start leave more
# dimensions than instances: every instance must be one of the groups
assert inst, "no per-group charts"
for k in inst:
    gid = k[len("memz.grp_"):-len("_leak")]
    assert gid in gdims, (k, sorted(gdims))
PY

ram_sums() {
	nd_api "$PORT" "/api/v1/data?chart=memz.ram&after=-3&points=1&group=average&format=json&options=jsonwrap" \
		> "$ND_TMP/ram.json" &&
	python3 - "$ND_TMP/ram.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["result"]
labels, row = d["labels"], d["data"][0]
vals = dict(zip(labels[1:], row[1:]))
if any(v is None for v in vals.values()) or not vals:
    sys.exit(1)
total_mib = sum(vals.values())
mt = [l for l in open("/proc/meminfo") if l.startswith("MemTotal:")][0]
memtotal_mib = int(mt.split()[1]) / 1024.0
err = abs(total_mib - memtotal_mib) / memtotal_mib
print("memz.ram sum %.1f MiB, MemTotal %.1f MiB, off by %.3f%%" %
      (total_mib, memtotal_mib, 100 * err))
for k in sorted(vals):
    assert vals[k] >= 0, (k, vals[k])
sys.exit(0 if err < 0.01 else 2)
PY
}
nd_poll 15 ram_sums || nd_fail "memz.ram does not add up to MemTotal within 1%"

# Per-user totals beside the groups: memz.user_pss (and uss, swap, anon)
# under "users", a dimension per user. netdata's own processes run as user
# netdata; the test's (and netdata's parent shell's) as root. root's PSS is
# what /proc says of uid 0's processes, within a factor of two (processes
# come and go between the two reads on a busy machine).
nd_poll 15 nd_users_ok "$PORT" || nd_fail "memz.user_pss: no root and netdata users, or root's PSS is not /proc's"

# the plugin ran all along: netdata never had to restart it
if nd_memz_complaints "$D"; then
	nd_fail "netdata complained about memz.plugin (lines above)"
fi
echo "no complaints about memz.plugin in error.log"
exit 0
