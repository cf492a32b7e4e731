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
# and the per-cycle ratio bench of the core issue (tests/bench_sampler). The
# scale phase: memz.plugin and the core reader, measured from the outside,
# at N and at SCALE idle processes of SCALE_KIB KiB each (the same small
# size at both points, so that 8,000 fit in RAM), CPU per process per second,
# and bench_sampler's per-cycle figure at both. Last the stall phase: the worst mmap+munmap latency inside one
# process of STALL_MIB MiB over STALL_S seconds alone, under memz.plugin,
# and under the naive reader (smaps_rollup whole, as readers without a
# size bound do).
#
# Windows are a minute by default because CpuBudget is averaged over a
# minute: a shorter window can catch the reads of a minute bunched up.
#
# Environment: BENCH_PROCS (1000), BENCH_MIB (3), BENCH_WINDOW (60 s),
# BENCH_BIG_MIB (4096), BENCH_CYCLES (20, for bench_sampler), BENCH_FORKS
# (10), BENCH_SCALE (8000; 0 skips the phase), BENCH_SCALE_KIB (512),
# BENCH_SCALE_WARM (60 s before each scale window),
# BENCH_STALL_MIB (8192; 0 skips the phase), BENCH_STALL_S (150),
# BENCH_STALL_FILE_MIB (0: the stall process's memory is its own; else that
# much shared memory mapped over and over, for a process larger than RAM),
# BENCH_BUILD_S (120; 0 skips the build phase: memz.plugin against
# apps.plugin while memz itself is built in a loop with make -j2, the goal
# memz.plugin <= 0.5x apps.plugin; BENCH_PHASES=build runs it alone).
# BENCH_QUICK=1 changes the defaults to short windows (10 s, stall 20 s of
# 2 GiB, scale 2,000) to try the whole bench in a few minutes; its figures
# are not the README's. The table is also written as markdown to BENCH_MD
# (bench.md), and with BENCH_README=FILE spliced into FILE between its
# bench:begin and bench:end markers. BENCH_PHASES=memory runs memz's own
# memory alone (see there). Take /tmp/memz-it.lock around it on a shared
# machine.
set -u
if [ -n "${BENCH_QUICK:-}" ]; then
	: "${BENCH_WINDOW:=10}" "${BENCH_STALL_S:=20}" "${BENCH_STALL_MIB:=2048}"
	: "${BENCH_SCALE:=2000}" "${BENCH_BIG_MIB:=1024}" "${BENCH_CYCLES:=8}"
	: "${BENCH_SCALE_WARM:=15}"
fi
B=${top_builddir:-$(pwd)}
N=${BENCH_PROCS:-1000}
MIB=${BENCH_MIB:-3}
W=${BENCH_WINDOW:-60}
BIG=${BENCH_BIG_MIB:-4096}
FORKS=${BENCH_FORKS:-10}
SCALE=${BENCH_SCALE:-8000}
STALL_MIB=${BENCH_STALL_MIB:-8192}
STALL_S=${BENCH_STALL_S:-150}
BUILD_S=${BENCH_BUILD_S:-120}
SCALE_KIB=${BENCH_SCALE_KIB:-512}
SCALE_WARM=${BENCH_SCALE_WARM:-60}
MD=${BENCH_MD:-bench.md}
D=$(mktemp -d /tmp/memz-bench.XXXXXX)
R=$(mktemp -d /tmp/memz-bench-r.XXXXXX) # results, kept across phases
PIDS=""
PID_MAX0=""
APPS=/usr/lib/netdata/plugins.d/apps.plugin
COLLECTD=${COLLECTD_BIN:-/usr/sbin/collectd}

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$D"
	if [ -n "$PID_MAX0" ]; then
		echo "$PID_MAX0" >/proc/sys/kernel/pid_max
		PID_MAX0=""
	fi
}
trap 'cleanup; [ -n "${BENCH_KEEP:-}" ] || rm -rf "$R"' EXIT
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

