// cron_restart is checked when the file is loaded, by the library that runs it
// (croner, in lib/master/apps/cron-restart.js), loaded only for files that use it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * @param {string} expression
 * @returns {string|null}  why croner refuses it, or null when it is valid
 */
export function checkCron(expression) {
  // croner also takes a 7th field (a year): an expression that stops matching one day.
  const fields = expression.trim().split(/\s+/).length;
  if (fields > 6) return `${fields} fields; superd takes 5, or 6 with seconds first, and no year field`;
  const { Cron } = require('croner');
  try {
    new Cron(expression, { paused: true }).stop();
    return null;
  } catch (err) {
    return err.message;
  }
}
