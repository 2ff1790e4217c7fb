// cron_restart is checked when the file is loaded, by the library that runs it
// (croner, in lib/master/core/cron-restart.js), loaded only for files that use it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * @param {string} expression
 * @returns {string|null}  why croner refuses it, or null when it is valid
 */
export function checkCron(expression) {
  const { Cron } = require('croner');
  try {
    new Cron(expression, { paused: true }).stop();
    return null;
  } catch (err) {
    return err.message;
  }
}
