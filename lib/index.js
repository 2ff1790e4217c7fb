// Programmatic face of superd: the control client and the error registry.
export { connect } from './ipc/client.js';
export { SuperError, CODES, EXIT } from './errors.js';
export { superHome } from './home.js';
