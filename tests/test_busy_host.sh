#!/bin/sh
# memz replay over recordings of a busy host and of real software
# (tests/traces/*.labels beside *.csv.xz; tests/busy-host/ says how they
# were made), judged against their labels as issue 22 asks:
# - a leak verdict on a process (or group) that is not a planted leak (but
#   for bounded growth, a cache filling, until it stops) fails if a host
#   would alarm on it (below), and such suspects are held to a rate;
# - a planted leak must be flagged no earlier than its onset and within its
#   bound after it (flag_by in the labels at 1 s; at 10 s that or 12
#   samples, whichever is longer);
# - once a labelled growth stops, its verdict must clear within 60 s at 1 s
#   and within 3 samples (30 s) at 10 s;
# - a limit the labels name (known=process-1,group-10,...: per process or
#   grouped, at 1 s or 10 s) is printed as KNOWN LIMIT, not failed: the
#   note of issue 22 lists them as open; a quiet label's
#   known_suspects=MODE-CADENCE,... prints its verdicts there without
#   counting them in the verdicts an hour (one that would alarm fails);
# - a process labelled unplanned (growth the recording did not plan, whose
#   nature the labels file discusses) is neither required nor counted.
# Each trace is replayed per process and with --group=name, at 1 s as
# recorded and at every tenth cycle (collectd's 10 s). For each it prints
# the figures issue 22's note asks for: verdicts per hour on non-leaks,
# each planted leak's latency, each clear's latency.
set -u
# A host alarms on a verdict that stood LeakAlarmAfter (120 s) at a rate
# that runs the room out within LeakWarnTime (two days); the room here is
# 16 GiB, what the 24 GiB machine recorded had available. No verdict on a
# non-leak may alarm; suspects (verdicts shown, not alarmed) on non-leaks
# are held to at most MAX_SUSPECTS_H an hour (489 an hour before issue 22).
ALARM_ROOM=$((16 << 30))
MAX_SUSPECTS_H=6
memz="${top_builddir:-.}/memz"
traces="${top_srcdir:-.}/tests/traces"
[ -x "$memz" ] || { echo "no $memz: skipped"; exit 77; }
command -v xz >/dev/null || { echo "no xz: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

every10() {
	awk -F, 'NR <= 2 { print; next }
		 $1 != last { c++; last = $1 }
		 (c - 1) % 10 == 0' "$1"
}

# judge LABELS EVENTS MODE CADENCE DURATION TITLE: prints the table, and
# FAIL lines; exits 1 on any failure
judge() {
	awk -v mode="$3" -v cad="$4" -v dur="$5" -v title="$6" \
	    -v room="$ALARM_ROOM" -v maxh="$MAX_SUSPECTS_H" '
	function num(s, k,   p) {
		p = "\"" k "\":"
		if (!match(s, p "[0-9.]+")) return ""
		return substr(s, RSTART + length(p), RLENGTH - length(p))
	}
	function str(s, k,   p) {
		p = "\"" k "\":\""
		if (!match(s, p "([^\"\\\\]|\\\\.)*\"")) return ""
		return substr(s, RSTART + length(p), RLENGTH - length(p) - 1)
	}
	# a verdict on a non-leak that a host would alarm on: it stood
	# LeakAlarmAfter (120 s) at a rate that runs ALARM_ROOM out within
	# LeakWarnTime (two days)
	function alarmed(k, t) {
		if (t - fstart[k] >= 120 && frate[k] * 172800 >= room) {
			w = sprintf(" %s (at %.0f s, %.0f KiB/s, %.0f s)", fname[k],
				fstart[k], frate[k] / 1024, t - fstart[k])
			if ((k in bykey) && known(bykey[k])) {
				nknown++; knowns = knowns w
			} else {
				nalarm++; alarms = alarms w
			}
		}
	}
	# a limit the labels name (known=MODE-CADENCE,...): reported, not failed
	function known(i) { return known_in(lab[i, "known"]) }
	function known_in(list,   key) {
		key = (mode == "group" ? "group" : "process") "-" cad
		return ("," list ",") ~ ("," key ",")
	}
	FNR == NR {
		if ($0 ~ /^#/ || NF == 0) next
		if ($1 != "leak" && $1 != "growth" && $1 != "unplanned" &&
		    !($1 == "quiet" && $0 ~ / known(_suspects)?=/)) next
		n++; word[n] = $1
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			lab[n, kv[1]] = kv[2]
		}
		k = mode == "group" ? lab[n, "name"] : lab[n, "pid"] ":" lab[n, "start"]
		bykey[k] = n
		next
	}
	{
		t = num($0, "t") + 0; ev = str($0, "event")
		k = mode == "group" ? str($0, "group") : num($0, "pid") ":" num($0, "start")
		nm = mode == "group" ? k : str($0, "name")
		i = (k in bykey) ? bykey[k] : 0
		if (ev == "clear") {
			if (fstart[k] != "") alarmed(k, t)
			fstart[k] = ""
			standing[k] = 0
			if (i && lab[i, "stop"] != "" && t >= lab[i, "stop"] + 0 && cleared[i] == "")
				cleared[i] = t
			next
		}
		standing[k] = 1
		ok = 0
		if (i) {
			stop = lab[i, "stop"]
			cb = cad == 1 ? 60 : 30
			if (word[i] == "quiet") {
				ok = 0
			} else if (word[i] == "unplanned") {
				ok = 1; unplanned++
			} else if (word[i] == "growth")
				ok = t <= stop + cb
			else
				ok = t >= lab[i, "onset"] - 0.001 &&
				     (stop == "" || t <= stop + cb)
			if (ok && word[i] == "leak" && first[i] == "")
				first[i] = t
			if (ok && word[i] == "growth")
				tolerated++
			if (ok && stop != "" && t > stop + 0)
				cleared[i] = ""
		}
		if (!ok) {
			if (fstart[k] == "") {
				fstart[k] = t; frate[k] = num($0, "rate_bps") + 0; fname[k] = nm
			}
			# a known limit: shown, not counted
			if (i && word[i] == "quiet" &&
			    known_in(lab[i, "known_suspects"])) {
				if (!(nm in kcount)) knames[++nk] = nm
				kcount[nm]++
				next
			}
			nfalse++
			if (!(nm in fcount)) fnames[++nf] = nm
			fcount[nm]++
			if (!(nm in fwhen)) fwhen[nm] = t
		}
	}
	END {
		for (k in fstart) if (fstart[k] != "") alarmed(k, dur)
		ratio = dur > 0 ? nfalse * 3600 / dur : 0
		printf "%s, %s s, %s: %d s, %d verdicts on non-leaks (%.1f/h)", \
			title, cad, mode == "group" ? "--group=name" : "per process", \
			dur, nfalse, ratio
		printf ", %d that would alarm", nalarm
		if (tolerated) printf ", %d on bounded growth before it stopped", tolerated
		if (unplanned) printf ", %d on unplanned growth", unplanned
		print ""
		if (nknown)
			print "    would alarm, KNOWN LIMIT (issue 22):" knowns
		if (nk) {
			line = "    suspects, not counted, KNOWN LIMIT (issue 22):"
			for (j = 1; j <= nk; j++)
				line = line sprintf(" %s %d%s", knames[j],
					kcount[knames[j]], j < nk ? "," : "")
			print line
		}
		if (nf) {
			line = "    not leaks:"
			for (j = 1; j <= nf; j++)
				line = line sprintf(" %s %d (first at %.0f s)%s", fnames[j],
					fcount[fnames[j]], fwhen[fnames[j]], j < nf ? "," : "")
			print line
		}
		for (i = 1; i <= n; i++) {
			if (word[i] == "quiet") continue
			bad = 0
			who = mode == "group" ? lab[i, "name"] : lab[i, "name"] "[" lab[i, "pid"] "]"
			if (word[i] == "leak") {
				b = lab[i, "flag_by"] + 0
				if (cad != 1 && b < 12 * cad) b = 12 * cad
				# under LeakMinRate (32 KiB/s) a leak is for the
				# long horizon: four buckets of it, and one more
				if (lab[i, "rate_kib"] + 0 < 32 && b < 300) b = 300
				what = sprintf("%s KiB/s %s", lab[i, "rate_kib"], lab[i, "kind"])
				if (first[i] == "") {
					s = sprintf("missed (bound %d s)", b); bad = 1
					if (lab[i, "onset"] + b > dur) { s = s ", trace too short"; }
				} else {
					lat = first[i] - lab[i, "onset"]
					s = sprintf("flagged %+.0f s (bound %d s)", lat, b)
					bad = lat > b
				}
				if (bad && known(i)) s = s " KNOWN LIMIT (issue 22)"
				else if (bad) fails[++nfail] = who " " s
			} else if (word[i] == "growth") {
				what = lab[i, "kind"]
				s = "(growth: a verdict allowed until it stops)"
			} else {
				what = lab[i, "kind"]
				s = "(unplanned: neither required nor counted)"
			}
			c = ""
			if (lab[i, "stop"] != "") {
				cb = cad == 1 ? 60 : 30
				stop = lab[i, "stop"]
				# was a verdict standing at or raised after the stop
				if (cleared[i] != "")
					c = sprintf("cleared %+.0f s after stop (bound %d s)", cleared[i] - stop, cb)
				k = mode == "group" ? lab[i, "name"] : lab[i, "pid"] ":" lab[i, "start"]
				# a verdict still standing when the trace ends, if
				# the bound ended before it
				late = standing[k] && cleared[i] == "" && dur > stop + cb
				if (standing[k] && cleared[i] == "")
					c = sprintf("still a suspect at the end, %.0f s after stop (bound %d s)", dur - stop, cb)
				if (c == "")
					c = "nothing to clear at stop"
				if (((cleared[i] != "" && cleared[i] - stop > cb) || late) && known(i))
					c = c " KNOWN LIMIT (issue 22)"
				else if ((cleared[i] != "" && cleared[i] - stop > cb) || late)
					fails[++nfail] = who " " c
			}
			printf "    %-24s %-40s %s%s\n", who, what, s, c == "" ? "" : "; " c
		}
		if (nalarm)
			fails[++nfail] = sprintf("%d verdicts on non-leaks that would alarm:%s", nalarm, alarms)
		if (ratio > maxh)
			fails[++nfail] = sprintf("%.1f verdicts on non-leaks an hour (at most %d)", ratio, maxh)
		for (j = 1; j <= nfail; j++)
			printf "    FAIL: %s\n", fails[j]
		exit nfail > 0
	}' "$1" "$2"
}

for labels in "$traces"/busy-host*.labels "$traces"/real-*.labels; do
	base=${labels%.labels}
	name=${base##*/}
	if ! xz -dc "$base.csv.xz" >"$tmp/1.csv"; then
		echo "FAIL: $base.csv.xz does not decompress"
		fail=1
		continue
	fi
	every10 "$tmp/1.csv" >"$tmp/10.csv"
	dur=$(tail -n 1 "$tmp/1.csv" | cut -d, -f1)
	for cad in 1 10; do
		for mode in process group; do
			set --
			[ $mode = group ] && set -- --group=name
			if ! "$memz" replay "$@" "$tmp/$cad.csv" >"$tmp/ev" 2>"$tmp/err" ||
			   [ -s "$tmp/err" ]; then
				echo "FAIL: memz replay $* $name"
				cat "$tmp/err"
				fail=1
				continue
			fi
			judge "$labels" "$tmp/ev" $mode $cad "$dur" "$name" || fail=1
		done
	done
done
exit $fail
