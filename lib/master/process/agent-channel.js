// The daemon's one receiver of what a worker's agent says (lib/ipc/agent-protocol.cjs).
// It owns the worker process's 'message' listener and hands each agent message, checked
// by the guard of its name, to the one handler the table gives for that name. WorkerProcess
// holds the table and turns messages into its own events ('ready', 'drained', 'metrics',
// 'log-error', 'log-resumed', 'logs-reopened', 'diagnostic'): readiness, the slot, the monitor and the
// app's logs listen to those, never to the channel.
//
// Any app can flood this channel with anything (its own process.send): each message costs
// O(1) here (a type check, a Set lookup, a bounded guard) and logs nothing; an app's own
// messages, unknown names and malformed fields are dropped.
import { FROM_AGENT, GUARDS, agentMessageName, envelope } from '../../ipc/agent-protocol.js';

const NAMES = new Set(Object.values(FROM_AGENT));

/**
 * The routing table: exactly one handler for every agent message name.
 * @param {Record<string, (fields: object) => void>} handlers  keyed by FROM_AGENT names
 * @returns {Map<string, (fields: object) => void>}
 */
export function routeTable(handlers) {
  for (const name of Object.keys(handlers)) {
    if (!NAMES.has(name)) throw new TypeError(`agent channel: ${name} is not an agent message`);
  }
  const table = new Map();
  for (const name of NAMES) {
    if (typeof handlers[name] !== 'function') throw new TypeError(`agent channel: no handler for ${name}`);
    table.set(name, handlers[name]);
  }
  return table;
}

/** Listens to `source` (a cluster Worker or a ChildProcess) for its whole life and routes agent messages. */
export function listenToAgent(source, handlers) {
  const table = routeTable(handlers);
  source.on('message', (m) => {
    const name = agentMessageName(m);
    if (name === undefined) return;
    const fields = GUARDS[name](m);
    if (fields !== null) table.get(name)?.(fields); // routeTable has a handler for every name
  });
}

/** Sends a daemon -> agent message (TO_AGENT name, with its fields); throws as child.send does on a closed channel. */
export function tellAgent(child, name, fields) {
  child.send(envelope(name, fields));
}
