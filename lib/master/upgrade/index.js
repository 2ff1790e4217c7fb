// `super upgrade`: replacing the daemon without a failed request (the running daemon's
// side, the successor's side), and the listening sockets a daemon inherits, from the daemon
// it replaces or from systemd (LISTEN_FDS).
export { Upgrade } from './upgrade-op.js';
export { Handover } from './handover.js';
export { adoptInheritedSockets, inheritedSocket } from './inherited-sockets.js';
