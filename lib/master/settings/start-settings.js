// The daemon-wide settings a `start` (or a reload's re-read of a file) brings: log files
// and daemon.log rotation, the TCP control listener, the scheduling policy and the daemon's
// CPU pin, the metrics settings. Each is a check-then-apply pair (metrics never refuse a
// start: an endpoint that cannot listen is a warning, so they are only applied), and
// every check runs before any apply: a start refused for any reason (E_LOG_PATH, E_CONTROL_FIXED,
// E_SCHEDULING_FIXED, ...) has created no log file, changed no rotation, opened no
// listener and pinned nothing.
import { checkLogs, applyLogs } from '../../logs/prepare.js';
import { SuperError } from '../../errors.js';

/**
 * @typedef {object} SettingsOwners  the daemon's holders of each setting
 * @property {import('./daemon-policy.js').DaemonPolicy} policy
 * @property {import('./remote-control.js').RemoteControl|null} [control]
 * @property {{configure: (m: object) => Promise<string[]>}|null} [monitor]  lib/master/health/monitor.js
 * @property {import('../../logs/json-logger.js').JsonLogger} log
 */

/**
 * Checks one file's (or one dump's) daemon settings and the log files of its apps.
 * @param {{logs?: object, control?: object, metrics?: object, scheduling: string, scheduling_set: boolean, cpu_affinity: unknown}} daemon
 * @param {{name: string, instances: number, logs: object}[]} configs  the app configs it starts
 * @param {SettingsOwners} owners
 * @param {{source: string, strict?: boolean, withControl?: boolean}} o  withControl: false
 *   (a reload) leaves the control listener and the metrics settings alone
 * @returns {Promise<object>} the plan for applySettings
 */
export async function checkSettings(daemon, configs, { policy, control }, { source, strict = true, withControl = true }) {
  const logs = await checkLogs(configs, daemon.logs);
  const remote = withControl && control ? await control.check(daemon.control, source, { strict }) : null;
  const pin = policy.check(daemon, source);
  assertStickyScheduling(configs, policy.policy ?? pin.wanted, source);
  return { source, logs, remote, pin, metrics: withControl ? daemon.metrics ?? null : null };
}

/**
 * sticky: needs the daemon to accept (round-robin): under `os` each worker accepts from
 * the shared socket, under `reuseport` from its own, and no one chooses a worker per
 * client (`auto` gives a sticky app round-robin).
 * @param {{name: string, sticky?: object|null}[]} configs
 * @param {string} mode  the scheduling the daemon will run
 */
function assertStickyScheduling(configs, mode, source) {
  const sticky = configs.find((c) => c.sticky);
  if (!sticky || (mode !== 'os' && mode !== 'reuseport')) return;
  throw new SuperError('E_STICKY_SCHEDULING', `${source}: ${sticky.name} asks for sticky: ${sticky.sticky.by}, but connections reach workers with scheduling: ${mode} (each worker accepts by itself, so no one can choose a worker per client); use scheduling: round-robin or auto`);
}

/**
 * Applies what checkSettings planned. The steps that can still fail come first (the
 * listener: a port may be taken; the pin: taskset may fail), before the log directory and
 * the rotation, which cannot once checked.
 * @param {object} plan
 * @param {SettingsOwners} owners
 * @returns {Promise<string[]>} warnings
 */
export async function applySettings(plan, { policy, control, monitor, log }) {
  const warnings = plan.remote && control ? await control.apply(plan.remote) : []; // a remote plan comes from control.check
  await policy.apply(plan.pin);
  if (plan.pin.warning) warnings.push(plan.pin.warning);
  await applyLogs(plan.logs);
  const rotation = plan.logs.rotation;
  // Said when the file has an opinion: which file last set it is not obvious otherwise.
  if (rotation && (rotation.max_size !== null || rotation.retain !== null || rotation.compress)) {
    log.info({ max_size: rotation.max_size, retain: rotation.retain, compress: rotation.compress, file: plan.source }, 'daemon.log rotation set by the file\'s logs:');
  }
  if (monitor && plan.metrics) warnings.push(...(await monitor.configure(plan.metrics)));
  return warnings;
}
