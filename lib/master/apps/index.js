// The app model's face: the registry (it runs every operation on an app; app state is
// written only by it and the App and Slot inside, and read by others through
// registry.reader), the cron restarts that subscribe to it, and the one status view of
// its snapshot. App, Slot, states of a slot's worker and the restart policy stay inside.
export { AppRegistry, inheritable, fileSource } from './registry.js';
export { CronRestarts } from './cron-restart.js';
export { lsView, describeView } from './status-view.js';
export { tailFile } from './tail-file.js';
