'use strict';
// The agent's end of the worker's IPC channel to the daemon (lib/ipc/agent-protocol.cjs):
// send() for everything the agent says, listen() for the agent's one dispatch table of
// what the daemon says.
const { TO_AGENT, envelope, daemonMessageName } = require('../ipc/agent-protocol.cjs');

const ignore = () => {};

/**
 * Sends an agent message (a FROM_AGENT name) when there is a channel. A channel closing
 * under us is not the app's problem: the callback takes the error instead of an 'error'
 * event on process, which would throw in the app.
 */
function send(name, fields) {
  if (typeof process.send === 'function' && process.connected) process.send(envelope(name, fields), ignore);
}

/**
 * Routes each daemon message to table[name] (one function per TO_AGENT name). Seen through
 * process.emit, so the app's own 'message' listeners never get them.
 * @param {Record<string, (message: object, handle?: object) => void>} table  each handler gets the
 *   message (its fields), and the handle sent with it (LISTEN_HANDLE)
 */
function listen(table) {
  for (const name of Object.values(TO_AGENT)) {
    if (typeof table[name] !== 'function') throw new TypeError(`superd agent: no handler for ${name}`);
  }
  const emit = process.emit;
  process.emit = function superdEmit(event, message, handle) {
    if (event === 'message') {
      const name = daemonMessageName(message);
      if (name !== undefined) {
        table[name](message, handle);
        return true;
      }
    }
    return emit.apply(this, arguments);
  };
  // @ts-expect-error require() gives the cluster object; Node's typings declare it an ES default export
  if (!require('node:cluster').isWorker) receiveInForkedChild();
}

/**
 * A forked child (fork mode) is handed no message while 'message' has no listener. Ours
 * must not keep a script that is done from exiting: the channel is unref'd, and ref'd
 * again while the app has 'message' listeners of its own, as Node does for them.
 */
function receiveInForkedChild() {
  const { channel } = process;
  if (!channel) return; // not forked with an IPC channel: no message can come
  process.on('message', ignore);
  channel.unref();
  process.on('newListener', (name) => {
    if (name === 'message') channel.ref();
  });
  process.on('removeListener', (name) => {
    if (name === 'message' && process.listenerCount('message') === 1) channel.unref();
  });
}

module.exports = { send, listen };
