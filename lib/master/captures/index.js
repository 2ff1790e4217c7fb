// Captures: CPU profiles, heap snapshots and stall captures of live workers. The daemon
// only coordinates: it names the file, asks the worker's agent, and relays the outcome;
// the agent writes the file itself (lib/worker/captures.cjs).
export { Captures } from './captures.js';
export { lastStallCapture } from './stall-captures.js';
