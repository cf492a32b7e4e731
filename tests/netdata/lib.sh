# Shared helpers for the netdata tests (sourced, POSIX sh).
#
# A test picks its own ports and temp dir, calls nd_setup/nd_start for each
# netdata it needs, and installs `trap nd_cleanup EXIT` so every daemon it
# started is stopped by pid, whatever happens. Waits poll against deadlines;
# nothing sleeps for a fixed time hoping something is ready.
#
# Both netdata versions: NETDATA_BIN is Debian's 1.37.1 (configure's
# netdata), NETDATA2_BIN a netdata 2.x (configure --with-netdata2), which
# a test picks with nd_need_netdata2. ND_MAJOR (1 or 2) follows NETDATA_BIN
# and chooses the health file, the log layout and how a function is called.

. "$top_srcdir/scripts/netdata-conf.sh"

ND_DIRS=""
ND_PIDS=""

nd_skip() { echo "SKIP: $*"; exit 77; }

nd_fail() {
	echo "FAIL: $*" >&2
	for d in $ND_DIRS; do
		_l=$(nd_log "$d")
		if [ -f "$_l" ]; then
			echo "--- $_l (memz lines, last 20)" >&2
			grep -i memz "$_l" | tail -n 20 >&2
		fi
	done
	exit 1
}

# nd_major: 1 or 2, the major version of NETDATA_BIN (NETDATA_MAJOR, which
# overrides what make install reads, is not for the tests).
nd_major() {
	[ -n "${ND_MAJOR:-}" ] ||
		ND_MAJOR=$(NETDATA_MAJOR="" sh "$top_srcdir/scripts/netdata-major.sh" "$NETDATA_BIN")
	echo "$ND_MAJOR"
}

# nd_log DIR: the log that holds netdata's lines about its plugins and a
# plugin's stderr: error.log on 1.x, collector.log on 2.x.
nd_log() {
	if [ "${ND_MAJOR:-1}" = 2 ]; then echo "$1/log/collector.log"
	else echo "$1/log/error.log"; fi
}

nd_now_ms() { date +%s%3N; }

# nd_poll SECONDS CMD...: run CMD every 0.2 s until it succeeds.
nd_poll() {
	_deadline=$(( $(nd_now_ms) + $1 * 1000 ))
	shift
	while :; do
		"$@" && return 0
		[ "$(nd_now_ms)" -lt "$_deadline" ] || return 1
		sleep 0.2
	done
}

nd_grep_q() { [ -f "$1" ] && grep -q -- "$2" "$1"; }

# nd_wait_grep FILE REGEX SECONDS
nd_wait_grep() { nd_poll "$3" nd_grep_q "$1" "$2"; }

# nd_api PORT PATH: GET from netdata's API on 127.0.0.1.
nd_api() { curl -sf --max-time 3 "http://127.0.0.1:$1$2"; }

nd_port_free() { ! ss -ltnH "sport = :$1" 2>/dev/null | grep -q .; }

# nd_pick_port BASE: BASE, or the next free one in steps of 7.
nd_pick_port() {
	_p=$1
	while ! nd_port_free "$_p"; do _p=$((_p + 7)); done
	echo "$_p"
}

# nd_install DIR: memz installed as a user installs it, into DIR/inst, with
# ND_INSTALL_ARGS added to make (SETCAP=/bin/false: an install where setcap
# fails); DIR/plugins is its plugins.d (scripts/netdata-conf.sh).
nd_install() {
	_rc=0
	# shellcheck disable=SC2086
	memz_netdata_install "$top_builddir" "$1" ${ND_INSTALL_ARGS:-} || _rc=$?
	case $_rc in
	0) ;;
	2) nd_fail "make install-exec installed no memz.plugin" ;;
	*) nd_fail "make install-exec failed: $(tail -n 5 "$1/install.log")" ;;
	esac
	# a build for packagers installs none; these tests are about the
	# plugin as make install leaves it for a user
	[ -n "${ND_INSTALL_ARGS:-}" ] || [ -n "$(getcap "$MEMZ_ND_PLUGIN" 2> /dev/null)" ] ||
		nd_skip "memz.plugin installed without capabilities (--disable-install-caps, or no setcap): $(cat "$1/install.out")"
}