# md_table: the figures of this run in $R as the README's markdown
md_table() {
	printf '| reader | idle | %s forks/s | all changing | + one %s MiB process leaking |\n' "$FORKS" "$BIG"
	printf '| --- | --- | --- | --- | --- |\n'
	for r in $READERS; do
		awk -v n="${r%%=*}" -v dir="$R" 'BEGIN {
			split("idle churn busy large", ph, " ")
			for (k = 1; k <= 4; k++)
				while ((getline l < (dir "/" ph[k])) > 0) {
					split(l, x, " "); v[k, x[1]] = x[2]
				}
			label["memz-core"] = "memz core sampler (one cycle a second)"
			label["memz.so/collectd"] = "memz.so in collectd"
			label["memz.plugin"] = "memz.plugin (netdata)"
			label["naive-rollup"] = "naive smaps_rollup reader"
			label["collectd-processes"] = "collectd `processes` plugin (`ProcessMatch \"all\" \".*\"`, no PSS)"
			label["apps.plugin"] = "netdata `apps.plugin` (no PSS)"
			line = "| " label[n]
			for (k = 1; k <= 4; k++) {
				c = v[k, "collectd-processes"]
				a = v[k, "apps.plugin"]
				cell = sprintf("%.2f ms/s", v[k, n])
				if (n ~ /^memz/ && c > 0 && a > 0)
					cell = cell sprintf(" (%.3fx cd, %.3fx apps)", v[k, n] / c, v[k, n] / a)
				line = line " | " cell
			}
			print line " |" }'
	done
	printf '\n(x cd, x apps: memz over collectd'"'"'s `processes` plugin and over `apps.plugin` in the same window; %s idle processes of %s MiB, windows of %s s; `make bench`.)\n' "$N" "$MIB" "$W"
	if [ -f "$R/scale.$N" ] && [ -f "$R/scale.$SCALE" ]; then
		awk -v n1="$N" -v n2="$SCALE" -v kib="$SCALE_KIB" 'FNR == 1 { p[++k] = $1; pl[k] = $2; co[k] = $3 } END {
			printf "\nScale, idle processes of %d KiB, CPU per process per second: memz.plugin %.2f us at %d processes, %.2f us at %d (%.2fx); the core reader %.2f and %.2f us (%.2fx).\n",
				kib, pl[1], p[1], pl[2], p[2], (pl[1] > 0 ? pl[2] / pl[1] : 0),
				co[1], co[2], (co[1] > 0 ? co[2] / co[1] : 0) }' "$R/scale.$N" "$R/scale.$SCALE"
	fi
	if [ -f "$R/stall.alone" ]; then
		printf '\nStall, worst mmap+munmap of 64 KiB (every ms, %s s) inside a %s MiB process: ' "$STALL_S" "$STALL_MIB"
		for l in alone memz naive; do
			[ -f "$R/stall.$l" ] || continue
			printf '%s %s; ' "$l" "$(awk '/worst_ms/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				printf "worst %s ms, p99.9 %s ms", v["worst_ms"], v["p999_ms"]
				if ("over_10ms" in v) printf ", %s over 10 ms", v["over_10ms"] }' "$R/stall.$l")"
		done
		printf '(alone: nothing reading it; memz: memz.plugin running; naive: smaps_rollup read whole every second; the worst alone is the shared machine'"'"'s own).\n'
	fi
	if [ -f "$R/build" ]; then
		awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "\nBuild host, memz built in a loop with make -j2 (%s builds in %s s): memz.plugin %.2f ms/s, apps.plugin %.2f ms/s (%.3fx apps).\n",
				v["builds"], v["seconds"], v["memz.plugin"], v["apps.plugin"], v["ratio"] }' "$R/build"
	fi
	if [ -f "$R/rss" ]; then
		awk -v n="$N" '{ for (i = 1; i <= NF; i++) if ($i ~ /^memz\.plugin=[0-9]+kB$/) {
			v = $i; sub(/^memz\.plugin=/, "", v); sub(/kB$/, "", v)
			printf "\nmemz.plugin after the windows above (real cycles beside the %s processes): %s kB VmRSS.\n", n, v } }' "$R/rss"
	fi
	if [ -f "$R/hour.out" ]; then
		printf '\nmemz'"'"'s own memory, the core sampler after a fake-clock hour (3,600 cycles):\n\n'
		printf '| processes | VmRSS | RssAnon | RssFile | PSS |\n| --- | --- | --- | --- | --- |\n'
		cat "$R/hour.out" "$R/hour.more" 2>/dev/null | awk '/VmRSS_kB/ {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "| %s | %s kB | %s kB | %s kB | %s kB |\n", v["procs"], v["VmRSS_kB"],
				v["RssAnon_kB"], v["RssFile_kB"], v["Pss_kB"] }'
	fi
	return 0
}

