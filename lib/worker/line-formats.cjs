'use strict';
// How the agent formats one line of an app's output (lib/worker/log-format.cjs writes it):
//   log_date_format / time  `<time>: <line>` (dayjs format, loaded only when one is set)
//   log_type: json          pino's line: {level, time (epoch ms), pid, hostname, name (the
//                           app), slot, stream, msg}; level 30 for stdout, 50 for stderr. A
//                           line that is a JSON object (an app logging with pino) is merged:
//                           its own keys win, ours fill in what it lacks
//   log_type: pm2-json      PM2's line: {message, timestamp, type, process_id (the slot), app_name};
//                           timestamp in log_date_format when set, else ISO, as PM2 does
const os = require('node:os');

const LEVEL = { out: 30, err: 50 };

/** The JSON object a line holds, or null (a plain text line, an array, bad JSON). */
function objectOf(text) {
  if (text.charCodeAt(0) !== 0x7b /* { */) return null;
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * @param {{type: string, date: string|null, app: string, slot: number}} cfg  SUPER_LOG
 * @returns {((stream: 'out'|'err', text: string, ms: number) => string)|null}  null: lines go as written
 */
function lineFormatter(cfg) {
  const stamp = cfg.date === 'ISO' ? (ms) => new Date(ms).toISOString() : cfg.date ? require('../logs/date-format.cjs').compileFormat(cfg.date) : null;
  if (cfg.type === 'json') {
    const hostname = os.hostname();
    return (stream, text, ms) => {
      const ours = { level: LEVEL[stream], time: ms, pid: process.pid, hostname, name: cfg.app, slot: cfg.slot, stream };
      const own = objectOf(text);
      // Spread, not Object.assign: an own "__proto__" key stays a plain key.
      return JSON.stringify(own ? { ...ours, ...own } : { ...ours, msg: text });
    };
  }
  if (cfg.type === 'pm2-json') {
    const when = stamp ?? ((ms) => new Date(ms).toISOString());
    return (stream, text, ms) => JSON.stringify({ message: text, timestamp: when(ms), type: stream, process_id: cfg.slot, app_name: cfg.app });
  }
  return stamp ? (stream, text, ms) => `${stamp(ms)}: ${text}` : null;
}

module.exports = { lineFormatter };
