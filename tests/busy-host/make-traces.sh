#!/bin/bash
# Turns what tests/busy-host/record.sh recorded into the traces and labels
# under tests/traces that tests/test_busy_host.sh replays:
#
#   tests/busy-host/make-traces.sh RECDIR tests/traces
#
# RECDIR holds busy-host.csv and events.log (and, if there, notes: comment
# lines for busy-host.labels on what else grew). Every label comes from
# events.log, what the workloads themselves logged (pid, boot-clock time of
# their start, leak onset and stop), placed on the trace's timeline through
# the trace's own start and age_s columns; never from what a detector said.
#
# Writes busy-host.csv.xz and busy-host.labels (the whole recording), and
# real-NAME.csv.xz with real-NAME.labels for each program cut out of it
# (its rows only, over a window of its life, t starting at 0). With
# --mix, for what tests/busy-host/record-mix.sh recorded:
#
#   tests/busy-host/make-traces.sh --mix RECDIR tests/traces
#
# it writes busy-host3.csv.xz and busy-host3.labels only.
#
# A label line is a word and key=value fields:
#   leak   name= pid= start= kind= rate_kib= onset= [stop=] flag_by=
#       a planted leak: must be flagged no earlier than onset and within
#       flag_by seconds of it; with stop, must clear after it
#   growth name= pid= start= kind= stop=
#       bounded growth that stops (a cache filling): a verdict before stop
#       is tolerated, none may stand past the clear bound after it
#   quiet  name= pid= start= what=
#       a deliberate non-leak control (named for the reader: the test
#       counts a verdict on ANY process without a leak or growth label
#       as false)
# Times are trace seconds. In --group=name replays a label matches the
# group of its name, which the planted programs have to themselves.
set -eu
mix=
[ "$1" != --mix ] || { mix=1; shift; }
rec=$1 out=$2
trace=$rec/busy-host.csv events=$rec/events.log
hz=$(getconf CLK_TCK)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# boot-clock time of the trace's t = 0, from every row's start and age
b0=$(awk -F, -v hz="$hz" 'NR > 2 && $12 != "" { s += $3 / hz + $12 - $1; n++ }
	END { printf "%.3f", s / n }' "$trace")
# every process once: pid start name first_t last_t, by the name it had
# last (a workload spawned through `planted spawn` may be seen before its
# exec, under planted's name)
awk -F, 'NR > 2 { k = $2 "," $3
	if (!(k in f)) { f[k] = $1; o[++c] = k }
	n[k] = $4; l[k] = $1 }
	END { for (i = 1; i <= c; i++) { k = o[i]; split(k, a, ",")
		print a[1], a[2], n[k], f[k], l[k] } }' "$trace" >"$tmp/procs"
last_t=$(tail -n 1 "$trace" | cut -d, -f1)

