#!/bin/sh
# memz replay over the traces in tests/traces: output byte for byte as
# expected, and malformed traces rejected with FILE:LINE: reason, exit 2;
# memz record over fixture /proc trees writes version 5.
set -u
memz="${top_builddir:-.}/memz"
traces="${top_srcdir:-.}/tests/traces"
[ -x "$memz" ] || { echo "no $memz: skipped"; exit 77; }
fixtures=$(cd "${top_srcdir:-.}/tests/fixtures" && pwd) || exit 1
cd "$traces" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME ARGS...: stdout must equal NAME.expected, exit 0, no stderr
expect() {
	name=$1; shift
	"$memz" replay "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ] ||
	   ! cmp -s "$tmp/out" "$name.expected"; then
		echo "FAIL: memz replay $* (exit $rc)"
		cat "$tmp/err"
		diff "$name.expected" "$tmp/out"
		fail=1
	fi
}

# reject FILE MESSAGE [ARGS...]: exit 2, nothing on stdout, MESSAGE on stderr
reject() {
	file=$1 msg=$2; shift 2
	"$memz" replay "$@" "$file" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ] || [ -s "$tmp/out" ] ||
	   [ "$(cat "$tmp/err")" != "$msg" ]; then
		echo "FAIL: memz replay $* $file: exit $rc, stderr:"
		cat "$tmp/err"
		echo "expected: $msg"
		fail=1
	fi
}

expect leak leak.csv
expect flat flat.csv
expect pidreuse pidreuse.csv
expect group group.csv
expect group-by-name --group=name group.csv
expect group-minrate --group name --set LeakMinRate=100000 group.csv
expect leak-minrate --set LeakMinRate=100000 leak.csv
# version 2: a mapped file read through (PSS up, Anonymous flat) is not a
# leak; the leak that starts after 120 s flat is flagged 6 samples in
expect v2 v2.csv
# recorded from live programs (tests/shapes.c, tests/record-traces.sh;
# version 1, as memz recorded before version 2) at 1 s, and every tenth
# cycle of them for collectd's 10 s:
#   late:    flat 90 s, then 256 KiB/s: flagged 5 samples after it starts
#            (1 s) and 5 (10 s)
#   stairs:  4 MiB every 30 s: flagged at 240 s (1 s) and 181 s (10 s)
#   churn:   1 MiB every 64 s under +-1.5 MiB of allocator churn, in a
#            fresh process: at 1 s its first climb is flagged (90 s) and
#            clears when the climb ends (107 s), and the leak beneath is
#            flagged by the long horizon (360 s); at 10 s one verdict
#            (401 s) that holds while it leaks
#   filemap: a 1 GiB file mapped and read at 4 MiB/s: never flagged
#   fork:    8 forks sharing 100 MiB, one exits every 15 s: never flagged,
#            per process or as a group (flat.expected: no events)
every10() {
	awk -F, 'NR <= 2 { print; next }
		 $1 != last { c++; last = $1 }
		 (c - 1) % 10 == 0' "$1"
}
for s in late stairs churn filemap fork; do
	expect live-$s live-$s.csv
	every10 live-$s.csv >"$tmp/live-$s-10s.csv"
	expect live-$s-10s "$tmp/live-$s-10s.csv"
done
# Redis filling to its maxmemory, recorded (tests/traces/real-redis.labels),
# at collectd's 10 s: once it sits dead flat at its cap the verdict clears
# in three samples, the last bump of 330 kB (a third of its noise)
# included (1090.8 s, 26 s after the stop; 1100.8 s while a band had to be
# within 0.15 of the noise; the expected line's slack, a stair's after the
# flat start, took seven: 1140.8 s)
if command -v xz >/dev/null; then
	xz -dc real-redis.csv.xz >"$tmp/real-redis.csv" &&
		every10 "$tmp/real-redis.csv" >"$tmp/real-redis-10s.csv" &&
		expect real-redis-10s "$tmp/real-redis-10s.csv"
fi
# busy-host2's JVM growing its heap to -Xmx in steps, at 10 s, cut at
# 1402 s: its climb is so noisy its floor holds it, and it sat within 8 kB
# from 1181 s (stop 1175 s). It clears at the third still sample, 1201 s
# (five took it to 1221 s), and is not raised again at 1211 s by a window
# that still fits the climb as a line (it was, between the two)
if command -v xz >/dev/null; then
	xz -dc busy-host2.csv.xz | awk -F, 'NR <= 2 || ($2 == 20449 && $1 < 1402)' \
		>"$tmp/busy-java.csv" &&
		every10 "$tmp/busy-java.csv" >"$tmp/busy-java-10s.csv" &&
		expect busy-java-10s "$tmp/busy-java-10s.csv"