# nd_setup DIR PORT HOSTNAME [noplugin]: a private netdata with memz.plugin
# (unless noplugin: a streaming parent), the shipped alarms and no other
# collector. It runs as Debian runs it, as user netdata (ND_USER: a test
# about something else may say root, and why), with memz.plugin installed.
nd_setup() {
	_d=$1
	mkdir -p "$_d"
	nd_install "$_d"
	# netdata drops to its user before reading most of this tree
	for _p in "$_d" "$(dirname "$_d")"; do chmod 755 "$_p"; done
	nd_major > /dev/null
	# shellcheck disable=SC2046
	memz_netdata_conf "$_d" "$2" "$3" --user "${ND_USER:-netdata}" \
		--major "$ND_MAJOR" \
		--alarms "$top_srcdir/conf/netdata/health.d/memz-netdata$ND_MAJOR.conf" \
		$([ "${4:-}" = noplugin ] && echo --no-memz) ||
		nd_fail "cannot set up netdata in $_d"
	# The helpers leak from birth, and a leak alarms only after it has
	# stood: the defaults (a young process is not judged for LeakWarmup,
	# a verdict alarms after LeakAlarmAfter, one of the largest is
	# published once PublishAfter old) would make every test wait
	# minutes. A test adds its own lines (>>); it_quickstart runs the
	# defaults.
	printf '[memz]\n%s\n' "${ND_MEMZ_CONF-LeakWarmup = 0
LeakAlarmAfter = 5
PublishAfter = 0}" > "$_d/etc/memz.conf"
	# Debian's netdata-core ships no system-info.sh; without it 1.37.1's
	# stream sender frees a pointer it never allocated and the child
	# aborts (munmap_chunk) on connecting. The stub fills every field.
	{
		echo '#!/bin/sh'
		for _k in CONTAINER_OS_NAME CONTAINER_OS_ID CONTAINER_OS_ID_LIKE \
			CONTAINER_OS_VERSION CONTAINER_OS_VERSION_ID \
			CONTAINER_OS_DETECTION HOST_OS_NAME HOST_OS_ID \
			HOST_OS_ID_LIKE HOST_OS_VERSION HOST_OS_VERSION_ID \
			HOST_OS_DETECTION SYSTEM_KERNEL_NAME SYSTEM_KERNEL_VERSION \
			SYSTEM_ARCHITECTURE SYSTEM_VIRTUALIZATION \
			SYSTEM_VIRT_DETECTION SYSTEM_CONTAINER \
			SYSTEM_CONTAINER_DETECTION SYSTEM_CPU_LOGICAL_CPU_COUNT \
			SYSTEM_CPU_FREQ SYSTEM_CPU_VENDOR SYSTEM_CPU_MODEL \
			SYSTEM_CPU_DETECTION SYSTEM_TOTAL_RAM SYSTEM_RAM_DETECTION \
			SYSTEM_TOTAL_DISK_SIZE SYSTEM_DISK_DETECTION; do
			echo "echo NETDATA_$_k=unknown"
		done
	} > "$_d/plugins/system-info.sh"
	chmod 755 "$_d/plugins/system-info.sh"
	ND_DIRS="$ND_DIRS $_d"
}

# nd_start DIR PORT: run netdata in the foreground (in the background of
# this shell), wait until its API answers.
nd_start() {
	NETDATA_DISABLE_CLOUD=1 "$NETDATA_BIN" -D -c "$1/netdata.conf" \
		> "$1/stdout.log" 2>&1 &
	echo $! > "$1/pid"
	ND_PIDS="$ND_PIDS $!"
	nd_poll 20 nd_api "$2" /api/v1/info > /dev/null ||
		nd_fail "netdata on port $2 did not answer"
}

nd_stop() {
	[ -f "$1/pid" ] || return 0
	_pid=$(cat "$1/pid")
	kill -TERM "$_pid" 2>/dev/null
	_deadline=$(( $(nd_now_ms) + 10000 ))
	while kill -0 "$_pid" 2>/dev/null; do
		if [ "$(nd_now_ms)" -ge "$_deadline" ]; then
			kill -KILL "$_pid" 2>/dev/null
			break
		fi
		sleep 0.1
	done
	wait "$_pid" 2>/dev/null
	rm -f "$1/pid"
}

