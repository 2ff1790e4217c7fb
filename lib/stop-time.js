// How long one worker's graceful stop may take: its lame duck (shutdown_delay), the drain (drain_timeout), then kill_signal
// and SIGKILL after kill_timeout. Shared by the daemon's stop deadline and by the systemd
// unit's TimeoutStopSec (`super startup`), which must outlast it.

/** drain_timeout + kill_timeout of an app that sets neither (lib/config/normalize-app.js defaults). */
export const DEFAULT_STOP_MS = 10000 + 1600;

/** @param {{shutdown_delay?: number, drain_timeout?: number, kill_timeout?: number}} config  a normalized app config */
export function stopTime(config) {
  return (Number(config.shutdown_delay) || 0) + (Number(config.drain_timeout) || 0) + (Number(config.kill_timeout) || 0);
}
