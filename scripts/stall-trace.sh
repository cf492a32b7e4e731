#!/bin/sh
# stall-trace.sh - who holds a big process's mmap lock while it waits.
# Not a test: `make bench`'s stall phase says how long the stall process
# waited; this says who made it wait. It starts tests/bench/stall, records
# every task's mmap_lock tracepoints on the stall process's mm, system-wide
# (perf, as root), runs READER meanwhile if given, and prints each reader's
# lock holds on that mm by what held it (the kernel function under the
# tracepoint: pagemap_read, show_smaps_rollup, m_start for maps and smaps,
# ...), then each of the stall's waits over 5 ms with the holds that
# overlapped it. The READER's own holds are marked with *; a wait with no
# hold beside it is the scheduler's (the stall process itself not running).
#
#   stall-trace.sh MIB SECONDS [READER ARGS...]
#
# Environment: top_builddir (.), STALL_FILE_MIB (stall -f: that much shared
# memory mapped over and over, for a process larger than RAM), KEEP=DIR
# (keep perf.data and the stall's output there).
set -u
B=${top_builddir:-.}
[ $# -ge 2 ] || { echo "usage: $0 MIB SECONDS [READER ARGS...]" >&2; exit 2; }
MIB=$1 S=$2
shift 2
D=${KEEP:-$(mktemp -d /tmp/memz-stall-trace.XXXXXX)}
mkdir -p "$D"
PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$D"' EXIT
"$B/tests/bench/stall" -m "$MIB" -t "$S" ${STALL_FILE_MIB:+-f "$STALL_FILE_MIB"} >"$D/stall.out" &
sp=$!
PIDS="$sp"
i=0
while ! grep -q ready "$D/stall.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 3000 ] && kill -0 "$sp" 2>/dev/null || { echo "stall not ready" >&2; exit 1; }
	sleep 0.1
done
# the mm's address, from one of the stall's own mmaps
perf record -q -o "$D/mm.data" -e mmap_lock:mmap_lock_start_locking -p "$sp" -- sleep 0.3 2>/dev/null
mm=$(perf script -i "$D/mm.data" -F trace 2>/dev/null | sed -n 's/.*mm=\(0x[0-9a-f]*\).*/\1/p' | head -n 1)
[ -n "$mm" ] || { echo "no mmap_lock tracepoints (perf as root, a kernel with CONFIG_TRACING)" >&2; exit 1; }
F="mm == $mm"
perf record -q -a -g -o "$D/perf.data" -e mmap_lock:mmap_lock_start_locking --filter "$F" \
	-e mmap_lock:mmap_lock_acquire_returned --filter "$F" \
	-e mmap_lock:mmap_lock_released --filter "$F" 2>"$D/perf.err" &
pp=$!
PIDS="$PIDS $pp"
rp=""
if [ $# -gt 0 ]; then
	mkfifo "$D/stdin"
	exec 3<>"$D/stdin" # a netdata plugin exits when its stdin closes
	"$@" <&3 >/dev/null 2>"$D/reader.err" &
	rp=$!
	PIDS="$PIDS $rp"
fi
wait "$sp"
kill -INT "$pp"
wait "$pp"
[ -n "$rp" ] && kill "$rp"
echo "stall: $(tail -n 1 "$D/stall.out")"
perf script -i "$D/perf.data" -F comm,tid,time,event,trace,ip,sym 2>/dev/null |
	python3 -c '
import collections, re, sys
mine = sys.argv[1]
hdr = re.compile(r"^\s*(\S+)\s+(\d+)\s+([\d.]+):\s+mmap_lock:(\w+): mm=\w+ memcg_id=\d+ write=(\w+)")
# the frame that says what took the lock, first match from the top
KEY = ("pagemap_read", "show_smaps_rollup", "show_smap", "m_start", "m_next",
       "get_mm_cmdline", "access_remote_vm", "environ_read", "mem_rw",
       "lock_next_vma", "vm_mmap_pgoff", "__vm_munmap", "do_user_addr_fault")
def events():
    cur = None
    for line in sys.stdin:
        m = hdr.match(line)
        if m:
            if cur:
                yield cur
            comm, tid, t, ev, w = m.groups()
            cur = [comm, tid, float(t), ev, w, []]
        elif cur and line.strip():
            f = line.split()
            if len(f) >= 2:
                cur[5].append(f[1].split("+")[0])
    if cur:
        yield cur
def what(stack):
    for s in stack:
        if s.startswith(KEY):
            return s
    return stack[1] if len(stack) > 1 else "?"
start, acq, waits, holds = {}, {}, [], []
stall_tid = None
for comm, tid, t, ev, w, stack in events():
    k = (tid, w)
    if comm == "stall" and stall_tid is None:
        stall_tid = tid
    if ev == "mmap_lock_start_locking":
        start[k] = t
    elif ev == "mmap_lock_acquire_returned":
        if k in start:
            waits.append((start.pop(k), t, tid))
        acq[k] = (t, what(stack))
    elif k in acq:
        t0, wh = acq.pop(k)
        holds.append((t0, t, comm + ("*" if tid == mine else ""), tid, wh))
agg = collections.defaultdict(lambda: [0, 0.0, 0.0])
for t0, t1, c, tid, wh in holds:
    if tid == stall_tid:
        continue
    a = agg[(c, wh)]
    a[0] += 1
    a[1] += t1 - t0
    a[2] = max(a[2], t1 - t0)
print("holds of the lock by other tasks (ms):")
for (c, wh), (n, tot, mx) in sorted(agg.items(), key=lambda kv: -kv[1][2]):
    print("  %-20s %-24s %7d holds, %9.1f in all, longest %7.2f" % (c, wh, n, tot * 1e3, mx * 1e3))
sw = [b - a for a, b, tid in waits if tid == stall_tid]
print("the stall process waited for its lock %d times, longest %.2f ms (a worst pair above that is the scheduler'"'"'s)" % (len(sw), max(sw or [0]) * 1e3))
print("its waits over 5 ms:")
for a, b, tid in sorted(waits):
    if tid != stall_tid or b - a <= 0.005:
        continue
    hs = [h for h in holds if h[3] != stall_tid and h[0] < b and h[1] > a]
    print("  %.2f ms: %s" % ((b - a) * 1e3, ", ".join("%s %s %.2f ms" % (h[2], h[4], (h[1] - h[0]) * 1e3) for h in hs[:4]) or "no other holder (the stall process was not running)"))
' "${rp:-none}"