# tt BOOT: trace time of a boot-clock time
tt() { awk -v b="$1" -v b0="$b0" 'BEGIN { printf "%.1f", b - b0 }'; }
# ev NAME EVENT [N]: the Nth (default 1st) line NAME logged as EVENT
ev() { awk -v n="$1" -v e="$2" '$3 == n && $4 == e' "$events" | sed -n "${3:-1}p"; }
# proc PID BOOT: "start name first last" of the process PID that logged
# an event at BOOT: the last of that pid to start before it (pids are
# reused over an hour of builds)
proc() {
	awk -v p="$1" -v b="$2" -v hz="$hz" '$1 == p && $2 / hz <= b + 0.05 &&
		(best == "" || $2 + 0 > bs) { best = $2 " " $3 " " $4 " " $5; bs = $2 + 0 }
		END { if (best != "") print best }' "$tmp/procs"
}
# label WORD NAME EVENTLINE KEY=VALUE...: a label for the process that
# logged EVENTLINE ("boot pid name event ...")
label() {
	local word=$1 name=$2 line=$3 pid boot p
	shift 3
	pid=$(echo "$line" | cut -d' ' -f2)
	boot=$(echo "$line" | cut -d' ' -f1)
	p=$(proc "$pid" "$boot")
	[ -n "$p" ] || { echo "make-traces: no rows for $name pid $pid" >&2; exit 1; }
	set -- "$@"
	if [ "$(echo "$p" | cut -d' ' -f2)" = planted ] && [ "$name" != planted ]; then
		# memz before 3593093 read a name once: one it saw between
		# the spawner's fork and its exec kept the spawner's
		echo "# $name (pid $pid) is named planted in this trace: the memz that recorded it saw it before its exec and never read its name again (fixed since)"
		name=planted
	fi
	if [ "$(echo "$p" | cut -d' ' -f2)" != "$name" ]; then
		echo "make-traces: pid $pid is named $(echo "$p" | cut -d' ' -f2) in the trace, not $name" >&2
		exit 1
	fi
	echo "$word name=$name pid=$pid start=$(echo "$p" | cut -d' ' -f1) $*"
}
# flag_by RATE_KIB: 8 s for 1 MiB/s-class leaks (issue 22 item 6); slower
# ones by the time they have lost 2,700 KiB, what 1 KiB/s loses in the
# 45 minutes issue 22 item 5 allows
flag_by() { awk -v r="$1" 'BEGIN { printf "%.0f", (r >= 256 ? 8 : 2700 / r) }'; }
# leak NAME KIND [STOPEVENT]: the label of a planted leak from its onset
leak() {
	local on rate stop=
	on=$(ev "$1" onset)
	[ -n "$on" ] || { echo "make-traces: $1 never began to leak" >&2; exit 1; }
	rate=$(echo "$on" | cut -d' ' -f5)
	[ -z "${3:-}" ] || stop=" stop=$(tt "$(ev "$1" "$3" | cut -d' ' -f1)")"
	label leak "$1" "$(ev "$1" start)" "kind=$2 rate_kib=$rate" \
		"onset=$(tt "$(echo "$on" | cut -d' ' -f1)")$stop" \
		"flag_by=$(flag_by "$rate")"
}
growth() { # NAME KIND STARTLINE
	[ -n "$(ev "$1" stop)" ] || { echo "make-traces: $1 never logged its stop" >&2; exit 1; }
	label growth "$1" "$3" "kind=$2" \
		"stop=$(tt "$(ev "$1" stop | cut -d' ' -f1)")"
}

# the labels of record-mix.sh's workloads
mix_labels() {
	echo "# busy-host3.csv.xz: labels made by tests/busy-host/make-traces.sh --mix"
	echo "# from the workloads' own event log; t = 0 is boot-clock $b0 s; trace ends at $last_t s"
	leak leak-anon128s anon stop
	leak leak-java64 jvm-list-heap-far-from-Xmx
	leak leak-shm32 posix-shm
	leak leak-node16 node-array
	leak leak-perl3 perl-hash
	leak leak-cxx2 "c++-map-under-256MiB-spikes-every-90s"
	growth mariadbd innodb-buffer-pool-fill-by-sysbench-load "$(ev mariadbd start)"
	growth ctl-lru node-lru-cache-fill "$(ev ctl-lru start)"
	took=$(awk -v a="$(ev ctl-np-once start | cut -d' ' -f1)" \
		-v b="$(ev ctl-np-once allocated | cut -d' ' -f1)" 'BEGIN { printf "%.0f", b - a }')
	label quiet ctl-np-once "$(ev ctl-np-once start)" \
		"what=numpy-2GiB-from-its-start-(took-${took}s-here)-then-flat-10-min-then-exit"
	awk '$3 == "ctl-np-batch" && $4 == "start"' "$events" |
	while read -r line; do
		label quiet ctl-np-batch "$line" what=numpy-batch-job-grows-and-exits
	done
	label quiet prometheus "$(ev prometheus start)" \
		what=tsdb-head-grows-until-its-first-compaction-2h-in
	label quiet prometheus-node "$(ev prometheus-node start)" what=node-exporter-scraped-every-2s
	label quiet php-fpm8.2 "$(ev php-fpm8.2 start)" what=php-fpm-master
	label quiet nginx "$(ev nginx start)" what=nginx-master
	# what a person found checking the recording for unplanned growth
	[ ! -f "$rec/notes" ] || cat "$rec/notes"
}
if [ -n "$mix" ]; then
	mix_labels >"$tmp/busy-host3.labels"
	cp "$tmp/busy-host3.labels" "$out/busy-host3.labels"
	xz -9 -c "$trace" >"$out/busy-host3.csv.xz"
	exit 0
