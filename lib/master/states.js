// Worker and app states, named in one place and changed in one place.
//
//   starting --ready--> online --stop--> stopping --exit--> stopped
//       |                  |
//       +----exit----------+--> exited --policy--> starting (restart, after a delay)
//                                         |------> errored  (crash loop: min_uptime/max_restarts)
//                                         +------> stopped  (autorestart off, stop_exit_codes)

export const WORKER_STATES = Object.freeze({
  STARTING: 'starting',
  ONLINE: 'online',
  STOPPING: 'stopping',
  STOPPED: 'stopped',
  EXITED: 'exited',
  ERRORED: 'errored',
});

const S = WORKER_STATES;

/** state -> states it may move to. Anything else is a bug, and throws. */
const MOVES = Object.freeze({
  [S.STARTING]: [S.ONLINE, S.STOPPING, S.EXITED],
  [S.ONLINE]: [S.STOPPING, S.EXITED],
  [S.STOPPING]: [S.STOPPED],
  [S.EXITED]: [S.STARTING, S.ERRORED, S.STOPPED],
  [S.STOPPED]: [S.STARTING],
  [S.ERRORED]: [S.STARTING, S.STOPPED],
});

export function assertMove(from, to) {
  if (!MOVES[from]?.includes(to)) throw new Error(`invalid worker state change ${from} -> ${to}`);
}

/** True while a process exists (or is about to) for the slot. */
export const isRunning = (state) => state === S.STARTING || state === S.ONLINE || state === S.STOPPING;

/**
 * The app's status, derived from its workers' states (never stored, so never stale):
 * errored if any slot is errored, stopped if all are stopped, online if all are online,
 * else the most significant transitional state.
 */
export function appStatus(states) {
  if (states.length === 0) return S.STOPPED;
  if (states.includes(S.ERRORED)) return S.ERRORED;
  if (states.every((s) => s === S.STOPPED)) return S.STOPPED;
  if (states.every((s) => s === S.ONLINE)) return S.ONLINE;
  if (states.includes(S.STOPPING)) return S.STOPPING;
  return S.STARTING;
}
