// Programmatic face of superd (docs/protocol.md "Programmatic API"; types in types/index.d.ts): the
// control client, starting the daemon if none runs, and the error registry.
export { connect } from './ipc/client.js';
export { ensureDaemon } from './ctl/launch-daemon.js';
export { SuperError, CODES, EXIT } from './errors.js';
export { superHome } from './home.js';
