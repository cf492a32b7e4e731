#!/bin/sh
# Install what memz needs on Debian 12. Idempotent: packages already present
# are left alone and nothing is fetched twice.
#   install-deps.sh          what the whole test suite needs (scripts/test-all.sh,
#                            the quick start): compilers, collectd, netdata,
#                            valgrind, clang, chromium, lintian, ...
#   install-deps.sh --build  only what building the Debian packages takes:
#                            debian/control's Build-Depends, build-essential
#                            (dpkg-buildpackage requires it of every build) and
#                            the autotools (the tree has no configure in git)
#   --list                   print the packages, one a line, and install none
set -eu
usage() {
	echo "usage: install-deps.sh [--build] [--list]"
}
# debian/control's Build-Depends (debhelper provides debhelper-compat);
# tests/test_install_deps.sh keeps the two the same
BUILD_PKGS="debhelper collectd-dev libyajl-dev pkgconf
            build-essential autoconf automake libtool"
TEST_PKGS="$BUILD_PKGS
      collectd-core collectd-utils netdata-core netdata-web
      valgrind util-linux procps iproute2 curl python3 chromium fonts-dejavu-core
      clang-14 libclang-rt-14-dev libcap2-bin
      lintian fakeroot"
PKGS=$TEST_PKGS
list=no
for a in "$@"; do
	case $a in
	--build) PKGS=$BUILD_PKGS ;;
	--list) list=yes ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install-deps: unknown option $a" >&2; usage >&2; exit 2 ;;
	esac
done
if [ "$list" = yes ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $PKGS
	exit 0
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
[ "$PKGS" = "$BUILD_PKGS" ] && exit 0
# The Debian packages start system-wide daemons where an init system runs;
# memz's tests and quick start run their own private ones, so those are
# stopped to keep ports and CPU free (harmless where nothing runs).
for svc in netdata collectd; do
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done
