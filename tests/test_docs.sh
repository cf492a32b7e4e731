#!/bin/sh
# The README's settings table, collectd's example config and the netdata
# plugin's config are checked against the core's settings table: every
# setting appears in each, with its default, so the docs cannot drift.
# Regenerate the README table with `make update-docs`. The man page is
# checked against memz's own --help.
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

# The man page documents what `memz --help` and each command's --help list:
# every command, every long option in that command's OPTIONS subsection
# (.SS memz CMD), each numeric default the same, and the version memz prints.
memz="$top_builddir/memz"
man="$top_srcdir/debian/memz.1"
"$memz" --help > "$tmp/help" || { echo "memz --help failed"; exit 1; }
cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/help" | awk 'NR > 1 && NF { print $1 }')
[ -n "$cmds" ] || { echo "memz --help lists no commands"; fail=1; }
# plain text: no font changes, "\-" a hyphen
sed 's/\\f[BIRP]//g; s/\\-/-/g' "$man" > "$tmp/man"

# entries NAME: each .TP entry of the man page's ".SS NAME", one a line: its
# tag, a tab, its text
entries() {
	awk -v ss=".SS $1" '
		function flush() { if (tag != "") print tag "\t" body; tag = ""; body = "" }
		$0 == ss { in_s = 1; next }
		in_s && /^\.S[SH] / { flush(); in_s = 0 }
		!in_s { next }
		/^\.TP$/ { flush(); want = 1; next }
		want { tag = $0; want = 0; next }
		tag != "" { body = body " " $0 }
		END { flush() }' "$tmp/man"
}

# options FILE: each long option a --help lists (on an option line, or as
# "[--x" in its usage), a space, and its numeric "(default N" if it has one
options() {
	awk '
		/^ +-/ {
			d = ""
			if (match($0, /\(default [0-9]+/))
				d = substr($0, RSTART + 9, RLENGTH - 9)
			s = $0
			while (match(s, /--[a-z][a-z-]*/)) {
				o = substr(s, RSTART, RLENGTH)
				if (!(o in def) || d != "") def[o] = d
				s = substr(s, RSTART + RLENGTH)
			}
		}
		{
			s = $0
			while (match(s, /\[--[a-z][a-z-]*/)) {
				o = substr(s, RSTART + 1, RLENGTH - 1)
				if (!(o in def)) def[o] = ""
				s = substr(s, RSTART + RLENGTH)
			}
		}
		END { for (o in def) print o, def[o] }' "$1"
}

check_man() { # check_man NAME HELP-FILE
	if ! grep -qx "\.SS $1" "$tmp/man"; then
		echo "debian/memz.1: no OPTIONS subsection \".SS $1\""; fail=1; return
	fi
	entries "$1" > "$tmp/entries"
	options "$2" > "$tmp/options"
	while read -r opt def; do
		# entries whose tag names opt itself, not a longer option
		awk -F '\t' -v o="$opt" '{
			t = $1
			while ((i = index(t, o))) {
				if (substr(t, i + length(o), 1) !~ /[a-z-]/) { print; next }
				t = substr(t, i + length(o))
			}
		}' "$tmp/entries" > "$tmp/tagged"
		if [ ! -s "$tmp/tagged" ]; then
			echo "debian/memz.1: $1: $opt is in --help, not in the man page"; fail=1
		elif [ -n "$def" ] && ! grep -Eq "default $def([^0-9]|\$)" "$tmp/tagged"; then
			echo "debian/memz.1: $1: $opt defaults to $def in --help, not in the man page"; fail=1
		fi
	done < "$tmp/options"
}

check_man memz "$tmp/help"
for cmd in $cmds; do
	"$memz" "$cmd" --help > "$tmp/help.$cmd" || { echo "memz $cmd --help failed"; fail=1; }
	check_man "memz $cmd" "$tmp/help.$cmd"
done
for sec in OPTIONS 'EXIT STATUS' FILES; do
	grep -Eq "^\.SH \"?$sec\"?\$" "$man" || { echo "debian/memz.1: no $sec section"; fail=1; }
done
th=$(sed -n 's/^\.TH .*"\(memz [^"]*\)".*/\1/p' "$man")
[ "$th" = "$("$memz" --version)" ] ||
	{ echo "debian/memz.1: .TH says \"$th\", memz --version \"$("$memz" --version)\""; fail=1; }
exit $fail
