#!/bin/bash
# Records tests/traces/busy-host3.csv: `memz record --interval 1` of a busy
# container for 41 minutes with a workload mix that shares as little as it
# can with record.sh's (issue 22 asks for a host recorded elsewhere, with
# other workloads; this is the closest proxy one machine gives). Not part
# of the suite. Run by hand, as root, from the source tree, after building
# memz:
#
#   tests/busy-host/record-mix.sh BUILDDIR OUTDIR [SCALE]
#
# BUILDDIR holds the memz to record with; OUTDIR gets busy-host.csv (the
# whole trace), events.log (what each workload did, when, on the boot
# clock) and the workloads' logs; `tests/busy-host/make-traces.sh --mix
# OUTDIR tests/traces` then writes busy-host3.csv.xz and its labels from
# events.log. SCALE (default 1) multiplies every time in the schedule: 0.1
# is a 4-minute trial run.
#
# The mix: builds with other tool chains (Go's standard library and
# commands, a Rust crate with cargo offline, googletest with clang++, memz
# with clang), MariaDB with a 512 MiB buffer pool filled by sysbench
# loading more than it holds, prometheus scraping prometheus-node-exporter
# every 2 s (its TSDB head grows until its first compaction, two hours in:
# bounded, but not within the trace), nginx in front of php-fpm workers
# under a curl loop, a node.js HTTP server with a bounded LRU cache,
# short-lived heavy jobs (ffmpeg, sqlite bulk loads, git clone and gc,
# zstd, NumPy batch jobs), and planted leaks of other kinds and rates than
# record.sh's, each flat for minutes first: node.js 16 KiB/s, POSIX shm 32
# KiB/s, a JVM far from its -Xmx 64 KiB/s, perl 3 KiB/s, C++ 2 KiB/s under
# 256 MiB spikes, and C 128 KiB/s that stops after 8 minutes.
#
# Everything runs inside a fresh pid namespace with its own /proc, as in
# record.sh; the cleanup stops every daemon it started (MariaDB cleanly)
# and removes the shm leak's file.
#
# Needs (Debian 12): gcc g++ clang make autoconf automake libtool and
# memz's build dependencies, golang-go, cargo and rustc, nodejs,
# openjdk-17-jdk-headless, perl, python3-numpy, mariadb-server sysbench,
# prometheus prometheus-node-exporter, nginx-light php-fpm curl, ffmpeg,
# sqlite3, git, zstd, xz-utils, googletest (/usr/src/googletest).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
jdk=/usr/lib/jvm/java-17-openjdk-amd64

