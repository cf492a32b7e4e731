#!/bin/sh
# memz's functions as the real netdata (1.37.1, as Debian runs it) sees
# them: the three registrations in /api/v1/info with their help, timeout
# and GLOBAL scope. 1.37.1 lists functions there but refuses to run them on
# its web API (403: they are for Netdata Cloud); a netdata that serves
# them must answer memz-oom with a table whose first row is the machine.
# The tables themselves are checked in it_netdata_plugin.sh and
# test_netdata_functions.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
nd_need_netdata

ND_TMP=$(mktemp -d /tmp/memz-ndfunc.XXXXXX)
trap nd_cleanup EXIT
PORT=$(nd_pick_port 29632)
D="$ND_TMP/nd"
nd_setup "$D" "$PORT" memzfunc
t0=$(nd_now_ms)
nd_start "$D" "$PORT"

registered() {
	nd_api "$PORT" /api/v1/info > "$ND_TMP/info.json" &&
	python3 - "$ND_TMP/info.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1])).get("functions") or {}
want = ("memz-top", "memz-inspect", "memz-oom")
if not all(w in f for w in want):
    sys.exit(1)
for w in want:
    assert f[w]["timeout"] == 10, f[w]
    assert "GLOBAL" in f[w]["options"], f[w]
    assert f[w]["help"].startswith("memz: "), f[w]
print("netdata lists %s after " % ", ".join(want), end="")
PY
}
nd_poll 30 registered || nd_fail "netdata does not list memz's functions"
echo "$(nd_secs_since $t0) s"

code=$(curl -s -o "$ND_TMP/oom.json" -w '%{http_code}' --max-time 15 \
	"http://127.0.0.1:$PORT/api/v1/function?function=memz-oom&timeout=10")
case $code in
403)
	echo "memz-oom on the local API: 403, as 1.37.1 refuses every function there" ;;
200)
	python3 - "$ND_TMP/oom.json" <<'PY' || nd_fail "memz-oom through netdata: not the table"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["status"] == 200 and t["type"] == "table", t
ix = {k: v["index"] for k, v in t["columns"].items()}
assert t["data"][0][ix["Row"]] == "machine", t["data"][0]
print("memz-oom through netdata: %d rows" % len(t["data"]))
PY
	;;
*)
	nd_fail "memz-oom on the local API: HTTP $code" ;;
esac
exit 0
