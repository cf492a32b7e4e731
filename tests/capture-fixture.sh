#!/bin/sh
# capture-fixture.sh DEST [PID...]
#
# Copies the /proc and /sys files memz reads into DEST/proc and DEST/sys so
# the readers, the table and the sampler can be tested against a real
# machine's output without that machine. Captures this shell, pid 1 and the
# given pids. A process's smaps is kept only when it is small (see
# MAX_SMAPS), so the fixture stays small enough to ship; smaps_rollup is
# always kept. exe becomes a symlink to the same target: readlinkat works on
# a dangling link, so the target need not exist where the tests run.
# DEST/proc/self links to this shell's directory, as in the real /proc.
set -eu

MAX_SMAPS=${MAX_SMAPS:-65536}

if [ $# -lt 1 ]; then
	echo "usage: $0 DEST [PID...]" >&2
	exit 2
fi
dest=$1
shift
proc=${PROC:-/proc}
sys=${SYS:-/sys}

mkdir -p "$dest/proc" "$dest/sys"

# cat, not cp: /proc files report size 0.
grab() { # SRC DST; a file the kernel lacks or a process that left is skipped
	cat "$1" > "$2.tmp" 2>/dev/null && mv "$2.tmp" "$2" || rm -f "$2.tmp"
}

grab "$proc/meminfo" "$dest/proc/meminfo"
grab "$proc/vmstat" "$dest/proc/vmstat"
grab "$proc/zoneinfo" "$dest/proc/zoneinfo"
if [ -r "$proc/pressure/memory" ]; then
	mkdir -p "$dest/proc/pressure"
	grab "$proc/pressure/memory" "$dest/proc/pressure/memory"
fi
for n in "$sys"/devices/system/node/node[0-9]*; do
	[ -d "$n" ] || continue
	d="$dest/sys/devices/system/node/${n##*/}"
	mkdir -p "$d"
	grab "$n/meminfo" "$d/meminfo"
done

self=$$
for pid in "$self" 1 "$@"; do
	src="$proc/$pid"
	[ -d "$src" ] || continue
	d="$dest/proc/$pid"
	mkdir -p "$d"
	for f in stat statm status smaps_rollup cgroup oom_score_adj; do
		grab "$src/$f" "$d/$f"
	done
	grab "$src/smaps" "$d/smaps"
	if [ -f "$d/smaps" ] && [ "$(wc -c < "$d/smaps")" -gt "$MAX_SMAPS" ]; then
		rm -f "$d/smaps"
	fi
	if target=$(readlink "$src/exe" 2>/dev/null); then
		ln -sfn "$target" "$d/exe"
	fi
done
ln -sfn "$self" "$dest/proc/self"
