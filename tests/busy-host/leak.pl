# A Perl daemon that leaks, planted in the busy-host mix recording
# (tests/busy-host/record-mix.sh): it parses made-up log lines (garbage
# each tick) and after FLAT_S keeps every line it saw in a hash nothing
# prunes, about KIB_PER_S KiB a second. Started through a symlink to perl
# named after it, so its comm is honest from its exec.
#
#     leak-perl3 leak.pl FLAT_S KIB_PER_S
use strict;
use warnings;
use Time::HiRes qw(sleep);

open(my $c, '<', '/proc/self/comm') or die;
chomp(my $name = <$c>);
close $c;

sub boottime {
	open(my $u, '<', '/proc/uptime') or die;
	my ($t) = split ' ', <$u>;
	close $u;
	return $t;
}

sub event {
	my ($what, $detail) = @_;
	my $path = $ENV{PLANTED_EVENTS} or return;
	open(my $e, '>>', $path) or return;
	syswrite($e, sprintf("%.3f %d %s %s %s\n", boottime(), $$, $name, $what, $detail // ''));
	close $e;
}

my ($flat, $kib) = @ARGV;
my $onset = boottime() + $flat;
my (%seen, $n, $kept, $started);
$n = $kept = 0;
event('start', 'perl leak');
while (1) {
	my @scratch = map { "GET /item/$_ HTTP/1.1 " . rand() } 1 .. 500;
	my %count;
	$count{ (split ' ', $_)[1] }++ for @scratch;
	$n++;
	my $t = boottime();
	if ($t >= $onset) {
		event('onset', sprintf('%.0f KiB/s', $kib)) unless $started++;
		while ($kept + 1 <= $kib * ($t - $onset)) {
			$seen{"line-$n-$kept"} = 'x' x 900 . $n;
			$kept++;
		}
	}
	sleep(0.1);
}
