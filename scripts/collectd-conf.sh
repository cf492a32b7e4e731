# A private collectd for memz, as the quick start and the integration tests
# run it (sourced, POSIX sh): one writer of the head of its collectd.conf
# (names, files, the log, the socket), so each caller adds only what is its
# own (how memz is loaded and set) and a change to the rest is made once.
#
# memz_collectd_conf DIR HOST [OPTIONS]
#   DIR/collectd.conf: hostname HOST, everything collectd writes in DIR
#   (collectd.pid, collectd.log), a unix socket for collectdctl. The caller
#   appends its plugins. Options:
#   --interval S       seconds between reads (default 1)
#   --socket FILE      the socket (default DIR/sock)
#   --socket-group G   the socket's group (default root)
#   --plugin-dir D     a PluginDir line first: where the stock plugins are
#   --csv              values as CSV files under DIR/csv too

memz_collectd_conf() {
	_mcc_d=$1
	_mcc_host=$2
	shift 2
	_mcc_interval=1
	_mcc_sock=$_mcc_d/sock
	_mcc_group=root
	_mcc_plugins=""
	_mcc_csv=""
	while [ $# -gt 0 ]; do
		case $1 in
		--interval) _mcc_interval=$2; shift ;;
		--socket) _mcc_sock=$2; shift ;;
		--socket-group) _mcc_group=$2; shift ;;
		--plugin-dir) _mcc_plugins="
PluginDir \"$2\""; shift ;;
		--csv) _mcc_csv="
LoadPlugin csv
<Plugin csv>
  DataDir \"$_mcc_d/csv\"
</Plugin>" ;;
		*) echo "memz_collectd_conf: unknown option $1" >&2; return 2 ;;
		esac
		shift
	done
	mkdir -p "$_mcc_d" || return 1
	[ -z "$_mcc_csv" ] || mkdir -p "$_mcc_d/csv" || return 1
	cat > "$_mcc_d/collectd.conf" <<EOF
Hostname "$_mcc_host"
FQDNLookup false
BaseDir "$_mcc_d"
PIDFile "$_mcc_d/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
Interval $_mcc_interval$_mcc_plugins
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$_mcc_d/collectd.log"
  Timestamp true
  PrintSeverity true
</Plugin>$_mcc_csv
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "$_mcc_sock"
  SocketGroup "$_mcc_group"
  DeleteSocket true
</Plugin>
EOF
}
