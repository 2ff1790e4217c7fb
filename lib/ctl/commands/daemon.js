// super daemon [--foreground] [--resurrect] [--log-to file|stderr] [--listen host:port [--tls-cert F --tls-key F] [--origin O]...]:
// this process becomes the daemon, in the foreground (systemd, containers). --foreground is
// the only mode and is accepted so unit files say what they mean; --resurrect starts the
// apps of $SUPER_HOME/dump.json; --listen opens the TCP control listener (as control.listen);
// --log-to stderr writes the daemon's own log to stderr instead of daemon.log (journald).
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { controlListenProblem } from '../../config/control-settings.js';

const LISTEN_RE = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):[0-9]{1,5}$/;

export default async function daemon(opts = {}) {
  const control = controlFromFlags(opts);
  const logTo = opts.logTo ?? 'file';
  if (logTo !== 'file' && logTo !== 'stderr') throw new SuperError('E_USAGE', `--log-to ${logTo}: give file (daemon.log) or stderr`);
  const { startDaemon } = await import('../../master/index.js');
  await startDaemon({ resurrect: Boolean(opts.resurrect), control, logTo });
  return new Promise(() => {}); // the daemon exits the process itself
}

function controlFromFlags(opts) {
  if (!opts.listen) {
    if (opts.tlsCert || opts.tlsKey || opts.origin) throw new SuperError('E_USAGE', '--tls-cert, --tls-key and --origin need --listen host:port');
    return undefined;
  }
  if (!LISTEN_RE.test(opts.listen)) throw new SuperError('E_USAGE', `--listen ${opts.listen}: give host:port, like 127.0.0.1:9615`);
  if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) throw new SuperError('E_USAGE', '--tls-cert and --tls-key go together');
  // Refused before anything starts (the daemon checks again).
  const problem = controlListenProblem(opts.listen, opts.tlsCert);
  if (problem) throw new SuperError('E_CONFIG', `--listen ${problem}`);
  return {
    listen: opts.listen,
    tls: opts.tlsCert ? { cert: path.resolve(opts.tlsCert), key: path.resolve(opts.tlsKey) } : null,
    origins: opts.origin ?? [],
  };
}
