#!/bin/sh
# The Debian packages as an operator gets them. From what `make dist` ships
# (copied to a temp dir: the source tree is never written), build the
# source package and memz, memz-collectd and memz-netdata with
# dpkg-buildpackage; lintian must show no error or warning on any; install
# them with apt-get; check what memz-netdata's postinst did to memz.plugin
# (its setuid fallback, its trigger that sets the capabilities again after
# netdata-core's chown, an administrator's statoverride); run a netdata as
# Debian does (user netdata) from the installed plugin, config and alarms,
# and a collectd (as root, as Debian does) with the installed example config
# enabled; both must report a root-owned process with its real PSS. Then
# purge, and nothing the packages installed may be left.
#
# Skips (77) when not root, without dpkg-buildpackage, lintian, netdata or
# collectd, under make distcheck, or when a memz package or any file the
# packages would install is already there (it does not clobber an
# operator's install). Whatever happens it stops what it started by pid
# and purges what it installed.
set -u
. "$top_srcdir/tests/netdata/lib.sh"
. "$top_srcdir/tests/collectd/lib.sh"

skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "not root: installs packages"
# the packages are built from `make dist` with Debian's flags, whatever
# this build's: the sanitizer stage would only build the same again
[ -z "${MEMZ_SKIP_PACKAGES:-}" ] || skip "MEMZ_SKIP_PACKAGES: $MEMZ_SKIP_PACKAGES"
for c in dpkg-buildpackage dpkg-parsechangelog lintian apt-get getcap \
	curl python3; do
	command -v "$c" > /dev/null || skip "no $c"
