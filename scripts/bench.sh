#!/bin/sh
# bench.sh - `make bench`: CPU per second of every reader of process memory,
# side by side on the same processes, in one run. Not a test: it prints a
# table. Readers run concurrently and each is measured from the outside by
# the CPU time of its threads (/proc/PID/task/*/schedstat, ns) over a window.
#
# Phases: N idle processes of MIB MiB; the same while FORKS short-lived
# processes a second start and exit (fork churn); the same all changing
# memory every cycle; idle again plus one process of BIG MiB (4 KiB pages) and one of
# 8 MiB, both leaking 1 MiB/s from the moment the core sampler's reader
# starts them (once neither is flagged for its allocation ramp), so the
# seconds each takes to be flagged compare the large one's with the small.
# Then the core sampler over an hour of fake clock (3600 cycles), for its RSS,
# and the per-cycle ratio bench of the core issue (tests/bench_sampler),
# whose per-process cost at SCALE idle processes against N is the scale
# phase. Last the stall phase: the worst mmap+munmap latency inside one
# process of STALL_MIB MiB over STALL_S seconds alone, under memz.plugin,
# and under the naive reader (smaps_rollup whole, as readers without a
# size bound do).
#
# Windows are a minute by default because CpuBudget is averaged over a
# minute: a shorter window can catch the reads of a minute bunched up.
#
# Environment: BENCH_PROCS (1000), BENCH_MIB (3), BENCH_WINDOW (60 s),
# BENCH_BIG_MIB (4096), BENCH_CYCLES (20, for bench_sampler), BENCH_FORKS
# (10), BENCH_SCALE (8000), BENCH_STALL_MIB (8192; 0 skips the phase),
# BENCH_STALL_S (150). Take /tmp/memz-it.lock around it on a shared machine.
set -u
B=${top_builddir:-$(pwd)}
N=${BENCH_PROCS:-1000}
MIB=${BENCH_MIB:-3}
W=${BENCH_WINDOW:-60}
BIG=${BENCH_BIG_MIB:-4096}
FORKS=${BENCH_FORKS:-10}
SCALE=${BENCH_SCALE:-8000}
STALL_MIB=${BENCH_STALL_MIB:-8192}
STALL_S=${BENCH_STALL_S:-150}
D=$(mktemp -d /tmp/memz-bench.XXXXXX)
PIDS=""
APPS=/usr/lib/netdata/plugins.d/apps.plugin
COLLECTD=${COLLECTD_BIN:-/usr/sbin/collectd}

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { printf '%s\n' "$*" >&2; }

# CPU time of all threads of a process, in ns; empty when it is gone.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
		awk '{ s += $1 } END { if (NR) printf "%.0f\n", s }'
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' /proc/"$1"/status 2>/dev/null; }

wait_line() { # FILE TEXT SECONDS
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
}

collectd_conf() { # DIR PLUGIN-LINES
	mkdir -p "$1"
	cat >"$1/collectd.conf" <<EOC
Hostname "memzbench"
FQDNLookup false
BaseDir "$1"
PIDFile "$1/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
Interval 1
PluginDir "/usr/lib/collectd"
LoadPlugin logfile
<Plugin logfile>
  LogLevel warning
  File "$1/collectd.log"
</Plugin>
$2
EOC
}

# ---- the processes ----
say "bench: $N processes of $MIB MiB"
"$B/tests/bench/procs" -n "$N" -m "$MIB" >"$D/procs.out" &
PROCS=$!
PIDS="$PIDS $PROCS"
wait_line "$D/procs.out" ready 120 || { say "bench: processes not ready"; exit 1; }

# netdata plugins exit when their stdin closes: hold one open for each
# (their own: memz.plugin makes its stdin non-blocking, which a shared open
# file would pass on to apps.plugin, which then quits on EAGAIN)
mkfifo "$D/stdin3" "$D/stdin4"
exec 3<>"$D/stdin3" 4<>"$D/stdin4"

# ---- the readers: name=pid pairs in READERS ----
READERS=""
add() { READERS="$READERS $1=$2"; PIDS="$PIDS $2"; }

"$B/tests/bench/reader" memz -w "$D/big.pid" >"$D/memz.out" &
add memz-core $!
MEMZ_CORE=$!
if [ -f "$B/.libs/memz.so" ] && [ -x "$COLLECTD" ]; then
	mkdir -p "$D/cdm/plugins"
	cp "$B/.libs/memz.so" "$D/cdm/plugins/memz.so"
	collectd_conf "$D/cdm" "PluginDir \"$D/cdm/plugins\"
LoadPlugin memz"
	"$COLLECTD" -f -C "$D/cdm/collectd.conf" >"$D/cdm/out" 2>&1 &
	add memz.so/collectd $!
else
	say "bench: no memz.so or collectd: skipped"
