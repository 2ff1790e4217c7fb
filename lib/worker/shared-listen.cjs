'use strict';
// Fork mode (SUPER_SHARED_LISTEN=1): a server's listen() on a TCP port gets its socket from
// the daemon, which holds it as node:cluster's primary holds a SharedHandle under
// `scheduling: os` (lib/master/process/shared-listen.js). A reload's replacement then
// listens on the very socket its old worker serves, both accept from it, and the old one
// drains and leaves: no refused connection, no EADDRINUSE.
//
// Node's own path: listen() normalizes its arguments and calls
// server._listen2(address, port, addressType, backlog, fd, flags), which listens on
// this._handle when it is set, as cluster's worker sets it (lib/internal/cluster/child.js
// shared(), net.js listenOnPrimaryHandle). Only a TCP port the app names goes this way:
// port 0, a path, a handle and an fd are Node's business as before.
const net = require('node:net');
const util = require('node:util');
const { FROM_AGENT } = require('../ipc/agent-protocol.cjs');
const channel = require('./daemon-channel.cjs');

const pending = new Map(); // request id -> (errno, handle) => void
let nextId = 1;

function install() {
  /** @type {any} Node's internal setupListenHandle (not in its typings) */
  const proto = net.Server.prototype;
  const listen2 = proto._listen2;
  if (typeof listen2 !== 'function') return;
  /** @this {any} a net.Server */
  proto._listen2 = function superdListen2(address, port, addressType, backlog, fd, flags) {
    const named = Number.isInteger(port) && port > 0 && (addressType === 4 || addressType === 6) && !(fd >= 0);
    const ipc = process.channel; // set while connected
    if (this._handle || !named || !process.connected || !ipc) return listen2.apply(this, arguments);
    const id = nextId++;
    // The answer must come before a script with nothing else to do exits (the channel is unref'd).
    ipc.ref();
    pending.set(id, (errno, handle) => {
      // Unref'd again once no other listen() waits either, unless the app listens itself.
      if (pending.size === 0 && process.listenerCount('message') <= 1) ipc.unref();
      if (errno || !handle) {
        process.nextTick(() => this.emit('error', listenError(errno || -1, address, port)));
        return;
      }
      // Its copy closed (server.close(), a drain): the daemon stops counting it as a user.
      const close = handle.close;
      handle.close = function closeShared(...args) {
        channel.send(FROM_AGENT.LISTEN_CLOSED, { id });
        return close.apply(this, args);
      };
      this._handle = handle;
      listen2.call(this, address, port, addressType, backlog, fd, flags);
    });
    channel.send(FROM_AGENT.LISTEN, { id, address: address ?? null, port, addressType, flags: flags ?? 0 });
  };
}

/** TO_AGENT.LISTEN_HANDLE: the socket for request `id` (or why not: errno). */
function onHandle(m, handle) {
  const answer = pending.get(m.id);
  if (!answer) return void handle?.close();
  pending.delete(m.id);
  answer(Number.isInteger(m.errno) ? m.errno : 0, handle);
}

/** The error Node's own listen() gives: `listen EADDRINUSE: address already in use 127.0.0.1:3000`. */
function listenError(errno, address, port) {
  const [code, text] = util.getSystemErrorMap().get(errno) ?? ['EINVAL', 'invalid argument'];
  return Object.assign(new Error(`listen ${code}: ${text} ${address ?? '::'}:${port}`), { code, errno, syscall: 'listen', address: address ?? '::', port });
}

module.exports = { install, onHandle };
