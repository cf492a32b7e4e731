#!/bin/sh
# The RAM breakdown reaches collectd, its parts add up to MemTotal, and the
# pace (sampling) and the plugin's Interval (dispatch) are independent:
# Pace fast samples every 0.5 s while <LoadPlugin memz> Interval 2 makes
# values go out every 2 s; a second daemon with Pace eco (2 s) and Interval
# 1 dispatches every second, each sample twice. Beside the groups, every
# user's totals (memz-users).
. "$top_srcdir/tests/collectd/lib.sh"
cd_init breakdown

A="$D/a"
CD_MEMZ_LOAD='<LoadPlugin memz>
  Interval 2
</LoadPlugin>'
CD_MEMZ='  Pace "fast"
  TopGroups 0
  Process "collectd"'
cd_conf "$A" "memzbd$$"
E="$D/eco"
CD_MEMZ_LOAD="LoadPlugin memz"
CD_MEMZ='  Pace "eco"'
cd_conf "$E" "memzbe$$"
cd_start "$E"
t0=$(cd_now)
cd_start "$A"
cd_wait_ready "$A"
cd_poll 10 cd_has_val "$A" memz/memory-kernel_residual ||
	cd_fail "no breakdown values within 10 s"
echo "first breakdown value after $(cd_since "$t0") s"

for part in free pcp_free buffers cached slab page_tables process_anon \
	hidden_anon kernel_residual; do
	v=$(cd_getval "$A" "memz/memory-$part") || cd_fail "no memz/memory-$part"
	cd_num_cmp "$v" ">=" 0 || cd_fail "memory-$part is $v"
	echo "memory-$part = $v"
