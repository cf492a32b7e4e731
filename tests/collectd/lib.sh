# tests/collectd/lib.sh - what every it_collectd_*.sh needs: a private temp
# dir, a private collectd config, daemons started in the foreground and
# stopped by pid whatever happens, and polling against deadlines.
#
# Usage: . "$top_srcdir/tests/collectd/lib.sh"; cd_init NAME
# Then:  cd_conf DIR HOST  (with CD_STOCK, CD_MEMZ_LOAD, CD_MEMZ set), cd_start DIR,
#        cd_wait_ready DIR, cd_getval DIR IDENT [DS], cd_poll SECONDS CMD...

set -u
. "$top_srcdir/scripts/collectd-conf.sh"

cd_skip() {
	echo "SKIP: $*"
	exit 77
}

cd_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cd_init() {
	[ -n "${COLLECTD_BIN:-}" ] || cd_skip "collectd not found at configure time"
	[ -n "${COLLECTDCTL_BIN:-}" ] || cd_skip "collectdctl not found at configure time"
	# The plugin is loaded into the real, uninstrumented daemon: an ASan
	# build of memz.so cannot run there.
	if grep -q fsanitize "$top_builddir/Makefile" 2>/dev/null; then
		cd_skip "sanitizer build"
	fi
	CD_SO="$top_builddir/.libs/memz.so"
	[ -f "$CD_SO" ] || cd_skip "memz.so not built (no collectd headers?)"
	LEAKER="$top_builddir/tests/leaker"
	[ -x "$LEAKER" ] || cd_fail "$LEAKER not built"

	CD_PIDS=""
	D=$(mktemp -d "${TMPDIR:-/tmp}/memz-$1.XXXXXX") || cd_fail "mktemp"
	# The exec plugin's scripts and an unprivileged daemon run as nobody.
	chmod 755 "$D"
	trap cd_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	CD_NAME=$1
	CD_STOCK=""
	CD_MEMZ=""
	# The helpers leak from birth, and 256 KiB/s alarms only after it has
	# stood: the defaults (a young process is not judged for LeakWarmup,
	# a verdict alarms after LeakAlarmAfter, one of the largest is
	# published once PublishAfter old) would make every test wait
	# minutes. it_quickstart runs the defaults.
	CD_MEMZ_TEST="  LeakWarmup 0
  LeakAlarmAfter 5
  PublishAfter 0"
	CD_MEMZ_LOAD="LoadPlugin memz"
	CD_SOCKET_GROUP="root"
}

# cd_starttime PID: the process's start time (field 22 of its stat, read
# after the last ')', since a hostile name may hold spaces and parentheses).
cd_starttime() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# A tracked pid carries its start time: a helper that is not this shell's
# child (a leaker exec'd by a wrapper) is reaped by someone else, and once
# the kernel OOM-kills it its pid may be reused (pid_max is 32768) before the
# cleanup, which must then leave that other process alone.
cd_track() {
	CD_PIDS="$CD_PIDS $1:$(cd_starttime "$1")"
}

cd_alive() {
	kill -0 "$1" 2>/dev/null
}

# cd_ours PID:START: PID is still the process that was tracked, and has not
# exited (a zombie child needs no signal, only the wait).
cd_ours() {
	_p=${1%%:*}
	[ "$(cd_starttime "$_p")" = "${1#*:}" ] && cd_alive "$_p" &&
		[ "$(sed 's/.*) //' "/proc/$_p/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]
}

cd_cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	for e in $CD_PIDS; do
		cd_ours "$e" && kill -TERM "${e%%:*}" 2>/dev/null
	done
	for e in $CD_PIDS; do
		i=0
		while cd_ours "$e" && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		cd_ours "$e" && kill -KILL "${e%%:*}" 2>/dev/null
		wait "${e%%:*}" 2>/dev/null
	done
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		for f in "$D"/*/collectd.log "$D"/*/stdout; do
			[ -s "$f" ] || continue
			echo "--- $f (last 40 lines)" >&2
			tail -n 40 "$f" >&2
		done
	fi
	if [ -n "${MEMZ_KEEP_TMP:-}" ]; then
		echo "kept $D" >&2
	else
		rm -rf "$D"
	fi
	exit $rc
}

