#!/bin/sh
# How memz runs across a fleet: a child netdata with memz.plugin streams to
# a parent netdata on 127.0.0.1, and the parent serves the child's memz
# charts and values under /host/<child>/api/v1/. (Functions: 1.37.1 refuses
# /api/v1/function on the parent's web API as well, 403.) Works in the sanitizer build (only the
# API is read).
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata

ND_TMP=$(mktemp -d /tmp/memz-ndstream.XXXXXX)
trap nd_cleanup EXIT
PPORT=$(nd_pick_port 29432)
CPORT=$(nd_pick_port $((PPORT + 1)))
KEY=$(cat /proc/sys/kernel/random/uuid)
P="$ND_TMP/parent"
C="$ND_TMP/child"
nd_setup "$P" "$PPORT" memzparent noplugin
nd_setup "$C" "$CPORT" memzchild
cat > "$P/etc/stream.conf" <<CONF
[stream]
    enabled = no
[$KEY]
    enabled = yes
    allow from = *
    default memory mode = ram
    health enabled by default = no
CONF
cat > "$C/etc/stream.conf" <<CONF
[stream]
    enabled = yes
    destination = 127.0.0.1:$PPORT
    api key = $KEY
CONF
nd_start "$P" "$PPORT"
t0=$(nd_now_ms)
nd_start "$C" "$CPORT"

child_charts() {
	nd_api "$PPORT" /host/memzchild/api/v1/charts > "$ND_TMP/charts.json" &&
	python3 - "$ND_TMP/charts.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["charts"]
want = ["memz.ram", "memz.group_pss", "memz.leaks", "memz.leak_suspects"]
sys.exit(0 if all(w in c for w in want) and c["memz.ram"]["plugin"] == "memz.plugin" else 1)
PY
}
nd_poll 40 child_charts || nd_fail "parent does not show the child's memz charts"
echo "memz charts on the parent under /host/memzchild after $(nd_secs_since $t0) s"

# values, not just metadata: the streamed memz.ram adds up to MemTotal
ram_on_parent() {
	nd_api "$PPORT" "/host/memzchild/api/v1/data?chart=memz.ram&after=-3&points=1&format=json" \
		> "$ND_TMP/ram.json" &&
	python3 - "$ND_TMP/ram.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
row = d["data"][0][1:] if d["data"] else []
if not row or any(v is None for v in row):
    sys.exit(1)
mt = [l for l in open("/proc/meminfo") if l.startswith("MemTotal:")][0]
memtotal = int(mt.split()[1]) / 1024.0
print("parent's memz.ram of the child: %.1f MiB of %.1f MiB MemTotal" % (sum(row), memtotal))
sys.exit(0 if abs(sum(row) - memtotal) / memtotal < 0.01 else 1)
PY
}
nd_poll 20 ram_on_parent || nd_fail "streamed memz.ram values wrong on the parent"

exit 0
