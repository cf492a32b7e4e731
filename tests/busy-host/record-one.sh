#!/bin/bash
# Records one program alone, in a fresh pid namespace with its own /proc
# as record.sh does, for a real-software trace that the busy-host
# recording could not give. Run by hand as root, from the source tree:
#
#   tests/busy-host/record-one.sh BUILDDIR OUTDIR SECONDS NAME COMMAND...
#
# `memz record --interval 1` for SECONDS into OUTDIR/NAME.csv; COMMAND
# starts 10 s in, with PLANTED_EVENTS=OUTDIR/NAME-events.log, and is
# killed with the namespace at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" != --inside ]; then
	[ "$(id -u)" = 0 ] || { echo "record-one.sh: run as root" >&2; exit 1; }
	[ $# -ge 5 ] || { sed -n 2,10p "$0" >&2; exit 1; }
	build=$(cd "$1" && pwd) || exit 1
	mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 1
	work=$(mktemp -d /tmp/record-one.XXXXXX) || exit 1
	trap 'rm -rf "$work"' EXIT
	gcc -O2 -std=c11 -pthread -o "$work/planted" "$here/planted.c" || exit 1
	shift 2
	unshare --pid --fork --kill-child --mount-proc \
		bash "$0" --inside "$work" "$build" "$out" "$@"
	exit $?
fi
work=$2 build=$3 out=$4 secs=$5 name=$6
shift 6
export PLANTED_EVENTS=$out/$name-events.log
: >"$PLANTED_EVENTS"
"$build/memz" record --interval 1 --duration "$secs" --out "$out/$name.csv" &
recorder=$!
sleep 10
pid=$("$work/planted" spawn "$out/$name.log" "$@")
echo "$(cut -d' ' -f1 /proc/uptime) $pid $name spawned $*" >>"$PLANTED_EVENTS"
wait "$recorder"
