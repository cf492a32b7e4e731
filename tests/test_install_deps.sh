#!/bin/sh
# scripts/install-deps.sh --build installs what a package build needs and no
# more: debian/control's Build-Depends (debhelper for debhelper-compat),
# build-essential and the autotools; without --build, the test suite's whole
# toolchain besides. Both lists are read, nothing is installed.
set -u
: "${top_srcdir:?}"
script=$top_srcdir/scripts/install-deps.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# every Build-Depends* field, continuation lines joined; per dependency its
# first alternative without version, architecture, profile or :qualifier
awk '
	/^[^ \t]/ { in_bd = /^Build-Depends(-Arch|-Indep)?:/ }
	in_bd { sub(/^Build-Depends(-Arch|-Indep)?:/, ""); printf "%s,", $0 }
' "$top_srcdir/debian/control" | tr ',' '\n' |
	sed 's/|.*//; s/([^)]*)//g; s/\[[^]]*\]//g; s/<[^>]*>//g; s/:[a-z]*//; s/[[:space:]]//g' |
	sed 's/^debhelper-compat$/debhelper/' | grep . > "$tmp/control"
[ -s "$tmp/control" ] || { echo "no Build-Depends in debian/control"; exit 1; }
{ cat "$tmp/control"; printf '%s\n' build-essential autoconf automake libtool; } |
	sort -u > "$tmp/want"

sh "$script" --build --list > "$tmp/build" || { echo "install-deps.sh --build --list failed"; exit 1; }
sort -u "$tmp/build" > "$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "install-deps.sh --build differs from debian/control's Build-Depends + build-essential + autotools:"
	diff -u "$tmp/want" "$tmp/got"
	fail=1
fi

sh "$script" --list > "$tmp/all" || { echo "install-deps.sh --list failed"; exit 1; }
sort -u "$tmp/all" > "$tmp/all.sorted"
missing=$(comm -23 "$tmp/got" "$tmp/all.sorted")
[ -z "$missing" ] || { echo "install-deps.sh (no option) lacks build packages: $missing"; fail=1; }
for p in clang-14 valgrind chromium lintian collectd-core netdata-core python3; do
	grep -qx "$p" "$tmp/all" || { echo "install-deps.sh (no option) lacks $p"; fail=1; }
	! grep -qx "$p" "$tmp/build" || { echo "install-deps.sh --build installs $p"; fail=1; }
done

sh "$script" --bogus > /dev/null 2>&1
[ $? -eq 2 ] || { echo "install-deps.sh --bogus: not a usage error"; fail=1; }
exit $fail
