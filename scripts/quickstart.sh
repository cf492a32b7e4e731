#!/bin/sh
# memz quick start: install, build, and run memz inside a private netdata
# (dashboard on 127.0.0.1) and a private collectd (CSV files and a log in a
# local directory), watching this machine. Nothing of a system-wide netdata
# or collectd is touched. Ctrl-C stops everything it started.
#
#   sh scripts/quickstart.sh [--demo-leak] [--port PORT] [--dir DIR]
#                            [--no-install] [--build-dir DIR] [--until-verdict SECONDS]
#
# --demo-leak      also run a process that leaks 256 KiB/s (named memz-demo-leak)
# --until-verdict  exit on its own once both hosts show the demo's [LEAK?]
#                  verdict (status 0), or after SECONDS without it (status 1)
# --build-dir      use an existing build instead of building (tests do)
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
dir=/tmp/memz-quickstart
port=19999
demo=no
install=yes
build=""
until=""

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--demo-leak) demo=yes ;;
	--port) port=$2; shift ;;
	--dir) dir=$2; shift ;;
	--no-install) install=no ;;
	--build-dir) build=$2; shift ;;
	--until-verdict) until=$2; demo=yes; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "quickstart: unknown option $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

say() { printf 'memz quickstart: %s\n' "$*"; }
# the netdata and collectd it runs are set up as the integration tests' are
# shellcheck source=scripts/netdata-conf.sh
. "$src/scripts/netdata-conf.sh"
# shellcheck source=scripts/collectd-conf.sh
. "$src/scripts/collectd-conf.sh"

[ "$install" = yes ] && "$src/scripts/install-deps.sh"

if [ -z "$build" ]; then
	build="$src/build-quickstart"
	if [ ! -f "$build/Makefile" ]; then
		say "building in $build"
		[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null)
		mkdir -p "$build"
		(cd "$build" && "$src/configure" -q)
	fi
	make -s -C "$build" -j"$(nproc 2>/dev/null || echo 2)" all tests/leaker >/dev/null
fi
for f in memz.plugin .libs/memz.so tests/leaker; do
	[ -f "$build/$f" ] || { say "missing $build/$f: the build failed?"; exit 1; }
done

