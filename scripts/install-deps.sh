#!/bin/sh
# Install what memz needs to build, test and run on Debian 12. Idempotent:
# packages already present are left alone and nothing is fetched twice.
set -eu
PKGS="autoconf automake libtool pkg-config make gcc libc6-dev libyajl-dev
      collectd-core collectd-dev collectd-utils netdata-core netdata-web
      valgrind util-linux procps iproute2 curl python3 chromium fonts-dejavu-core
      clang-14 libclang-rt-14-dev libcap2-bin
      debhelper lintian fakeroot"
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
# The Debian packages start system-wide daemons where an init system runs;
# memz's tests and quick start run their own private ones, so those are
# stopped to keep ports and CPU free (harmless where nothing runs).
for svc in netdata collectd; do
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done
