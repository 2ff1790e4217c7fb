// Bounds of the live diagnostics (`super profile`, `super heap`, profile_on_stall), shared
// by the CLI, the control protocol and the daemon.

/** The longest CPU profile one may ask for: 5 minutes. */
export const MAX_PROFILE_MS = 5 * 60_000;
/** The shortest: below this a sampling profile holds too few samples to say anything. */
export const MIN_PROFILE_MS = 100;
/** `super profile` without --duration. */
export const DEFAULT_PROFILE_MS = 10_000;
