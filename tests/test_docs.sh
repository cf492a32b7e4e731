#!/bin/sh
# The README's settings table, collectd's example config and the netdata
# plugin's config are checked against the core's settings table: every
# setting appears in each, with its default, so the docs cannot drift.
# Regenerate the README table with `make update-docs`.
set -u
gen="$top_builddir/tests/gen_docs"
fail=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" markdown > "$tmp/table.md" || exit 1
sed -n '/<!-- settings:begin -->/,/<!-- settings:end -->/p' "$top_srcdir/README.md" |
	sed '1d;$d' > "$tmp/readme.md"
if ! cmp -s "$tmp/table.md" "$tmp/readme.md"; then
	echo "README.md settings table differs from the core's table (run make update-docs):"
	diff -u "$tmp/readme.md" "$tmp/table.md"
	fail=1
fi

"$gen" defaults > "$tmp/defaults"
while IFS='	' read -r name def; do
	# collectd: `#  Name value` or `#  Name "value"`, commented out
	c=$(grep -E "^#[[:space:]#]*$name([[:space:]]|$)" "$top_srcdir/conf/collectd.d/memz.conf" | head -n 1)
	if [ -z "$c" ]; then
		echo "conf/collectd.d/memz.conf does not show $name"; fail=1
	elif [ -n "$def" ] && ! printf '%s\n' "$c" | grep -qF -- "$def"; then
		echo "conf/collectd.d/memz.conf shows $name without its default $def: $c"; fail=1
	fi
	n=$(grep -E "^#[[:space:]#]*$name[[:space:]]*=" "$top_srcdir/conf/netdata/memz.conf" | head -n 1)
	if [ -z "$n" ]; then
		echo "conf/netdata/memz.conf does not show $name"; fail=1
	elif [ -n "$def" ] && ! printf '%s\n' "$n" | grep -qF -- "$def"; then
		echo "conf/netdata/memz.conf shows $name without its default $def: $n"; fail=1
	fi
done < "$tmp/defaults"
exit $fail
