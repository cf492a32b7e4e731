"""Drives a headless chromium as a person browsing would, for the busy-host
recording (tests/busy-host/record.sh): every few seconds it opens a page
from URLS_FILE in a new tab (a new renderer process, often), and closes
tabs older than a minute or so, through the DevTools HTTP endpoint.

    python3 browse.py USER_DATA_DIR URLS_FILE
"""
import json
import os
import random
import sys
import time
import urllib.parse
import urllib.request


def endpoint(profile):
    path = os.path.join(profile, "DevToolsActivePort")
    for _ in range(600):
        try:
            with open(path) as f:
                return "http://127.0.0.1:%s" % f.readline().strip()
        except OSError:
            time.sleep(0.5)
    sys.exit("browse: no DevToolsActivePort")


def call(base, path, method="GET"):
    req = urllib.request.Request(base + path, method=method)
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def main():
    base = endpoint(sys.argv[1])
    rnd = random.Random(7)
    tabs = []
    while True:
        with open(sys.argv[2]) as f:
            urls = [u.strip() for u in f if u.strip()]
        url = rnd.choice(urls)
        try:
            tab = json.loads(call(base, "/json/new?" + urllib.parse.quote(url, safe=":/"), "PUT"))
            tabs.append((time.monotonic() + rnd.uniform(20, 90), tab["id"]))
        except Exception as e:  # a busy browser may time out; keep going
            print("browse:", e, file=sys.stderr)
        for due, tid in [t for t in tabs if t[0] < time.monotonic()]:
            try:
                call(base, "/json/close/" + tid)
            except Exception as e:
                print("browse:", e, file=sys.stderr)
            tabs.remove((due, tid))
        time.sleep(rnd.uniform(5, 15))


main()
