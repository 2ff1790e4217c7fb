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
 * @param {Record<string, (message: object) => void>} table  each handler gets the message (its fields)
 */
function listen(table) {
  for (const name of Object.values(TO_AGENT)) {
    if (typeof table[name] !== 'function') throw new TypeError(`superd agent: no handler for ${name}`);
  }
  // A fork-mode child gets its messages only once it has a 'message' listener (Node queues
  // them until then; a cluster worker has cluster's): a listener that does nothing opens
  // the queue, and the channel is unref'd again, so it keeps no finished script alive;
  // once the app listens itself, the channel holds the process open, as Node makes it.
  if (!process.env.NODE_UNIQUE_ID && process.listenerCount('message') === 0) {
    process.on('message', ignore);
    process.channel?.unref();
    process.on('newListener', function appListens(event) {
      if (event !== 'message') return;
      process.off('newListener', appListens);
      process.channel?.ref();
    });
  }
  const emit = process.emit;
  process.emit = function superdEmit(event, message) {
    if (event === 'message') {
      const name = daemonMessageName(message);
      if (name !== undefined) {
        table[name](message);
        return true;
      }
    }
    return emit.apply(this, arguments);
  };
}

module.exports = { send, listen };
