"""A Python service that leaks, planted in the busy-host recording
(tests/busy-host/record.sh): it handles a stream of made-up requests, and
after FLAT_S seconds starts remembering every request's record in a dict
that nothing ever prunes, about KIB_PER_S KiB a second. Started through a
symlink to python3 named after it, so its comm is honest from its exec.

    leak-py16 leak.py FLAT_S KIB_PER_S
"""
import ctypes
import os
import random
import sys
import time


def boottime():
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def event(what, detail=""):
    path = os.environ.get("PLANTED_EVENTS")
    if not path:
        return
    line = "%.3f %d %s %s %s\n" % (boottime(), os.getpid(), NAME, what, detail)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, line.encode())
    os.close(fd)


with open("/proc/self/comm") as _f:
    NAME = _f.read().strip()
ctypes.CDLL(None).prctl(15, NAME.encode(), 0, 0, 0)


def main():
    flat, kib_s = float(sys.argv[1]), float(sys.argv[2])
    t0 = boottime()
    onset = t0 + flat
    seen = {}
    kept = 0.0
    started = False
    rnd = random.Random(1)
    event("start", "python leak")
    n = 0
    while True:
        # a request: some work whose garbage goes at once
        scratch = [rnd.random() for _ in range(2000)]
        n += 1
        t = boottime()
        if t >= onset:
            if not started:
                started = True
                event("onset", "%.0f KiB/s" % kib_s)
            # the leak: each request's record kept forever, ~1 KiB each
            while kept + 1 <= kib_s * (t - onset):
                seen["req-%d-%d" % (n, kept)] = {"id": n, "body": os.urandom(512).hex()}
                kept += 1
        del scratch
        time.sleep(0.1)


main()
