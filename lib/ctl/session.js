// One request to the daemon of this SUPER_HOME (or of --host), then close.
import { connect } from '../ipc/client.js';
import { superHome } from '../home.js';

/**
 * Connects to the local daemon, or to the TCP control listener named by --host / SUPER_HOST.
 * @param {{home?: string, timeout?: number}} [o]
 */
export async function connectDaemon({ home = superHome(), timeout } = {}) {
  // Loaded only for --host: the local path (`super ls`) stays as light as it was.
  const remote = process.env.SUPER_HOST ? await (await import('./remote-target.js')).remoteTarget() : null;
  return connect(home, { timeout, remote: remote ?? undefined });
}

async function withDaemon(fn, { home = superHome() } = {}) {
  const client = await connectDaemon({ home });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

export const request = (op, args, opts) => withDaemon((c) => c.request(op, args, opts));
