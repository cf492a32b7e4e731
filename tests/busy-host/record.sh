#!/bin/bash
# Records tests/traces/busy-host.csv: `memz record --interval 1` of a busy
# container for 51 minutes, with planted leaks and non-leak controls. Not
# part of the suite (tests/test_busy_host.sh replays what it recorded). Run
# by hand, as root, from the source tree, after building memz:
#
#   tests/busy-host/record.sh BUILDDIR OUTDIR [SCALE]
#
# BUILDDIR holds the memz to record with; OUTDIR gets busy-host.csv (the
# whole trace), events.log (what each workload did, when, on the boot
# clock) and the workloads' logs. tests/busy-host/make-traces.sh then cuts
# the traces and writes their labels from events.log. SCALE (default 1)
# multiplies every time in the schedule below: 0.1 is a 5-minute trial run.
#
# Everything runs inside a fresh pid namespace with its own /proc, so the
# trace holds this workload's processes only, not whatever else the machine
# runs. When the namespace's first process exits the kernel kills every
# process left in it; the trap stops PostgreSQL cleanly first.
#
# Needs (Debian 12): gcc g++ make autoconf automake libtool and memz's build
# dependencies, chromium, postgresql, openjdk-17-jdk-headless,
# redis-server redis-tools, netdata-core, collectd-core, xz-utils, and a
# deb-src line for the mirror (`apt-get source yaml-cpp`, the C++ code
# base compiled in the build loop).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

