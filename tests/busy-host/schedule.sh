# The schedule helpers of a busy-host recording, sourced by record.sh and
# record-mix.sh inside their pid namespace once they have set scale (what
# every time is multiplied by) and events (the events.log path). Sets t0,
# the boot-clock time the recording's schedule counts from.

# sc SECONDS: SECONDS times the scale, whole
sc() { awk -v t="$1" -v s="$scale" 'BEGIN { printf "%d", t * s + 0.5 }'; }
boot() { cut -d' ' -f1 /proc/uptime; }
# ev PID NAME EVENT [DETAIL]: a line of events.log for what the shell did
ev() { echo "$(boot) $*" >>"$events"; }
t0=$(boot)
# at T: wait until T seconds (scaled) after the recording began
at() {
	local due
	due=$(awk -v t0="$t0" -v t="$1" -v s="$scale" 'BEGIN { print t0 + t * s }')
	sleep "$(awk -v d="$due" -v n="$(boot)" 'BEGIN { print (d > n ? d - n : 0) }')"
}
freeport() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
