// When a worker's stall earns a capture (profile_on_stall). Pure: the metrics report, the
// settings and the worker's last capture in, a decision out.

/**
 * @param {object} o
 * @param {number|null|undefined} o.p99  the event-loop delay p99 of the worker's last report (ms)
 * @param {{loop_delay: number, cooldown: number}} o.settings  profile_on_stall (ms)
 * @param {number} [o.lastAt]  when the worker's last capture started (ms), if any
 * @param {boolean} o.busy  a diagnostic of the worker is running
 * @param {number} o.now
 * @returns {boolean} true: record a profile now
 */
export function shouldCapture({ p99, settings, lastAt, busy, now }) {
  if (busy || typeof p99 !== 'number' || p99 < settings.loop_delay) return false;
  // At most one capture per worker per cooldown, counted from the start of the last one.
  return lastAt === undefined || now - lastAt >= settings.cooldown;
}
