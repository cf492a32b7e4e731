#!/bin/sh
# The README's first command, in the mode that exits on its own once both
# hosts show the demo leaker's [LEAK?] verdict: the quick start works, starts
# the real netdata and collectd with memz, and stops everything it started.
set -u
[ -n "${NETDATA_BIN:-}" ] && [ -n "${COLLECTD_BIN:-}" ] || { echo "SKIP: needs netdata and collectd"; exit 77; }
grep -q -- '-fsanitize' "$top_builddir/Makefile" && { echo "SKIP: sanitizer build (the hosts load uninstrumented code)"; exit 77; }
[ -f "$top_builddir/.libs/memz.so" ] || { echo "SKIP: memz.so not built"; exit 77; }

dir=$(mktemp -d /tmp/memz-it-quickstart.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# its netdata runs as user netdata, who must reach the run directory
chmod 755 "$dir"
port=29411
while ss -ltnH "sport = :$port" 2>/dev/null | grep -q .; do port=$((port + 13)); done

make -s -C "$top_builddir" tests/leaker >/dev/null || exit 1
start=$(date +%s)
sh "$top_srcdir/scripts/quickstart.sh" --no-install --build-dir "$top_builddir" \
	--port "$port" --dir "$dir/run" --until-verdict 150
rc=$?
echo "quickstart exited $rc after $(( $(date +%s) - start )) s"
# every daemon it started is gone
for f in netdata collectd leaker; do
	if pgrep -f "$dir/run" >/dev/null 2>&1; then
		echo "FAIL: processes of the quick start still run:"; pgrep -af "$dir/run"
		exit 1
	fi
done
if pgrep -f 'memz-demo-leak' >/dev/null 2>&1 && pgrep -af memz-demo-leak | grep -q -- "$dir"; then
	echo "FAIL: the demo leaker still runs"; exit 1
fi
exit $rc