cd_now() {
	date +%s.%N
}

# Seconds since $1 (a cd_now reading), with one decimal.
cd_since() {
	awk -v t0="$1" -v t1="$(cd_now)" 'BEGIN { printf "%.1f", t1 - t0 }'
}

# cd_poll SECONDS CMD...: run CMD every 0.1 s until it succeeds (0) or the
# deadline passes (1).
cd_poll() {
	_limit=$1
	shift
	_t0=$(cd_now)
	while :; do
		"$@" && return 0
		awk -v t0="$_t0" -v t1="$(cd_now)" -v l="$_limit" \
			'BEGIN { exit !(t1 - t0 >= l) }' && return 1
		sleep 0.1
	done
}

# A port for the network plugin nobody else on this machine listens on.
cd_free_udp_port() {
	_p=$((20000 + ($$ * 7 + $(date +%N | sed 's/^0*//;s/^$/0/')) % 30000))
	while ss -Hlun 2>/dev/null | awk '{ print $4 }' | grep -q ":$_p\$"; do
		_p=$((_p + 1))
	done
	echo "$_p"
}

# cd_conf DIR HOST: a private config in DIR. CD_STOCK holds extra stock
# plugin lines (network, exec); CD_MEMZ the body of <Plugin memz>;
# CD_MEMZ_LOAD how memz is loaded ("" for a daemon without memz).
cd_conf() {
	_dir=$1
	_host=$2
	mkdir -p "$_dir/plugins"
	cp "$CD_SO" "$_dir/plugins/memz.so"
	memz_collectd_conf "$_dir" "$_host" --plugin-dir /usr/lib/collectd \
		--csv --socket-group "$CD_SOCKET_GROUP" ||
		cd_fail "cannot write $_dir/collectd.conf"
	printf '%s\n' "$CD_STOCK" >>"$_dir/collectd.conf"
	# A daemon without memz (a forwarding receiver) gets no memz block:
	# collectd would warn about configuration for a plugin not loaded.
	[ -z "$CD_MEMZ_LOAD" ] || cat >>"$_dir/collectd.conf" <<EOF
PluginDir "$_dir/plugins"
$CD_MEMZ_LOAD
<Plugin memz>
$CD_MEMZ_TEST
$CD_MEMZ
</Plugin>
EOF
	echo "$_host" >"$_dir/host"
}

# cd_start DIR [WRAPPER...]: collectd in the foreground; its pid in CD_PID.
cd_start() {
	_dir=$1
	shift
	"$@" "$COLLECTD_BIN" -f -C "$_dir/collectd.conf" >"$_dir/stdout" 2>&1 &
	CD_PID=$!
	cd_track "$CD_PID"
	echo "$CD_PID" >"$_dir/daemon.pid"
}

cd_listval() {
	"$COLLECTDCTL_BIN" -s "$1/sock" listval 2>/dev/null
}

# cd_wait_ready DIR: the daemon answers on its socket (10 s).
cd_wait_ready() {
	cd_poll 10 cd_listval "$1" >/dev/null ||
		cd_fail "collectd in $1 did not answer on its socket"
}

# cd_getval DIR IDENT [DS]: one data source's value (default "value"), as
# collectdctl prints it; fails if the identifier is unknown.
cd_getval() {
	cd_getval_host "$1" "$(cat "$1/host")" "$2" "${3:-value}"
}

# cd_getval_host DIR HOST IDENT [DS]: the same for values another host sent.
cd_getval_host() {
	"$COLLECTDCTL_BIN" -s "$1/sock" getval "$2/$3" 2>/dev/null |
		sed -n "s/^${4:-value}=//p" | grep .
}

# cd_has_val DIR IDENT: the identifier has a value.
cd_has_val() {
	cd_getval "$1" "$2" >/dev/null
}

