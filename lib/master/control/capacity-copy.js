// `super capacity <app>` measures a separate copy of an app, never the app itself. The
// copy is made here, in the daemon, from the running app's normalized config, so the
// app's secrets never leave the daemon: `<app>~capacity`, one instance (no autoscale: it
// runs exactly the counts the CLI scales it to and reports), its port variable
// (PORT, or the app's increment_var) set to the free loopback port the CLI chose, its own
// log files, no watch, no cron restart. User app names cannot contain "~" (the schema's
// name pattern), so a copy never collides with an app of a file, and `save` leaves copies
// out (lib/master/saved/saved-state.js).
//
// The copy lives as long as the control connection that asked for it: the CLI deletes it
// when it is done or interrupted, and if the CLI dies (SIGKILL, lost terminal) the closing
// connection deletes it here, so a copy never runs on forever.
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { deepFreeze } from '../../config/deep-freeze.js';
import { resolveLogSettings } from '../../config/log-settings.js';

const COPY_SUFFIX = '~capacity';
// A delete refused with E_BUSY (the copy is being scaled) is tried again, this long at most.
const REMOVE_RETRY_MS = 250;
const REMOVE_GIVE_UP_MS = 120_000;
// Copies being started (not yet in the registry), so two runs never make the same one.
const starting = new Set();

/** The variable the app reads its port from: its increment_var, else PORT. */
const portVariable = (config) => config.increment_var ?? 'PORT';

/**
 * Builds `<app>~capacity` and starts it with one instance, bound to `conn`.
 * @param {import('../apps/registry.js').AppRegistry} registry
 * @param {import('../settings/daemon-settings.js').DaemonSettings} settings
 * @param {{app: string, port: number}} args
 * @param {import('../../ipc/connection.js').Connection} conn
 * @returns {Promise<{app: string, copy: string, port: number, port_var: string, exec_mode: string, listen_timeout: number,
 *   failed: object[], warnings: string[]}>}
 */
export async function startCapacityCopy(registry, settings, { app: target, port }, conn) {
  const app = registry.app(target, 'capacity');
  if (app.name.includes('~')) throw new SuperError('E_USAGE', `${app.name} is itself a copy made by super capacity; name the app it copies`);
  const name = `${app.name}${COPY_SUFFIX}`;
  if (starting.has(name) || registry.reader.app(name)) throw new SuperError('E_BUSY', `${name} exists: another super capacity run measures ${app.name}; wait for it to end`);
  const [entry] = registry.entries(app.name);
  const config = copyConfig(entry.config, name, port, settings.home);
  const daemon = { scheduling: settings.schedulingName, scheduling_set: false, cpu_affinity: null };
  // The connection may close while the copy starts: it is removed once it is registered.
  // An app's id is never given to another (app-ids.js): it tells this copy from a later one.
  let closed = false;
  let copy = null; // its id
  conn.onClose(() => {
    closed = true;
    if (copy !== null) removeCopy(registry, settings.log, name, copy);
  });
  starting.add(name);
  try {
    const result = await registry.startConfigs([{ config, clientEnv: entry.clientEnv }], daemon, 'super capacity');
    return { app: app.name, copy: name, port, port_var: portVariable(config), exec_mode: config.exec_mode, listen_timeout: config.listen_timeout, failed: result.failed, warnings: result.warnings };
  } finally {
    starting.delete(name);
    copy = registry.reader.app(name)?.id ?? null;
    if (closed && copy !== null) removeCopy(registry, settings.log, name, copy);
  }
}

function copyConfig(c, name, port, home) {
  const portVar = portVariable(c);
  if (c.env[portVar] === undefined) {
    const why = c.increment_var ? `its increment_var ${portVar} is not set in its env` : 'it has no PORT in its env (nor an increment_var)';
    throw new SuperError('E_CAPACITY_NO_PORT', `${c.name} has no port to replace: ${why}; super capacity measures an app that listens on the port its env gives it`);
  }
  // its own log files, beside the app's, with the app's log settings
  const logs = c.logs
    ? { ...c.logs, out: path.join(c.logs.dir, `${name.replaceAll('/', '-')}-out.log`), err: path.join(c.logs.dir, `${name.replaceAll('/', '-')}-err.log`) }
    : resolveLogSettings({ ...c, name, out_file: null, error_file: null }, null, home);
  return deepFreeze({
    ...c,
    name,
    out_file: null,
    error_file: null,
    instances: 1,
    instances_spec: 1,
    // the measurement sets the count: an autoscaler adding workers would make its "1 instance" row two
    autoscale: null,
    env: { ...c.env, [portVar]: String(port) },
    // every instance shares the one port (cluster mode); increment_var would move them off it
    increment_var: null,
    watch: [],
    cron_restart: null,
    autostart: true,
    logs,
  });
}

/** Deletes the copy of a closed connection (unless its CLI did), retrying while it is busy. */
function removeCopy(registry, log, name, copy) {
  const present = () => registry.reader.app(name)?.id === copy;
  if (!present()) return; // removed by its CLI already
  log.info({ app: name }, 'capacity copy: its control connection closed; removing it');
  const giveUp = Date.now() + REMOVE_GIVE_UP_MS;
  const remove = () => {
    if (!present()) return;
    registry.delete(name).catch((err) => {
      if (err.code === 'E_BUSY' && Date.now() < giveUp) setTimeout(remove, REMOVE_RETRY_MS).unref();
      else log.error({ err: err.message, app: name }, 'could not remove the capacity copy of a closed connection');
    });
  };
  remove();
}
