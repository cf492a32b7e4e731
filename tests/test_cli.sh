#!/bin/sh
# test_cli.sh - memz top / inspect / json against the fixture tree
# tests/fixtures/cli (every mapping category, a hostile name, known start
# times), then live: demand paging of a 100 MiB mapping made visible.
set -u

: "${top_srcdir:?}" "${top_builddir:?}"
MEMZ=$top_builddir/memz
FIX=$top_srcdir/tests/fixtures/cli
ROOT="--set ProcRoot=$FIX/proc --set SysRoot=$FIX/sys"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# expect_rc RC CMD...: exit status RC; stdout to $TMP/out, stderr to $TMP/err
expect_rc() {
	want=$1
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	[ "$got" -eq "$want" ] || fail "exit $got, expected $want: $* ($(head -c 300 "$TMP/err"))"
}

same() { # same NAME EXPECTED-FILE ACTUAL-FILE
	cmp -s "$2" "$3" || { fail "$1 differs:"; diff "$2" "$3" >&2; }
}

json_check() { # json_check FILE PYTHON-EXPR-ON-d ...
	f=$1
	shift
	python3 - "$f" "$@" <<'EOF' || fail "json check on $f: $*"
import json, sys
d = json.load(open(sys.argv[1]))
for expr in sys.argv[2:]:
    if not eval(expr):
        print("false:", expr, file=sys.stderr)
        sys.exit(1)
EOF
}

# --- version ------------------------------------------------------------------
expect_rc 0 $MEMZ --version
[ "$(cat "$TMP/out")" = "memz $(sed -n 's/^AC_INIT(\[memz\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")" ] ||
	fail "memz --version: '$(cat "$TMP/out")'"
[ ! -s "$TMP/err" ] || fail "memz --version wrote to stderr: $(cat "$TMP/err")"