done
[ -n "${NETDATA_BIN:-}" ] && [ -x "$NETDATA_BIN" ] || skip "no netdata"
[ -n "${COLLECTD_BIN:-}" ] && [ -n "${COLLECTDCTL_BIN:-}" ] || skip "no collectd"
# automake's distcheck builds in $(distdir)/_build/sub (and names the
# source dir _build/sub/../..): the release check is about the tarball, not
# about installing packages on the machine.
case "$(cd "$top_builddir" && pwd -P)" in
"$(cd "$top_srcdir" && pwd -P)"/_build/*) skip "under make distcheck" ;;
esac
LEAKER="$top_builddir/tests/leaker"
[ -x "$LEAKER" ] || nd_fail "$LEAKER not built"

PKGS="memz memz-collectd memz-netdata"
DUMMY=memz-it-plugins-d
for p in $PKGS $DUMMY; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null)
	case "$st" in
	"" | not-installed) ;;
	*) skip "package $p is already $st here: not clobbering it" ;;
	esac
done

# The package's version is configure.ac's (a native package: no Debian
# revision), so the release tarball and dpkg name the same version.
ac_version=$(sed -n 's/^AC_INIT(\[memz\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
ch_version=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)
[ -n "$ac_version" ] || nd_fail "no version in configure.ac's AC_INIT"
[ "$ac_version" = "$ch_version" ] ||
	nd_fail "debian/changelog says $ch_version, configure.ac's AC_INIT $ac_version"

t0=$(nd_now_ms)
T=$(mktemp -d /tmp/memz-it-packages.XXXXXX) || nd_fail mktemp
chmod 755 "$T"
ND="$T/nd"
CDD="$T/cd"
ND_DIRS=""
CD_PIDS=""
installed=0
dummy_installed=0
override_added=0

cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	[ -z "$ND_DIRS" ] || nd_stop "$ND"
	# cd_start tracks collectd as PID:START (tests/collectd/lib.sh)
	for e in $CD_PIDS; do
		case $e in *:*) cd_ours "$e" || continue ;; esac
		kill -TERM "${e%%:*}" 2> /dev/null
	done
	for e in $CD_PIDS; do
		p=${e%%:*}
		i=0
		while kill -0 "$p" 2> /dev/null && [ "$i" -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		case $e in *:*) cd_ours "$e" && kill -KILL "$p" 2> /dev/null ;;
		*) kill -KILL "$p" 2> /dev/null ;; esac
		wait "$p" 2> /dev/null
	done
	if [ "$override_added" = 1 ]; then
		dpkg-statoverride --remove "$PLUGIN" ||
			{ echo "cleanup: dpkg-statoverride --remove $PLUGIN failed" >&2; rc=1; }
	fi
	if [ "$dummy_installed" = 1 ]; then
		dpkg --purge "$DUMMY" >> "$T/purge.log" 2>&1 ||
			{ echo "cleanup: purging $DUMMY failed" >&2; rc=1; }
	fi
	if [ "$installed" = 1 ]; then
		# shellcheck disable=SC2086
		apt-get purge -y -q -o DPkg::Lock::Timeout=120 $PKGS \
			>> "$T/purge.log" 2>&1 ||
			{ echo "cleanup: purge failed:" >&2; tail -n 20 "$T/purge.log" >&2; rc=1; }
	fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		for f in "$T/build.log" "$T/apt.log" "$CDD/collectd.log" \
			"$ND/log/error.log"; do
			[ -s "$f" ] || continue
			echo "--- $f (last 30 lines)" >&2
			tail -n 30 "$f" >&2
		done
	fi
	if [ -n "${MEMZ_KEEP_TMP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# --- build -------------------------------------------------------------
SRC="$T/src/memz-$ac_version"
mkdir "$T/src" || nd_fail "mkdir"
make -s -C "$top_builddir" distdir distdir="$SRC" > "$T/distdir.log" 2>&1 ||
	{ cat "$T/distdir.log" >&2; nd_fail "make distdir"; }
# The source package first, from the clean tree (memz builds in tree).
(cd "$T/src" && dpkg-source -b "memz-$ac_version") > "$T/source.log" 2>&1 ||
	{ cat "$T/source.log" >&2; nd_fail "dpkg-source -b"; }
# nocheck: the unit tests run in this same `make check` already, and a
# second run inside the package build would not take the integration lock.
# The package build is a make of its own: none of this make's flags.
(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) > "$T/build.log" 2>&1 ||
	nd_fail "dpkg-buildpackage failed"
echo "built the packages in $(nd_secs_since "$t0") s"

DEBS=""
for p in $PKGS; do
	f="$T/src/${p}_${ac_version}_$(dpkg --print-architecture).deb"
	[ -f "$f" ] || nd_fail "dpkg-buildpackage made no $f"
	v=$(dpkg-deb -f "$f" Version)
	[ "$v" = "$ac_version" ] || nd_fail "$p has version $v, configure.ac $ac_version"
	DEBS="$DEBS $f"
done
# Exactly the three: `apt-get install ./memz*.deb` (the README) installs
# what was built and nothing else.
n=$(find "$T/src" -maxdepth 1 -name 'memz*.deb' | wc -l)
[ "$n" -eq 3 ] || nd_fail "expected 3 memz*.deb, found $n"

# --- lintian -------------------------------------------------------------
lintian --fail-on error,warning -I "$T"/src/memz_*.changes "$T/src/memz_$ac_version.dsc" \
	> "$T/lintian.log" 2>&1
lrc=$?
grep -v '^running with root privileges' "$T/lintian.log" | sed 's/^/lintian: /'
[ "$lrc" -eq 0 ] || nd_fail "lintian reports errors or warnings (exit $lrc)"
if grep -E '^[EW]: ' "$T/lintian.log"; then nd_fail "lintian: errors or warnings"; fi
echo "lintian: no errors or warnings"

# --- what the packages hold, and what is here before ------------------------
# One line per path: 1 if it exists now, 0 if not. A file (not a
# directory) that exists already belongs to someone: skip.
: > "$T/paths"
for f in $DEBS; do
	dpkg-deb --fsys-tarfile "$f" | tar -tf - | sed 's|^\./|/|; s|/$||' |
		grep -v '^\.\?$'
done | sort -u > "$T/pkgpaths"
while read -r p; do
	if [ -e "$p" ] || [ -L "$p" ]; then
		[ -d "$p" ] && [ ! -L "$p" ] || skip "$p already exists (installed by hand?): not clobbering it"
		echo "1 $p"
	else
		echo "0 $p"
	fi
done < "$T/pkgpaths" > "$T/paths"

for want in /usr/bin/memz /usr/lib/collectd/memz.so \
	/etc/collectd/collectd.conf.d/memz.conf \
	/usr/lib/netdata/plugins.d/memz.plugin \
	/usr/lib/netdata/conf.d/memz.conf \
	/usr/lib/netdata/conf.d/health.d/memz.conf; do
	grep -qx "$want" "$T/pkgpaths" || nd_fail "no package holds $want"
done

# --- install -------------------------------------------------------------
installed=1
# shellcheck disable=SC2086
apt-get install -y -q -o DPkg::Lock::Timeout=120 --no-install-recommends \
	$DEBS > "$T/apt.log" 2>&1 || nd_fail "apt-get install failed"
for p in $PKGS; do
	dpkg-query -W -f='${db:Status-Status}' "$p" | grep -qx installed ||
		nd_fail "$p not installed"
done
dpkg-query -W -f='${Conffiles}\n' memz-collectd |
	grep -q '^ /etc/collectd/collectd.conf.d/memz.conf ' ||
	nd_fail "the collectd example config is not a conffile"
: > "$T/dpkg-L"
for p in $PKGS; do dpkg -L "$p" >> "$T/dpkg-L"; done
echo "installed in $(nd_secs_since "$t0") s"

# --- memz-netdata's postinst ------------------------------------------------
PLUGIN=/usr/lib/netdata/plugins.d/memz.plugin
plugin_state() { echo "$(stat -c '%a %U:%G' "$PLUGIN") $(getcap "$PLUGIN" | sed 's/^[^ ]* //')"; }
CAPS="cap_dac_read_search,cap_sys_ptrace=ep"
st=$(plugin_state)
echo "memz.plugin after install: $st"
[ "$st" = "750 root:netdata $CAPS" ] || nd_fail "memz.plugin is '$st', want '750 root:netdata $CAPS'"
# Where setcap fails (no xattrs), the plugin is setuid root instead; the
# next configure (an upgrade) goes back to capabilities.
mkdir "$T/nosetcap"
printf '#!/bin/sh\necho "setcap: not supported" >&2\nexit 1\n' > "$T/nosetcap/setcap"
chmod 755 "$T/nosetcap/setcap"
PATH="$T/nosetcap:$PATH" sh /var/lib/dpkg/info/memz-netdata.postinst configure \
	> "$T/fallback.log" 2>&1 || { cat "$T/fallback.log"; nd_fail "postinst failed without setcap"; }
st=$(plugin_state)
echo "memz.plugin where setcap fails: $st"
[ "$st" = "4750 root:netdata " ] || nd_fail "without setcap memz.plugin is '$st', want '4750 root:netdata'"
grep -q 'setuid root' "$T/fallback.log" || nd_fail "the fallback says nothing"
sh /var/lib/dpkg/info/memz-netdata.postinst configure "$ac_version" ||
	nd_fail "postinst failed"
st=$(plugin_state)
[ "$st" = "750 root:netdata $CAPS" ] || nd_fail "after a second configure memz.plugin is '$st'"
# netdata-core's postinst runs `chown -R root:netdata` on plugins.d at every
# upgrade, which clears file capabilities; memz-netdata's file trigger must
# set them again afterwards. A stand-in package does what netdata-core
# does: puts a file in plugins.d, and chowns memz.plugin in its postinst.
mkdir -p "$T/dummy/DEBIAN" "$T/dummy/usr/lib/netdata/plugins.d"
printf 'Package: %s\nVersion: 1\nArchitecture: all\nMaintainer: memz tests <tests@localhost>\nDescription: stand-in for a netdata-core upgrade (memz tests)\n' \
	"$DUMMY" > "$T/dummy/DEBIAN/control"
printf '#!/bin/sh\nset -e\nchown root:netdata %s\n' "$PLUGIN" > "$T/dummy/DEBIAN/postinst"
chmod 755 "$T/dummy/DEBIAN/postinst"
echo "memz tests" > "$T/dummy/usr/lib/netdata/plugins.d/$DUMMY.txt"
dpkg-deb --root-owner-group --build "$T/dummy" "$T/dummy.deb" > /dev/null ||
	nd_fail "dpkg-deb --build"
dummy_installed=1
dpkg -i "$T/dummy.deb" > "$T/dummy.log" 2>&1 || { cat "$T/dummy.log"; nd_fail "dpkg -i stand-in"; }
st=$(plugin_state)
echo "memz.plugin after a package changed plugins.d and chowned it: $st"
[ "$st" = "750 root:netdata $CAPS" ] || nd_fail "the trigger did not set the capabilities again: '$st'"
dpkg --purge "$DUMMY" > "$T/dummy.log" 2>&1 || { cat "$T/dummy.log"; nd_fail "dpkg --purge stand-in"; }
dummy_installed=0
# An administrator's dpkg-statoverride wins over the postinst.
dpkg-statoverride --add root root 0700 "$PLUGIN" || nd_fail "dpkg-statoverride --add"
override_added=1
chown root:root "$PLUGIN"
chmod 0700 "$PLUGIN"
sh /var/lib/dpkg/info/memz-netdata.postinst configure "$ac_version" ||
	nd_fail "postinst failed with a statoverride"
st=$(plugin_state)
[ "$st" = "700 root:root " ] || nd_fail "the postinst overrode the administrator's statoverride: '$st'"
echo "memz.plugin under an administrator's statoverride 0700 root:root: $st"
dpkg-statoverride --remove "$PLUGIN" || nd_fail "dpkg-statoverride --remove"
override_added=0
sh /var/lib/dpkg/info/memz-netdata.postinst configure "$ac_version" ||
	nd_fail "postinst failed"
st=$(plugin_state)
[ "$st" = "750 root:netdata $CAPS" ] || nd_fail "after the statoverride went, memz.plugin is '$st'"

# --- a root-owned process both hosts must see ---------------------------------
PROBE=memzpkgprobe
"$LEAKER" --name "$PROBE" --once 16 > "$T/leaker.out" &
LEAKER_PID=$!
CD_PIDS="$LEAKER_PID"
nd_poll 5 grep -qs . "$T/leaker.out" || nd_fail "the probe process did not start"
[ "$(stat -c %U "/proc/$(head -n 1 "$T/leaker.out")")" = root ] ||
	nd_fail "the probe is not root's"

# --- netdata, as Debian runs it, from the installed files ----------------------
PORT=$(nd_pick_port 19951)
memz_netdata_conf "$ND" "$PORT" memzpkg --netdata-lib /usr/lib/netdata ||
	nd_fail "cannot set up netdata in $ND"
# What the stock file's own comment tells an operator to do: copy it to
# netdata's config directory and edit it there.
cp /usr/lib/netdata/conf.d/memz.conf "$ND/etc/memz.conf"
echo "ProcessMatch = ^$PROBE\$" >> "$ND/etc/memz.conf"
ND_DIRS="$ND"
nd_start "$ND" "$PORT"

nd_plugin_running() {
	PLUGIN_PID=$(pgrep -P "$(cat "$ND/pid")" -f "$PLUGIN" | head -n 1) &&
		[ -n "$PLUGIN_PID" ]
}
nd_poll 30 nd_plugin_running || nd_fail "netdata did not start $PLUGIN"
puser=$(ps -o user= -p "$PLUGIN_PID" | tr -d ' ')
[ "$puser" = netdata ] || nd_fail "memz.plugin runs as $puser, not netdata"
pexe=$(readlink "/proc/$PLUGIN_PID/exe")
[ "$pexe" = "$PLUGIN" ] || nd_fail "netdata runs $pexe, not the installed plugin"

# The probe's group has its 16 MiB of PSS (without the capabilities the
# group is missing: root's smaps_rollup is unreadable to user netdata), and
# the anonymous memory of processes memz could not read (hidden_anon) is
# under half of all process memory (without them it was over 99% here; on a
# machine busy with builds, processes that start and exit between reads
# keep a few percent hidden even as root, so a tighter bound is flaky).
nd_sees_probe() {
	nd_api "$PORT" "/api/v1/data?chart=memz.group_pss&after=-3&points=1&format=json&options=jsonwrap" \
		> "$T/nd_pss.json" &&
		nd_api "$PORT" "/api/v1/data?chart=memz.ram&after=-10&points=1&group=average&format=json&options=jsonwrap" \
			> "$T/nd_ram.json" &&
		python3 - "$T/nd_pss.json" "$T/nd_ram.json" "$PROBE" << 'PY'
import json, sys
def row(path):
    d = json.load(open(path))["result"]
    return dict(zip(d["labels"][1:], d["data"][0][1:]))
pss, ram = row(sys.argv[1]), row(sys.argv[2])
probe = pss.get(sys.argv[3])
proc, hidden = ram.get("process_anon"), ram.get("hidden_anon")
if probe is None or proc is None or hidden is None:
    sys.exit(1)
print("netdata: %s PSS %.1f MiB; process_anon %.1f MiB, hidden_anon %.1f MiB" %
      (sys.argv[3], probe, proc, hidden))
sys.exit(0 if probe >= 15 and hidden < 0.5 * (proc + hidden) else 1)
PY
}
nd_poll 60 nd_sees_probe > "$T/nd_seen.log" ||
	{ tail -n 1 "$T/nd_seen.log"; nd_fail "netdata's memz.plugin (user netdata) did not report the root-owned $PROBE with its PSS"; }
tail -n 1 "$T/nd_seen.log"
# The alarms come from the installed health.d file (stock health config).
nd_alarm_loaded() {
	nd_api "$PORT" "/api/v1/alarms?all" > "$T/alarms.json" &&
		python3 - "$T/alarms.json" << 'PY'
import json, sys
a = json.load(open(sys.argv[1]))["alarms"].values()
st = [v["status"] for v in a
      if v["name"] == "memz_oom_kills" and v["chart"].startswith("memz.oom_kills")]
if not st:
    sys.exit(1)
print("netdata: alarm memz_oom_kills is %s" % st[0])
PY
}
nd_poll 20 nd_alarm_loaded || nd_fail "the installed memz alarms are not loaded"
echo "netdata saw it $(nd_secs_since "$t0") s after the start"

# --- collectd, as root, with the installed example config enabled -------------
mkdir -p "$CDD"
# The installed file is commented out from `#LoadPlugin memz` on; one
# level of `#` off enables it with every default it shows.
sed -n '/^#LoadPlugin memz$/,$ s/^#//p' /etc/collectd/collectd.conf.d/memz.conf \
	> "$CDD/memz-enabled.conf"
grep -qx 'LoadPlugin memz' "$CDD/memz-enabled.conf" ||
	nd_fail "no '#LoadPlugin memz' in the installed collectd config"
sed -i "s|^<Plugin memz>\$|&\n  ProcessMatch \"^$PROBE\$\"|" "$CDD/memz-enabled.conf"
memz_collectd_conf "$CDD" memzpkg --plugin-dir /usr/lib/collectd ||
	nd_fail "cannot write $CDD/collectd.conf"
echo "Include \"$CDD/memz-enabled.conf\"" >> "$CDD/collectd.conf"
echo memzpkg > "$CDD/host"
cd_start "$CDD"
cd_wait_ready "$CDD"
grep -q ' /usr/lib/collectd/memz.so$' "/proc/$CD_PID/maps" ||
	nd_fail "collectd did not load the installed /usr/lib/collectd/memz.so"
cd_sees_probe() {
	_pss=$(cd_getval "$CDD" "memz-$PROBE/memory-pss") &&
		_hid=$(cd_getval "$CDD" memz/memory-hidden_anon) &&
		_pa=$(cd_getval "$CDD" memz/memory-process_anon) &&
		echo "collectd: $PROBE PSS $_pss B; process_anon $_pa B, hidden_anon $_hid B" &&
		cd_num_cmp "$_pss" ">=" $((15 * 1048576)) &&
		cd_num_cmp "$_hid" "<" "$(awk -v a="$_pa" -v h="$_hid" 'BEGIN { print 0.5 * (a + h) }')"
}
cd_poll 30 cd_sees_probe > "$T/cd_seen.log" ||
	{ tail -n 1 "$T/cd_seen.log"; nd_fail "collectd's memz.so did not report the root-owned $PROBE with its PSS"; }
tail -n 1 "$T/cd_seen.log"

# --- purge: nothing they installed is left --------------------------------------
# Purged while both daemons run: the memz.plugin netdata runs stops with the
# package, and the operator is told collectd keeps memz.so until it restarts.
plugin_pid() {
	for _p in /proc/[0-9]*; do
		case "$(readlink "$_p/exe" 2> /dev/null)" in
		"$PLUGIN" | "$PLUGIN (deleted)") echo "${_p#/proc/}"; return 0 ;;
		esac
	done
	return 1
}
running_plugin=$(plugin_pid) || nd_fail "no memz.plugin running under netdata before the purge"
# shellcheck disable=SC2086
apt-get purge -y -q -o DPkg::Lock::Timeout=120 $PKGS > "$T/purge.log" 2>&1 ||
	nd_fail "apt-get purge failed"
nd_poll 10 eval '! kill -0 "$running_plugin" 2> /dev/null' ||
	nd_fail "memz.plugin (pid $running_plugin) still runs after the purge"
grep -q "memz-netdata: stopped the running memz.plugin (pid $running_plugin)" "$T/purge.log" ||
	nd_fail "the purge did not say it stopped memz.plugin: $(grep memz- "$T/purge.log")"
grep -q "memz-collectd: collectd (pid $CD_PID) still runs the memz plugin it loaded; restart collectd" "$T/purge.log" ||
	nd_fail "the purge did not tell that collectd keeps memz.so: $(grep memz- "$T/purge.log")"
echo "purge: memz.plugin stopped, collectd's restart advised"
nd_stop "$ND"
ND_DIRS=""
kill -TERM "$CD_PID"
wait "$CD_PID"
CD_PIDS="$LEAKER_PID"
installed=0
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null)
	case "$st" in
	"" | not-installed) ;;
	*) nd_fail "$p is $st after purge" ;;
	esac
done
left=""
while read -r existed p; do
	if [ "$existed" = 0 ] && { [ -e "$p" ] || [ -L "$p" ]; }; then
		left="$left $p"
	elif [ "$existed" = 1 ] && [ ! -d "$p" ]; then
		nd_fail "purging removed $p, which was there before"
	fi
done < "$T/paths"
[ -z "$left" ] || nd_fail "left after purge:$left"
# dpkg -L also names what maintainer scripts never touch; same check.
while read -r p; do
	[ "$p" != /. ] || continue
	grep -qx "1 $p" "$T/paths" && continue
	[ ! -e "$p" ] || nd_fail "left after purge: $p (from dpkg -L)"
done < "$T/dpkg-L"
echo "purged: nothing left of $(wc -l < "$T/pkgpaths") paths"
echo "it_packages: passed in $(nd_secs_since "$t0") s"
exit 0