# cd_log_has DIR FIXED-STRING
cd_log_has() {
	grep -qF -- "$2" "$1/collectd.log" 2>/dev/null
}

# cd_parts_sum DIR: "EPOCH SUM" of the RAM breakdown's parts (bytes) at the
# latest dispatch every part has reached, from the csv plugin's rows. The
# parts add up within one dispatch; a getval of each, one after another,
# may straddle two, and the machine's free and cached move in between.
cd_parts_sum() {
	_h=$(cat "$1/host")
	for _part in free pcp_free buffers cached slab page_tables \
		process_anon hidden_anon kernel_residual; do
		cat "$1/csv/$_h/memz/memory-$_part"-* 2>/dev/null |
			grep -v '^epoch' | sed "s/^/$_part,/"
	done | awk -F, '{ v[$2] += $3; n[$2]++ }
		END {
			for (e in n)
				if (n[e] == 9 && (best == "" || e + 0 > best + 0))
					best = e
			if (best == "")
				exit 1
			printf "%s %.0f\n", best, v[best]
		}'
}

# cd_num_cmp A OP B: numeric comparison of decimal or exponent numbers.
cd_num_cmp() {
	awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
		if (op == "<")  exit !(a + 0 <  b + 0);
		if (op == "<=") exit !(a + 0 <= b + 0);
		if (op == ">")  exit !(a + 0 >  b + 0);
		if (op == ">=") exit !(a + 0 >= b + 0);
		exit 2 }'
}

# cd_leaker PIDFILE [WRAPPER... --] ARGS...: start the helper, wait until it
# printed its pid (it has its name by then); its pid in LEAKER_PID.
cd_leaker() {
	_out=$1
	shift
	"$@" >"$_out" &
	_lp=$!
	cd_track "$_lp"
	cd_poll 5 grep -qs . "$_out" || cd_fail "leaker did not start: $*"
	LEAKER_PID=$(head -n 1 "$_out")
	[ "$LEAKER_PID" = "$_lp" ] || cd_track "$LEAKER_PID"
}

# cd_notif_line DIR SEVERITY MESSAGE-PREFIX: the first notification the
# logfile plugin wrote with that severity and a message starting so.
cd_notif_line() {
	grep -F "severity = $2," "$1/collectd.log" 2>/dev/null |
		grep -F "message = $3" | head -n 1 | grep .
}

cd_has_notif() {
	cd_notif_line "$@" >/dev/null
}

# cd_exec_notifications DIR: make the exec plugin (as nobody) write each
# notification it gets, meta data included, to DIR/notif/. Appends to
# CD_STOCK. Each file appears whole (written aside, then renamed): a test
# polls for one by its first lines, then reads its meta data and message.
cd_exec_notifications() {
	mkdir -p "$1/notif"
	chmod 777 "$1/notif"
	printf '#!/bin/sh\ncat >"%s/notif/.n.$$" && mv "%s/notif/.n.$$" "%s/notif/n.$$"\n' \
		"$1" "$1" "$1" >"$1/notify.sh"
	chmod 755 "$1" "$1/notify.sh"
	CD_STOCK="$CD_STOCK
LoadPlugin exec
<Plugin exec>
  NotificationExec \"nobody\" \"$1/notify.sh\"
</Plugin>"
}

# cd_exec_notif DIR SEVERITY PLUGIN-INSTANCE PID: the file of the first such
# notification the exec plugin received.
cd_exec_notif() {
	for _f in "$1"/notif/n.*; do
		[ -f "$_f" ] || continue
		grep -qx "Severity: $2" "$_f" &&
			grep -qx "PluginInstance: $3" "$_f" &&
			{ [ -z "${4:-}" ] || grep -qx "pid: $4" "$_f"; } &&
			{ echo "$_f"; return 0; }
	done
	return 1
}

# cd_meta FILE NAME: a meta data line's value from an exec notification.
cd_meta() {
	sed -n "s/^$2: //p" "$1" | head -n 1 | grep .
}
