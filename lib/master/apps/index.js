// The app model's face: the registry (the one writer of app state, read by others through
// registry.reader), the cron restarts that subscribe to it, and the one status view of its
// snapshot. App, Slot, states of a slot's worker and the restart policy stay inside.
export { AppRegistry, inheritable } from './registry.js';
export { CronRestarts } from './cron-restart.js';
export { lsView, describeView } from './status-view.js';
export { tailFile } from './tail-file.js';
