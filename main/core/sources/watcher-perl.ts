import { shellQuote } from './remote-shell';
import { FALLBACK_STAT_MS, FRAME_OVERLAP, HEARTBEAT_MS, MAX_FRAME_BYTES, watcherScript } from './watcher-script';

/**
 * The watcher in Perl, for hosts that have it (every Debian, as perl-base, and macOS): the same
 * lines as watcherScript's, but with no process started per change. One `tail -n0 -q -F` stays
 * up over the files (restarted only when the names change) and only wakes it: its output is
 * drained and dropped, and the files are read by the watcher itself at the offsets its listing
 * saw. Listing (readdir and stat), reading and encoding are system calls in one process, so an
 * appended line reaches the link in about the time `tail -F` takes, even on a busy host where
 * every new process waits for a core. Only a name of printable ASCII travels in a line (see
 * NAMES_FN): a file with any other name that came, went or changed is sent as `changed`. Only modules of perl-base (POSIX) are required; base64
 * comes from MIME::Base64 where it is installed, else the bytes go as hex (`h:`).
 *
 * Arguments: the listing interval, the fallback interval, the heartbeat's (ms), the frame cap,
 * the overlap, then the folders. It ends, with its tail, when its input ends (the channel's:
 * closed, or sshd gone), when a write fails (the heartbeat makes sure one is tried every
 * `heartbeatMs`) and on HUP, INT and TERM.
 */