# nd_starttime PID: the process's start time (field 22 of its stat, read
# after the last ')', since a hostile name may hold spaces and parentheses).
nd_starttime() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# nd_id PID: PID:START, for nd_ours. The shell reaps a background child that
# exited whenever it waits for another command, and a helper the kernel
# killed is reaped by its wrapper: either way its pid is free for another
# process (pid_max is 32768) by the time a cleanup signals it.
nd_id() { echo "$1:$(nd_starttime "$1")"; }

# nd_ours PID:START: PID is still the process nd_id named.
nd_ours() {
	[ "$(nd_starttime "${1%%:*}")" = "${1#*:}" ]
}

# Stops every netdata this shell started (and its memz.plugin children, which
# netdata itself stops), then extra pids in ND_EXTRA_PIDS (PID, or PID:START
# from nd_id for one that may be gone and its pid reused by then).
nd_cleanup() {
	for _d in $ND_DIRS; do nd_stop "$_d"; done
	for _p in ${ND_EXTRA_PIDS:-}; do
		case $_p in *:*) nd_ours "$_p" || continue ;; esac
		kill -TERM "${_p%%:*}" 2>/dev/null
	done
	for _p in ${ND_EXTRA_PIDS:-}; do wait "${_p%%:*}" 2>/dev/null; done
	[ -n "${ND_TMP:-}" ] && [ -z "${ND_KEEP:-}" ] && rm -rf "$ND_TMP"
	return 0
}

# nd_need_netdata2: NETDATA_BIN becomes the netdata 2.x configure found;
# skip, saying where one comes from, when there is none.
nd_need_netdata2() {
	[ -n "${NETDATA2_BIN:-}" ] ||
		nd_skip "no netdata 2.x (configure --with-netdata2=PREFIX; scripts/test-all.sh builds one into /opt/memz-netdata2 from MEMZ_NETDATA2_SRC)"
	[ -x "$NETDATA2_BIN" ] || nd_skip "no netdata 2.x at $NETDATA2_BIN"
	NETDATA_BIN=$NETDATA2_BIN
	ND_MAJOR=""
	nd_major > /dev/null
	[ "$ND_MAJOR" = 2 ] ||
		nd_skip "$NETDATA2_BIN is not netdata 2.x: $("$NETDATA2_BIN" -V 2>&1 | head -n 1)"
	nd_need_netdata
}

# nd_claim DIR: before nd_start, make the agent in DIR "claimed" (a node id
# on disk, no cloud connection), so that netdata 2.x writes its MCP key
# DIR/lib/mcp_dev_preview_api_key, the one way to call a function that
# requires a signed-in user without Netdata Cloud.
nd_claim() {
	mkdir -p "$1/lib/cloud.d" &&
	cat /proc/sys/kernel/random/uuid > "$1/lib/cloud.d/claimed_id" &&
	chown -R "${ND_USER:-netdata}:" "$1/lib/cloud.d"
}

# nd_mcp DIR PORT ID ARGS-JSON: call execute_function through the MCP
# endpoint of the claimed netdata in DIR with arguments ARGS-JSON (node,
# function, selections...); prints the JSON-RPC answer (one line, from the
# server-sent `data:` lines). 1: no answer.
nd_mcp() {
	_k=$(cat "$1/lib/mcp_dev_preview_api_key" 2> /dev/null) || return 1
	curl -sf --max-time 30 -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		-d "{\"jsonrpc\":\"2.0\",\"id\":$3,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_function\",\"arguments\":$4}}" \
		"http://127.0.0.1:$2/mcp?api_key=$_k" |
	sed -n 's/^data: //p' | grep -F '"jsonrpc"' | head -n 1 | grep .
}

# nd_need_netdata: skip unless a netdata binary was found at configure time.
nd_need_netdata() {
	[ -n "${NETDATA_BIN:-}" ] && [ -x "$NETDATA_BIN" ] ||
		nd_skip "no netdata (NETDATA_BIN empty)"
	[ -x "$top_builddir/memz.plugin" ] || nd_skip "memz.plugin not built"
	[ "$(id -u)" = 0 ] ||
		nd_skip "needs root, to install memz.plugin with its capabilities"
	[ "${ND_USER:-netdata}" = root ] || id netdata > /dev/null 2>&1 ||
		nd_skip "no user netdata"
	command -v curl > /dev/null || nd_skip "no curl"
	command -v python3 > /dev/null || nd_skip "no python3"
	command -v getcap > /dev/null || nd_skip "no getcap"
}

