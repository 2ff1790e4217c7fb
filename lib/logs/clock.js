// The clock time-based log rotation reads. SUPER_LOG_CLOCK (a date, e.g.
// 2026-11-23T23:59:58Z) in the daemon's environment sets it to start there and run at the
// real pace: a test or a drill sees a midnight rotation without waiting for midnight or
// faking the file system. Unset: the real clock.
const start = process.env.SUPER_LOG_CLOCK ? Date.parse(process.env.SUPER_LOG_CLOCK) : NaN;
const offset = Number.isFinite(start) ? start - Date.now() : 0;

/** @returns {number} epoch ms */
export const logClock = () => Date.now() + offset;
