#!/usr/bin/perl
# superd's orphan reaper (orphan-reaper.js says why): perl orphan-reaper.pl <record file>, fd 3
# a pipe whose other end only the daemon holds. No $0 rename: perl would overwrite the
# process's environment as /proc shows it, where tests and `ps e` find whose it is.
use strict; use Time::HiRes qw(time sleep);
exit 0 if fork; # not the daemon's child: it reaps this parent at once
$SIG{HUP} = $SIG{INT} = 'IGNORE';
my ($file) = @ARGV;
open(my $pipe, '<&=', 3) or exit 0;
1 while sysread($pipe, my $buf, 4096); # until EOF: the daemon exited or died
my $t0 = time;
open(my $fh, '<', $file) or exit 0; # none: it exited with no group left
my @groups;
while (my $line = <$fh>) { push @groups, [$1, $2, $3] if $line =~ /^(\d+) (\d+) (\d+)$/ && $3 > 0 && $1 > 1 }
close $fh;
# Field 22 of /proc/<pid>/stat, the start time, after the "pid (comm) " that may hold spaces.
sub start_of {
  open(my $f, '<', "/proc/$_[0]/stat") or return -1;
  my $s = do { local $/; <$f> };
  $s =~ s/^.*\) //s or return -1;
  return (split / /, $s)[19];
}
for my $g (sort { $a->[2] <=> $b->[2] } @groups) {
  my ($pgid, $start, $grace) = @$g;
  $grace = 600000 if $grace > 600000; # as group-record.js bounds what it reads back
  while (start_of($pgid) == $start) { # the same leader still runs: end its group at the deadline
    my $left = $t0 + $grace / 1000 - time;
    if ($left <= 0) { kill('KILL', -$pgid); last }
    sleep($left < 0.2 ? $left : 0.2);
  }
}
