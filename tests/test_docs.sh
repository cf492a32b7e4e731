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
for cmd in $(sed -n '/^commands:/,/^$/p' "$tmp/help" | awk 'NR > 1 && NF { print $1 }'); do
	"$memz" "$cmd" --help > "$tmp/help.$cmd" || { echo "memz $cmd --help failed"; fail=1; }
done
python3 - "$man" "$tmp" "$("$memz" --version)" <<'PY' || fail=1
import os, re, sys
man_path, tmp, version = sys.argv[1:]
src = open(man_path).read()
text = re.sub(r'\\f[BIRP]', '', src).replace('\\-', '-')
bad = []

def section(name):
    m = re.search(r'^\.SS ' + re.escape(name) + r'\n(.*?)(?=^\.S[SH] )', text,
                  re.S | re.M)
    return m.group(1) if m else None

def entries(sec):
    """(tag, body) of each .TP entry."""
    out = []
    for block in re.split(r'^\.TP\n', sec, flags=re.M)[1:]:
        tag, _, body = block.partition('\n')
        out.append((tag, body))
    return out

def options(help_text):
    opts = {}
    for line in help_text.splitlines():
        if re.match(r' +-', line):
            for o in re.findall(r'--[a-z][a-z-]*', line):
                m = re.search(r'\(default (\d+)', line)
                opts.setdefault(o, m.group(1) if m else None)
        for o in re.findall(r'\[(--[a-z][a-z-]*)', line):
            opts.setdefault(o, None)
    return opts

cmds = sorted(f[5:] for f in os.listdir(tmp) if f.startswith('help.'))
helps = {'': open(os.path.join(tmp, 'help')).read()}
helps.update({c: open(os.path.join(tmp, 'help.' + c)).read() for c in cmds})
if not cmds:
    bad.append('memz --help lists no commands')
for cmd, h in helps.items():
    name = ('memz ' + cmd).strip()
    sec = section(name)
    if sec is None:
        bad.append('no OPTIONS subsection ".SS %s"' % name)
        continue
    ents = entries(sec)
    for opt, default in options(h).items():
        tagged = [b for t, b in ents if re.search(re.escape(opt) + r'\b', t)]
        if not tagged:
            bad.append('%s: %s is in --help, not in the man page' % (name, opt))
        elif default and not any(re.search(r'default %s\b' % default, b)
                                 for b in tagged):
            bad.append('%s: %s defaults to %s in --help, not in the man page'
                       % (name, opt, default))
for s in ('OPTIONS', 'EXIT STATUS', 'FILES'):
    if not re.search(r'^\.SH "?%s"?$' % s, src, re.M):
        bad.append('no %s section' % s)
th = re.search(r'^\.TH .*"(memz [^"]*)"', src, re.M)
if not th or th.group(1) != version:
    bad.append('.TH says %s, memz --version %s'
               % (th and th.group(1), version))
for b in bad:
    print('debian/memz.1: ' + b)
sys.exit(1 if bad else 0)
PY
exit $fail