# --- top: exact tables ------------------------------------------------------
expect_rc 0 $MEMZ top $ROOT
cat >"$TMP/want" <<'EOF'
RAM 23.5 GiB: free 23.1 GiB, free on CPU lists 0 B, buffers 2.4 MiB, cached 245.6 MiB, slab 139.3 MiB, page tables 1.6 MiB, processes 13.1 MiB, hidden 0 B, kernel 65.7 MiB
2 groups, 0 leak suspects
   PROCS         PSS         USS         RSS        SWAP        GROWTH LEAK    NAME
      2x    52.5 MiB    51.4 MiB    53.9 MiB     1.2 MiB             -         app
      1x   520.0 KiB   520.0 KiB   520.0 KiB         0 B             -         ev\x1b[2Jx\ny "z
EOF
same "top" "$TMP/want" "$TMP/out"
# hostile name: escaped, never a raw ESC or a broken line
if tr -d '\n' <"$TMP/out" | grep -q "$(printf '\033')"; then fail "raw ESC in top output"; fi
[ "$(wc -l <"$TMP/out")" -eq 5 ] || fail "top: a name broke a line"

expect_rc 0 $MEMZ top --bytes --processes $ROOT
cat >"$TMP/want" <<'EOF'
RAM 25276059648: free 24785580032, free on CPU lists 0, buffers 2535424, cached 257536000, slab 146100224, page tables 1675264, processes 13713408, hidden 0, kernel 68919296
3 processes, 0 leak suspects
     PID         PSS         USS         RSS        SWAP        GROWTH LEAK    NAME
     100    54820864    53637120    56270848     1310720             -         app
     200      532480      532480      532480           0             -         ev\x1b[2Jx\ny "z
     300      212992      212992      212992           0             -         app
EOF
same "top --bytes --processes" "$TMP/want" "$TMP/out"

# sort keys: the PID column top to bottom
order() { awk 'NR > 3 { printf "%s ", $1 }' "$TMP/out"; }
for s in "pss:100 200 300 " "uss:100 200 300 " "rss:100 200 300 " \
	 "swap:100 200 300 " "name:100 300 200 " "pid:100 200 300 " \
	 "growth:100 200 300 "; do
	expect_rc 0 $MEMZ top -p --sort "${s%%:*}" $ROOT
	[ "$(order)" = "${s#*:}" ] || fail "--sort ${s%%:*}: got '$(order)'"
done
expect_rc 0 $MEMZ top --sort name $ROOT
[ "$(awk 'NR > 3 { print $NF; exit }' "$TMP/out")" = app ] || fail "groups --sort name"

# filters: substring and regex on name or pid
expect_rc 0 $MEMZ top -p --filter app $ROOT
[ "$(order)" = "100 300 " ] || fail "--filter app: '$(order)'"
expect_rc 0 $MEMZ top -p --filter 30 $ROOT
[ "$(order)" = "300 " ] || fail "--filter 30 (pid): '$(order)'"
expect_rc 0 $MEMZ top -p --match '^ev' $ROOT
[ "$(order)" = "200 " ] || fail "--match ^ev: '$(order)'"
expect_rc 0 $MEMZ top -p --match '^(1|3)00$' $ROOT
[ "$(order)" = "100 300 " ] || fail "--match on pid: '$(order)'"
expect_rc 0 $MEMZ top -p --limit 1 $ROOT
[ "$(order)" = "100 (2 " ] || fail "--limit 1: '$(order)'"
grep -q '^(2 more rows' "$TMP/out" || fail "--limit: no 'more rows' line"

# --watch without a terminal: plain repeated tables, growth fills in
expect_rc 0 $MEMZ top -p -b --watch 0.05 --count 3 $ROOT
[ "$(grep -c '^RAM ' "$TMP/out")" -eq 3 ] || fail "--watch --count 3: not 3 tables"
if grep -q "$(printf '\033')" "$TMP/out"; then fail "--watch cleared a non-terminal"; fi
awk '$1 == 100 { g = $(NF - 1) } END { exit g == "+0" ? 0 : 1 }' "$TMP/out" ||
	fail "--watch: last table's growth for 100 is not +0"
awk '$1 == 100 { print $(NF - 1); exit }' "$TMP/out" | grep -qx -- - ||
	fail "first table's growth should be unknown"
expect_rc 0 $MEMZ top --watch=0.05 -c 2 $ROOT
[ "$(grep -c '^RAM ' "$TMP/out")" -eq 2 ] || fail "--watch=S -c 2"

# --- top --users and json's users: the core's per-user totals -----------------
# tree1 (tests/fixtures/README): root's init and sshd, alice's two workers
# and bash, grouped by name; names from the fixture passwd file
T1="--set ProcRoot=$top_srcdir/tests/fixtures/tree1/proc --set SysRoot=$top_srcdir/tests/fixtures/tree1/sys --set PasswdFile=$top_srcdir/tests/fixtures/users/passwd"
expect_rc 0 $MEMZ top --users $T1
cat >"$TMP/want" <<'EOF'
RAM 8.0 GiB: free 4.0 GiB, free on CPU lists 0 B, buffers 128.0 MiB, cached 1.0 GiB, slab 256.0 MiB, page tables 16.0 MiB, processes 37.0 MiB, hidden 0 B, kernel 2.6 GiB
2 users, 0 leak suspects
   PROCS         PSS         USS         RSS        SWAP USER
      3x    33.9 MiB    31.6 MiB    38.6 MiB         0 B alice
      2x     8.5 MiB     7.5 MiB    11.5 MiB         0 B root
EOF
same "top --users" "$TMP/want" "$TMP/out"
expect_rc 0 $MEMZ top -u -b --sort name --filter oo $T1
[ "$(awk 'NR > 3 { print $2, $NF }' "$TMP/out")" = "8912896 root" ] ||
	fail "top -u --filter: $(cat "$TMP/out")"
expect_rc 2 $MEMZ top --users --processes $T1
expect_rc 0 $MEMZ json $T1
# root's oldest process is 99.95 s old, alice's 49 s: only root is past
# PublishAfter (60 s) and published
json_check "$TMP/out" '[u["name"] for u in d["users"]] == ["alice", "root"]' \
	'[u["uid"] for u in d["users"]] == [1000, 0]' \
	'd["users"][0]["pss"] == (11520 + 21760 + 1408) * 1024' \
	'd["users"][0]["anon"] == (10240 + 20480 + 1024) * 1024' \
	'd["users"][0]["members"] == 3 and d["users"][1]["members"] == 2' \
	'[u["published"] for u in d["users"]] == [False, True]' \
	'[u["id"] for u in d["users"]] == [None, "root"]' \
	'[g["name"] for g in d["groups"]] == ["worker", "init", "sshd", "bash"]'

# --- inspect ---------------------------------------------------------------
expect_rc 0 $MEMZ inspect 100 --limit 3 $ROOT
cat >"$TMP/want" <<'EOF'
process 100 app  exe /opt/app/bin/app
started 2023-11-14 23:36:40 UTC, running 1h 23m 20s, oom_score_adj 300
RSS 53.7 MiB, peak RSS (VmHWM) 58.6 MiB, largest RSS memz saw 53.7 MiB (1 sample)
growth unknown (one look; --samples N watches a while)

CATEGORY                COUNT        SIZE         RSS         PSS  PRIV_DIRTY        SWAP
kernel special              1     8.0 KiB     4.0 KiB         0 B         0 B         0 B
heap                        1     1.0 MiB     1.0 MiB     1.0 MiB     1.0 MiB   256.0 KiB
thread stacks               3     8.1 MiB    84.0 KiB    84.0 KiB    84.0 KiB         0 B
executable                  1     8.0 KiB     8.0 KiB     8.0 KiB         0 B         0 B
shared memory               2     5.0 MiB     2.0 MiB     1.0 MiB         0 B         0 B
devices and graphics        1    64.0 KiB    64.0 KiB    64.0 KiB         0 B         0 B
shared libraries            1     1.0 MiB   512.0 KiB   128.0 KiB         0 B         0 B
other files                 1     8.0 KiB     8.0 KiB     4.0 KiB         0 B         0 B
other anonymous             1   100.0 MiB    50.0 MiB    50.0 MiB    50.0 MiB     1.0 MiB
total                      12   115.2 MiB    53.7 MiB    52.3 MiB    51.1 MiB     1.2 MiB
smaps_rollup                                 53.7 MiB    52.3 MiB    51.1 MiB     1.2 MiB

MAPPINGS by rss: 3 of 12 selected
ADDRESS                   PERMS KIND          SIZE         RSS         PSS        SWAP  PATH
7f1000000000-7f1006400000 rw-p  anon     100.0 MiB    50.0 MiB    50.0 MiB     1.0 MiB
7f3000000000-7f3000400000 rw-s  shmem      4.0 MiB     2.0 MiB     1.0 MiB         0 B  /dev/shm/ring
000000600000-000000700000 rw-p  heap       1.0 MiB     1.0 MiB     1.0 MiB   256.0 KiB  [heap]
EOF
same "inspect 100" "$TMP/want" "$TMP/out"

# JSON: parses; categories add up to the totals, which match smaps_rollup
expect_rc 0 $MEMZ inspect 100 --json --limit 0 $ROOT
cp "$TMP/out" "$TMP/i100.json"
json_check "$TMP/i100.json" \
	'd["pid"] == 100 and d["name"] == "app" and d["exe"] == "/opt/app/bin/app"' \
	'd["start_time"] == 1700005000 and d["age_s"] == 5000 and d["oom_score_adj"] == 300' \
	'd["vm_hwm"] == 60000 * 1024 and d["growth"] is None' \
	'all(sum(c[k] for c in d["categories"]) == d["total"][k] for k in ("count", "size", "rss", "pss", "private_dirty", "swap"))' \
	'all(d["total"][k] == d["rollup"][k] for k in ("rss", "pss", "private_dirty", "swap"))' \
	'd["total"]["count"] == 12 == len(d["mappings"]) == d["mappings_selected"]' \
	'[c["count"] for c in d["categories"]] == [1, 1, 3, 1, 2, 1, 1, 1, 1]' \
	'[c["category"] for c in d["categories"]] == ["kernel", "heap", "stack", "exe", "shmem", "device", "lib", "file", "anon"]'

# each filter: how many mappings and of which kinds
filt() { # filt ARGS... -- EXPECTED-COUNT EXPECTED-CATEGORIES(sorted, space)
	args=""
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	expect_rc 0 $MEMZ inspect 100 --json --limit 0 $args $ROOT
	json_check "$TMP/out" "d['mappings_selected'] == $1 == len(d['mappings'])" \
		"' '.join(sorted(set(m['category'] for m in d['mappings']))) == '$2'"
}
filt --heap -- 1 "heap"
filt --stack -- 3 "stack"
filt --libs -- 1 "lib"
filt --anon -- 5 "anon heap stack"
filt --file -- 3 "exe file lib"
filt --heap --libs -- 2 "heap lib"
filt --writable -- 7 "anon device heap shmem stack"
filt --exec -- 3 "exe kernel lib"
filt --shared -- 3 "device shmem"
filt --private -- 9 "anon exe file heap kernel lib stack"
filt --anon --writable -- 4 "anon heap stack"
filt --file --writable -- 0 ""
# text output of a filter sums what it selected
expect_rc 0 $MEMZ inspect 100 --stack --bytes $ROOT
grep -q '^selected  *3  *8527872  *86016  *86016  *86016  *0$' "$TMP/out" ||
	fail "--stack: selected row"

# sort keys: the first mapping listed
first() { awk '/^ADDRESS/ { getline; print $1; exit }' "$TMP/out"; }
for s in "rss:7f1000000000-7f1006400000" "size:7f1000000000-7f1006400000" \
	 "pss:7f1000000000-7f1006400000" "address:000000400000-000000402000"; do
	expect_rc 0 $MEMZ inspect 100 --sort "${s%%:*}" --limit 0 $ROOT
	[ "$(first)" = "${s#*:}" ] || fail "--sort ${s%%:*}: first $(first)"
done
expect_rc 0 $MEMZ inspect 100 --sort size --limit 0 --json $ROOT
json_check "$TMP/out" '[m["size"] for m in d["mappings"]] == sorted([m["size"] for m in d["mappings"]], reverse=True)'
expect_rc 0 $MEMZ inspect 100 --sort address --limit 0 --json $ROOT
json_check "$TMP/out" '[int(m["start"], 16) for m in d["mappings"]] == sorted(int(m["start"], 16) for m in d["mappings"])'
expect_rc 0 $MEMZ inspect 100 --sort pss --limit 0 --json $ROOT
json_check "$TMP/out" '[m["pss"] for m in d["mappings"]] == sorted([m["pss"] for m in d["mappings"]], reverse=True)'

# hostile names: escaped in text, exact bytes in JSON
expect_rc 0 $MEMZ inspect 200 $ROOT
grep -qF 'process 200 ev\x1b[2Jx\ny "z  exe /tmp/ev\x1b[2Jil' "$TMP/out" ||
	fail "inspect 200: name not escaped"
if grep -q "$(printf '\033')" "$TMP/out"; then fail "raw ESC in inspect output"; fi
grep -q 'oom_score_adj -500' "$TMP/out" || fail "negative oom_score_adj"
expect_rc 0 $MEMZ inspect 200 --json $ROOT
json_check "$TMP/out" 'd["name"] == "ev\x1b[2Jx\ny \"z"' \
	'd["exe"] == "/tmp/ev\x1b[2Jil"'

# a vanished PID: exit 1 and a message naming it
expect_rc 1 $MEMZ inspect 999 $ROOT
grep -q 'process 999 is gone' "$TMP/err" || fail "vanished pid message: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "vanished pid printed to stdout"
# unreadable target: exit 1 naming the file
expect_rc 1 $MEMZ inspect 100 --set "ProcRoot=$FIX/nonexistent"
grep -q 'nonexistent' "$TMP/err" || fail "missing proc root not named"

# above ExactMaxRss (VmRSS 54952 kB) smaps is not read: exit 1 saying why,
# nothing on stdout; ExactMaxRss 0 reads it
expect_rc 1 $MEMZ inspect 100 --set ExactMaxRss=50000000 $ROOT
grep -q 'above ExactMaxRss' "$TMP/err" || fail "too big not said: $(cat "$TMP/err")"
[ -s "$TMP/out" ] && fail "too big printed to stdout"
expect_rc 0 $MEMZ inspect 100 --set ExactMaxRss=0 $ROOT

# --- usage errors: exit 2 ----------------------------------------------------
for pid in "" "-1" "0" "12x" " 12" "+12" "2147483648" "99999999999999999999" "1.5" "0x10"; do
	expect_rc 2 $MEMZ inspect "$pid" $ROOT
	grep -q 'not a PID\|unknown option' "$TMP/err" || fail "pid '$pid': $(cat "$TMP/err")"
done
expect_rc 2 $MEMZ inspect $ROOT
expect_rc 2 $MEMZ inspect 100 200 $ROOT
expect_rc 2 $MEMZ inspect 100 --sort bogus $ROOT
expect_rc 2 $MEMZ inspect 100 --limit -1 $ROOT
expect_rc 2 $MEMZ inspect 100 --samples 2 --interval 0 $ROOT
expect_rc 2 $MEMZ inspect 100 --bogus $ROOT
expect_rc 2 $MEMZ top --sort bogus $ROOT
expect_rc 2 $MEMZ top --match '(' $ROOT
expect_rc 2 $MEMZ top --count x $ROOT
expect_rc 2 $MEMZ top --watch=-1 $ROOT
expect_rc 2 $MEMZ top extra $ROOT
expect_rc 2 $MEMZ top --set NoSuchSetting=1
grep -q 'NoSuchSetting' "$TMP/err" || fail "--set error does not name the setting"
expect_rc 2 $MEMZ json --samples 0 $ROOT
expect_rc 2 $MEMZ json extra $ROOT
expect_rc 2 $MEMZ nosuchcommand
expect_rc 2 $MEMZ
for c in top inspect json; do
	expect_rc 0 $MEMZ $c --help
	grep -q "^usage: memz $c" "$TMP/out" || fail "$c --help"
done

# --- json ------------------------------------------------------------------
expect_rc 0 $MEMZ json $ROOT
json_check "$TMP/out" 'isinstance(d, dict)' \
	'"app" in json.dumps(d) and "ev\x1b[2Jx\ny \"z" in json.dumps(d, ensure_ascii=False) or "ev\\u001b[2Jx\\ny \\\"z" in json.dumps(d)'
expect_rc 0 $MEMZ json --samples 2 --interval 0.05 $ROOT
json_check "$TMP/out" 'isinstance(d, dict)'
[ "$(wc -l <"$TMP/out")" -eq 1 ] || fail "json is not one line"
expect_rc 1 $MEMZ json --set "ProcRoot=$FIX/nonexistent"
grep -q "cannot read $FIX/nonexistent/meminfo: No such file" "$TMP/err" ||
	fail "missing ProcRoot not named: $(cat "$TMP/err")"

# --- hostile trees: nothing under ProcRoot may block, every error names its file
# A copy of the fixture whose meminfo is a FIFO (open would wait for a
# writer forever), then a directory (read gives EISDIR).
mkroot() {
	rm -rf "$TMP/h"
	mkdir -p "$TMP/h"
	cp -R "$FIX/proc" "$FIX/sys" "$TMP/h/"
}
HROOT="--set ProcRoot=$TMP/h/proc --set SysRoot=$TMP/h/sys"
mkroot
rm "$TMP/h/proc/meminfo"
mkfifo "$TMP/h/proc/meminfo"
expect_rc 1 timeout 20 $MEMZ json $HROOT
grep -q "^memz json: cannot read $TMP/h/proc/meminfo: Invalid argument" "$TMP/err" ||
	fail "FIFO meminfo: $(cat "$TMP/err")"
mkroot
rm "$TMP/h/proc/meminfo"
mkdir "$TMP/h/proc/meminfo"
expect_rc 1 timeout 20 $MEMZ json $HROOT
grep -q "^memz json: cannot read $TMP/h/proc/meminfo: Is a directory" "$TMP/err" ||
	fail "directory meminfo: $(cat "$TMP/err")"
# a process's stat a FIFO: that process is skipped, the others are read
mkroot
rm "$TMP/h/proc/200/stat"
mkfifo "$TMP/h/proc/200/stat"
expect_rc 0 timeout 20 $MEMZ json $HROOT
json_check "$TMP/out" 'sorted(p["pid"] for p in d["processes"]) == [100, 300]'
expect_rc 1 timeout 20 $MEMZ inspect 200 $HROOT
grep -q "cannot read $TMP/h/proc/200/stat" "$TMP/err" ||
	fail "inspect of a FIFO stat: $(cat "$TMP/err")"

# --- a huge smaps (a process with 145,000 mappings, 100 MB): streamed -----
# peak RSS of the child memz, in KiB, from getrusage
maxrss() {
	python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)' "$@"
}
mkroot
python3 - "$TMP/h/proc/100/smaps" <<'EOF'
import sys
rec = """{s:012x}-{e:012x} rw-p 00000000 00:00 0 {path}
Size:                  8 kB
KernelPageSize:        4 kB
MMUPageSize:           4 kB
Rss:                   4 kB
Pss:                   {pss} kB
Shared_Clean:          0 kB
Shared_Dirty:          0 kB
Private_Clean:         0 kB
Private_Dirty:         4 kB
Referenced:            4 kB
Anonymous:             4 kB
LazyFree:              0 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
THPeligible:    0
VmFlags: rd wr mr mw me ac sd
"""
with open(sys.argv[1], "w") as f:
    n, a, size = 0, 0x10000000, 0
    while size < 100 << 20:
        r = rec.format(s=a, e=a + 8192, pss=4 if n != 77777 else 8,
                       path="/usr/lib/libbig%d.so" % (n % 7) if n % 3 == 0 else "")
        f.write(r)
        size += len(r)
        a += 16384
        n += 1
EOF
n_maps=$(grep -c '^[0-9a-f]*-[0-9a-f]* ' "$TMP/h/proc/100/smaps")
rss=$(maxrss "$TMP/out" $MEMZ inspect 100 --json --sort pss --limit 3 $HROOT)
# before streaming: ~600 MiB here, 1.7 GB in the review's; the sanitizer
# build's own overhead stays below 20 MiB
[ "$rss" -gt 0 ] && [ "$rss" -lt 65536 ] || fail "inspect of a 100 MB smaps peaked at $rss KiB"
json_check "$TMP/out" "d['total']['count'] == $n_maps" "d['mappings_selected'] == $n_maps" \
	'len(d["mappings"]) == 3' \
	'int(d["mappings"][0]["start"], 16) == 0x10000000 + 77777 * 16384'
rss=$(maxrss "$TMP/out" $MEMZ inspect 100 --anon $HROOT)
[ "$rss" -gt 0 ] && [ "$rss" -lt 65536 ] || fail "inspect --anon of a 100 MB smaps peaked at $rss KiB"
grep -q "^MAPPINGS by rss: 10 of $((n_maps - (n_maps + 2) / 3)) selected" "$TMP/out" ||
	fail "inspect --anon of a 100 MB smaps: $(grep MAPPINGS "$TMP/out")"
rm -rf "$TMP/h"

# --- few file descriptors: degrade, say so, never an empty answer ----------
# only 0, 1, 2 open, then RLIMIT_NOFILE; LeakSanitizer itself needs fds
fds() { # fds N CMD...
	n=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" python3 -c '
import os, resource, sys
n = int(sys.argv[1])
os.closerange(3, 65536)
resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
os.execvp(sys.argv[2], sys.argv[2:])' "$n" "$@"
}
expect_rc 0 fds 8 $MEMZ json $ROOT
json_check "$TMP/out" 'len(d["processes"]) == 3' 'd["stats"]["fd_degraded"] is True' \
	'd["stats"]["fd_short"] == 0'
grep -q "^memz json: short of file descriptors: system files are read with open/read/close" "$TMP/err" ||
	fail "degraded fds not said: $(cat "$TMP/err")"
expect_rc 0 fds 64 $MEMZ json $ROOT
json_check "$TMP/out" 'len(d["processes"]) == 3' 'd["stats"]["fd_degraded"] is False'
[ -s "$TMP/err" ] && fail "enough fds, yet: $(cat "$TMP/err")"
expect_rc 1 fds 6 $MEMZ json $ROOT
grep -q "^memz json: cannot read $FIX/.*: Too many open files" "$TMP/err" ||
	fail "out of fds: $(cat "$TMP/err")"
grep -q "Bad file descriptor" "$TMP/err" && fail "out of fds: EBADF"
[ -s "$TMP/out" ] && fail "out of fds, yet printed: $(head -c 200 "$TMP/out")"

# --- inspect: what grew between the first and the last look ------------------
expect_rc 0 $MEMZ inspect 100 --samples 2 --interval 0.05 $ROOT
grep -q '^PSS by category since the first look (0\.[0-9] s ago): heap +0 B, thread stacks +0 B, other anonymous +0 B$' "$TMP/out" ||
	fail "inspect grew line: $(grep 'since the first' "$TMP/out")"
expect_rc 0 $MEMZ inspect 100 --json --samples 2 --interval 0.05 $ROOT
json_check "$TMP/out" '[c["pss"] for c in d["grew"]["categories"]] == [0, 0, 0]' \
	'd["grew"]["over_s"] > 0'
expect_rc 0 $MEMZ inspect 100 --json $ROOT
json_check "$TMP/out" 'd["grew"] is None'

# --- json --out and top --baseline -------------------------------------------
expect_rc 0 $MEMZ json --out "$TMP/base.json" $ROOT
[ -s "$TMP/out" ] && fail "json --out also wrote to stdout"
json_check "$TMP/base.json" 'len(d["groups"]) == 2 and len(d["processes"]) == 3'
ls "$TMP" | grep -q 'base.json.tmp' && fail "json --out left its temporary"
expect_rc 1 $MEMZ json --out "$TMP/nodir/base.json" $ROOT
grep -q 'nodir/base.json' "$TMP/err" || fail "json --out error does not name the file"
# the same tree as its own baseline: nothing moved, nothing gone
expect_rc 0 $MEMZ top --bytes --baseline "$TMP/base.json" $ROOT
cat >"$TMP/want" <<WANT
RAM 25276059648: free 24785580032, free on CPU lists 0, buffers 2535424, cached 257536000, slab 146100224, page tables 1675264, processes 13713408, hidden 0, kernel 68919296
2 groups, 0 leak suspects
since $TMP/base.json: 0 of its 2 groups gone (0 PSS then)
   PROCS         PSS         USS         RSS        SWAP       SINCE        GROWTH LEAK    NAME
      2x    55033856    53850112    56483840     1310720          +0             -         app
      1x      532480      532480      532480           0          +0             -         ev\x1b[2Jx\ny "z
WANT
same "top --baseline (itself)" "$TMP/want" "$TMP/out"
# a baseline where app was smaller, ev did not exist and "old" did
start100=$(python3 -c 'import json,sys; print([p["start"] for p in json.load(open(sys.argv[1]))["processes"] if p["pid"] == 100][0])' "$TMP/base.json")
cat >"$TMP/then.json" <<THEN
{"groups": [{"name": "app", "pss": 1048576}, {"name": "old", "pss": 2048}],
 "processes": [{"pid": 100, "start": $start100, "pss": 60000000},
               {"pid": 300, "start": 1, "pss": 5}]}
THEN
expect_rc 0 $MEMZ top --baseline "$TMP/then.json" $ROOT
grep -q "since $TMP/then.json: 1 of its 2 groups gone (2.0 KiB PSS then)" "$TMP/out" ||
	fail "baseline: gone line: $(sed -n 3p "$TMP/out")"
awk '$NF == "app" { print $(NF - 3), $(NF - 2) }' "$TMP/out" | grep -qx '+51.5 MiB' ||
	fail "baseline: app's change: $(grep ' app$' "$TMP/out")"
grep -q ' new  *- .*ev' "$TMP/out" || fail "baseline: ev is not new: $(cat "$TMP/out")"
# processes match by pid and start time: 300 started at another time
expect_rc 0 $MEMZ top -p --bytes --baseline "$TMP/then.json" $ROOT
awk '$1 == 100 { print $6 } $1 == 300 { print $6 }' "$TMP/out" | tr '\n' ' ' |
	grep -qx -- '-5179136 new ' || fail "baseline -p: $(cat "$TMP/out")"
grep -q '1 of its 2 processes gone' "$TMP/out" || fail "baseline -p: gone line"
# a baseline that is not one: exit 1 with the reason
expect_rc 1 $MEMZ top --baseline "$TMP/none.json" $ROOT
grep -q "none.json: No such file" "$TMP/err" || fail "baseline missing: $(cat "$TMP/err")"
printf '{"groups": [' >"$TMP/bad.json"
expect_rc 1 $MEMZ top --baseline "$TMP/bad.json" $ROOT
grep -q "not a memz json snapshot" "$TMP/err" || fail "baseline truncated: $(cat "$TMP/err")"
echo '{"groups": [{"pss": 1}], "processes": []}' >"$TMP/bad.json"
expect_rc 1 $MEMZ top --baseline "$TMP/bad.json" $ROOT
grep -q 'groups\[0\] lacks name or pss' "$TMP/err" || fail "baseline without names: $(cat "$TMP/err")"
# 500,000 nested arrays (1 MB) took 8 MiB of stack in yajl's recursive free
# and crashed: refused, with the reason
python3 -c 'print("{\"x\":" + "[" * 500000 + "]" * 500000 + "}")' >"$TMP/bad.json"
expect_rc 1 $MEMZ top --baseline "$TMP/bad.json" $ROOT
grep -q 'nested deeper than 64 levels' "$TMP/err" || fail "baseline nested: $(cat "$TMP/err")"
python3 -c 'print("[" * 500000 + "]" * 500000)' >"$TMP/bad.json"
expect_rc 1 $MEMZ top --baseline "$TMP/bad.json" $ROOT
grep -q 'not a memz json snapshot' "$TMP/err" || fail "baseline nested array: $(cat "$TMP/err")"
# a file larger than what memz writes for 50,000 processes is not read
# (100 MB of numbers once took 3.7 GB and 300 s to parse into a tree)
python3 -c '
import sys
sys.stdout.write("{\"x\":[" + "0," * (17 << 20) + "0]}")' >"$TMP/bad.json"
expect_rc 1 $MEMZ top --baseline "$TMP/bad.json" $ROOT
grep -q 'larger than 32 MiB' "$TMP/err" || fail "baseline cap: $(cat "$TMP/err")"
# numbers are range-checked before they are cast
for bad in 'groups[0] pss:{"groups": [{"name": "a", "pss": 1e300}], "processes": []}' \
	'processes[0] pid:{"groups": [], "processes": [{"pid": 1e300, "start": 1, "pss": 1}]}' \
	'processes[0] pid:{"groups": [], "processes": [{"pid": 2147483648, "start": 1, "pss": 1}]}' \
	'processes[1] start:{"groups": [], "processes": [{"pid": 1, "start": 1, "pss": 1}, {"pid": 2, "start": 1e300, "pss": 1}]}' \
	'groups[0] pss:{"groups": [{"name": "a", "pss": -1}], "processes": []}' \
	'groups[0] pss:{"groups": [{"name": "a", "pss": 0.5}], "processes": []}'; do
	echo "${bad#*:}" >"$TMP/bad.json"
	expect_rc 1 $MEMZ top --baseline "$TMP/bad.json" $ROOT
	grep -qF "${bad%%:*} out of range" "$TMP/err" || fail "baseline range ${bad#*:}: $(cat "$TMP/err")"
done

# --- GroupBy cgroup: units, containers and pods by name -----------------------
CG=$top_srcdir/tests/fixtures/cgroup-v2
CGSET="--set ProcRoot=$CG/proc --set SysRoot=$CG/sys --set DockerRoot=$CG/docker --set GroupBy=cgroup"
expect_rc 0 $MEMZ top $CGSET
cat >"$TMP/want" <<'WANT'
RAM 8.0 GiB: free 4.0 GiB, free on CPU lists 0 B, buffers 128.0 MiB, cached 1.0 GiB, slab 256.0 MiB, page tables 16.0 MiB, processes 21.0 MiB, hidden 0 B, kernel 2.6 GiB
6 groups, 0 leak suspects
   PROCS         PSS         USS         RSS        SWAP      CGROUP       LIMIT        GROWTH LEAK    NAME
      1x     6.0 MiB     6.0 MiB     6.0 MiB         0 B    48.0 MiB        none             -         k8s:prod/envoy-7d9f/proxy
      1x     5.0 MiB     5.0 MiB     5.0 MiB         0 B    40.0 MiB   320.0 MiB             -         k8s:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/0c0ffee00123
      1x     4.0 MiB     4.0 MiB     4.0 MiB         0 B    32.0 MiB        none             -         podman:a1b2c3d4e5f6
      1x     3.0 MiB     3.0 MiB     3.0 MiB         0 B    24.0 MiB   192.0 MiB             -         docker:web
      1x     2.0 MiB     2.0 MiB     2.0 MiB         0 B    16.0 MiB        none             -         user@1000.service
      1x     1.0 MiB     1.0 MiB     1.0 MiB         0 B     8.0 MiB    64.0 MiB             -         nginx.service
WANT
same "top GroupBy cgroup" "$TMP/want" "$TMP/out"
# beyond TopGroups a group keeps the name its path gives, without figures
expect_rc 0 $MEMZ top $CGSET --set TopGroups=1
grep -q ' -  *-  .*docker:3f2a9c0b7d1e$' "$TMP/out" || fail "unpublished cgroup row: $(cat "$TMP/out")"
expect_rc 0 $MEMZ json $CGSET
json_check "$TMP/out" \
	'{g["id"]: (g["cgroup"]["name"], g["cgroup_usage"], g.get("cgroup_limit")) for g in d["groups"] if g["published"]}["docker_web"] == ("docker:web", 24 << 20, 192 << 20)' \
	'[g["cgroup"]["kind"] for g in d["groups"]] == ["pod", "pod", "container", "container", "unit", "unit"]' \
	'all("cgroup_limit" not in g for g in d["groups"] if g["cgroup"]["name"] == "user@1000.service")' \
	'd["groups"][0]["name"].startswith("/kubepods/besteffort/pod")'

# --- live: demand paging made visible ----------------------------------------
# live touch|untouched CHECK: CHECK is a Python expression on m, the mapping
# that holds the helper's 100 MiB
live() {
	rm -f "$TMP/in" "$TMP/addr"
	mkfifo "$TMP/in"
	"$top_builddir/tests/cli_mapper" 100 "$1" <"$TMP/in" >"$TMP/addr" &
	pid=$!
	exec 3>"$TMP/in"
	i=0
	while [ ! -s "$TMP/addr" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	addr=0x$(cat "$TMP/addr")
	expect_rc 0 $MEMZ inspect "$pid" --json --limit 0
	held="[m for m in d['mappings'] if int(m['start'], 16) <= $addr < int(m['end'], 16)]"
	json_check "$TMP/out" "len($held) == 1" \
		"[m['category'] for m in $held] == ['anon']" \
		"all($2 for m in $held)"
	start=$(python3 -c "import json; d = json.load(open('$TMP/out')); print(*['%x' % int(m['start'], 16) for m in $held])")
	# the helper's mapping by its address: under ASan the largest anonymous
	# mapping is the sanitizer's shadow (terabytes), not the helper's
	expect_rc 0 $MEMZ inspect "$pid" --anon --sort size --limit 0
	grep -q "^$start-[0-9a-f]* rw-p  anon  *10[0-9]\.[0-9] MiB" "$TMP/out" ||
		fail "live $1: text view: $(grep "^$start-" "$TMP/out")"
	exec 3>&-
	wait $pid
}
live touch "m['size'] >= 100 << 20 and m['rss'] >= 100 << 20"
live untouched "m['size'] >= 100 << 20 and m['rss'] < 4 << 20"

# growth trend: a process growing 20 MiB/s, watched for a while
LEAKER=$top_builddir/tests/leaker
if [ -x "$LEAKER" ]; then
	"$LEAKER" --name clileak --rate 20480 --exit-after 20 >"$TMP/lpid" &
	lpid=$!
	i=0
	while [ ! -s "$TMP/lpid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	expect_rc 0 $MEMZ inspect "$lpid" --json --samples 6 --interval 0.3
	json_check "$TMP/out" 'd["samples"] == 6 and d["growth"]["samples"] >= 2' \
		'd["grew"]["categories"][0]["category"] == "anon"' \
		'd["grew"]["categories"][0]["pss"] > 8 << 20' \
		'd["grew"]["text"].startswith("other anonymous +")' \
		'50000 < d["growth"]["mib_per_hour"] < 100000' \
		'd["rss_max_seen"] >= d["total"]["rss"] - (8 << 20)'
	expect_rc 0 $MEMZ top -p -b --match '^clileak$' --watch 0.3 --count 5
	awk '$NF == "clileak" { g = $(NF - 1) } END { exit g > 14e6 && g < 28e6 ? 0 : 1 }' "$TMP/out" ||
		fail "top growth of a 20 MiB/s process: $(tail -1 "$TMP/out")"
	kill "$lpid"
	wait "$lpid"
fi

# Run by a user who may not read other users' processes: one line on
# stderr says so and how to see them, however many tables a watch prints;
# root, who may, hears nothing of it.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1; then
	expect_rc 0 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		$MEMZ top --watch 0.2 --count 4
	n=$(grep -c 'cannot read [0-9]* processes of other users' "$TMP/err")
	[ "$n" -eq 1 ] || fail "memz top as nobody: $n denied lines, expected 1: $(cat "$TMP/err")"
	grep -q 'lacks cap_dac_read_search,cap_sys_ptrace).*(sudo memz top)' "$TMP/err" ||
		fail "memz top as nobody does not name the fix: $(cat "$TMP/err")"
	expect_rc 0 $MEMZ top --watch 0.2 --count 2
	! grep -q 'processes of other users' "$TMP/err" ||
		fail "memz top as root: $(cat "$TMP/err")"

	# inspect of a root process: not a bare "Permission denied" but whose
	# it is, what this user lacks and how to run it
	sleep 60 &
	rpid=$!
	expect_rc 1 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		$MEMZ inspect "$rpid"
	grep -q "Permission denied: process $rpid is uid 0's, and uid $(id -u nobody) lacks cap_dac_read_search,cap_sys_ptrace.*Run it as root (sudo memz inspect $rpid) or with those capabilities" "$TMP/err" ||
		fail "memz inspect as nobody does not say what is missing: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "memz inspect as nobody: $(cat "$TMP/err")"
	kill "$rpid"
	wait "$rpid" 2>/dev/null
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
exit 0
