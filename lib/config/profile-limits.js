// Bounds of the live diagnostics (`super profile`, `super heap`, profile_on_stall), shared
// by the CLI, the control protocol and the daemon; part of lib/config because the
// ecosystem file's profile_on_stall is checked against them.
import { parseDuration } from './units.js';
import { SuperError } from '../errors.js';

/** The longest CPU profile one may ask for: 5 minutes. */
export const MAX_PROFILE_MS = 5 * 60_000;
/** The shortest: below this a sampling profile holds too few samples to say anything. */
export const MIN_PROFILE_MS = 100;
/** The largest .cpuprofile the CLI reads for its flame graph and summary. */
export const MAX_PROFILE_BYTES = 256 * 1024 * 1024;
/** `super profile` without --duration. */
export const DEFAULT_PROFILE_MS = 10_000;

/** `--duration 10s` -> ms, within the bounds; E_USAGE otherwise. */
export function profileDuration(text) {
  const ms = parseDuration(text);
  if (ms === undefined) throw new SuperError('E_USAGE', `--duration ${text}: give a duration like 500ms, 10s or 2m`);
  if (ms < MIN_PROFILE_MS || ms > MAX_PROFILE_MS) throw new SuperError('E_USAGE', `--duration ${text}: a profile lasts from ${MIN_PROFILE_MS} ms to 5m`);
  return ms;
}