export const PERL_WATCHER = String.raw`
use strict; use warnings; use POSIX ();
my ($stat_ms, $fast_ms, $beat_ms, $cap, $overlap, @dirs) = @ARGV;
$| = 1; $SIG{PIPE} = 'IGNORE';
my $b64 = eval { require MIME::Base64; 1 };
sub enc { $b64 ? MIME::Base64::encode_base64($_[0], '') : 'h:' . unpack('H*', $_[0]) }
my ($tail_fh, $tail_pid, $tail_ok) = (undef, 0, 1);
sub stop_tail {
  if ($tail_pid) { kill 'TERM', $tail_pid; waitpid($tail_pid, 0); }
  close $tail_fh if $tail_fh;
  ($tail_fh, $tail_pid) = (undef, 0);
}
sub bye { stop_tail(); POSIX::_exit(0); }
$SIG{$_} = \&bye for qw(HUP INT TERM);
END { stop_tail(); }
sub out { print $_[0] or bye(); }
sub kind {
  my ($p) = @_;
  my @s = stat $p;
  return lstat($p) ? ['0', '0', '0', 'symbolic link'] : undef unless @s;
  my $t = -f _ ? 'regular file' : -d _ ? 'directory' : -p _ ? 'fifo' : -S _ ? 'socket'
    : -c _ ? 'character special file' : -b _ ? 'block special file' : 'unknown';
  return [$s[1], $s[7], $s[9], $t];
}
sub listing {
  my (%files, %seen, @odd);
  for my $d (@dirs) {
    opendir(my $h, $d) or next;
    $seen{$d} = 1;
    for my $n (grep { !/^\./ } readdir $h) {
      my $k = kind("$d/$n");
      next unless $k;
      # Only a plain name travels in a line; any other only says that something changed.
      if ($n =~ /[^\x20-\x7e]/) { push @odd, "$d/" . unpack('H*', $n) . "|" . join('|', @$k); next; }
      $files{"$d/$n"} = $k;
    }
    closedir $h;
  }
  return (\%files, \%seen, join("\0", sort @odd));
}
sub read_range {
  my ($p, $from, $len) = @_;
  open(my $fh, '<:raw', $p) or return undef;
  sysseek($fh, $from, 0) or return undef;
  my $buf = '';
  while (length($buf) < $len) {
    my $n = sysread($fh, $buf, $len - length($buf), length($buf));
    return undef unless defined $n;
    last if $n == 0;
  }
  return length($buf) == $len ? $buf : undef;
}
my ($prev, $prev_dirs, $prev_odd, $first) = ({}, {}, '', 1);
sub check {
  my ($cur, $dirs, $odd) = listing();
  if ($first) {
    # The first report is the listing itself: the reader compares it with what it last saw.
    for my $p (sort keys %$cur) { my $c = $cur->{$p}; out('@' . join('|', $c->[0], $c->[1], $c->[2], 0, $c->[3], $p) . "\n"); }
    out($odd eq '' ? "listed\n" : "listed\nchanged\n");
    ($prev, $prev_dirs, $prev_odd, $first) = ($cur, $dirs, $odd, 0);
    return 1;
  }
  my ($big, @out) = ($odd ne $prev_odd);
  $prev_odd = $odd;
  for my $p (sort keys %$cur) {
    my ($c, $o) = ($cur->{$p}, $prev->{$p});
    if (!$o || $o->[0] ne $c->[0] || $o->[3] ne $c->[3]) { $big = 1; next; }
    next if $o->[1] == $c->[1] && $o->[2] == $c->[2];
    if ($c->[3] eq 'directory' || $c->[1] < $o->[1]) { $big = 1; next; }
    my $line = "$c->[0]|$c->[1]|$c->[2]|0|$c->[3]|$p";
    if ($c->[1] > $o->[1] && $c->[1] - $o->[1] <= $cap) {
      my $from = $o->[1] > $overlap ? $o->[1] - $overlap : 0;
      my $data = read_range($p, $from, $c->[1] - $from);
      if (defined $data) { push @out, "+$from " . enc($data) . " $line\n"; next; }
    }
    push @out, "~$line\n";
  }
  for my $p (keys %$prev) { $big = 1 unless exists $cur->{$p}; }
  for my $d (keys %$prev_dirs, keys %$dirs) { $big = 1 unless $prev_dirs->{$d} && $dirs->{$d}; }
  push @out, "changed\n" if $big;
  out($_) for @out;
  my $renamed = join("\0", sort keys %$cur) ne join("\0", sort keys %$prev);
  ($prev, $prev_dirs) = ($cur, $dirs);
  return $renamed;
}
sub start_tail {
  stop_tail();
  return unless $tail_ok;
  my @files = sort grep { $prev->{$_}[3] eq 'regular file' } keys %$prev;
  return unless @files;
  my $pid = open(my $fh, '-|');
  return ($tail_ok = 0) unless defined $pid;
  if ($pid == 0) {
    open(STDERR, '>', '/dev/null');
    exec('tail', '-n0', '-q', '-F', '--', @files) or POSIX::_exit(3);
  }
  ($tail_fh, $tail_pid) = ($fh, $pid);
}
check();
start_tail();
my $beat = time;
my $in = defined fileno(STDIN) ? fileno(STDIN) : -1;
while (1) {
  my $rin = '';
  vec($rin, fileno($tail_fh), 1) = 1 if $tail_fh;
  vec($rin, $in, 1) = 1 if $in >= 0;
  my $wait = ($tail_fh || $tail_ok ? $stat_ms : $fast_ms) / 1000;
  my $n = select(my $rout = $rin, undef, undef, $wait);
  # Its input is the link's: at its end (the channel closed, sshd gone) it ends too.
  if ($n > 0 && $in >= 0 && vec($rout, $in, 1)) {
    my $got = sysread(STDIN, my $junk, 4096);
    bye() unless $got;
  }
  if ($n > 0 && $tail_fh && vec($rout, fileno($tail_fh), 1)) {
    my $got = sysread($tail_fh, my $junk, 65536);
    if (!$got) { stop_tail(); $tail_ok = 0; }
  }
  start_tail() if check();
  if ((time - $beat) * 1000 >= $beat_ms) { out(".\n"); $beat = time; }
}
`;

/** The Perl watcher's command-line arguments after `--`. */
export function perlWatcherArgs(dirs: readonly string[], statMs: number, heartbeatMs = HEARTBEAT_MS): string[] {
  return [String(statMs), String(Math.min(statMs, FALLBACK_STAT_MS)), String(heartbeatMs), String(MAX_FRAME_BYTES), String(FRAME_OVERLAP), ...dirs];
}

/**
 * The command the host runs for a watcher: the Perl one where `perl` starts with POSIX, else the
 * shell one (see watcherScript). Wrapped in `sh -c`, whatever the account's login shell is.
 */
export function watcherCommand(dirs: readonly string[], statMs: number, prefer: 'perl' | 'sh' = 'perl', heartbeatMs = HEARTBEAT_MS): string {
  const sh = `exec sh -c ${shellQuote(watcherScript(dirs, statMs, heartbeatMs))}`;
  if (prefer === 'sh') return sh;
  const perl = `exec perl -e ${shellQuote(PERL_WATCHER)} -- ${perlWatcherArgs(dirs, statMs, heartbeatMs).map(shellQuote).join(' ')}`;
  return `exec sh -c ${shellQuote(`if perl -e 'use POSIX (); 1' >/dev/null 2>&1; then ${perl}; else ${sh}; fi`)}`;
}
