// `filter_env` (PM2's key, read as PM2 reads it: lib/Common.js prepareAppConf): which
// variables of the caller's environment (the shell of the `super start` that added the
// app, or of `reload --update-env`) its workers do not get. The app's own `env` is never
// filtered, nor the daemon's own environment, which every worker inherits (as PM2's).

/** @typedef {boolean|string|string[]} FilterEnv  normalized: false passes everything */

/**
 * The setting as written -> its normalized form: PM2 filters nothing for an empty string or
 * list (its `filter_env.length > 0`).
 * @param {unknown} written  checked by the schema: a boolean, a string or a list of strings
 * @returns {FilterEnv}
 */
export function filterEnvSetting(written) {
  if (written === true) return true;
  if (typeof written === 'string' && written) return written;
  if (Array.isArray(written) && written.length) return written.map(String);
  return false;
}

/**
 * The caller's environment without what `filter` leaves out: true, every variable (what PM2
 * means; PM2 (7.0) itself skips `true`, a bug never fixed: https://github.com/Unitech/pm2/pull/4889);
 * a string, the variable of exactly that name; a list, every variable whose name contains
 * one of its strings (PM2's `includes`: `AWS_` drops `MY_AWS_KEY` too).
 * @param {Record<string, string>} env
 * @param {FilterEnv|undefined} filter
 * @returns {Record<string, string>}
 */
export function filteredCallerEnv(env, filter) {
  if (!filter) return env;
  if (filter === true) return {};
  if (typeof filter === 'string') {
    const { [filter]: _dropped, ...rest } = env;
    return rest;
  }
  return Object.fromEntries(Object.entries(env).filter(([name]) => !filter.some((part) => name.includes(part))));
}
