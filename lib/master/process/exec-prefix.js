// Small programs that a worker is exec'd through, found once at boot.
//  - perl -e 'setpgrp(0, 0); exec ...' (or setsid where there is no perl): each worker leads
//    its own process group, so stopping it reaches every process it started (no orphans),
//    with one kill(-pgid), and a terminal's Ctrl-C (sent to the foreground group: `super
//    run`) never reaches a worker behind the daemon's back. A group, not a session: with
//    the kernel's autogroups (sched_autogroup_enabled, on in Debian's and Ubuntu's kernels)
//    each session is a CPU group of its own, and the round-robin handoff between the daemon
//    and a worker in another session paid the cross-group wakeup on every connection
//    (docs/measurements.md, issue 42). Node has no setpgid, and util-linux no program for
//    it; perl-base is in every Debian and Ubuntu (Essential), Alpine's busybox has no perl.
//    Perl warns on stderr when LANG names a locale that is not installed (common in
//    containers): PERL_BADLANG=0 silences it and is taken out again before the exec.
//  - setpriv --pdeathsig KILL (fork-mode children): the kernel kills the child when the
//    daemon dies, whatever it is doing. The signal is set by setpriv, after the group and
//    before taskset and the program, and survives their execs (it is cleared only by a
//    fork, or the exec of a set-user-ID program). The child's own children do not get it:
//    the next daemon ends their groups (group-record.js). Cluster workers go without it:
//    they finish what they serve first (lib/worker/drain.cjs outliveDaemon), and the next
//    daemon ends one stuck in a loop once its drain_timeout has passed.
//  - taskset -c <cpus> (workers with cpu_affinity): sets the CPU mask before the program
//    starts, so every thread it ever creates (libuv pool, worker_threads) inherits it.
// All exec in place (same pid). Where setsid/setpriv are missing (not Linux) workers still
// run, only without these guarantees; pinning without taskset is refused by the config check.
import { which } from '../../which.js';

// $ARGV[0]: "1" when PERL_BADLANG was set here only (then unset), then the command line.
const SETPGRP = 'delete $ENV{PERL_BADLANG} if shift; setpgrp(0, 0) or die "setpgrp: $!\\n"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\\n"';

let found;
/** @returns {{perl: string|null, setsid: string|null, setpriv: string|null, taskset: string|null}} */
export function execTools() {
  found ??= process.platform === 'linux'
    ? { perl: which('perl'), setsid: which('setsid'), setpriv: which('setpriv'), taskset: which('taskset') }
    : { perl: null, setsid: null, setpriv: null, taskset: null };
  return found;
}

/**
 * The programs to exec through, in order, before the worker's own command line, and the
 * environment to start them with.
 * @param {object} o
 * @param {boolean} [o.group]  lead a process group of its own (in the daemon's session; a session of its own without perl)
 * @param {boolean} [o.pdeathsig]
 * @param {string|null} [o.cpus]  a taskset list like "0,2-3"
 * @param {Record<string, string|undefined>} [o.env]  the worker's environment
 * @returns {{prefix: string[], env: Record<string, string|undefined>, grouped: boolean}} prefix e.g.
 *   ['/usr/bin/perl', '-e', SETPGRP, '1', '/usr/bin/taskset', '-c', '0']; grouped: the prefix
 *   makes the group (false: neither perl nor setsid was found)
 */
export function execPrefix({ group = false, pdeathsig = false, cpus = null, env = {} }) {
  const t = execTools();
  const prefix = [];
  let grouped = false;
  if (group && t.perl) {
    const added = env.PERL_BADLANG === undefined;
    if (added) env = { ...env, PERL_BADLANG: '0' };
    prefix.push(t.perl, '-e', SETPGRP, added ? '1' : '0');
    grouped = true;
  } else if (group && t.setsid) {
    prefix.push(t.setsid);
    grouped = true;
  }
  if (pdeathsig && t.setpriv) prefix.push(t.setpriv, '--pdeathsig', 'KILL');
  if (cpus) {
    // The config check refuses pinning where taskset is missing; this is the last guard.
    if (!t.taskset) throw new Error('cpu_affinity needs taskset (util-linux) on Linux; it was not found on PATH');
    prefix.push(t.taskset, '-c', cpus);
  }
  return { prefix, env, grouped };
}
