# debian/: the Debian packages, built by dpkg-buildpackage -us -uc -b.
EXTRA_DIST += debian/changelog debian/control \
	debian/copyright debian/rules debian/source/format debian/not-installed \
	debian/memz.install debian/memz.manpages debian/memz.1 \
	debian/memz-collectd.install debian/memz-netdata.install \
	debian/memz-netdata.postinst