fi

{
	echo "# busy-host.csv.xz: labels made by tests/busy-host/make-traces.sh from"
	echo "# the workloads' own event log; t = 0 is boot-clock $b0 s; trace ends at $last_t s"
	leak leak-anon256 anon stop
	leak leak-anon8 anon
	leak leak-anon1 anon
	leak leak-spiky8 "anon-under-48MiB-spikes-every-30s"
	leak leak-spiky1 "anon-under-48MiB-spikes-every-30s"
	leak leak-memfd64 memfd
	leak leak-py16 python-dict
	# the pool's leaking worker logged its onset; its pid is the group's
	on=$(ev pool-worker onset)
	label leak pool-worker "$(awk -v p="$(echo "$on" | cut -d' ' -f2)" \
		'$2 == p && $4 == "worker"' "$events")" \
		"kind=anon-one-of-4-workers rate_kib=$(echo "$on" | cut -d' ' -f5)" \
		"onset=$(tt "$(echo "$on" | cut -d' ' -f1)")" \
		"flag_by=$(flag_by "$(echo "$on" | cut -d' ' -f5)")"
	label growth redis-server "$(ev redis-server start)" kind=fill-to-maxmemory \
		"stop=$(tt "$(ev redis-server stop | cut -d' ' -f1)")"
	growth ctl-cache cache-fill "$(ev ctl-cache start)"
	growth ctl-arena glibc-arena-climb "$(ev ctl-arena start)"
	awk '$3 == "pool-worker" && $4 == "worker" && !/leaker/' "$events" |
	while read -r line; do
		label quiet pool-worker "$line" what=flat-worker-of-the-leaking-pool
	done
	took=$(awk -v a="$(ev ctl-once3g start | cut -d' ' -f1)" \
		-v b="$(ev ctl-once3g allocated | cut -d' ' -f1)" 'BEGIN { printf "%.0f", b - a }')
	label quiet ctl-once3g "$(ev ctl-once3g start)" \
		"what=3GiB-touched-from-its-start-(took-${took}s-here)-then-flat-10-min-then-exit"
	label quiet ctl-step2m "$(ev ctl-step2m start)" what=one-2MiB-step
	# the JVM keeps 60% of -Xmx live and stays; where its 1 MiB arrays
	# took two G1 regions each its heap filled first and it died of
	# OutOfMemoryError (logs/java.log): growth bounded by -Xmx, tolerated
	# until it exits, or until its PSS first reached 99% of where it stays
	# (real-jvm is a JVM that stays, recorded alone)
	line=$(ev java start)
	jp=$(proc "$(echo "$line" | cut -d' ' -f2)" "$(echo "$line" | cut -d' ' -f1)")
	if awk -v e="$(echo "$jp" | cut -d' ' -f4)" -v l="$last_t" 'BEGIN { exit !(e < l - 5) }'; then
		label growth java "$line" kind=jvm-heap-to-Xmx-then-OutOfMemoryError-exit \
			"stop=$(echo "$jp" | cut -d' ' -f4)"
	else
		label growth java "$line" kind=jvm-heap-to-Xmx-then-flat "stop=$(awk -F, \
			-v p="$(echo "$line" | cut -d' ' -f2)" -v s="$(echo "$jp" | cut -d' ' -f1)" '
			NR > 2 && $2 == p && $3 == s { t[++n] = $1; v[n] = $5 }
			END { for (i = 1; i <= n; i++) if (v[i] >= 0.99 * v[n]) { print t[i]; exit } }' "$trace")"
	fi
	label quiet netdata "$(ev netdata start)" what=netdata-1.37.1-starting
	label quiet postgres "$(ev postgres start)" what=postmaster-1GiB-shared-buffers
	awk '$3 == "ctl-batch" && $4 == "start"' "$events" |
	while read -r line; do
		label quiet ctl-batch "$line" what=batch-job-grows-and-exits
	done
	# what a person found checking the recording for unplanned growth
	[ ! -f "$rec/notes" ] || cat "$rec/notes"
} >"$tmp/busy-host.labels"
cp "$tmp/busy-host.labels" "$out/busy-host.labels"
xz -9 -c "$trace" >"$out/busy-host.csv.xz"

