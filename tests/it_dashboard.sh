#!/bin/sh
# The netdata dashboard seen in a real browser: start a private netdata with
# memz.plugin, its alarms and the demo leaker, wait until memz.leaks flags the
# leaker and its memz_group_leak alarm is WARNING, then open the dashboard in
# headless Chromium (Debian's package; nothing is downloaded).
#
#   tests/it_dashboard.sh [--screenshot OUT.png] [--settle SECONDS] [--build-dir DIR]
#
# As a test (no --screenshot) it fails when the rendered page lacks the memz
# section, its charts, or the raised alarm's count in the header; the
# screenshot goes to its temp dir (kept, with the DOM, when it fails).
# With --screenshot it also writes the picture to OUT.png (docs/dashboard.png
# is made this way: `sh tests/it_dashboard.sh --build-dir BUILD --screenshot
# docs/dashboard.png`); it then lets the charts gather --settle seconds of
# history first (default 60) so the picture is not a few pixels of data.
#
# Two browser runs: `chromium --dump-dom` (plain flags) renders the page for
# the DOM check. The picture needs the page scrolled to the leak charts, which
# plain `--screenshot` cannot do (it draws a blank or shifted frame once the
# page scrolls), so a few lines of Python drive the same Chromium over
# --remote-debugging-pipe (DevTools protocol on fds 3/4: no npm, no websocket
# library, no port).
set -u

src=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${top_builddir:-}
shot=""
settle=""
while [ $# -gt 0 ]; do
	case $1 in
	--screenshot) shot=$2; shift ;;
	--settle) settle=$2; shift ;;
	--build-dir) build=$2; shift ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "it_dashboard: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$build" ] || { echo "it_dashboard: no build: set top_builddir or pass --build-dir" >&2; exit 2; }
