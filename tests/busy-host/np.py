"""NumPy jobs, non-leak controls of the busy-host mix recording
(tests/busy-host/record-mix.sh), started through a symlink to Debian's
python3 named after them, so their comm is honest from their exec.

    ctl-np-once np.py once MIB RUN_S
        allocates and fills MIB of arrays at start, then computes on them
        in place for RUN_S seconds and exits
    ctl-np-batch np.py batch KIB_PER_S RUN_S
        appends rows to a result growing at about KIB_PER_S for RUN_S
        seconds, computing on it, and exits
"""
import os
import sys
import time

import numpy as np


def boottime():
    return time.clock_gettime(time.CLOCK_BOOTTIME)


with open("/proc/self/comm") as _f:
    NAME = _f.read().strip()


def event(what, detail=""):
    path = os.environ.get("PLANTED_EVENTS")
    if not path:
        return
    line = "%.3f %d %s %s %s\n" % (boottime(), os.getpid(), NAME, what, detail)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, line.encode())
    os.close(fd)


def main():
    mode, a, run = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    t0 = boottime()
    event("start", mode)
    rng = np.random.default_rng(1)
    if mode == "once":
        n = int(a * 1024 * 1024 / 8)
        x = rng.random(n)
        event("allocated", "%.0f MiB" % a)
        while boottime() < t0 + run:
            x *= 1.0000001
            time.sleep(1)
        event("exit")
    else:
        rows = []
        kept = 0.0
        while boottime() < t0 + run:
            while kept + 64 <= a * (boottime() - t0):
                rows.append(rng.random(64 * 128))
                kept += 64
            if rows:
                m = np.vstack(rows[-64:])
                _ = m @ m.T
            time.sleep(0.25)
        event("exit", "%.0f KiB" % kept)


main()
