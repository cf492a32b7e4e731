# tests/oom/cg.sh - a memory-limited cgroup for the OOM tests: made under
# the test's own memory cgroup (v1's memory controller, else v2), a helper
# started inside it, and everything removed afterwards.
#
# Usage: . "$top_srcdir/tests/oom/cg.sh"; oc_make NAME LIMIT_BYTES || skip
# Then:  oc_exec DIR CMD... (exec CMD inside the cgroup), oc_remove (from
#        the EXIT trap). OC_DIR is the cgroup's directory, OC_PATH its path
#        in the hierarchy (as /proc/PID/cgroup says), OC_ID memz's scope id.

# oc_make NAME LIMIT: 0, or 1 with the reason in OC_WHY.
oc_make() {
	OC_DIR=""
	[ "$(id -u)" = 0 ] || { OC_WHY="needs root to make a cgroup"; return 1; }
	_own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	if [ -n "$_own" ] && [ -f /sys/fs/cgroup/memory/memory.usage_in_bytes ]; then
		_root=/sys/fs/cgroup/memory
		OC_V=1
	else
		_own=$(sed -n 's/^0:://p' /proc/self/cgroup)
		_root=/sys/fs/cgroup
		OC_V=2
	fi
	_own=${_own%/}
	OC_PATH="$_own/memz-oom-$1-$$"
	if ! mkdir "$_root$OC_PATH" 2>/dev/null; then
		OC_WHY="cannot make a cgroup under $_root$_own"
		return 1
	fi
	OC_DIR="$_root$OC_PATH"
	if [ "$OC_V" = 1 ]; then
		echo "$2" > "$OC_DIR/memory.limit_in_bytes" 2>/dev/null &&
		{ [ ! -f "$OC_DIR/memory.memsw.limit_in_bytes" ] ||
		  echo "$2" > "$OC_DIR/memory.memsw.limit_in_bytes"; } ||
		{ OC_WHY="cannot set a memory limit"; return 1; }
	else
		# v2 lets a child of a cgroup with processes have no controller
		[ -f "$OC_DIR/memory.max" ] && echo "$2" > "$OC_DIR/memory.max" ||
			{ OC_WHY="no memory controller in $OC_DIR"; return 1; }
		[ ! -f "$OC_DIR/memory.swap.max" ] || echo 0 > "$OC_DIR/memory.swap.max"
	fi
	# memz's scope id: "cg" and the path made an identifier, its end kept
	_s=$(printf %s "$OC_PATH" | tr -c 'A-Za-z0-9_.-' '_')
	[ ${#_s} -le 61 ] || _s=$(printf %s "$_s" | tail -c 61)
	OC_ID="cg$_s"
	return 0
}

# oc_exec DIR CMD...: run CMD (exec'd, so it keeps the pid) in the cgroup.
oc_exec() {
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$@"
}

# oc_remove: kill what is left in the cgroup (only this test's helpers
# live there), wait until it is empty, remove it.
oc_remove() {
	[ -n "${OC_DIR:-}" ] && [ -d "$OC_DIR" ] || return 0
	for _p in $(cat "$OC_DIR/cgroup.procs" 2>/dev/null); do
		kill -KILL "$_p" 2>/dev/null
	done
	# a killed helper leaves the cgroup once its parent reaped it, which
	# a loaded machine may take a while to get to
	_i=0
	until rmdir "$OC_DIR" 2>/dev/null; do
		if [ $_i -ge 300 ]; then
			echo "could not remove $OC_DIR" >&2
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	OC_DIR=""
}