# A second run stops what the first one left behind (idempotent).
if [ -d "$dir" ]; then
	for pidfile in "$dir"/*.pid; do
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		kill "$pid" 2>/dev/null || true
	done
	rm -rf "$dir"
fi
mkdir -p "$dir"

pids=""
# stop PIDS: TERM, up to 5 s to exit, then KILL
stop() {
	for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
	for pid in "$@"; do
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$pid" 2>/dev/null || true
	done
}
cleanup() {
	trap - EXIT INT TERM
	# what the daemons started (netdata's memz.plugin) is stopped too, by
	# pid: a plugin left behind by a netdata that did not stop it would
	# only notice at its next write
	kids=""
	for pid in $pids; do kids="$kids $(pgrep -P "$pid" || true)"; done
	# shellcheck disable=SC2086
	stop $pids
	# shellcheck disable=SC2086
	stop $kids
	rm -f "$dir"/*.pid
}
trap cleanup EXIT
trap 'say "stopping"; exit 0' INT TERM

if ss -ltnH "sport = :$port" 2>/dev/null | grep -q .; then
	say "port $port is in use; pick another with --port"
	exit 1
fi

# --- netdata -----------------------------------------------------------
nd=$dir/netdata
mkdir -p "$nd"
# As a real install: netdata runs as user netdata, and runs memz.plugin as
# `make install` leaves it (0750 root:netdata with the two capabilities that
# let it read every process); its plugins directory is the installed one.
memz_netdata_install "$build" "$nd" ||
	{ say "make install failed, see $nd/install.log"; exit 1; }
cat "$nd/install.out"
chmod 755 "$dir" "$nd"
memz_netdata_conf "$nd" "$port" memz-quickstart --proc \
	--alarms "$src/conf/netdata/health.d/memz-netdata1.conf" ||
	{ say "cannot set up netdata in $nd"; exit 1; }
setpriv --reuid=netdata --regid=netdata --init-groups test -x "$nd/plugins/memz.plugin" || {
	say "user netdata cannot reach $nd/plugins/memz.plugin: make the directories above $dir searchable (chmod o+x) or pick another --dir"
	exit 1
}
NETDATA_DISABLE_CLOUD=1 netdata -D -c "$nd/netdata.conf" >"$nd/log/stdout.log" 2>&1 &
pids="$pids $!"
echo $! > "$dir/netdata.pid"

# --- collectd ----------------------------------------------------------
cd_=$dir/collectd
mkdir -p "$cd_/plugins"
cp "$build/.libs/memz.so" "$cd_/plugins/memz.so"
memz_collectd_conf "$cd_" memz-quickstart --interval 2 --csv \
	--socket "$cd_/collectd.sock" ||
	{ say "cannot write $cd_/collectd.conf"; exit 1; }
cat >> "$cd_/collectd.conf" <<CONF
PluginDir "$cd_/plugins"
LoadPlugin memz
<Plugin memz>
  GroupBy "name"
  TopGroups 10
</Plugin>
CONF
collectd -f -C "$cd_/collectd.conf" >"$cd_/stdout.log" 2>&1 &
pids="$pids $!"
echo $! > "$dir/collectd.pid"

if [ "$demo" = yes ]; then
	# flat for a minute first, as a real leak in a settled daemon: memz
	# leaves a process that grows since it started alone (LeakWarmup)
	"$build/tests/leaker" --name memz-demo-leak --rate 256 --start-mib 16 \
		--flat-for 70 >"$dir/leaker.out" 2>&1 &
	pids="$pids $!"
	echo $! > "$dir/leaker.pid"
fi

cat <<MSG

memz is running (files in $dir):
  netdata dashboard   http://127.0.0.1:$port/  (section "memz"; alarms: bell icon)
  netdata charts      curl 'http://127.0.0.1:$port/api/v1/data?chart=memz.ram&after=-10&format=json'
  collectd values     collectdctl -s $cd_/collectd.sock listval | grep memz
  collectd log        $cd_/collectd.log   ([LEAK?] notifications land here)
  collectd CSV        $cd_/csv/memz-quickstart/
MSG
[ "$demo" = yes ] && echo "  demo leaker         memz-demo-leak sits still 70 s, then grows 256 KiB/s: expect [LEAK?] within 90 s, the alarm (memz_group_leak) two minutes later"
echo

# the verdict: memz.leaks flags the demo leaker (the alarm follows once it
# has stood LeakAlarmAfter)
netdata_flagged() {
	curl -sf --max-time 2 "http://127.0.0.1:$port/api/v1/data?chart=memz.leaks&after=-5&points=1&group=max&format=json" 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if any(l == "memz-demo-leak" and v == 1 for l, v in zip(d["labels"][1:], d["data"][0][1:])) else 1)'
}
collectd_flagged() { grep -q '\[LEAK?\].*memz-demo-leak' "$cd_/collectd.log" 2>/dev/null; }

if [ -n "$until" ]; then
	start=$(date +%s)
	nd_ok=no cd_ok=no
	while [ $(( $(date +%s) - start )) -lt "$until" ]; do
		[ $nd_ok = yes ] || { netdata_flagged && nd_ok=yes && say "netdata: memz.leaks flags memz-demo-leak after $(( $(date +%s) - start )) s"; }
		[ $cd_ok = yes ] || { collectd_flagged && cd_ok=yes && say "collectd: [LEAK?] logged after $(( $(date +%s) - start )) s"; }
		[ $nd_ok = yes ] && [ $cd_ok = yes ] && exit 0
		for pid in $pids; do
			kill -0 "$pid" 2>/dev/null || { say "process $pid died; see $dir"; exit 1; }
		done
		sleep 0.5
	done
	say "no verdict within $until s (netdata: $nd_ok, collectd: $cd_ok); see $dir"
	exit 1
fi

say "press Ctrl-C to stop"
while :; do
	for pid in $pids; do
		kill -0 "$pid" 2>/dev/null || { say "process $pid exited; see $dir"; exit 1; }
	done
	sleep 1
done
