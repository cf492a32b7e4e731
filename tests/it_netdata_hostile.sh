#!/bin/sh
# Processes whose names are hostile to the plugin protocol (space, '=',
# quotes, newline, control bytes, backslash, a keyword, 15 bytes of UTF-8,
# empty) run while netdata charts them: the plugin is never restarted (same
# pid throughout), netdata's error.log has no complaint about memz, and each
# name is charted under its own dimension with the right size.
# Works in the sanitizer build (only the API and error.log lines naming the
# plugin's thread are read).
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_skip "tests/leaker not built"

ND_TMP=$(mktemp -d /tmp/memz-ndhostile.XXXXXX)
trap nd_cleanup EXIT
PORT=$(nd_pick_port 29425)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memzhostile
# every group reported, so every hostile name reaches the protocol
printf 'TopGroups = 1000\n' >> "$D/etc/memz.conf"

ND_EXTRA_PIDS=""
i=0
hostile() {
	i=$((i + 1))
	"$LEAKER" --name "$1" --once $((8 + i)) > /dev/null &
	ND_EXTRA_PIDS="$ND_EXTRA_PIDS $!"
}
hostile "mz a b"
hostile "mz a=b"
hostile "mz\"q'q"
hostile "$(printf 'mz\nSET x = 1')"
hostile "$(printf 'mz\033[2J\001\177')"
hostile 'mz\back'
hostile "CHART x y"
hostile "$(printf '\303\251\303\251\303\251\303\251\303\251\303\251\303\251x')"
hostile ""
hostile "$(printf '\377\376 bad')"

nd_start "$D" "$PORT"
nd_poll 30 eval 'nd_api $PORT "/api/v1/chart?chart=memz.group_pss" > /dev/null' ||
	nd_fail "memz.group_pss never appeared"
PID1=$(nd_plugin_pid "$D")
[ -n "$PID1" ] || nd_fail "no memz.plugin under netdata"
t0=$(nd_now_ms)

# the hostile sizes (8 + i MiB) must show up under distinct dimensions,
# each at its own helper's PSS as the kernel gives it now
names_ok() {
	nd_api "$PORT" "/api/v1/data?chart=memz.group_pss&after=-2&points=1&group=max&format=json" \
		> "$ND_TMP/pss.json" &&
	python3 - "$ND_TMP/pss.json" $ND_EXTRA_PIDS <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
labels, row = d["labels"][1:], d["data"][0][1:]
# in the order the helpers were started, so the n-th is sys.argv[2 + n]
want = {"mz a b": 9, "mz a_b": 10, "mz_q_q": 11, "mz_SET x _ 1": 12,
        "mz_[2J__": 13, "mz_back": 14, "CHART x y": 15,
        # memz passes valid UTF-8 through; netdata 1.37 itself turns
        # every non-ASCII byte of a dimension name into '_'
        "_" * 14 + "x": 16, "_": 17, "__ bad": 18}
got = dict(zip(labels, row))
missing = [n for n in want if n not in got or got[n] is None]
if missing:
    print("not yet charted:", missing, "charted:", sorted(got))
    sys.exit(1)
def pss_mib(pid):
    for line in open("/proc/%s/smaps_rollup" % pid):
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
# Each helper's PSS is its size plus its own overhead, which is not the
# same for every helper: in the sanitizer build the mmap interceptor
# touches an eighth of each mapping again as shadow (1.1 MiB more at 18
# MiB than at 9). So each dimension is held to its own helper's PSS, and
# within half the 1 MiB between sizes, so a value charted under another
# helper's name cannot pass.
for (n, mib), pid in zip(want.items(), sys.argv[2:]):
    truth = pss_mib(pid)
    assert mib <= truth < mib + 64, ("helper overhead", n, truth, mib)
    assert abs(got[n] - truth) < 0.5, (n, got[n], truth)
assert len(set(labels)) == len(labels), "duplicate dimension names"
print("%d hostile names charted, e.g. %r = %.2f MiB" % (len(want), "mz a b", got["mz a b"]))
PY
}
nd_poll 30 names_ok || nd_fail "hostile names not charted as expected"

# keep collecting a while longer: the plugin must still be the same process
nd_poll 10 eval '[ $(( $(nd_now_ms) - t0 )) -ge 6000 ]'
PID2=$(nd_plugin_pid "$D")
[ "$PID1" = "$PID2" ] || nd_fail "memz.plugin restarted: pid $PID1 then $PID2"
if nd_memz_complaints "$D"; then
	nd_fail "netdata complained about memz.plugin (lines above)"
fi
# polled: on a loaded machine one request may outlast nd_api's 3 s
nd_poll 15 eval 'nd_api "$PORT" "/api/v1/data?chart=memz.ram&after=-1&points=1&format=json" > /dev/null' ||
	nd_fail "memz.ram stopped answering"
echo "memz.plugin pid $PID1 unchanged for $(nd_secs_since $t0) s, error.log has no memz complaint"
exit 0
