#!/bin/sh
# Records the live traces under tests/traces from tests/shapes: one
# `memz record` at 1 s while every shape runs at once, then one trace per
# shape (its rows only). Not part of the suite: run by hand, from the build
# directory, to re-record them:
#   sh ../tests/record-traces.sh ./memz tests/shapes ../tests/traces
set -u
memz=$1 shapes=$2 out=$3
tmp=$(mktemp -d) || exit 1
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
head -c $((1024 * 1024 * 1024)) /dev/zero >"$tmp/file" || exit 1

"$memz" record --interval 1 --duration 1010 --out "$tmp/all.csv" &
pids="$pids $!"
sleep 5
"$shapes" late 90 256 200 >/dev/null & late=$!
"$shapes" stairs 4 30 400 >/dev/null & stairs=$!
"$shapes" churn 1 64 1000 >/dev/null & churn=$!
"$shapes" filemap "$tmp/file" 4 250 >/dev/null & filemap=$!
"$shapes" fork 100 8 15 150 >/dev/null & fork=$!
pids="$pids $late $stairs $churn $filemap $fork"
wait
split() { # MODE PID: the rows of PID and of the children named shape-MODE
	# memz names a process by the comm it first saw, still the shell's
	# here, so the rows are picked by pid and named after the shape
	awk -F, -v n="shape-$1" -v pid="$2" '
		NR <= 2 { print; next }
		$2 == pid || $4 == n { if (t0 == "") t0 = $1; $4 = n
			  $1 = sprintf("%.3f", $1 - t0); print }' OFS=, \
		"$tmp/all.csv" >"$out/live-$1.csv"
}
split late "$late"
split stairs "$stairs"
split churn "$churn"
split filemap "$filemap"
split fork "$fork"
