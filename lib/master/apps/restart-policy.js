// What to do when a worker exits without being asked to: a pure function of the app's
// settings, the slot's history and the exit, so it is unit-tested without processes
// Semantics follow PM2's knobs:
//  - autorestart: false, or an exit code listed in stop_exit_codes -> stay stopped
//  - an exit before min_uptime is "unstable"; more than max_restarts unstable exits in a
//    row -> errored (a crash loop; without it a worker that cannot start is forked
//    at full rate forever)
//  - the file sets neither restart_delay nor exp_backoff_restart_delay: the built-in
//    crash-loop backoff. Unstable exit n in a row waits 0 ms for n = 1 (a lone crash is
//    replaced at once), then 100 ms x 2^(n-2), capped at 2 s; a stable exit, 0 ms. So a
//    crash loop never forks at full rate on the daemon until max_restarts
//  - exp_backoff_restart_delay > 0: the delay starts there, grows x1.5 per restart, is
//    capped at 15 s, and resets once the worker has stayed up 30 s
//  - otherwise restart_delay (an explicit `restart_delay: 0` turns the backoff off)

export const BACKOFF_CAP_MS = 15000;
const BACKOFF_RESET_UPTIME_MS = 30000;
const BACKOFF_FACTOR = 1.5;
const DEFAULT_BACKOFF_BASE_MS = 100;
const DEFAULT_BACKOFF_CAP_MS = 2000;

/** The built-in backoff before the restart that follows unstable exit `n` in a row (0: stable). */
function defaultBackoff(n) {
  if (n <= 1) return 0;
  return Math.min(DEFAULT_BACKOFF_BASE_MS * 2 ** (n - 2), DEFAULT_BACKOFF_CAP_MS);
}

/**
 * @param {{autorestart: boolean, stop_exit_codes: number[], min_uptime: number, max_restarts: number,
 *          restart_delay: number, exp_backoff_restart_delay: number, restart_delay_set: boolean}} app  a
 *   config normalized by lib/config (a saved one too: resurrect normalizes it again)
 * @param {{unstable: number, backoff: number}} history  consecutive unstable exits; last backoff delay (0 = none yet)
 * @param {{code: number|null, signal: string|null, uptime: number, error?: string}} exit  error: why it could not be spawned
 * @returns {{action: 'restart'|'stop'|'errored', reason: string, delay?: number, history?: object}}
 *   restart: after `delay` ms, with the new `history`; stop: no restart; errored: too many
 *   unstable exits (`history` kept)
 */
export function decideRestart(app, history, exit) {
  // A process that could not be spawned (EAGAIN at a pids limit) never ran: say why.
  const exited = exit.error ? `could not start (${exit.error})` : `exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}`;
  if (!app.autorestart) return { action: 'stop', reason: `${exited}; autorestart is off` };
  if (exit.signal === null && exit.code !== null && app.stop_exit_codes.includes(exit.code)) {
    return { action: 'stop', reason: `exited with code ${exit.code}, listed in stop_exit_codes` };
  }

  const unstable = exit.uptime < app.min_uptime ? history.unstable + 1 : 0;
  if (unstable > app.max_restarts) {
    return {
      action: 'errored',
      reason: `${exited} ${unstable} times in a row, each before min_uptime (${app.min_uptime} ms); max_restarts is ${app.max_restarts}`,
      history: { unstable, backoff: history.backoff },
    };
  }

  let delay = app.restart_delay;
  let backoff = 0;
  if (!app.restart_delay_set) {
    delay = defaultBackoff(unstable);
  } else if (app.exp_backoff_restart_delay > 0) {
    const grown = history.backoff > 0 && exit.uptime < BACKOFF_RESET_UPTIME_MS
      ? Math.min(history.backoff * BACKOFF_FACTOR, BACKOFF_CAP_MS)
      : app.exp_backoff_restart_delay;
    backoff = Math.round(grown);
    delay = backoff;
  }
  return { action: 'restart', delay, history: { unstable, backoff }, reason: exited };
}

export const freshHistory = () => ({ unstable: 0, backoff: 0 });