if [ "${1:-}" != --inside ]; then
	[ "$(id -u)" = 0 ] || { echo "record-mix.sh: run as root" >&2; exit 1; }
	[ $# -ge 2 ] || { sed -n 2,17p "$0" >&2; exit 1; }
	build=$(cd "$1" && pwd) || exit 1
	mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 1
	scale=${3:-1}
	[ -x "$build/memz" ] || { echo "no $build/memz" >&2; exit 1; }
	[ -d /usr/src/googletest ] || { echo "no /usr/src/googletest" >&2; exit 1; }
	work=$(mktemp -d /tmp/busy-mix.XXXXXX) || exit 1
	trap 'rm -rf "$work"' EXIT
	chmod 755 "$work"
	set -e
	# what the workloads run, made before the clock starts
	gcc -O2 -std=c11 -pthread -o "$work/planted" "$here/planted.c"
	g++ -O2 -std=c++17 -o "$work/spiky" "$here/spiky.cpp"
	"$jdk/bin/javac" -d "$work" "$here/Leak.java"
	mkdir "$work/bin"
	for n in leak-shm32 leak-anon128s; do ln -s ../planted "$work/bin/$n"; done
	ln -s ../spiky "$work/bin/leak-cxx2"
	for n in leak-node16 ctl-lru lru-client; do ln -s "$(command -v node)" "$work/bin/$n"; done
	ln -s "$jdk/bin/java" "$work/bin/leak-java64"
	ln -s /usr/bin/perl "$work/bin/leak-perl3"
	for n in ctl-np-once ctl-np-batch; do ln -s /usr/bin/python3 "$work/bin/$n"; done
	# the build loop's sources: memz (C, for clang), googletest (C++),
	# a generated Rust crate with no dependencies (cargo runs offline)
	mkdir "$work/memz-src"
	git -C "$src" archive HEAD | tar -x -C "$work/memz-src"
	(cd "$work/memz-src" && autoreconf -fi >/dev/null 2>&1)
	cp -r /usr/src/googletest "$work/gtest"
	mkdir -p "$work/crate/src"
	printf '[package]\nname = "mixcrate"\nversion = "0.1.0"\nedition = "2021"\n\n[profile.release]\ncodegen-units = 2\n' \
		>"$work/crate/Cargo.toml"
	{
		echo "use std::collections::{BTreeMap, HashMap};"
		for i in $(seq 1 120); do
			cat <<-EOF
			pub fn f$i<T: Clone + std::fmt::Debug + Ord>(v: &[T]) -> BTreeMap<String, Vec<T>> {
			    let mut m: BTreeMap<String, Vec<T>> = BTreeMap::new();
			    let mut h: HashMap<usize, T> = HashMap::new();
			    for (k, x) in v.iter().enumerate() {
			        h.insert(k * $i, x.clone());
			        m.entry(format!("{:?}-{}", x, k % $((i % 7 + 2)))).or_default().push(x.clone());
			    }
			    for x in m.values_mut() { x.sort(); x.dedup(); }
			    m
			}
			EOF
		done
		echo "fn main() {"
		for i in $(seq 1 120); do
			echo "    println!(\"{}\", f$i(&[1u64, 2, 3]).len() + f$i(&[\"a\", \"b\"]).len() + f$i(&[(1i32, 'c')]).len());"
		done
		echo "}"
	} >"$work/crate/src/main.rs"
	# a git repository to clone and gc: Go's source tree, one commit
	mkdir "$work/gorepo"
	cp -r "$(go env GOROOT)/src" "$work/gorepo/src"
	git -C "$work/gorepo" init -q
	git -C "$work/gorepo" add -A
	git -C "$work/gorepo" -c user.name=mix -c user.email=mix@localhost \
		commit -q -m "go source"
	set +e
	# the namespace runs a copy, so editing these files meanwhile cannot
	# change a recording under way
	mkdir "$work/busy-host"
	cp "$here"/* "$work/busy-host/" 2>/dev/null
	unshare --pid --fork --kill-child --mount-proc bash \
		"$work/busy-host/record-mix.sh" --inside "$work" "$build" "$out" "$scale"
	rc=$?
	rm -f /dev/shm/memz-planted-*
	exit $rc
fi

work=$2 build=$3 out=$4 scale=$5
here=$work/busy-host
dur=$(awk -v s="$scale" 'BEGIN { printf "%d", 2460 * s }')
events=$out/events.log
logs=$out/logs
mkdir -p "$logs"
: >"$events"
export PLANTED_EVENTS=$events
PATH=$work/bin:$PATH

. "$here/schedule.sh"

maria=$work/maria
daemons=
cleanup() {
	local p
	trap - EXIT INT TERM
	if [ -f "$maria/pid" ]; then
		p=$(cat "$maria/pid")
		kill "$p" 2>/dev/null
		for _ in $(seq 1 60); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.5
		done
	fi
	for p in $daemons; do kill "$p" 2>/dev/null; done
	kill $(jobs -p) 2>/dev/null
	wait
	rm -f /dev/shm/memz-planted-*
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$build/memz" record --interval 1 --duration "$dur" \
	--out "$out/busy-host.csv" 2>"$logs/memz.err" &
recorder=$!
ev "$recorder" memz record "interval 1 s, $dur s"

# spawn LOG PROGRAM ARGS...: PROGRAM in the background through planted's
# posix_spawn (planted.c says why), its pid in $spawned and in $daemons
spawn() {
	local log=$1
	shift
	spawned=$("$work/planted" spawn "$logs/$log" "$@")
	daemons="$daemons $spawned"
}
plant() { spawn planted.log "$@"; }

# --- the build host: Go's standard library and commands (-a: Debian's
# Go ships std built), a Rust crate, googletest with clang++, memz with
# clang, in a loop
build_loop() {
	local f
	while :; do
		rm -rf "$work/gocache"
		GOCACHE=$work/gocache GOPROXY=off \
			go build -a std cmd >/dev/null 2>&1
		(cd "$work/crate" && cargo build --release --offline -q >/dev/null 2>&1 &&
		 cargo clean >/dev/null 2>&1)
		(cd "$work/gtest" && rm -rf o && mkdir o &&
		 for f in googletest/src/gtest-all.cc googlemock/src/gmock-all.cc \
			  googletest/samples/sample*_unittest.cc \
			  googlemock/test/gmock-matchers*_test.cc \
			  googlemock/test/gmock-actions_test.cc; do
			[ -f "$f" ] && echo "$f"
		 done | xargs -P 2 -I{} sh -c 'clang++ -O2 -g -std=c++17 \
			-Igoogletest/include -Igoogletest -Igooglemock/include \
			-Igooglemock -c -o o/$(basename {}).o {}' >/dev/null 2>&1)
		(cd "$work/memz-src" &&
		 ./configure -q CC=clang CFLAGS="-O2 -g" >/dev/null 2>&1 &&
		 make -j2 >/dev/null 2>&1
		 make distclean >/dev/null 2>&1)
		ev $BASHPID build-loop round
	done
}
at 10
build_loop >>"$logs/build.log" 2>&1 &

# --- prometheus scraping node-exporter and itself every 2 s
at 20
mkdir -p "$work/prom"
nep=$(freeport)
spawn node-exporter.log prometheus-node-exporter --web.listen-address="127.0.0.1:$nep"
ev "$spawned" prometheus-node start "port $nep"
pp=$(freeport)
cat >"$work/prom/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$nep']
  - job_name: prometheus
    static_configs:
      - targets: ['127.0.0.1:$pp']
EOF
spawn prometheus.log prometheus --config.file="$work/prom/prometheus.yml" \
	--storage.tsdb.path="$work/prom/data" --web.listen-address="127.0.0.1:$pp"
ev "$spawned" prometheus start "scrape 2 s, port $pp"

# --- slow planted leaks, each flat for minutes first
at 30
plant leak-cxx2 "$(sc 300)" 2 256 90 5

# --- nginx in front of three php-fpm workers (each replaced after 2000
# requests), under a curl loop
at 40
ng=$work/nginx
mkdir -p "$ng/www" "$ng/tmp" "$ng/logs"
cat >"$ng/www/app.php" <<'EOF'
<?php
$n = isset($_GET['n']) ? (int)$_GET['n'] : 1000;
$rows = [];
for ($i = 0; $i < $n; $i++)
	$rows[] = ['id' => $i, 'name' => str_repeat(chr(97 + $i % 26), 40), 'v' => mt_rand()];
usort($rows, fn($a, $b) => $a['v'] <=> $b['v']);
echo strlen(json_encode($rows)), "\n";
EOF
head -c 200000 /dev/urandom | base64 >"$ng/www/static.txt"
cat >"$ng/fpm.conf" <<EOF
[global]
pid = $ng/fpm.pid
error_log = $ng/logs/fpm.log
[www]
user = www-data
group = www-data
listen = $ng/php.sock
listen.mode = 0666
pm = static
pm.max_children = 3
pm.max_requests = 2000
EOF
ngp=$(freeport)
cat >"$ng/nginx.conf" <<EOF
worker_processes 2;
pid $ng/nginx.pid;
error_log $ng/logs/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $ng/tmp/body;
	proxy_temp_path $ng/tmp/proxy;
	fastcgi_temp_path $ng/tmp/fastcgi;
	uwsgi_temp_path $ng/tmp/uwsgi;
	scgi_temp_path $ng/tmp/scgi;
	server {
		listen 127.0.0.1:$ngp;
		root $ng/www;
		location ~ \.php\$ {
			include /etc/nginx/fastcgi_params;
			fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
			fastcgi_pass unix:$ng/php.sock;
		}
	}
}
EOF
spawn php-fpm.log php-fpm8.2 -F -y "$ng/fpm.conf"
ev "$spawned" php-fpm8.2 start "3 static workers, max_requests 2000"
spawn nginx.log nginx -p "$ng/" -c "$ng/nginx.conf" -g 'daemon off;'
ev "$spawned" nginx start "port $ngp"
web_loop() {
	while :; do
		curl -s -o /dev/null "http://127.0.0.1:$ngp/app.php?n=$((RANDOM % 5000 + 500))"
		curl -s -o /dev/null "http://127.0.0.1:$ngp/static.txt"
		sleep 0.1
	done
}
web_loop >>"$logs/web.log" 2>&1 &

# --- MariaDB with a 512 MiB buffer pool; sysbench loads 8 tables (more
# than the pool holds, so the load fills it), then read-only clients with
# uniform keys run over it; a poll of its status every 5 s logs when the
# pool is full (free pages under 8%, where the LRU flusher keeps its
# reserve)
at 60
maria_run() {
	local p free total
	mkdir -p "$maria"
	chown mysql: "$maria"
	mariadb-install-db --no-defaults --user=mysql --datadir="$maria/data" \
		>/dev/null 2>&1 || return
	"$work/planted" spawn "$logs/mariadb.log" mariadbd --no-defaults \
		--user=mysql --datadir="$maria/data" --socket="$maria/sock" \
		--skip-networking --pid-file="$maria/mariadbd.pid" \
		--innodb-buffer-pool-size=512M >"$maria/pid"
	p=$(cat "$maria/pid")
	ev "$p" mariadbd start "innodb_buffer_pool_size 512M"
	for _ in $(seq 1 120); do
		mariadb -S "$maria/sock" -e 'select 1' >/dev/null 2>&1 && break
		sleep 1
	done
	(
		while kill -0 "$p" 2>/dev/null; do
			set -- $(mariadb -S "$maria/sock" -N -e "show global status where
				Variable_name in ('Innodb_buffer_pool_pages_free',
				'Innodb_buffer_pool_pages_total')" 2>/dev/null |
				sort | awk '{ print $2 }')
			if [ $# = 2 ] && [ $(($1 * 100)) -lt $(($2 * 8)) ]; then
				ev "$p" mariadbd stop "buffer pool full ($1 of $2 pages free)"
				break
			fi
			sleep 5
		done
	) &
	mariadb -S "$maria/sock" -e 'create database sbtest' || return
	sysbench oltp_read_only --db-driver=mysql --mysql-socket="$maria/sock" \
		--mysql-user=root --mysql-db=sbtest --tables=8 --table-size=300000 \
		--threads=2 prepare >/dev/null || return
	ev "$p" mariadbd loaded "8 tables of 300000 rows"
	sysbench oltp_read_only --db-driver=mysql --mysql-socket="$maria/sock" \
		--mysql-user=root --mysql-db=sbtest --tables=8 --table-size=300000 \
		--threads=2 --rate=100 --rand-type=uniform --time="$(sc 2200)" run >/dev/null
	ev "$p" sysbench stop
	wait
}
maria_run >>"$logs/mariadb-run.log" 2>&1 &

at 90
plant leak-perl3 "$here/leak.pl" "$(sc 360)" 3
at 120
plant leak-node16 "$here/node.js" leak "$(sc 420)" 16

# --- a node.js HTTP server with an LRU cache of 16384 values of 4 KiB,
# asked for 100000 keys at 60 requests a second: it fills, then stays
at 150
spawn lru.log ctl-lru "$here/node.js" lru "$work/lru-port" 16384
spawn lru.log lru-client "$here/node.js" client "$work/lru-port" 100000 60

# --- batch work: NumPy jobs that grow and exit, and real short jobs
batch_loop() {
	local n=0 p
	while :; do
		n=$((n + 1))
		p=$("$work/planted" spawn "$logs/batch.log" ctl-np-batch \
			"$here/np.py" batch $((512 + n % 4 * 512)) $((15 + n % 4 * 15)))
		while kill -0 "$p" 2>/dev/null; do sleep 1; done
		sleep "$(sc 90)"
	done
}
jobs_loop() {
	local j=$work/jobs
	while :; do
		sleep "$(sc 200)"
		mkdir -p "$j"
		ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=1280x720:rate=25 \
			-t 20 -c:v libx264 -preset veryfast -y "$j/a.mp4"
		ffmpeg -nostdin -v error -i "$j/a.mp4" -vf scale=640:-2 \
			-c:v mpeg4 -q:v 5 -y "$j/b.mp4"
		sqlite3 "$j/db.sqlite" "create table t (k integer, v text);
			with recursive c(x) as (select 1 union all select x + 1 from c limit 1500000)
			insert into t select x, hex(randomblob(24)) from c;
			create index tv on t (v);
			select count(*) from t where v like 'AB%';"
		git clone -q --no-local "$work/gorepo" "$j/clone" &&
			git -C "$j/clone" gc -q --prune=now
		tar -C "$j/clone" -cf - src | zstd -q -12 -T1 >"$j/src.tar.zst"
		rm -rf "$j"
	done
}
at 200
batch_loop &
jobs_loop >>"$logs/jobs.log" 2>&1 &

at 240
plant leak-shm32 shm "$(sc 360)" 32
at 300
spawn java.log leak-java64 -Xms64m -Xmx2g -cp "$work" Leak "$(sc 480)" 64
at 360
plant leak-anon128s leak "$(sc 540)" 128 "$(sc 480)"

# --- a NumPy job that allocates 2 GiB at its start, computes on it for
# 10 minutes and exits
at 700
spawn np.log ctl-np-once "$here/np.py" once 2048 "$(sc 600)"

wait "$recorder"
ev "$recorder" memz exit "status $?"