done
at=$(cd_poll 5 cd_parts_sum "$A") || cd_fail "no dispatch with every part in the csv rows"
sum=${at#* }
total=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
dev=$(awk -v s="$sum" -v t="$total" 'BEGIN { d = (s - t) / t; if (d < 0) d = -d; printf "%.5f", d * 100 }')
echo "sum of parts $sum B at ${at% *}, MemTotal $total B: off by $dev %"
cd_num_cmp "$dev" "<=" 1 || cd_fail "parts do not add up to MemTotal"

# process_anon is what memz could read: as root that is nearly all of it.
pa=$(cd_getval "$A" memz/memory-process_anon)
cd_num_cmp "$pa" ">" 0 || cd_fail "process_anon is $pa"

iv=$(cd_getval "$A" memz/gauge-interval)
echo "pace interval $iv s"
awk -v v="$iv" 'BEGIN { exit !(v == 0.5) }' || cd_fail "Pace fast should sample every 0.5 s, gauge-interval is $iv"

# With TopGroups 0 the one selected group is the only one reported, with
# its own figures.
groups=$(cd_listval "$A" | sed -n 's|^[^/]*/memz-\([^/]*\)/memory-pss$|\1|p' | grep -v '^node')
[ "$groups" = collectd ] || cd_fail "reported groups: $groups (want only collectd)"
pss=$(cd_getval "$A" memz-collectd/memory-pss) || cd_fail "group collectd not reported"
np=$(cd_getval "$A" memz-collectd/ps_count processes)
nt=$(cd_getval "$A" memz-collectd/ps_count threads)
echo "collectd group: pss $pss B, $np processes, $nt threads"
cd_num_cmp "$pss" ">" 1048576 || cd_fail "collectd's PSS is $pss"
cd_num_cmp "$np" ">=" 1 || cd_fail "collectd group has $np processes"
cd_num_cmp "$nt" ">" 1 || cd_fail "collectd group has $nt threads"

# Per-user totals beside the groups (TopUsers, default 20), whatever the
# groups are: every user's processes summed under memz-users, a type
# instance per figure and user. collectd runs as root, so root's totals
# hold the collectd group's; its PSS is that of uid 0's processes, which
# /proc says too. Processes come and go between the two reads (a CI stage
# compiles and runs unit tests beside this one: 110 MB against 35 MB once),
# so it must hold at least half of what uid 0's processes older than a
# minute hold (they were there for both reads), and at most twice all of
# uid 0's plus 512 MiB for what came and went.
cd_poll 5 cd_has_val "$A" memz-users/memory-pss_root ||
	cd_fail "no memz-users/memory-pss_root: $(cd_listval "$A" | grep users | head -5)"
upss=$(cd_getval "$A" memz-users/memory-pss_root)
uanon=$(cd_getval "$A" memz-users/memory-anon_root)
unp=$(cd_getval "$A" memz-users/ps_count-root processes)
cpss=$(cd_getval "$A" memz-collectd/memory-pss)
cnp=$(cd_getval "$A" memz-collectd/ps_count processes)
read -r kpss kold <<EOF2
$(python3 - <<'PY'
import glob, os
hz = os.sysconf("SC_CLK_TCK")
up = float(open("/proc/uptime").read().split()[0])
s = old = 0
for d in glob.glob("/proc/[0-9]*"):
    try:
        uid = [l for l in open(d + "/status") if l.startswith("Uid:")][0].split()[1]
        if uid != "0":
            continue
        start = int(open(d + "/stat").read().rsplit(")", 1)[1].split()[19])
        pss = sum(int(l.split()[1]) for l in open(d + "/smaps_rollup")
                  if l.startswith("Pss:")) * 1024
        s += pss
        if up - start / hz >= 60:
            old += pss
    except (OSError, IndexError, ValueError):
        pass
print(s, old)
PY
)
EOF2
echo "user root: pss $upss B (/proc: $kpss B, $kold B in processes a minute old), anon $uanon B, $unp processes; collectd group pss $cpss B, $cnp processes"
cd_num_cmp "$upss" ">=" "$cpss" || cd_fail "root's PSS $upss is below its collectd group's $cpss"
cd_num_cmp "$unp" ">=" "$cnp" || cd_fail "root has $unp processes, its collectd group $cnp"
cd_num_cmp "$uanon" ">" 0 && cd_num_cmp "$uanon" "<=" "$upss" || cd_fail "root's anon is $uanon"
cd_num_cmp "$upss" ">=" "$(awk -v k="$kold" 'BEGIN { print k / 2 }')" &&
	cd_num_cmp "$upss" "<=" "$(awk -v k="$kpss" 'BEGIN { print 2 * k + 512 * 1048576 }')" ||
	cd_fail "root's PSS $upss B, /proc says $kpss B ($kold B a minute old)"

# Dispatch every 2 s though sampling every 0.5 s: the csv rows of one value
# are 2 s apart.
csv() {
	cat "$1"/csv/"$2"/memz/memory-free-* 2>/dev/null | grep -v '^epoch'
}
rows_enough() {
	[ "$(csv "$@" | wc -l)" -ge 6 ]
}
cd_poll 20 rows_enough "$A" "memzbd$$" || cd_fail "fewer than 6 dispatches in 20 s"
gaps=$(csv "$A" "memzbd$$" | awk -F, 'NR > 1 { printf "%.2f ", $1 - prev } { prev = $1 }')
echo "fast pace, Interval 2: dispatch gaps $gaps"
for g in $gaps; do
	cd_num_cmp "$g" ">=" 1.7 && cd_num_cmp "$g" "<=" 2.3 ||
		cd_fail "dispatch gap $g s, Interval is 2 s"
done

iv=$(cd_getval "$E" memz/gauge-interval)
awk -v v="$iv" 'BEGIN { exit !(v == 2) }' || cd_fail "Pace eco should sample every 2 s, gauge-interval is $iv"
cd_poll 20 rows_enough "$E" "memzbe$$" || cd_fail "fewer than 6 dispatches in 20 s (eco)"
gaps=$(csv "$E" "memzbe$$" | awk -F, 'NR > 1 { printf "%.2f ", $1 - prev } { prev = $1 }')
echo "eco pace, Interval 1: dispatch gaps $gaps"
for g in $gaps; do
	cd_num_cmp "$g" ">=" 0.7 && cd_num_cmp "$g" "<=" 1.3 ||
		cd_fail "dispatch gap $g s, Interval is 1 s"
done
# A sample every 2 s and a dispatch every 1 s: a new sample reaches at most
# every other row, so two rows in a row that both changed MemFree would be
# samples dispatched faster than the pace (one such pair is allowed for a
# sample late by a tick). MemFree may also hold still, so repeated rows
# prove nothing beyond that some sample was dispatched twice.
rep=$(csv "$E" "memzbe$$" | awk -F, 'NR > 1 { c = $2 != prev; r += !c; cc += c && pc; pc = c } { prev = $2; n++ } END { printf "%d %d of %d", r, cc, n - 1 }')
echo "eco pace: ${rep% of *} (rows repeating the one before, rows changing after a change) of ${rep##* of }"
r=${rep%% *}
cc=$(echo "$rep" | cut -d' ' -f2)
[ "$r" -ge 2 ] && [ "$cc" -le 1 ] ||
	cd_fail "eco rows: $rep (repeated, changed twice in a row, of all)"

if grep -q '\[error\]' "$A/collectd.log" "$E/collectd.log"; then
	cd_fail "errors in the log"
fi
echo "ok"
