// One request to the daemon of this SUPER_HOME, then close.
import { connect } from '../ipc/client.js';
import { superHome } from '../home.js';

export async function withDaemon(fn, { home = superHome() } = {}) {
  const client = await connect(home);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

export const request = (op, args, opts) => withDaemon((c) => c.request(op, args, opts));
