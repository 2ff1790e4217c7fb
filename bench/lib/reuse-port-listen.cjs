'use strict';
// Preloaded (--require) into each process of bench/reuse-port-primary.js: every TCP
// listen(port[, host][, cb]) of the app gets `reusePort: true` (Node 22.12+/23.1+), so N
// plain processes each bind the same port and the kernel spreads new connections over
// them (SO_REUSEPORT). The app runs unchanged. Tells the primary once it listens.
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenReusePort(port, ...rest) {
  if (typeof port !== 'number') return listen.call(this, port, ...rest);
  const host = typeof rest[0] === 'string' ? rest.shift() : undefined;
  const cb = typeof rest[rest.length - 1] === 'function' ? rest.pop() : undefined;
  this.once('listening', () => process.send?.('listening'));
  return listen.call(this, { port, host, reusePort: true }, cb);
};
