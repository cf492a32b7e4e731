# A private netdata for memz, as the quick start and the integration tests
# run it (sourced, POSIX sh). One writer of its netdata.conf and plugins.d,
# so that what netdata needs (a setting, a directory, its user) is changed
# in one place and the quick start keeps running what the tests check.
#
# memz_netdata_install BUILD DIR [MAKE-ARGS...]
#   `make install-exec DESTDIR=DIR/inst` in BUILD, as a user installs memz
#   (mk/netdata.mk's hook sets mode, owner and capabilities); DIR/plugins
#   becomes the installed plugins.d, so netdata runs the installed binary
#   itself. Make's output is in DIR/install.log, the hook's advice in
#   DIR/install.out, the plugin's path in MEMZ_ND_PLUGIN. 1: make failed;
#   2: it installed no memz.plugin.
#
# memz_netdata_conf DIR PORT HOSTNAME [OPTIONS]
#   DIR/netdata.conf and the directories it names: RAM only, a one second
#   update, the API on 127.0.0.1:PORT, no cloud, registry, ML, or collector
#   but memz (and proc with --proc). Options:
#   --user USER       what netdata runs as (default netdata, as Debian runs
#                     it); owns the cache, lib and log directories
#   --alarms FILE     copied into DIR/etc/health.d (the only alarms, unless
#                     --netdata-lib)
#   --netdata-lib D   an installed netdata's D/plugins.d and stock D/conf.d
#                     (and its health.d) instead of DIR/plugins and no stock
#                     alarms
#   --no-memz         memz.plugin off (a streaming parent)
#   --proc            netdata's proc plugin on
#   --major 1|2       the netdata's major version (default 1): 2.x names
#                     its logs differently and has no error.log (a plugin's
#                     stderr lands in DIR/log/collector.log)

memz_netdata_install() {
	_mni_build=$1
	_mni_dir=$2
	shift 2
	# MAKEFLAGS of a make that runs us (make check's TESTS=..., -j) are
	# not for this make
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -s \
		-C "$_mni_build" install-exec DESTDIR="$_mni_dir/inst" "$@" \
		> "$_mni_dir/install.log" 2>&1 || return 1
	# what the hook says, without make's echo of each command
	grep '^memz:' "$_mni_dir/install.log" > "$_mni_dir/install.out"
	MEMZ_ND_PLUGIN=$(find "$_mni_dir/inst" -name memz.plugin -type f | head -n 1)
	[ -n "$MEMZ_ND_PLUGIN" ] || return 2
	ln -s "$(dirname "$MEMZ_ND_PLUGIN")" "$_mni_dir/plugins"
}

memz_netdata_conf() {
	_mnc_d=$1
	_mnc_port=$2
	_mnc_host=$3
	shift 3
	_mnc_user=netdata
	_mnc_alarms=""
	_mnc_lib=""
	_mnc_memz=yes
	_mnc_proc=no
	_mnc_major=1
	while [ $# -gt 0 ]; do
		case $1 in
		--user) _mnc_user=$2; shift ;;
		--alarms) _mnc_alarms=$2; shift ;;
		--netdata-lib) _mnc_lib=$2; shift ;;
		--no-memz) _mnc_memz=no ;;
		--proc) _mnc_proc=yes ;;
		--major) _mnc_major=$2; shift ;;
		*) echo "memz_netdata_conf: unknown option $1" >&2; return 2 ;;
		esac
		shift
	done
	mkdir -p "$_mnc_d/etc/health.d" "$_mnc_d/cache" "$_mnc_d/lib" \
		"$_mnc_d/log" || return 1
	if [ -n "$_mnc_lib" ]; then
		_mnc_plugins=$_mnc_lib/plugins.d
		_mnc_stock="
    stock config = $_mnc_lib/conf.d"
		_mnc_health=$_mnc_lib/conf.d/health.d
	else
		# no stock alarms: memz's are the only ones netdata loads
		_mnc_plugins=$_mnc_d/plugins
		_mnc_stock=""
		_mnc_health=$_mnc_d/emptyhealth
		mkdir -p "$_mnc_health" || return 1
	fi
	# netdata drops to its user before it writes these
	[ "$_mnc_user" = root ] ||
		chown -R "$_mnc_user:" "$_mnc_d/cache" "$_mnc_d/lib" "$_mnc_d/log" ||
		return 1
	[ -z "$_mnc_alarms" ] ||
		cp "$_mnc_alarms" "$_mnc_d/etc/health.d/memz.conf" || return 1
	# 1.37.1 writes error.log; 2.x splits its log by source and has its
	# registry directory under its compiled-in prefix unless told
	if [ "$_mnc_major" = 1 ]; then
		_mnc_logs="access log = none"
		_mnc_dirs=""
	else
		_mnc_logs="daemon = $_mnc_d/log/daemon.log
    collector = $_mnc_d/log/collector.log
    health = $_mnc_d/log/health.log
    access = off"
		_mnc_dirs="
    registry = $_mnc_d/lib/registry"
	fi
	cat > "$_mnc_d/netdata.conf" <<EOF
[global]
    run as user = $_mnc_user
    hostname = $_mnc_host
[db]
    mode = ram
    update every = 1
[directories]
    config = $_mnc_d/etc$_mnc_stock
    plugins = "$_mnc_plugins"
    cache = $_mnc_d/cache
    lib = $_mnc_d/lib
    log = $_mnc_d/log
    home = $_mnc_d/lib
    health config = $_mnc_d/etc/health.d
    stock health config = $_mnc_health$_mnc_dirs
[logs]
    $_mnc_logs
[web]
    bind to = 127.0.0.1:$_mnc_port
[registry]
    enabled = no
[ml]
    enabled = no
[health]
    run at least every seconds = 1
    script to execute on alarm = /bin/true
[plugins]
    enable running new plugins = no
    check for new plugins every = 1
    memz = $_mnc_memz
    proc = $_mnc_proc
    diskspace = no
    cgroups = no
    tc = no
    idlejitter = no
    statsd = no
    timex = no
[statsd]
    enabled = no
EOF
}