if [ "${1:-}" != --inside ]; then
	[ "$(id -u)" = 0 ] || { echo "record.sh: run as root" >&2; exit 1; }
	[ $# -ge 2 ] || { sed -n 2,12p "$0" >&2; exit 1; }
	build=$(cd "$1" && pwd) || exit 1
	mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 1
	scale=${3:-1}
	[ -x "$build/memz" ] || { echo "no $build/memz" >&2; exit 1; }
	work=$(mktemp -d /tmp/busy-host.XXXXXX) || exit 1
	trap 'rm -rf "$work"' EXIT
	chmod 755 "$work"
	set -e
	# what the workloads run, made before the clock starts
	gcc -O2 -std=c11 -pthread -o "$work/planted" "$here/planted.c"
	javac -d "$work" "$here/Heap.java"
	mkdir "$work/bin"
	for n in leak-anon1 leak-spiky1 leak-anon8 leak-spiky8 leak-anon256 \
		 leak-memfd64 pool-worker ctl-once3g ctl-batch ctl-cache \
		 ctl-arena ctl-step2m; do
		ln -s ../planted "$work/bin/$n"
	done
	ln -s /usr/bin/python3 "$work/bin/leak-py16"
	mkdir "$work/memz-src" "$work/yaml"
	git -C "$src" archive HEAD | tar -x -C "$work/memz-src"
	(cd "$work/memz-src" && autoreconf -fi >/dev/null 2>&1)
	(cd "$work/yaml" && apt-get source --download-only yaml-cpp \
		>/dev/null 2>&1 && tar -xf yaml-cpp_*.orig.tar.* --strip-components=1)
	[ -d "$work/yaml/src" ] || { echo "no yaml-cpp source (deb-src?)" >&2; exit 1; }
	set +e
	# the namespace runs a copy, so editing these files meanwhile (bash
	# reads a script as it goes) cannot change a recording under way
	mkdir "$work/busy-host"
	cp "$here"/* "$work/busy-host/"
	unshare --pid --fork --kill-child --mount-proc bash \
		"$work/busy-host/record.sh" --inside "$work" "$build" "$out" "$scale"
	rc=$?
	exit $rc
fi

work=$2 build=$3 out=$4 scale=$5
dur=$(awk -v s="$scale" 'BEGIN { printf "%d", 3060 * s }')
events=$out/events.log
logs=$out/logs
mkdir -p "$logs"
: >"$events"
export PLANTED_EVENTS=$events
PATH=$work/bin:$PATH

. "$here/schedule.sh"

pgbin=/usr/lib/postgresql/15/bin
pg=$work/pg
cleanup() {
	trap - EXIT INT TERM
	[ -f "$pg/data/postmaster.pid" ] &&
		runuser -u postgres -- "$pgbin/pg_ctl" -D "$pg/data" -m fast \
			-w stop >/dev/null 2>&1
	kill $(jobs -p) 2>/dev/null
	wait
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$build/memz" record --interval 1 --duration "$dur" \
	--out "$out/busy-host.csv" 2>"$logs/memz.err" &
recorder=$!
ev "$recorder" memz record "interval 1 s, $dur s"

# spawn LOG PROGRAM ARGS...: PROGRAM in the background, its output
# appended to LOG, its pid in $spawned (planted.c says why not `&`)
spawn() {
	local log=$1
	shift
	spawned=$("$work/planted" spawn "$logs/$log" "$@")
}
# plant NAME ARGS...: a planted program (planted.c) in the background
plant() { spawn planted.log "$@"; }

# --- the build host: memz (C) and yaml-cpp (C++) with LTO, and memz's unit
# tests, in a loop
cat >"$work/yaml/Makefile.rec" <<'EOF'
SRCS := $(wildcard src/*.cpp src/contrib/*.cpp)
OBJS := $(SRCS:.cpp=.o)
UTILS := util/parse util/read util/sandbox
CXXFLAGS = -O2 -flto=2 -fPIC -Iinclude -Isrc
all: libyaml-cpp.so $(UTILS)
libyaml-cpp.so: $(OBJS)
	$(CXX) -shared -O2 -flto=2 -o $@ $^
util/%: util/%.cpp libyaml-cpp.so
	$(CXX) $(CXXFLAGS) -o $@ $< -L. -lyaml-cpp
%.o: %.cpp
	$(CXX) $(CXXFLAGS) -c -o $@ $<
clean:
	rm -f $(OBJS) libyaml-cpp.so $(UTILS)
EOF
build_loop() {
	local unit
	while :; do
		(cd "$work/memz-src" &&
		 ./configure -q CFLAGS="-O2 -flto=2" >/dev/null 2>&1 &&
		 make -j2 >/dev/null 2>&1 &&
		 unit=$(printf 'print:\n\t@echo $(UNIT_TESTS)\n' |
			make -s -f Makefile -f - print | tr ' ' '\n' |
			grep -v _live | tr '\n' ' ') &&
		 make -j2 check TESTS="$unit" >/dev/null 2>&1
		 make distclean >/dev/null 2>&1)
		(cd "$work/yaml" && make -j2 -f Makefile.rec clean all \
			>/dev/null 2>&1)
		ev $BASHPID build-loop round
	done
}
at 10
build_loop >>"$logs/build.log" 2>&1 &

# --- collectd, as a monitoring daemon at 10 s
at 20
mkdir -p "$work/collectd"
cat >"$work/collectd/collectd.conf" <<EOF
Hostname "busy-host"
FQDNLookup false
BaseDir "$work/collectd"
PIDFile "$work/collectd/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
Interval 10
LoadPlugin logfile
<Plugin logfile>
	File "$work/collectd/collectd.log"
</Plugin>
LoadPlugin cpu
LoadPlugin memory
LoadPlugin load
LoadPlugin processes
LoadPlugin interface
LoadPlugin disk
LoadPlugin df
LoadPlugin csv
<Plugin csv>
	DataDir "$work/collectd/csv"
</Plugin>
EOF
spawn collectd.log collectd -f -C "$work/collectd/collectd.conf"
ev "$spawned" collectd start

# --- slow planted leaks, each flat for minutes first
at 30
plant leak-anon1 leak "$(sc 300)" 1 0
plant leak-spiky1 leak "$(sc 300)" 1 0 48 30
at 45
# --- a browser: a local web server, a long-lived headless chromium that
# opens and closes tabs, and a one-shot chromium now and then
mkdir -p "$work/www"
for i in $(seq 1 24); do
	{
		echo "<!doctype html><html><head><title>page $i</title></head><body>"
		echo "<h1>page $i</h1><canvas id=c width=1200 height=900></canvas><div id=d></div>"
		echo "<script>"
		echo "const n = $((i * 2000)); const d = document.getElementById('d');"
		echo "for (let k = 0; k < n; k++) { const p = document.createElement('p'); p.textContent = 'row ' + k + ' ' + Math.random(); d.appendChild(p); }"
		echo "const c = document.getElementById('c').getContext('2d');"
		echo "for (let k = 0; k < 5000; k++) { c.fillStyle = 'hsl(' + (k % 360) + ',60%,50%)'; c.fillRect(Math.random() * 1200, Math.random() * 900, 30, 30); }"
		echo "</script></body></html>"
	} >"$work/www/page$i.html"
done
http=$(freeport)
spawn http.log /usr/bin/python3 -m http.server "$http" --bind 127.0.0.1 \
	--directory "$work/www"
ev "$spawned" python3 http.server "port $http"
for i in $(seq 1 24); do echo "http://127.0.0.1:$http/page$i.html"; done >"$work/urls"
spawn chromium.log chromium --headless=new --no-sandbox --disable-gpu \
	--no-first-run --user-data-dir="$work/chrome" --remote-debugging-port=0 \
	about:blank
ev "$spawned" chromium start
spawn browse.log /usr/bin/python3 "$here/browse.py" "$work/chrome" "$work/urls"
oneshot_loop() {
	local n=0
	while :; do
		sleep "$(sc 180)"
		n=$((n + 1))
		timeout 120 chromium --headless=new --no-sandbox --disable-gpu \
			--no-first-run --user-data-dir="$work/chrome1" \
			--dump-dom "$(sed -n "$((n % 24 + 1))p" "$work/urls")" >/dev/null 2>&1
	done
}
oneshot_loop >>"$logs/chromium.log" 2>&1 &

at 60
plant leak-anon8 leak "$(sc 240)" 8 0
plant leak-spiky8 leak "$(sc 240)" 8 0 48 30
at 90
plant pool-worker pool 4 "$(sc 300)" 32 2
at 120
plant leak-py16 "$here/leak.py" "$(sc 240)" 16

# --- PostgreSQL with 1 GiB of shared buffers; pgbench's select-only
# clients touch more of them as they go, over about 25 minutes
at 150
pgbench_run() {
	mkdir -p "$pg" && chown postgres: "$pg"
	runuser -u postgres -- "$pgbin/initdb" -D "$pg/data" -A trust >/dev/null &&
	cat >>"$pg/data/postgresql.conf" <<-EOF &&
	shared_buffers = 1GB
	listen_addresses = ''
	unix_socket_directories = '$pg'
	max_connections = 20
	EOF
	runuser -u postgres -- "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/log" -w start >/dev/null &&
	ev "$(head -1 "$pg/data/postmaster.pid")" postgres start "shared_buffers 1GB" &&
	runuser -u postgres -- "$pgbin/pgbench" -h "$pg" -i -s 40 -q postgres &&
	ev 0 pgbench start "select-only, 4 clients, 400 tps" &&
	runuser -u postgres -- "$pgbin/pgbench" -h "$pg" -S -c 4 -j 2 -R 400 \
		-T "$(sc 1500)" postgres
	ev 0 pgbench stop
}
pgbench_run >>"$logs/pgbench.log" 2>&1 &

# --- batch work: planted batch jobs that grow and exit, and real ones
batch_loop() {
	local n=0
	while :; do
		n=$((n + 1))
		plant ctl-batch batch $((1024 + n % 3 * 1024)) $((20 + n % 5 * 10))
		while kill -0 "$spawned" 2>/dev/null; do sleep 1; done
		sleep "$(sc 120)"
	done
}
jobs_loop() {
	while :; do
		sleep "$(sc 300)"
		seq 1 4000000 | awk '{ print ($1 * 7919) % 1000003, $1 }' >"$work/data"
		sort -S 200M -n "$work/data" | xz -6 -T1 >"$work/data.xz"
		apt-get -s -o Debug::NoLocking=1 upgrade >/dev/null 2>&1
		rm -f "$work/data" "$work/data.xz"
	done
}
at 200
batch_loop &
jobs_loop >>"$logs/jobs.log" 2>&1 &

at 300
plant leak-anon256 leak "$(sc 180)" 256 "$(sc 600)"
at 420
plant leak-memfd64 memfd "$(sc 180)" 64

# --- netdata 1.37.1 starting, as Debian runs it (its stock config and
# plugins, dropping to user netdata), on a private port and directories
at 600
nd=$work/netdata
mkdir -p "$nd/cache" "$nd/lib" "$nd/log"
chown -R netdata:netdata "$nd"
ndport=$(freeport)
cat >"$nd/netdata.conf" <<EOF
[global]
	run as user = netdata
	web files owner = root
	web files group = root
	hostname = busy-host
[directories]
	cache = $nd/cache
	lib = $nd/lib
	log = $nd/log
	home = $nd/lib
[web]
	bind to = 127.0.0.1:$ndport
[registry]
	enabled = no
EOF
spawn netdata.log netdata -D -c "$nd/netdata.conf"
ev "$spawned" netdata start "port $ndport"
echo "http://127.0.0.1:$ndport/" >>"$work/urls"

at 700
plant ctl-once3g once 3072 "$(sc 600)"
# --- a JVM whose heap grows toward -Xmx, then stays
at 800
spawn java.log java -Xms32m -Xmx512m -cp "$work" Heap

# --- Redis started now and filled by clients to its maxmemory, then kept
# writing at the cap (evicting), then idle
at 900
mkdir -p "$work/redis"
spawn redis.log redis-server --port 0 --unixsocket "$work/redis/sock" \
	--save "" --appendonly no --maxmemory 256mb \
	--maxmemory-policy allkeys-lru --dir "$work/redis"
redis=$spawned
ev $redis redis-server start "maxmemory 256mb"
redis_fill() {
	local evicted=0 capped=
	sleep 20
	ev $redis redis-server fill "about 1.2 MB/s"
	while :; do
		redis-benchmark -s "$work/redis/sock" -t set -n 2000 -d 512 \
			-r 100000000 -c 2 -q >/dev/null 2>&1
		evicted=$(redis-cli -s "$work/redis/sock" info stats |
			  tr -d '\r' | sed -n 's/^evicted_keys://p')
		if [ -z "$capped" ] && [ "${evicted:-0}" -gt 0 ]; then
			ev $redis redis-server stop "at maxmemory (first eviction)"
			capped=$(boot)
		fi
		[ -n "$capped" ] && awk -v c="$capped" -v n="$(boot)" \
			-v d="$(sc 300)" 'BEGIN { exit !(n > c + d) }' && break
		sleep 0.5
	done
	ev $redis redis-server idle "writes stop"
}
redis_fill >>"$logs/redis.log" 2>&1 &

at 1000
plant ctl-cache cache 64 512
at 1100
plant ctl-arena arena 4 60
at 1200
plant ctl-step2m step "$(sc 120)" 2

wait "$recorder"
ev "$recorder" memz exit "status $?"