# memz's own memory: the core sampler over a fake-clock hour beside the N
# processes; it should grow linearly with the processes past N: the same
# hour with N and 3N more idle processes of SCALE_KIB KiB beside them
hour_phase() {
	"$B/tests/bench/reader" hour -c 3600 >"$D/hour.out"
	for more in "$N" $((N * 3)); do
		"$B/tests/bench/procs" -n "$more" -k "$SCALE_KIB" >"$D/more.out" &
		mp=$!
		PIDS="$PIDS $mp"
		if wait_line "$D/more.out" ready 300; then
			"$B/tests/bench/reader" hour -c 3600 | head -n 1 >>"$D/hour.more"
		fi
		kill "$mp"
		wait "$mp" 2>/dev/null
		rm -f "$D/more.out"
	done
}

# ---- build: memz.plugin against apps.plugin beside a parallel build ----
# A build host's processes are compilers that start, grow and exit within
# seconds; both plugins start with the build and are measured after a
# warm-up, in the same window. The build is memz itself, configured out of
# tree from the source directory, built and cleaned in a loop in a session
# of its own, so that every compiler it left is stopped with it.
build_phase() {
	src=${top_srcdir:-$B/..}
	[ -x "$B/memz.plugin" ] && [ -x "$APPS" ] && [ -x "$src/configure" ] ||
		{ say "bench: build phase needs memz.plugin, $APPS and a configured source: skipped"; return 0; }
	mkdir -p "$D/build"
	(cd "$D/build" && "$src/configure" -q >/dev/null 2>&1) ||
		{ say "bench: build phase: configure failed: skipped"; return 0; }
	say "bench: build, make -j2 of memz in a loop for $BUILD_S s: memz.plugin against apps.plugin"
	mkfifo "$D/stdin6" "$D/stdin7"
	exec 6<>"$D/stdin6" 7<>"$D/stdin7"
	setsid sh -c 'cd "$1" && while :; do make -j2 >/dev/null 2>&1; make clean >/dev/null 2>&1; echo built >>loops; done' \
		sh "$D/build" </dev/null &
	bl=$!
	"$B/memz.plugin" 1 <&6 >/dev/null 2>"$D/build.memz.err" &
	bm=$!
	"$APPS" 1 <&7 >/dev/null 2>"$D/build.apps.err" &
	ba=$!
	PIDS="$PIDS $bm $ba"
	sleep 10 # both past their first cycles, the build under way
	m0=$(cpu_ns "$bm"); a0=$(cpu_ns "$ba"); t0=$(date +%s.%N)
	sleep "$BUILD_S"
	m1=$(cpu_ns "$bm"); a1=$(cpu_ns "$ba"); t1=$(date +%s.%N)
	kill -- -"$bl" 2>/dev/null
	wait "$bl" 2>/dev/null
	kill "$bm" "$ba"
	wait "$bm" "$ba" 2>/dev/null
	exec 6>&- 7>&-
	if [ -z "$m1" ] || [ -z "$a1" ]; then
		say "bench: build phase: a plugin exited early; see $D"
		return 0
	fi
	awk -v m0="$m0" -v m1="$m1" -v a0="$a0" -v a1="$a1" -v dt="$(echo "$t1 - $t0" | bc)" \
		-v loops="$(wc -l <"$D/build/loops" 2>/dev/null || echo 0)" 'BEGIN {
		m = (m1 - m0) / 1e6 / dt; a = (a1 - a0) / 1e6 / dt
		printf "memz.plugin=%.3f apps.plugin=%.3f ratio=%.3f builds=%d seconds=%.0f\n", m, a, (a > 0 ? m / a : 0), loops, dt }' >"$R/build"
	printf '\nbuild: make -j2 of memz in a loop, CPU ms per s (goal memz.plugin <= 0.5x apps.plugin)\n%s\n' "$(cat "$R/build")"
}
if [ "${BENCH_PHASES:-all}" = build ]; then
	build_phase
	exit 0
fi

# ---- the processes ----
say "bench: $N processes of $MIB MiB"
"$B/tests/bench/procs" -n "$N" -m "$MIB" >"$D/procs.out" &
PROCS=$!
PIDS="$PIDS $PROCS"
wait_line "$D/procs.out" ready 120 || { say "bench: processes not ready"; exit 1; }

