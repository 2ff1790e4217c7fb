// The HAProxy agent-check listener (`metrics.agent_check`; loopback unless the file names an
// address): HAProxy connects every `agent-inter`, may send its `agent-send` string, reads
// one line and the connection closes. The line is health/agent-weight.js's answer for the
// app named by the string (`agent-send "api\n"`), or for every app when HAProxy sends
// nothing within NAME_WAIT_MS. Nothing is computed per connection beyond a walk of the
// registry's snapshot and the workers' last reports: the daemon's loop pays microseconds.
import net from 'node:net';
import { parseListen } from '../../config/listen-address.js';
import { inheritedSocket } from '../upgrade/index.js';
import { boundNetServer } from '../../ipc/connection-limits.js';

/** How long to wait for an agent-send line before answering for every app. */
const NAME_WAIT_MS = 100;
/** The most bytes of a name read: app names are at most 64 characters. */
const MAX_NAME = 256;
/** A peer that neither sends nor reads is dropped after this. */
const IDLE_MS = 5000;

/**
 * @param {string} listen  host:port
 * @param {{answer: (app: string|null) => string}} o  the line for an app (null: every app)
 * @returns {Promise<net.Server>}  rejects with the listen error (EADDRINUSE, EACCES, ...)
 */
export function startAgentCheck(listen, { answer }) {
  const server = net.createServer((socket) => {
    let got = '';
    let done = false;
    const reply = (name) => {
      if (done) return;
      done = true;
      clearTimeout(wait);
      let line;
      try {
        line = answer(name);
      } catch (err) {
        line = `down # superd could not answer: ${String(err.message).replace(/[\r\n]/g, ' ')}`;
      }
      socket.end(`${line}\n`);
    };
    const wait = setTimeout(() => reply(null), NAME_WAIT_MS);
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('error', () => {}); // a peer that resets: nothing to do
    socket.on('data', (chunk) => {
      if (done) return;
      got += chunk.toString('latin1');
      const nl = got.search(/[\r\n]/);
      if (nl >= 0) reply(got.slice(0, nl).trim() || null);
      else if (got.length > MAX_NAME) reply(null);
    });
    socket.on('end', () => reply(got.trim() || null));
  });
  boundNetServer(server, 'agent');
  const { host, port } = parseListen(listen);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // The same socket as the daemon this one replaced (`super upgrade`), if it was handed over.
    const fd = inheritedSocket(host, port);
    server.listen(fd === null ? { port, host } : { fd }, () => {
      server.removeAllListeners('error');
      server.unref();
      resolve(server);
    });
  });
}
