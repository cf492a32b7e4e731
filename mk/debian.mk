# debian/: the Debian packages, built by dpkg-buildpackage -us -uc -b, and
# the test that builds them from a copy of the distribution, installs them,
# runs both hosts from the installed files and purges them.
INTEGRATION_TESTS += tests/it_packages.sh
# what scripts/install-deps.sh --build installs is debian/control's
UNIT_TESTS += tests/test_install_deps.sh
EXTRA_DIST += tests/test_install_deps.sh
EXTRA_DIST += tests/it_packages.sh debian/changelog debian/control \
	debian/copyright debian/rules debian/source/format \
	debian/source/lintian-overrides debian/not-installed \
	debian/memz.install debian/memz.manpages debian/memz.1 \
	debian/memz-collectd.install debian/memz-netdata.install \
	debian/memz-netdata.postinst debian/memz-netdata.triggers \
	debian/memz-netdata.postrm debian/memz-collectd.postrm
