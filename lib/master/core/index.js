// The core's face: the daemon (composition root) that lib/master/index.js hands to the CLI.
// Other sub-systems import only core's leaves directly: states.js (the state names) and
// status-view.js (pure functions), which import nothing that imports them back.
export { startDaemon, EXIT_ALREADY_RUNNING } from './daemon.js';
