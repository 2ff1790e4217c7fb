// How long the daemon's graceful stop may take before it exits anyway (daemon.js shutdown).
// A worker's retirement is bounded by drain_timeout then kill_timeout (SIGKILL after it:
// worker-process.js stop()), and apps and workers stop in parallel, so the slowest worker
// sets the bound. A fixed bound would fire before systemd's TimeoutStopSec (the saved apps'
// largest drain_timeout + kill_timeout + 10 s, lib/ctl/systemd-unit.js) for slow apps.
import { stopTime } from '../../stop-time.js';
// setTimeout fires at once beyond it (and warns): a huge kill_timeout must not do that.
import { MAX_TIMER_MS } from '../../config/units.js';

/** Added to the slowest stop: exits and log flushes after SIGKILL; under the unit's 10 s. */
export const STOP_MARGIN_MS = 5000;


/** @typedef {Parameters<typeof stopTime>[0]} StopTimes  the stop times of an app's config */

/**
 * @param {Iterable<{config: StopTimes, slots: {config: StopTimes|null}[]}>} apps  the registry's apps
 * @returns {number} ms
 */
export function stopDeadline(apps, margin = STOP_MARGIN_MS) {
  let slowest = 0;
  for (const app of apps) {
    // A slot mid-reload may still run an older config than its app's.
    for (const c of [app.config, ...app.slots.map((s) => s.config)]) {
      if (c) slowest = Math.max(slowest, stopTime(c));
    }
  }
  return Math.min(slowest + margin, MAX_TIMER_MS);
}