# BENCH_PHASES=memory: memz's own memory alone, in a few minutes: the
# fake-clock hours, then memz.plugin's after BENCH_PLUGIN_S (120) s of real
# cycles beside the same N processes (the plugin has no fake clock; its
# history is allocated whole when a process is first seen, so its size
# after minutes is its size after an hour)
if [ "${BENCH_PHASES:-all}" = memory ]; then
	say "bench: memory phase only"
	hour_phase
	printf 'memz-core, fake-clock %s\n' "$(cat "$D/hour.out")"
	sed 's/^/memz-core, fake-clock, more processes: /' "$D/hour.more"
	if [ -x "$B/memz.plugin" ]; then
		mkfifo "$D/stdin3"
		exec 3<>"$D/stdin3"
		"$B/memz.plugin" 1 <&3 >/dev/null 2>"$D/memz.plugin.err" &
		PP=$!
		PIDS="$PIDS $PP"
		sleep "${BENCH_PLUGIN_S:-120}"
		printf 'memz.plugin after %s s at %s processes: %s\n' "${BENCH_PLUGIN_S:-120}" \
			"$N" "$(grep -E '^(VmRSS|RssAnon|RssFile):' /proc/"$PP"/status | tr -s ' \t\n' ' ')"
	fi
	exit 0
fi

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
hour_phase

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
sed 's/^/memz-core, fake-clock, more processes: /' "$D/hour.more" 2>/dev/null
printf '(memz.so and memz.plugin run their own pace policy: eco mode samples every 2 s)\n\n'
for f in idle churn busy large idle.memz churn.memz busy.memz large.memz hour.out hour.more; do
	cp "$D/$f" "$R/" 2>/dev/null
done
echo "$RSS_LINE" >"$R/rss"

cleanup
PIDS=""
D=$(mktemp -d /tmp/memz-bench.XXXXXX)
say "bench: per-cycle ratio (tests/bench_sampler, own processes)"
"$B/tests/bench_sampler" -n "$N" -c "${BENCH_CYCLES:-20}" -f "$FORKS"

