// super kill: stop every app gracefully, then the daemon; returns once it has exited.
import { connectDaemon } from '../session.js';
import { processAlive } from '../../process-alive.js';
import { SuperError } from '../../errors.js';
import { superHome } from '../../home.js';

export default async function kill() {
  let client;
  try {
    client = await connectDaemon();
  } catch (err) {
    if (err.code !== 'E_NO_DAEMON') throw err;
    // A socket we may not open is another user's daemon, not no daemon.
    const denied = /\((EACCES|EPERM)\)/.exec(err.message);
    if (denied) {
      throw new SuperError('E_HOME', `cannot reach the daemon of ${superHome()}: permission denied (${denied[1]}); it belongs to another user: run super kill as that user`);
    }
    process.stdout.write('no daemon is running\n');
    return 0;
  }
  const closed = /** @type {Promise<void>} */ (new Promise((resolve) => client.onEvent((e) => e.closed && resolve())));
  const { pid } = await client.request('kill');
  await closed;
  // The socket closes before the process ends: wait (bounded) until it is gone (a daemon of
  // another host, --host, cannot be watched from here).
  for (let i = 0; !process.env.SUPER_HOST && i < 2400 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  process.stdout.write(`daemon (pid ${pid}) stopped\n`);
  return 0;
}

