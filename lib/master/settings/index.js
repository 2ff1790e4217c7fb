// Daemon-wide settings, each a check-then-apply pair: scheduling policy and CPU sets,
// per-slot affinity, the remote (TCP) control listener; start-settings.js checks them all
// before it applies any. DaemonSettings owns them all, with the daemon's load options.
export { DaemonSettings } from './daemon-settings.js';
export { workerAffinity, spreadWarning } from './affinity.js';
export { RemoteControl } from './remote-control.js';
export { checkSettings, applySettings } from './start-settings.js';
