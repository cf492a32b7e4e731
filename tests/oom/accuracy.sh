#!/bin/sh
# tests/oom/accuracy.sh - how often memz names the process the kernel
# killed, over repeated real OOM kills in a memory-limited cgroup with
# decoys around. Not part of make check: a measurement (README, "The OOM
# kill named"). Needs root and a memory cgroup it may make (tests/oom/cg.sh).
#
# Usage: flock /tmp/memz-it.lock sh tests/oom/accuracy.sh [-n ROUNDS]
#        [-b BUILDDIR] [-q QUIET_S] [-l LIMIT_MIB]
#
# One cgroup (LIMIT_MIB, 96 by default) holds, for the whole run, two big
# processes that never grow (20 MiB each). Each round:
#  - a decoy: 1 MiB, oom_score_adj 1000 (the kernel's first pick while it
#    lives), left QUIET_S (22 s) so that memz probes it as a quiet process
#    does; in odd rounds its parent reaps it at once, in even rounds its
#    parent never does (a zombie until the round ends);
#  - memz top -w 1, started with the decoy;
#  - then the leaker (8 MiB, +4 MiB/s); the decoy exits when the cgroup is
#    within GAP MiB of its limit (4, 8, 12 in turn: about 1, 2, 3 s before
#    the kill);
#  - the kernel's victims are the pids of dmesg's oom-kill lines for the
#    cgroup (its "Killed process PID"); memz's, those of its "OOM KILL"
#    lines for the cgroup.
# Prints a line per round and the counts: kills memz named right, names
# that were wrong (what sure said), unknown. Everything it started is
# killed by pid and reaped, and the cgroup removed, however it ends; it
# changes no sysctl. A zombie decoy's holder, killed, leaves the zombie to
# init to reap.

top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=""
ROUNDS=20
QUIET_S=22
LIMIT_MIB=96
while getopts n:b:q:l: o; do
	case $o in
	n) ROUNDS=$OPTARG ;;
	b) B=$OPTARG ;;
	q) QUIET_S=$OPTARG ;;
	l) LIMIT_MIB=$OPTARG ;;
	*) echo "usage: $0 [-n ROUNDS] [-b BUILDDIR] [-q QUIET_S] [-l LIMIT_MIB]" >&2
	   exit 2 ;;
	esac
done
if [ -z "$B" ]; then
	if [ -x ./memz ]; then B=.; else B="$top_srcdir/b"; fi
fi
MEMZ="$B/memz"
LEAKER="$B/tests/leaker"
for f in "$MEMZ" "$LEAKER"; do
	[ -x "$f" ] || { echo "$f not built (-b BUILDDIR)" >&2; exit 2; }
done

. "$top_srcdir/tests/oom/cg.sh"
# sh -c "$IN_CG" sh DIR CMD...: CMD exec'd in the cgroup, so that $! is its
# pid and this shell its parent (oc_exec's subshell would come between)
IN_CG='echo $$ > "$1/cgroup.procs" && shift && exec "$@"'

D=$(mktemp -d "${TMPDIR:-/tmp}/memz-acc.XXXXXX") || exit 1
PIDS=""

# kill what this run started, by pid, and remove the cgroup
cleanup() {
	for p in $PIDS; do
		kill -KILL "$p" 2>/dev/null
	done
	# they are this shell's children (each exec'd in the cgroup by sh
	# -c), reaped here; a zombie decoy's holder leaves it to init
	wait 2>/dev/null
	oc_remove
	rm -rf "$D"
}
trap 'rc=$?; cleanup; exit $rc' EXIT
trap 'exit 1' INT TERM HUP

