// Daemon-wide settings, each a check-then-apply pair: scheduling policy and CPU sets,
// per-slot affinity, the remote (TCP) control listener.
export { DaemonPolicy } from './daemon-policy.js';
export { workerAffinity, spreadWarning } from './affinity.js';
export { ControlListener } from './remote-control.js';