# cut NAME FROM TO SELECT: real-NAME.csv.xz, the rows in [FROM, TO] of the
# processes SELECT picks (an awk condition on pid $2, start $3, name $4),
# t from 0; and real-NAME.labels, the labels of those processes, shifted
cut_trace() {
	local name=$1 from=$2 to=$3 sel=$4 shift
	awk -F, -v from="$from" -v to="$to" "
		NR <= 2 { print; next }
		\$1 + 0 < from || \$1 + 0 > to { next }
		$sel { if (t0 == \"\") t0 = \$1
		       \$1 = sprintf(\"%.3f\", \$1 - t0); print }" OFS=, \
		"$trace" >"$tmp/$name.csv"
	# the first selected row's t is what became 0
	shift=$(awk -F, -v from="$from" -v to="$to" "
		NR > 2 && \$1 + 0 >= from && \$1 + 0 <= to && ($sel) { print \$1; exit }" "$trace")
	awk -F, 'NR > 2 { print $2 " " $3 }' "$tmp/$name.csv" | sort -u >"$tmp/$name.keys"
	{
		echo "# real-$name.csv.xz: cut by tests/busy-host/make-traces.sh from the"
		echo "# busy-host recording; its t = 0 is the busy host's t = $shift s; it ends at" \
			"$(tail -n 1 "$tmp/$name.csv" | cut -d, -f1) s"
		grep -v '^#' "$tmp/busy-host.labels" | awk -v s="$shift" -v keys="$tmp/$name.keys" '
		BEGIN { while ((getline k < keys) > 0) have[k] = 1 }
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		(v["pid"] " " v["start"]) in have {
		  for (i = 2; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "onset" || kv[1] == "stop")
				$i = kv[1] "=" sprintf("%.1f", kv[2] - s) }
		  print }'
	} >"$out/real-$name.labels"
	xz -9 -c "$tmp/$name.csv" >"$out/real-$name.csv.xz"
}
# pidsel PID START: the awk condition that picks one process
pidsel() { echo "(\$2 == $1 && \$3 == $2)"; }
lab() { grep "^[a-z]* name=$1 " "$tmp/busy-host.labels" | head -1; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
startt() { awk -v p="$(field "$1" pid)" -v s="$(field "$1" start)" '$1 == p && $2 == s { print $4 }' "$tmp/procs"; }
endt() { awk -v p="$(field "$1" pid)" -v s="$(field "$1" start)" '$1 == p && $2 == s { print $5 }' "$tmp/procs"; }
window() { # NAME LABEL SECONDS: from 10 s before its start, SECONDS long
	local l st
	l=$(lab "$2")
	st=$(startt "$l")
	cut_trace "$1" "$(awk -v s="$st" 'BEGIN { print s - 10 }')" \
		"$(awk -v s="$st" -v d="$3" 'BEGIN { print s - 10 + d }')" \
		"$(pidsel "$(field "$l" pid)" "$(field "$l" start)")"
}
# redis-server under its spawner's name where the recording kept that
rn=redis-server
[ -n "$(lab redis-server)" ] || rn=planted
window redis "$rn" "$(awk -v s="$(field "$(lab "$rn")" stop)" \
	-v b="$(startt "$(lab "$rn")")" 'BEGIN { print s - b + 300 }')"
window cache ctl-cache 600
window arena ctl-arena 600
window memfd leak-memfd64 900
window python leak-py16 1200
window spiky8 leak-spiky8 1200
window step ctl-step2m 600
window stop256 leak-anon256 "$(awk -v s="$(field "$(lab leak-anon256)" stop)" \
	-v b="$(startt "$(lab leak-anon256)")" 'BEGIN { print s - b + 300 }')"
window once ctl-once3g "$(awk -v e="$(endt "$(lab ctl-once3g)")" \
	-v b="$(startt "$(lab ctl-once3g)")" 'BEGIN { print e - b + 40 }')"
window slow1 leak-anon1 "$last_t"
# PostgreSQL: the postmaster and every backend, over the pgbench run
# until a backend's RSS reaches ExactMaxRss (512 MiB): from there memz
# estimates its PSS from status and a pagemap walk instead of reading it,
# which the busy-host trace keeps; this trace is the exact climb alone
st=$(startt "$(lab postgres)")
end=$(awk -F, -v s="$st" 'NR > 2 && $4 == "postgres" && $1 + 0 > s && $6 >= 524288 {
	print $1 - 1; exit } END { }' "$trace")
[ -n "$end" ] || end=$(awk -v s="$st" 'BEGIN { print s + 1190 }')
cut_trace postgres "$(awk -v s="$st" 'BEGIN { print s - 10 }')" "$end" \
	'($4 == "postgres")'
# netdata starting: the daemon and its plugins, 15 minutes
st=$(startt "$(lab netdata)")
cut_trace netdata "$(awk -v s="$st" 'BEGIN { print s - 10 }')" \
	"$(awk -v s="$st" 'BEGIN { print s + 890 }')" \
	'($4 == "netdata" || $4 ~ /\.plugin$/)'

# real-jvm: a JVM whose heap grows toward -Xmx and stays, recorded alone by
# record-one.sh (RECDIR/jvm.csv, jvm-events.log), its rows only
if [ -f "$rec/jvm.csv" ]; then
	jt=$rec/jvm.csv
	jb0=$(awk -F, -v hz="$hz" 'NR > 2 && $12 != "" { s += $3 / hz + $12 - $1; n++ }
		END { printf "%.3f", s / n }' "$jt")
	st=$(awk '$3 == "java" && $4 == "start"' "$rec/jvm-events.log")
	sp=$(echo "$st" | cut -d' ' -f2)
	key=$(awk -F, -v p="$sp" 'NR > 2 && $2 == p && $4 == "java" { print $2, $3; exit }' "$jt")
	[ -n "$key" ] || { echo "make-traces: no java rows in $jt" >&2; exit 1; }
	awk -F, -v p="$sp" 'NR <= 2 { print; next } $2 == p && $4 == "java" {
		if (t0 == "") t0 = $1; $1 = sprintf("%.3f", $1 - t0); print }' OFS=, \
		"$jt" >"$tmp/jvm.csv"
	t0=$(awk -F, -v p="$sp" 'NR > 2 && $2 == p && $4 == "java" { print $1; exit }' "$jt")
	full=$(awk '$3 == "java" && $4 == "stop" { print $1; exit }' "$rec/jvm-events.log")
	{
		echo "# real-jvm.csv.xz: a JVM recorded alone by tests/busy-host/record-one.sh,"
		echo "# its rows only; it ends at $(tail -n 1 "$tmp/jvm.csv" | cut -d, -f1) s;" \
			"its live set stopped growing at" \
			"$(awk -v b="$full" -v b0="$jb0" -v t0="$t0" 'BEGIN { printf "%.1f", b - b0 - t0 }') s"
		echo "quiet name=java pid=${key% *} start=${key#* } what=jvm-heap-grows-to-60%-of-Xmx-then-flat"
	} >"$out/real-jvm.labels"
	xz -9 -c "$tmp/jvm.csv" >"$out/real-jvm.csv.xz"
fi