top_srcdir=$(cd "$src" && pwd)
top_builddir=$(cd "$build" && pwd)
NETDATA_BIN=${NETDATA_BIN-$(command -v netdata || echo /usr/sbin/netdata)}
export top_srcdir top_builddir NETDATA_BIN
case $shot in ''|/*) ;; *) shot=$(pwd)/$shot ;; esac
[ -n "$settle" ] || { [ -n "$shot" ] && settle=60 || settle=0; }

. "$top_srcdir/tests/netdata/lib.sh"

nd_need_netdata
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$CHROMIUM" ] && [ -x "$CHROMIUM" ] || nd_skip "no chromium (apt-get install chromium)"
# netdata loads the uninstrumented plugin binary; a sanitizer build's plugin
# would need the sanitizer runtime preloaded into a daemon we do not own.
grep -q fsanitize "$top_builddir/Makefile" 2>/dev/null && nd_skip "sanitizer build"
make -s -C "$top_builddir" tests/leaker > /dev/null 2>&1 || nd_fail "cannot build tests/leaker"

ND_TMP=$(mktemp -d /tmp/memz-it-dashboard.XXXXXX)
BROWSER_PIDS=""
cleanup() {
	for _p in $BROWSER_PIDS; do kill -TERM "$_p" 2>/dev/null; done
	for _p in $BROWSER_PIDS; do wait "$_p" 2>/dev/null; done
	nd_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cd "$ND_TMP" || exit 1

fail() {
	# Keep what the browser saw so a failure can be looked at.
	# shellcheck disable=SC2034  # read by nd_cleanup (tests/netdata/lib.sh)
	ND_KEEP=1
	echo "(kept $ND_TMP: dom.html, dashboard.png, chromium logs)" >&2
	nd_fail "$@"
}

port=$(nd_pick_port 29651)
nd=$ND_TMP/nd
nd_setup "$nd" "$port" memz-dashboard
# Without netdata's own charts memz is the only section, so it is the top of
# the page (its "netdata" section would otherwise come first) and the menu
# holds nothing else. A repeated section header adds to that section.
printf '[plugins]\n    netdata monitoring = no\n' >> "$nd/netdata.conf"
nd_start "$nd" "$port"
start_ms=$(nd_now_ms)
"$top_builddir/tests/leaker" --name memz-demo-leak --rate 256 --start-mib 16 \
	> "$ND_TMP/leaker.out" 2>&1 &
ND_EXTRA_PIDS=$!

# The leaker is flagged in memz.leaks and the shipped alarm is raised.
leak_shown() {
	nd_api "$port" '/api/v1/data?chart=memz.leaks&after=-2&format=json&dimensions=memz-demo-leak' |
		python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; sys.exit(0 if d and d[0][1] == 1 else 1)' 2>/dev/null
}
alarm_raised() {
	nd_api "$port" /api/v1/alarms |
		python3 -c 'import json,sys; a=json.load(sys.stdin)["alarms"].values(); sys.exit(0 if any(v["name"] == "memz_group_leak" and "demo" in v["chart"] and v["status"] == "WARNING" for v in a) else 1)' 2>/dev/null
}
ready() {
	kill -0 "$ND_EXTRA_PIDS" 2>/dev/null || fail "the leaker exited: $(cat "$ND_TMP/leaker.out")"
	[ $(( $(nd_now_ms) - start_ms )) -ge $((settle * 1000)) ] && leak_shown && alarm_raised
}
nd_poll $((settle + 90)) ready ||
	fail "memz.leaks does not flag memz-demo-leak or its memz_group_leak is not WARNING after $((settle + 90)) s"
echo "leak flagged and alarm raised after $(( ($(nd_now_ms) - start_ms) / 1000 )) s"
# The picture's time window ends here, before any browser starts: the
# browsers' own processes (charted by memz like everything on the machine)
# stay out of it.
before_ms=$(nd_now_ms)

chromium_flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync"

# --- 1. the rendered DOM: plain flags. Virtual time lets the dashboard's
# scripts fetch and draw without waiting in real time for their timers.
mkdir "$ND_TMP/profile-dom"
# shellcheck disable=SC2086
timeout 90 "$CHROMIUM" $chromium_flags --user-data-dir="$ND_TMP/profile-dom" \
	--window-size=1400,1800 --virtual-time-budget=15000 \
	--dump-dom "http://127.0.0.1:$port/#menu_memz" \
	> "$ND_TMP/dom.html" 2> "$ND_TMP/chromium-dom.log" &
BROWSER_PIDS=$!
wait "$BROWSER_PIDS" || fail "chromium --dump-dom failed (exit $?; see chromium-dom.log)"
BROWSER_PIDS=""

python3 - "$ND_TMP/dom.html" <<'PY' || fail "the rendered dashboard lacks memz (see dom.html)"
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
bad = []
# the memz menu and section, and the submenus the plugin's families make
for needle in ('id="menu_memz"', 'id="menu_memz_submenu_ram"', 'id="menu_memz_submenu_leaks"'):
    if needle not in dom:
        bad.append("no " + needle)
# every chart the plugin defines has its container
for chart in ("ram", "kernel", "group_pss", "leaks", "leak_suspects", "pace"):
    if 'data-netdata="memz.%s"' % chart not in dom:
        bad.append("no chart memz.%s" % chart)
# the first chart was drawn, not only laid out (charts below the fold are
# drawn lazily, on scrolling, so only the top one can be asked for)
m = re.search(r'data-netdata="memz\.ram"(.*?)data-netdata="memz\.kernel"', dom, re.S)
if not m or "<canvas" not in m.group(1):
    bad.append("memz.ram was not drawn (no canvas)")
# the header's warning count (the bell's yellow pill) shows the raised alarm
w = re.search(r'<span color="warning"[^>]*>(\d+)</span>', dom)
if not w or int(w.group(1)) < 1:
    bad.append("no raised warning in the header")
for b in bad:
    print("dom check: " + b, file=sys.stderr)
if bad:
    sys.exit(1)
print("dom check: memz section, 6 charts, memz.ram drawn, %s warning(s) in the header" % w.group(1))
PY

# --- 2. the picture: the dashboard with the time window pinned to the
# history netdata holds (a live window reaching before netdata started is
# covered by a "want to extend your history?" banner), scrolled to the leak
# charts, the pointer resting near the right end of memz.leaks so the legends
# show values.
cat > "$ND_TMP/shoot.py" <<'PY'
import base64, fcntl, json, os, select, subprocess, sys, time
import signal

# Stopped by the test's trap (or timeout): unwind, so "finally" stops the browser.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

chromium, flags, profile, url, out = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
W, H = 1400, 1000

def high(fd):
    # Out of the way of fds 3 and 4, which the browser expects the pipe on.
    n = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return n

r_in, w_in = os.pipe()
r_out, w_out = os.pipe()
r_in, w_in, r_out, w_out = map(high, (r_in, w_in, r_out, w_out))
def child():
    os.dup2(r_in, 3)
    os.dup2(w_out, 4)
browser = subprocess.Popen([chromium] + flags + [
    "--user-data-dir=" + profile, "--hide-scrollbars", "--window-size=%d,%d" % (W, H),
    "--remote-debugging-pipe", "about:blank"],
    preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
    stdout=open("chromium-shot.log", "w"), stderr=subprocess.STDOUT)
os.close(r_in)
os.close(w_out)
buf, seq = b"", 0

def call(method, params=None, session=None, timeout=30):
    global buf, seq
    seq += 1
    msg = {"id": seq, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    os.write(w_in, json.dumps(msg).encode() + b"\0")
    end = time.time() + timeout
    while True:
        while b"\0" in buf:
            raw, buf = buf.split(b"\0", 1)
            m = json.loads(raw)
            if m.get("id") == seq:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]
        left = end - time.time()
        if left <= 0 or not select.select([r_out], [], [], left)[0]:
            raise TimeoutError("no answer to " + method)
        data = os.read(r_out, 1 << 20)
        if not data:
            raise EOFError("chromium closed the pipe")
        buf += data

def until(what, expr, timeout=30):
    end = time.time() + timeout
    while True:
        v = call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, s)["result"].get("value")
        if v:
            return v
        if time.time() > end:
            raise TimeoutError("the page never showed " + what)
        time.sleep(0.2)

try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Emulation.setDeviceMetricsOverride",
         {"width": W, "height": H, "deviceScaleFactor": 1, "mobile": False}, s)
    call("Page.navigate", {"url": url}, s)
    until("memz.ram drawn", "!!document.querySelector('[data-netdata=\"memz.ram\"] canvas')")
    until("the leaks submenu", "(function(){var e=document.getElementById('menu_memz_submenu_leaks');"
          "if(!e)return false;e.scrollIntoView();return true})()")
    rect = until("memz.leaks drawn",
          "(function(){var e=document.querySelector('[data-netdata=\"memz.leaks\"]');"
          "if(!e||!e.querySelector('canvas'))return null;var r=e.getBoundingClientRect();"
          "return [r.left,r.top,r.width,r.height]})()")
    until("memz.leak_suspects drawn", "!!document.querySelector('[data-netdata=\"memz.leak_suspects\"] canvas')")
    # The legends now show values at the pointer: the leaker's is 1
    # (flagged). A second the plugin missed under load is a gap, whose
    # legend shows no value, so the pointer moves a little left until one
    # does.
    flagged = ("(function(){var t=document.querySelector('[data-netdata=\"memz.leaks\"]').innerText;"
               "return /memz-demo-leak\\s*1(\\.0+)?\\b/.test(t)})()")
    for share in (0.93, 0.91, 0.89, 0.87, 0.85):
        x, y = rect[0] + rect[2] * share, rect[1] + 70
        call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y}, s)
        try:
            until("memz-demo-leak flagged in the memz.leaks legend", flagged,
                  timeout=5)
            break
        except TimeoutError:
            if share == 0.85:
                raise
    # Let the charts that came into view finish their first drawing.
    until("settled charts", "document.querySelectorAll('[data-netdata^=\"memz.\"] canvas').length >= 6")
    time.sleep(1)  # the legend's and the charts' transitions end
    png = call("Page.captureScreenshot", {"format": "png"}, s)["data"]
    with open(out, "wb") as f:
        f.write(base64.b64decode(png))
    print("screenshot: %s" % out)
    try:
        call("Browser.close", timeout=5)
    except Exception:
        pass
except Exception as e:
    print("screenshot: %s" % e, file=sys.stderr)
    sys.exit(1)
finally:
    try:
        browser.wait(5)
    except subprocess.TimeoutExpired:
        browser.terminate()
        try:
            browser.wait(5)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
PY
url="http://127.0.0.1:$port/#menu_memz;after=$((start_ms + 2000));before=$before_ms"
mkdir "$ND_TMP/profile-shot"
timeout 120 python3 "$ND_TMP/shoot.py" "$CHROMIUM" "$chromium_flags" \
	"$ND_TMP/profile-shot" "$url" "$ND_TMP/dashboard.png" &
BROWSER_PIDS=$!
wait "$BROWSER_PIDS" || fail "no screenshot (see chromium-shot.log)"
BROWSER_PIDS=""

# A PNG of a blank, not yet drawn page is ~11 KB; the drawn charts make it
# several times that.
size=$(wc -c < "$ND_TMP/dashboard.png")
[ "$(head -c 4 "$ND_TMP/dashboard.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
	fail "dashboard.png is not a PNG"
[ "$size" -gt 40000 ] || fail "dashboard.png is $size bytes: a blank page?"

# No browser outlives its run.
if pgrep -f "$ND_TMP/profile-" > /dev/null 2>&1; then
	pgrep -af "$ND_TMP/profile-" >&2
	fail "chromium processes still run"
fi

if [ -n "$shot" ]; then
	cp "$ND_TMP/dashboard.png" "$shot" || fail "cannot write $shot"
	echo "wrote $shot ($size bytes)"
fi
exit 0
