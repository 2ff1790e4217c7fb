// The daemon's boot steps that are not parts of it: the platform check, what the OOM score
// became, the saved apps of `--resurrect`, and how a boot failure is said.
import { SuperError } from '../../errors.js';
import { failedMessage } from '../../ipc/launch-protocol.js';
import { resurrectApps } from '../saved/index.js';

/**
 * Worker metrics read /proc, pinning runs taskset, workers lead process groups through
 * perl's setpgrp or setsid and die with the daemon through setpriv: the daemon runs on Linux only (the CLI
 * also talks to a remote daemon from elsewhere, with --host).
 */
export function requireLinux() {
  if (process.platform !== 'linux') {
    throw new SuperError('E_PLATFORM', `the superd daemon runs on Linux only (this is ${process.platform}); from here, \`super --host\` talks to a daemon on a Linux host`);
  }
}

/**
 * What protectDaemon did, said once at boot.
 * @param {{before: number|null, now: number|null, error?: string}} r  @param {object} log
 */
export function logOomScore({ before, now, error }, log) {
  if (now === null) return;
  if (error) log.info({ oom_score_adj: now, error }, `oom_score_adj stays ${now}: lowering it needs root with CAP_SYS_RESOURCE (or OOMScoreAdjust= in the daemon's systemd unit); workers keep the same, and starts that would not fit in memory are refused`);
  else log.info({ oom_score_adj: now, was: before }, `oom_score_adj ${now}: under memory pressure the OOM killer takes workers before the daemon`);
}

/**
 * Says why the daemon cannot boot: on stderr (daemon.err, the journal), in daemon.log once
 * it is open, and to the CLI that launched it, if any (over IPC: a full disk leaves
 * daemon.err empty). Returns the code.
 */
export async function sayBootFailed(err, log) {
  const code = err instanceof SuperError ? err.code : 'E_INTERNAL';
  try {
    process.stderr.write(`superd: ${code}: ${err.message}\n`);
  } catch {} // stderr on a full disk
  log?.error({ err }, 'daemon boot failed');
  const { send } = process;
  if (send && process.connected) await new Promise((resolve) => send.call(process, failedMessage(code, err.message), resolve));
  return code;
}

/**
 * `--resurrect` at boot: no dump (a fresh machine) is fine; a corrupt one is said on
 * stderr (the journal) and in daemon.log, and the daemon runs on without apps: exiting
 * would only make systemd restart it into the same error.
 */
export async function resurrectAtBoot(registry, settings) {
  const { log } = settings;
  try {
    const r = await resurrectApps(registry, settings);
    log.info({ file: r.file, started: r.started, failed: r.failed }, 'resurrected saved apps');
    for (const f of r.failed) process.stderr.write(`superd: E_START_FAILED: ${f.app}#${f.slot} ${f.reason} before it became ready\n`);
  } catch (err) {
    if (err.details?.missing) {
      log.info('no saved process list; starting with no apps');
      return;
    }
    log.error({ err }, 'resurrect failed');
    process.stderr.write(`superd: ${err.code ?? 'E_INTERNAL'}: ${err.message}\n`);
  }
}