# nd_plugin_pid DIR: pid of the memz.plugin that netdata in DIR runs (a
# child of netdata on 1.x, of its spawn-plugins helper on 2.x; the plugin's
# path names DIR, so no other test's plugin matches).
nd_plugin_pid() {
	if [ "${ND_MAJOR:-1}" = 2 ]; then
		pgrep -x -f "$1/plugins/memz.plugin [0-9]+" | head -n 1
	else
		pgrep -P "$(cat "$1/pid")" -f "$1/plugins/memz.plugin" | head -n 1
	fi
}

# nd_memz_complaints DIR: print netdata's lines about memz.plugin other than
# its normal start-up, and the plugin's own stderr; exit 0 if there are any.
# The temp dir and hostnames contain "memz" too, so only the plugin thread's
# name (1.x PLUGINSD[memz], 2.x PD[memz]) and the plugin's own prefix are
# matched; 2.x logs nothing about a plugin that starts normally.
nd_memz_complaints() {
	_l=$(nd_log "$1")
	[ -f "$_l" ] || return 1
	grep -E 'PLUGINSD\[memz\]|thread=PD\[memz\]|memz\.plugin:|memz.plugin.*(exit|disabl|restart)' \
		"$_l" |
		grep -Ev 'thread created with task id|set name of thread|connected to .*memz.plugin. running on pid'
}

# nd_secs_since MS: seconds since a nd_now_ms reading, one decimal.
nd_secs_since() { awk -v a="$1" -v b="$(nd_now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# nd_ram PORT DIM: the latest memz.ram value of DIM (MiB, as charted).
nd_ram() {
	nd_api "$1" "/api/v1/data?chart=memz.ram&dimensions=$2&after=-1&points=1&format=json" |
	python3 -c 'import json, sys; d = json.load(sys.stdin)["data"]; print(d[0][1] if d and d[0][1] is not None else "")'
}

# nd_leak_is PORT DIM VALUE: DIM's latest value on memz.leaks is VALUE
# (a group's dimension id is its name, identifier-safe already).
nd_leak_is() {
	nd_api "$1" "/api/v1/data?chart=memz.leaks&dimensions=$2&after=-1&points=1&group=max&format=json" \
		> "$ND_TMP/leaks.json" &&
	python3 - "$ND_TMP/leaks.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["data"] and d["data"][0][1] == float(sys.argv[2]) else 1)
PY
}

# nd_status_field PID KEY: a field of /proc/PID/status (Uid: real uid).
nd_status_field() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# nd_users_ok PORT: memz.user_pss (and uss, swap, anon) under "users",
# a dimension per user, with root and netdata among them, and root's PSS
# within a factor of two of what /proc says of uid 0's processes
# (processes come and go between the two reads on a busy machine).
nd_users_ok() {
	nd_api "$1" "/api/v1/data?chart=memz.user_pss&after=-3&points=1&group=average&format=json&options=jsonwrap" \
		> "$ND_TMP/users.json" &&
	nd_api "$1" /api/v1/charts > "$ND_TMP/charts.json" &&
	python3 - "$ND_TMP/users.json" "$ND_TMP/charts.json" <<'PY'
import glob, json, sys
d = json.load(open(sys.argv[1]))["result"]
c = json.load(open(sys.argv[2]))["charts"]
vals = dict(zip(d["labels"][1:], d["data"][0][1:]))
# netdata's dimension reads 0 until it is published (PublishAfter)
if not vals.get("root") or not vals.get("netdata"):
    sys.exit(1)
for cid in ("memz.user_pss", "memz.user_uss", "memz.user_swap", "memz.user_anon"):
    assert c[cid]["family"] == "users" and c[cid]["units"] == "MiB", c[cid]
kib = 0
for p in glob.glob("/proc/[0-9]*"):
    try:
        if [l for l in open(p + "/status") if l.startswith("Uid:")][0].split()[1] == "0":
            kib += sum(int(l.split()[1]) for l in open(p + "/smaps_rollup")
                       if l.startswith("Pss:"))
    except (OSError, IndexError, ValueError):
        pass
print("memz.user_pss: root %.1f MiB (/proc %.1f MiB), netdata %.1f MiB, %d users"
      % (vals["root"], kib / 1024.0, vals["netdata"], len(vals)))
sys.exit(0 if 0.5 <= vals["root"] / (kib / 1024.0) <= 2 else 2)
PY
}