fi
expect flat --group=name live-fork.csv
expect flat --group=name "$tmp/live-fork-10s.csv"
# the same trace and settings give the same bytes, also from stdin
expect leak - <leak.csv

reject bad-backwards.csv "bad-backwards.csv:4: t goes backwards (0.500 after 1.000)"
reject bad-fields.csv "bad-fields.csv:4: 7 fields, expected 8"
reject bad-header.csv "bad-header.csv:1: bad header (expected t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb,pss_anon_kb,pss_file_kb,pss_shmem_kb,age_s,pss_error_kb,vm_kb, or version 4: t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb,pss_anon_kb,pss_file_kb,pss_shmem_kb,age_s,pss_error_kb, or version 3: t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb,pss_anon_kb,pss_file_kb,pss_shmem_kb,age_s, or version 2: t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb,pss_anon_kb,pss_file_kb,pss_shmem_kb, or version 1: t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb)"
# a t of 1e300: refused where it is read, before the detector sees it
reject bad-time.csv "bad-time.csv:4: t \"1$(printf '%0300d' 0)\" is beyond 1000000000000 s"
reject bad-number.csv "bad-number.csv:3: pss_kb \"12MB\" is not a size in KiB (digits, or empty)"
reject bad-quote.csv "bad-quote.csv:2: unexpected byte after closing quote of field 4"
reject leak.csv "memz replay: a trace has no exe, cgroup or user column; it can only be grouped by name" --group=exe
reject leak.csv "memz: LeakMinR2: \"2\" is out of range (a number from 0 to 1)" --set LeakMinR2=2
reject missing.csv "memz replay: missing.csv: No such file or directory"

# memz record writes version 5 from a fixture /proc: the PSS split where
# the kernel gives it, empty where it does not (no-pss-anon), each
# process's age from its start time and the boot clock (tree1's uptime is
# 100.00 s; none where uptime is missing), and what it wrote replays
record() {
	"$memz" record --interval 0.2 --duration 0.2 \
		--set "ProcRoot=$fixtures/$1/proc" --set "SysRoot=$fixtures/$1/sys" \
		>"$tmp/rec.csv" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ] ||
	   [ "$(sed -n 2p "$tmp/rec.csv")" != "t,pid,start,name,pss_kb,rss_kb,anon_kb,swap_kb,pss_anon_kb,pss_file_kb,pss_shmem_kb,age_s,pss_error_kb,vm_kb" ]; then
		echo "FAIL: memz record on $1 (exit $rc)"
		cat "$tmp/err" "$tmp/rec.csv"
		fail=1
	fi
	# without t, which is wall-clock time, and the age, which moves
	# with it after the first cycle: each process once, and the first
	# cycle's ages
	tail -n +3 "$tmp/rec.csv" | cut -d, -f2-11 | sort -u >"$tmp/rows"
	awk -F, 'NR > 2 && $1 == "0.000" { print $2 "," $12 "," $13 }' "$tmp/rec.csv" |
		sort -n >>"$tmp/rows"
	if [ "$(cat "$tmp/rows")" != "$2" ]; then
		echo "FAIL: memz record on $1 wrote:"
		cat "$tmp/rows"
		fail=1
	fi
	if ! "$memz" replay "$tmp/rec.csv" >"$tmp/out" 2>"$tmp/err" ||
	   [ -s "$tmp/out" ] || [ -s "$tmp/err" ]; then
		echo "FAIL: memz replay of what memz record wrote on $1"
		cat "$tmp/err"
		fail=1
	fi
}
record tree1 "1,5,init,5632,7168,4096,0,4096,1536,0
100,700,sshd,3072,4608,2048,0,2048,1024,0
200,5100,worker,11520,13568,10240,0,10240,768,512
201,5200,worker,21760,23808,20480,0,20480,768,512
300,9000,bash,1408,2176,1024,0,1024,384,0
1,99.95,
100,93.00,
200,49.00,
201,48.00,
300,10.00,"
record no-pss-anon "1,5,init,5632,7168,4096,0,,,
60,400,app,4000,5000,3000,0,,,
1,,
60,,"

exit $fail
