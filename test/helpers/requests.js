// The requests a test makes for its setup, clean-up and state reads, in-process over the
// control socket: what `super stop|delete|scale|save|kill|resurrect` send, without a CLI's
// node start-up (~0.13 s of CPU each). Where the CLI itself is under test (its output,
// exit status, refusal text), tests run it with box.cli.
import { ensureDaemon } from '../../lib/ctl/launch-daemon.js';
import { waitGone } from './harness.js';

// A reply that lists failed apps is an error, as the CLI's exit status 1 would be.
function succeeded(type, reply) {
  if (reply?.failed?.length) throw new Error(`${type}: ${JSON.stringify(reply.failed)}`);
  return reply;
}

/** One request to the daemon of `box`; resolves with its reply (rejects with its error). */
export async function request(box, type, data = {}) {
  const client = await box.client();
  try {
    return succeeded(type, await client.request(type, data, { timeout: 0 }));
  } finally {
    client.close();
  }
}

/**
 * What `super kill` does: the daemon stops every app gracefully, then itself; resolves once
 * its process is gone, with its pid (rejects if it is still there after `timeout` ms).
 */
export async function killDaemon(box, timeout = 30000) {
  const client = await box.client();
  const closed = new Promise((resolve) => client.onEvent((e) => e.closed && resolve()));
  const { pid } = await client.request('kill');
  await closed;
  const left = await waitGone([pid], timeout);
  if (left.length) throw new Error(`daemon ${pid} still alive ${timeout} ms after kill`);
  return pid;
}

/**
 * What `super resurrect` does once its dump checks passed: starts the daemon if none runs
 * and asks it to start the saved apps; resolves with its reply.
 */
export async function resurrect(box) {
  const client = await ensureDaemon(box.home);
  try {
    return succeeded('resurrect', await client.request('resurrect', {}, { timeout: 0 }));
  } finally {
    client.close();
  }
}
