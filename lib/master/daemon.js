// The superd daemon: the cluster primary for every app and the control-channel server.
// Started detached by `super start` (lib/ctl/launch-daemon.js), or in the foreground.
//
// Boot:     home checks -> pid file (one daemon per SUPER_HOME) -> log -> control socket
//           -> "ready" to the launching CLI (IPC) if any.
// Shutdown: SIGTERM/SIGINT/`super kill` -> every worker stopped gracefully (kill_signal,
//           SIGKILL after kill_timeout) -> socket and pid file removed -> exit 0.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { superHome, socketPath, pidPath, daemonLogPath } from '../home.js';
import { prepareHome } from './home-dir.js';
import { acquirePidFile, releasePidFile } from './pid-file.js';
import { startControlServer } from '../ipc/server.js';
import { Supervisor } from './supervisor.js';
import { makeHandlers } from './handlers.js';
import { reapAllNow } from './process-group.js';
import { SuperError } from '../errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const agentPath = path.join(here, '..', 'worker', 'agent.cjs');
const { version } = JSON.parse(fs.readFileSync(path.join(here, '..', '..', 'package.json'), 'utf8'));

/** Exit status of a daemon that lost the race to another one (the CLI then just connects). */
export const EXIT_ALREADY_RUNNING = 10;

async function main() {
  const home = superHome();
  let log;
  try {
    prepareHome(home);
    acquirePidFile(pidPath(home));
  } catch (err) {
    process.stderr.write(`superd: ${err.code ?? 'E_INTERNAL'}: ${err.message}\n`);
    process.exit(err.code === 'E_DAEMON_RUNNING' ? EXIT_ALREADY_RUNNING : 1);
  }
  log = pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: daemonLogPath(home), sync: false, mkdir: true }));

  let server = null;
  const supervisor = new Supervisor({ home, log, agentPath, onEvent: (topic, data) => server?.broadcast(topic, data) });

  let stopping = null;
  const shutdown = (reason) => {
    stopping ??= (async () => {
      log.info({ reason }, 'daemon stopping: stopping every app');
      const hard = setTimeout(() => {
        log.error('graceful stop took too long; exiting anyway');
        finish(1);
      }, 120000);
      hard.unref();
      try {
        await supervisor.stopAll();
      } catch (err) {
        log.error({ err }, 'error while stopping apps');
      }
      finish(0);
    })();
    return stopping;
  };

  const finish = async (code) => {
    reapAllNow();
    await server?.close().catch(() => {});
    fs.rmSync(socketPath(home), { force: true });
    releasePidFile(pidPath(home));
    log.info({ code }, 'daemon exit');
    log.flush?.(() => process.exit(code));
    setTimeout(() => process.exit(code), 500).unref();
  };

  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGHUP', () => log.info('SIGHUP ignored (reload arrives with rolling reload)'));
  // The daemon's death would take every app with it (cluster primary): contain and log.
  process.on('uncaughtException', (err) => log.fatal({ err }, 'uncaught exception (contained)'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (contained)'));

  try {
    server = await startControlServer({
      socketPath: socketPath(home),
      handlers: makeHandlers({ supervisor, version, shutdown }),
      hello: { version, pid: process.pid },
      log,
    });
  } catch (err) {
    const code = err instanceof SuperError ? err.code : 'E_INTERNAL';
    process.stderr.write(`superd: ${code}: ${err.message}\n`);
    log.error({ err }, 'control server failed');
    releasePidFile(pidPath(home));
    process.exit(code === 'E_DAEMON_RUNNING' ? EXIT_ALREADY_RUNNING : 1);
  }
  log.info({ home, version, node: process.version }, 'daemon ready');
  if (process.send) {
    process.send({ cmd: 'super:daemon-ready', pid: process.pid });
    process.disconnect();
  }
}

main();