fi
if [ -x "$B/memz.plugin" ]; then
	"$B/memz.plugin" 1 <&3 >/dev/null 2>"$D/memz.plugin.err" &
	add memz.plugin $!
else
	say "bench: no memz.plugin: skipped"
fi
"$B/tests/bench/reader" naive &
add naive-rollup $!
if [ -x "$COLLECTD" ]; then
	collectd_conf "$D/cdp" 'LoadPlugin processes
<Plugin processes>
  ProcessMatch "all" ".*"
</Plugin>'
	"$COLLECTD" -f -C "$D/cdp/collectd.conf" >"$D/cdp/out" 2>&1 &
	add collectd-processes $!
fi
if [ -x "$APPS" ]; then
	"$APPS" 1 <&4 >/dev/null 2>"$D/apps.err" &
	add apps.plugin $!
fi
sleep 5 # first cycles read everything once

# window PHASE [SECONDS]: CPU ms per s of each reader over W seconds (or
# SECONDS) -> $D/PHASE
window() {
	kill -USR1 "$MEMZ_CORE"
	: >"$D/$1.a"
	for r in $READERS; do echo "${r%%=*} $(cpu_ns "${r#*=}")" >>"$D/$1.a"; done
	t0=$(date +%s.%N)
	sleep "${2:-$W}"
	t1=$(date +%s.%N)
	: >"$D/$1.b"
	for r in $READERS; do echo "${r%%=*} $(cpu_ns "${r#*=}")" >>"$D/$1.b"; done
	kill -USR1 "$MEMZ_CORE"
	sleep 1.2
	tail -n 1 "$D/memz.out" >"$D/$1.memz"
	awk -v dt="$(echo "$t1 - $t0" | bc)" 'NR == FNR { a[$1] = $2; next }
		{ printf "%s %.3f\n", $1, ($2 - a[$1]) / 1e6 / dt }' \
		"$D/$1.a" "$D/$1.b" >"$D/$1"
	say "bench: $1 done"
}

window idle
"$B/tests/bench/procs" -n 0 -c "$FORKS" >/dev/null &
CHURN=$!
PIDS="$PIDS $CHURN"
window churn
kill "$CHURN"; wait "$CHURN" 2>/dev/null
kill -USR1 "$PROCS"
sleep 2
window busy
kill -USR2 "$PROCS"
sleep 2

say "bench: one process of $BIG MiB and one of 8 MiB, leaking 1 MiB/s once armed"
"$B/tests/bench/procs" -n 1 -m "$BIG" -l -H >"$D/big.out" &
BIGP=$!
"$B/tests/bench/procs" -n 1 -m 8 -l -H >"$D/small.out" &
SMALLP=$!
PIDS="$PIDS $BIGP $SMALLP"
wait_line "$D/big.out" ready 120 || { say "bench: big process not ready"; exit 1; }
wait_line "$D/small.out" ready 120 || { say "bench: small process not ready"; exit 1; }
{ pgrep -P "$BIGP"; pgrep -P "$SMALLP"; } >"$D/big.pid.tmp"
mv "$D/big.pid.tmp" "$D/big.pid"
wait_line "$D/memz.out" armed 300 || { say "bench: leakers never armed"; exit 1; }
# long enough for the detector to flag a 1 MiB/s leak
WL=$W
[ "$WL" -ge 40 ] || WL=40
window large "$WL"

RSS_LINE=""
for r in $READERS; do
	[ -d /proc/"${r#*=}" ] || say "bench: ${r%%=*} exited early; see $D"
done
for r in $READERS; do RSS_LINE="$RSS_LINE ${r%%=*}=$(rss_kb "${r#*=}")kB"; done

kill "$BIGP" "$SMALLP"; wait "$BIGP" "$SMALLP" 2>/dev/null
"$B/tests/bench/reader" hour -c 3600 >"$D/hour.out"

# ---- the table ----
printf '\n%s idle processes of %s MiB, windows of %s s (the large one %s s), CPU ms per s of each reader (ratio to the naive reader)\n\n' "$N" "$MIB" "$W" "$WL"
printf '%-20s %16s %16s %16s %22s\n' reader idle "${FORKS} forks/s" "all changing" "+1 ${BIG}MiB leaking"
for r in $READERS; do
	n=${r%%=*}
	awk -v n="$n" -v f1="$D/idle" -v f2="$D/busy" -v f3="$D/large" -v f4="$D/churn" 'BEGIN {
		while ((getline l < f1) > 0) { split(l, x, " "); i[x[1]] = x[2] }
		while ((getline l < f2) > 0) { split(l, x, " "); b[x[1]] = x[2] }
		while ((getline l < f3) > 0) { split(l, x, " "); g[x[1]] = x[2] }
		while ((getline l < f4) > 0) { split(l, x, " "); c[x[1]] = x[2] }
		nv = "naive-rollup"
		printf "%-20s %8.2f (%5.2fx) %8.2f (%5.2fx) %8.2f (%5.2fx) %14.2f (%5.2fx)\n", n,
			i[n], i[nv] ? i[n] / i[nv] : 0, c[n], c[nv] ? c[n] / c[nv] : 0,
			b[n], b[nv] ? b[n] / b[nv] : 0,
			g[n], g[nv] ? g[n] / g[nv] : 0 }'
done
# memz against the other readers of process memory, same windows
printf '\nratios (memz / other, same window; goal at %s forks/s: memz.plugin <= 0.1x collectd-processes)\n' "$FORKS"
for p in idle churn busy; do
	awk -v p="$p" '{ v[$1] = $2 } END {
		for (m = 1; m <= 2; m++) {
			mn = m == 1 ? "memz.plugin" : "memz.so/collectd"
			if (!(mn in v)) continue
			line = sprintf("%-6s %-17s", p, mn)
			split("collectd-processes apps.plugin", o, " ")
			for (k = 1; k <= 2; k++)
				if (o[k] in v && v[o[k]] > 0)
					line = line sprintf("  / %s %.3fx", o[k], v[mn] / v[o[k]])
			print line
		} }' "$D/$p"
done
printf '\ngoals: memz idle <= 5 ms/s; all changing <= 1.15x naive; exact reads <= 10 ms/s (1%% of a core, averaged over a minute)\n'
for p in idle churn busy large; do
	printf 'memz-core %-5s %s\n' "$p" "$(cut -d' ' -f2- "$D/$p.memz")"
done
printf '(large: watched 0 is the %s MiB process, watched 1 the 8 MiB one; flagged_after_leak_start_s is the detector latency)\n' "$BIG"
printf 'RSS after the run:%s\n' "$RSS_LINE"
printf 'memz-core, fake-clock %s\n' "$(cat "$D/hour.out")"
printf '(memz.so and memz.plugin run their own pace policy: eco mode samples every 2 s)\n\n'

cleanup
PIDS=""
D=$(mktemp -d /tmp/memz-bench.XXXXXX)
say "bench: per-cycle ratio (tests/bench_sampler, own processes)"
"$B/tests/bench_sampler" -n "$N" -c "${BENCH_CYCLES:-20}" -f "$FORKS"

# ---- scale: per-process cost at N and at SCALE idle processes ----
if [ "$SCALE" -gt 0 ]; then
	say "bench: scale, $N and $SCALE processes (no memory touched)"
	"$B/tests/bench_sampler" -n "$N" -m 0 -c "${BENCH_CYCLES:-20}" >"$D/scale1" 2>&1
	"$B/tests/bench_sampler" -n "$SCALE" -m 0 -c "${BENCH_CYCLES:-20}" >"$D/scale2" 2>&1
	u1=$(awk '/^idle: memz/ { sub(/\(/, "", $5); print $5 }' "$D/scale1")
	u2=$(awk '/^idle: memz/ { sub(/\(/, "", $5); print $5 }' "$D/scale2")
	printf '\nscale: idle us per process per cycle: %s at %s, %s at %s; ratio %s (goal <= 1.3)\n' \
		"$u1" "$N" "$u2" "$SCALE" "$(echo "scale=3; $u2 / $u1" | bc)"
	grep -h 'files_read' "$D/scale1" "$D/scale2" | grep '^idle'
fi

# ---- stall: worst mmap+munmap latency inside a big process ----
stall_run() { # LABEL [READER...]: the stall process, then the reader
	"$B/tests/bench/stall" -m "$STALL_MIB" -t "$STALL_S" >"$D/stall.$1" &
	sp=$!
	PIDS="$PIDS $sp"
	wait_line "$D/stall.$1" ready 300 || { say "bench: stall not ready"; return 1; }
	shift
	rp=""
	if [ $# -gt 0 ]; then
		"$@" <&3 >/dev/null 2>&1 &
		rp=$!
		PIDS="$PIDS $rp"
	fi
	wait "$sp"
	[ -n "$rp" ] && { kill "$rp"; wait "$rp" 2>/dev/null; }
	return 0
}
if [ "$STALL_MIB" -gt 0 ]; then
	mkfifo "$D/stdin5" 2>/dev/null
	exec 3<>"$D/stdin5"
	say "bench: stall, one process of $STALL_MIB MiB for $STALL_S s: alone, under memz.plugin, under the naive reader"
	stall_run alone
	[ -x "$B/memz.plugin" ] && stall_run memz "$B/memz.plugin" 1
	stall_run naive "$B/tests/bench/reader" naive
	printf '\nstall: worst mmap+munmap of 64 KiB every ms inside a %s MiB process over %s s (goal under memz <= 10 ms)\n' "$STALL_MIB" "$STALL_S"
	for l in alone memz naive; do
		[ -f "$D/stall.$l" ] && printf '%-8s %s\n' "$l" "$(tail -n 1 "$D/stall.$l")"
	done
fi
cleanup
trap - EXIT
