// Renders config/superd.service.in for `super startup systemd`. Pure but for reading the
// template; the command (lib/ctl/commands/startup.js) gathers the inputs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEMPLATE = path.join(ROOT, 'config', 'superd.service.in');
const SUPER_BIN = path.join(ROOT, 'bin', 'super.js');

/** systemd learned exponential restart backoff (RestartSteps=, RestartMaxDelaySec=) in 254. */
export const BACKOFF_SINCE = 254;

/** WatchdogSec=: how long the daemon's loop may go without a WATCHDOG=1 (sent every half of it). */
const WATCHDOG_SEC = 30;

/** OOMScoreAdjust= of a system unit: the daemon's own value (lib/master/process/oom-score.js, DAEMON_ADJ). */
export const OOM_SCORE_ADJUST = -900;

/** The unit's file name: one system unit per user, or the user's own unit. */
export const unitName = ({ user, username }) => (user ? 'superd.service' : `superd-${username}.service`);

/**
 * @param {object} o
 * @param {boolean} o.user        a --user unit (no User= line, WantedBy=default.target)
 * @param {string} o.username
 * @param {string} o.group
 * @param {string} o.home         SUPER_HOME
 * @param {string} o.path         PATH for the daemon and the apps
 * @param {string} o.cwd
 * @param {string} o.node         absolute path of node
 * @param {number} o.maxKillTimeout  ms: the largest kill_timeout of the saved apps
 * @param {number|null} o.systemdVersion  null when unknown
 */
export function renderUnit(o, template = fs.readFileSync(TEMPLATE, 'utf8')) {
  const stopTimeout = Math.ceil(o.maxKillTimeout / 1000) + 10;
  const steps = o.systemdVersion !== null && o.systemdVersion >= BACKOFF_SINCE;
  const values = {
    who: o.user ? `user ${o.username}` : o.username,
    user: o.user ? '' : `User=${o.username}\nGroup=${o.group}\n`,
    homeEnv: envAssign('SUPER_HOME', o.home),
    pathEnv: envAssign('PATH', o.path),
    cwd: esc(o.cwd),
    node: arg(o.node),
    super: arg(SUPER_BIN),
    stopTimeout: `${stopTimeout}s`,
    watchdog: `${WATCHDOG_SEC}s`,
    watchdogHalf: `${WATCHDOG_SEC / 2}s`,
    interval: steps ? '30min' : '10min',
    burst: steps ? '20' : '10',
    backoff: steps ? 'RestartSec=1s\nRestartSteps=10\nRestartMaxDelaySec=2min' : 'RestartSec=5s',
    backoffNote: steps
      ? 'the delay grows from 1s to 2min over 10 restarts.'
      : `5s between restarts (RestartSteps= needs systemd ${BACKOFF_SINCE}; this one is ${o.systemdVersion ?? 'unknown'}).`,
    // A user manager may not lower it (the daemon, started higher, keeps the value it has).
    oom: o.user ? '# (no OOMScoreAdjust=: a user manager cannot lower it)' : `OOMScoreAdjust=${OOM_SCORE_ADJUST}`,
    wantedBy: o.user ? 'default.target' : 'multi-user.target',
  };
  return template.replace(/\{\{(\w+)\}\}/g, (m, k) => {
    if (!(k in values)) throw new Error(`unknown placeholder ${m} in ${TEMPLATE}`);
    return values[k];
  });
}

/** A unit-file value: `%` is systemd's specifier character. */
const esc = (s) => String(s).replaceAll('%', '%%');

/** An Environment= assignment, quoted when the value has spaces or quotes. */
function envAssign(name, value) {
  const v = esc(`${name}=${value}`);
  return /[\s"\\]/.test(v) ? `"${v.replace(/[\\"]/g, '\\$&')}"` : v;
}

/** One command-line word, quoted when it must be (systemd.service(5) "Command lines"). */
function arg(s) {
  const v = esc(s);
  return /[\s"'\\;$]/.test(v) ? `"${v.replace(/[\\"]/g, '\\$&').replaceAll('$', '$$$$')}"` : v;
}
