// What to do when a worker exits without being asked to: a pure function of the app's
// settings, the slot's history and the exit, so it is unit-tested without processes
// (STYLE.md guideline 8). Semantics follow PM2's knobs:
//  - autorestart: false, or an exit code listed in stop_exit_codes -> stay stopped
//  - an exit before min_uptime is "unstable"; more than max_restarts unstable exits in a
//    row -> errored (a crash loop; FEASIBILITY.md pitfall 6)
//  - exp_backoff_restart_delay > 0: the delay starts there, grows x1.5 per restart, is
//    capped at 15 s, and resets once the worker has stayed up 30 s
//  - otherwise restart_delay

export const BACKOFF_CAP_MS = 15000;
export const BACKOFF_RESET_UPTIME_MS = 30000;
export const BACKOFF_FACTOR = 1.5;

/**
 * @param {{autorestart: boolean, stop_exit_codes: number[], min_uptime: number, max_restarts: number,
 *          restart_delay: number, exp_backoff_restart_delay: number}} app
 * @param {{unstable: number, backoff: number}} history  consecutive unstable exits; last backoff delay (0 = none yet)
 * @param {{code: number|null, signal: string|null, uptime: number}} exit
 * @returns {{action: 'restart', delay: number, history: object, reason: string}
 *          |{action: 'stop', reason: string}
 *          |{action: 'errored', reason: string, history: object}}
 */
export function decideRestart(app, history, exit) {
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  if (!app.autorestart) return { action: 'stop', reason: `exited with ${how}; autorestart is off` };
  if (exit.signal === null && app.stop_exit_codes.includes(exit.code)) {
    return { action: 'stop', reason: `exited with code ${exit.code}, listed in stop_exit_codes` };
  }

  const unstable = exit.uptime < app.min_uptime ? history.unstable + 1 : 0;
  if (unstable > app.max_restarts) {
    return {
      action: 'errored',
      reason: `exited with ${how} ${unstable} times in a row, each before min_uptime (${app.min_uptime} ms); max_restarts is ${app.max_restarts}`,
      history: { unstable, backoff: history.backoff },
    };
  }

  let delay = app.restart_delay;
  let backoff = 0;
  if (app.exp_backoff_restart_delay > 0) {
    const grown = history.backoff > 0 && exit.uptime < BACKOFF_RESET_UPTIME_MS
      ? Math.min(history.backoff * BACKOFF_FACTOR, BACKOFF_CAP_MS)
      : app.exp_backoff_restart_delay;
    backoff = Math.round(grown);
    delay = backoff;
  }
  return { action: 'restart', delay, history: { unstable, backoff }, reason: `exited with ${how}` };
}

export const freshHistory = () => ({ unstable: 0, backoff: 0 });