# ---- scale: per-process cost at N and at SCALE idle processes ----
# scale_point COUNT: COUNT idle processes of SCALE_KIB KiB; memz.plugin and
# the core reader, started on them, warmed up (first reads), then measured
# from the outside over W -> $D/scale.COUNT: "procs us_plugin us_core" in
# CPU microseconds per process per second, processes counting every pid of
# the machine (what memz reads), and the core's last window line.
scale_point() {
	"$B/tests/bench/procs" -n "$1" -k "$SCALE_KIB" >"$D/sp.$1" &
	spp=$!
	PIDS="$PIDS $spp"
	wait_line "$D/sp.$1" ready 600 || { say "bench: $1 processes not ready"; return 1; }
	"$B/tests/bench/reader" memz >"$D/sr.$1" &
	src=$!
	"$B/memz.plugin" 1 <&3 >/dev/null 2>"$D/sm.$1" &
	srm=$!
	PIDS="$PIDS $src $srm"
	# first reads of thousands of processes are paced by CpuBudget: at
	# 8,000 they take half a minute, and PssMaxAge (60 s) sets the steady
	# state, so a minute of warm-up, as the issue measures
	sleep "$SCALE_WARM"
	kill -USR1 "$src"
	n0=$(ls /proc | grep -c '^[0-9]')
	a1=$(cpu_ns "$src") a2=$(cpu_ns "$srm") t0=$(date +%s.%N)
	sleep "$W"
	b1=$(cpu_ns "$src") b2=$(cpu_ns "$srm") t1=$(date +%s.%N)
	n1=$(ls /proc | grep -c '^[0-9]')
	kill -USR1 "$src"
	sleep 1.2
	for q in "$src" "$srm"; do
		[ -d /proc/"$q" ] || say "bench: scale reader $q exited early; see $D"
	done
	kill "$src" "$srm" "$spp" 2>/dev/null
	wait "$src" "$srm" "$spp" 2>/dev/null
	echo "$a1 $b1 $a2 $b2 $t0 $t1 $n0 $n1" | awk '{
		dt = $6 - $5; n = ($7 + $8) / 2
		printf "%d %.3f %.3f\n", n, ($4 - $3) / 1e3 / dt / n,
			($2 - $1) / 1e3 / dt / n }' >"$D/scale.$1"
	tail -n 1 "$D/sr.$1" >>"$D/scale.$1"
}
if [ "$SCALE" -gt 0 ]; then
	# thousands of pids more than the machine runs, and the churn of the
	# others' tests besides: pid_max must leave room (restored in cleanup)
	need=$((SCALE * 2 + 8192))
	pm=$(cat /proc/sys/kernel/pid_max)
	if [ "$pm" -lt "$need" ]; then
		if echo "$need" >/proc/sys/kernel/pid_max 2>/dev/null; then
			PID_MAX0=$pm
		else
			say "bench: pid_max $pm < $need and not raised; scale may fail"
		fi
	fi
	mkfifo "$D/stdin6"
	exec 3<>"$D/stdin6"
	say "bench: scale, memz.plugin and the core at $N and $SCALE idle processes of $SCALE_KIB KiB"
	scale_point "$N"
	scale_point "$SCALE"
	say "bench: scale, per-cycle (tests/bench_sampler -i)"
	"$B/tests/bench_sampler" -i -n "$N" -k "$SCALE_KIB" -c "${BENCH_CYCLES:-20}" >"$D/scale1" 2>&1
	"$B/tests/bench_sampler" -i -n "$SCALE" -k "$SCALE_KIB" -c "${BENCH_CYCLES:-20}" >"$D/scale2" 2>&1
	printf '\nscale: CPU us per process per second, idle processes of %s KiB (goal: ratio <= 1.3)\n' "$SCALE_KIB"
	for r in plugin core; do
		f=2
		[ "$r" = core ] && f=3
		awk -v r="$r" -v f="$f" -v n1="$N" -v n2="$SCALE" 'FNR == 1 {
			v[++k] = $f; p[k] = $1 } END {
			name = r == "plugin" ? "memz.plugin" : "memz-core"
			printf "%-12s %.3f at %d processes (%d of them), %.3f at %d (%d): ratio %.3f\n",
				name, v[1], n1, p[1], v[2], n2, p[2], (v[1] > 0 ? v[2] / v[1] : 0) }' \
			"$D/scale.$N" "$D/scale.$SCALE"
	done
	for c in "$N" "$SCALE"; do
		printf 'memz-core at %s: %s\n' "$c" "$(sed -n 2p "$D/scale.$c" | cut -d' ' -f2-)"
	done
	u1=$(awk '/^idle: memz/ { sub(/\(/, "", $5); print $5 }' "$D/scale1")
	u2=$(awk '/^idle: memz/ { sub(/\(/, "", $5); print $5 }' "$D/scale2")
	printf 'bench_sampler: idle us per process per cycle: %s at %s, %s at %s; ratio %s\n' \
		"$u1" "$N" "$u2" "$SCALE" "$(echo "scale=3; $u2 / $u1" | bc)"
	grep -h 'files_read' "$D/scale1" "$D/scale2" | grep '^idle'
	cp "$D/scale.$N" "$D/scale.$SCALE" "$D/scale1" "$D/scale2" "$R/"
	cleanup
	D=$(mktemp -d /tmp/memz-bench.XXXXXX)
fi

# ---- stall: worst mmap+munmap latency inside a big process ----
stall_run() { # LABEL [READER...]: the stall process, then the reader
	"$B/tests/bench/stall" -m "$STALL_MIB" -t "$STALL_S" \
		${BENCH_STALL_FILE_MIB:+-f "$BENCH_STALL_FILE_MIB"} >"$D/stall.$1" &
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
		[ -f "$D/stall.$l" ] || continue
		printf '%-8s %s\n' "$l" "$(tail -n 1 "$D/stall.$l")"
		tail -n 1 "$D/stall.$l" >"$R/stall.$l"
	done
fi
cleanup
D=$(mktemp -d /tmp/memz-bench.XXXXXX)
PIDS=""
[ "$BUILD_S" -gt 0 ] && build_phase
cleanup

# ---- the README's table, from this run ----
md_table >"$MD"
say "bench: markdown table in $MD"
if [ -n "${BENCH_README:-}" ]; then
	awk -v md="$MD" '/<!-- bench:begin -->/ { print; while ((getline l < md) > 0) print l; skip = 1; next }
		/<!-- bench:end -->/ { skip = 0 } !skip' "$BENCH_README" >"$R/readme" &&
		cat "$R/readme" >"$BENCH_README" && say "bench: table spliced into $BENCH_README"
fi
rm -rf "$R"
trap - EXIT