track() { PIDS="$PIDS $1"; }
untrack() {
	_n=""
	for _p in $PIDS; do [ "$_p" = "$1" ] || _n="$_n $_p"; done
	PIDS=$_n
}
stop() {
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null >/dev/null
	untrack "$1"
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# poll SECS CMD...: CMD until it succeeds or SECS pass
poll() {
	_end=$(awk -v n="$(uptime_s)" -v s="$1" 'BEGIN { print n + s }')
	shift
	until "$@"; do
		awk -v n="$(uptime_s)" -v e="$_end" 'BEGIN { exit !(n > e) }' &&
			return 1
		sleep 0.1
	done
}

oc_make acc $((LIMIT_MIB << 20)) || { echo "skip: $OC_WHY" >&2; exit 77; }
USAGE="$OC_DIR/memory.usage_in_bytes"
[ -f "$USAGE" ] || USAGE="$OC_DIR/memory.current"

N="mza$$"
bigs() {
	for i in 1 2; do
		eval "_b=\${BIG$i:-}"
		if [ -n "$_b" ] && kill -0 "$_b" 2>/dev/null; then continue; fi
		sh -c "$IN_CG" sh "$OC_DIR" "$LEAKER" --name "${N}big$i" \
			--once 20 >"$D/big$i" &
		eval "BIG$i=$!"
		track "$!"
		poll 5 grep -qs . "$D/big$i" || { echo "no big" >&2; exit 1; }
	done
}

# the kernel's kills in our cgroup, a line each
kills() { dmesg | grep "oom-kill:.*,oom_memcg=$OC_PATH,"; }
kills_logged() { kills | wc -l; }
RIGHT=0 WRONG=0 UNKNOWN=0 NOKILL=0
WRONG_SURE=""
RIGHT_SURE=""

r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	bigs
	k0=$(kills_logged)
	# the decoy: adj 1000, set in the process that execs it only
	if [ $((r % 2)) = 1 ]; then
		kind=reaped
		sh -c "$IN_CG" sh "$OC_DIR" sh -c 'echo 1000 \
			> /proc/self/oom_score_adj && exec "$0" "$@"' \
			"$LEAKER" --name "${N}dec$r" --once 1 >"$D/dec" &
		HOLD=""
	else
		kind=zombie
		# its parent sleeps and never reaps it
		sh -c "$IN_CG" sh "$OC_DIR" sh -c '(echo 1000 > /proc/self/oom_score_adj &&
			exec "$0" "$@") & exec sleep 600' "$LEAKER" \
			--name "${N}dec$r" --once 1 >"$D/dec" &
		HOLD=$!
		track "$HOLD"
	fi
	poll 5 grep -qs . "$D/dec" || { echo "no decoy" >&2; exit 1; }
	DEC=$(head -n 1 "$D/dec")
	track "$DEC"
	"$MEMZ" top -p -w 1 -f "$N" >"$D/memz" 2>&1 &
	MZ=$!
	track "$MZ"
	sleep "$QUIET_S"

	gap=$(( (r % 3 + 1) * 4 ))
	sh -c "$IN_CG" sh "$OC_DIR" "$LEAKER" --name "${N}leak$r" \
		--start-mib 8 --rate 4096 >"$D/leak" &
	LK=$!
	track "$LK"
	poll 5 grep -qs . "$D/leak" || { echo "no leaker" >&2; exit 1; }
	near() {
		u=$(cat "$USAGE" 2>/dev/null) &&
			[ "$u" -ge $(((LIMIT_MIB - gap) << 20)) ]
	}
	poll 60 near || echo "round $r: the cgroup never came within $gap MiB"
	kill -KILL "$DEC" 2>/dev/null
	t_exit=$(uptime_s)
	# its parent, this shell, reaps it at once
	[ "$kind" = reaped ] && { wait "$DEC" 2>/dev/null; untrack "$DEC"; }

	new_kill() { [ "$(kills_logged)" -gt "$k0" ]; }
	if ! poll 60 new_kill; then
		echo "round $r: no OOM kill"
		NOKILL=$((NOKILL + 1))
	else
		line=$(kills | sed -n "$((k0 + 1))p")
		kt=$(echo "$line" | sed 's/^\[ *\([0-9.]*\)\].*/\1/')
		before=$(awk -v a="$kt" -v b="$t_exit" 'BEGIN { printf "%.1f", a - b }')
		# the kernel's victims this round: until the leaker is one
		leak_gone() {
			[ "$(sed 's/.*) \(.\).*/\1/' "/proc/$LK/stat" 2>/dev/null)" != S ] &&
			[ "$(sed 's/.*) \(.\).*/\1/' "/proc/$LK/stat" 2>/dev/null)" != R ]
		}
		poll 30 leak_gone
		kpids=$(kills | sed -n "$((k0 + 1)),\$p" |
			sed 's/.*,pid=\([0-9]*\),.*/\1/')
		nk=$(echo "$kpids" | wc -l)
		named() {
			[ "$(grep -c "OOM KILL .* in cgroup $OC_PATH:" "$D/memz" |
				head -n 1)" -gt 0 ] &&
			[ "$(grep "OOM KILL .* in cgroup $OC_PATH:" "$D/memz" |
				sed -n 's/.*(pid \([0-9]*\)).*/\1/p;s/.*unknown.*/u/p' |
				sort -u | wc -l)" -ge "$nk" ]
		}
		poll 15 named
		# memz's names, a line per kill: pid and sure (u: unknown)
		grep "OOM KILL .* in cgroup $OC_PATH:" "$D/memz" |
			sed -n 's/.*: \([^ ]*\) (pid \([0-9]*\)).*sure \([0-9]*\)%.*/\2 \3 \1/p;s/.*unknown.*/u 0 ?/p' |
			awk '!seen[$1]++' >"$D/named"
		out=""
		for k in $kpids; do
			if grep -q "^$k " "$D/named"; then
				s=$(grep "^$k " "$D/named" | cut -d' ' -f2)
				RIGHT=$((RIGHT + 1))
				RIGHT_SURE="$RIGHT_SURE $s"
				out="$out right $k ($s%)"
			fi
		done
		while read -r p s n; do
			if [ "$p" = u ]; then
				UNKNOWN=$((UNKNOWN + 1))
				out="$out unknown"
			elif ! echo "$kpids" | grep -qx "$p"; then
				WRONG=$((WRONG + 1))
				WRONG_SURE="$WRONG_SURE $s"
				out="$out wrong $n $p ($s%)"
			fi
		done <"$D/named"
		echo "round $r ($kind decoy, gap $gap MiB, exited $before s before the first kill): kernel" $kpids "memz:$out"
	fi
	for p in $LK $MZ $DEC $HOLD; do stop "$p"; done
done
echo "rounds $ROUNDS: right $RIGHT (sure:$RIGHT_SURE), wrong $WRONG (sure:$WRONG_SURE), unknown $UNKNOWN, no kill $NOKILL"
