// A PM2 dump (dump.pm2: a JSON array of pm2_env objects, one per process) -> the apps PM2
// was asked to run, in ecosystem-file form. PM2 writes one entry per instance: the entries
// of one app (same name and script) become one app with `instances` = their count.
import os from 'node:os';
import path from 'node:path';
import { DUMP_CONFIG_KEYS, PM2_DEFAULTS } from './dump-keys.js';
import { dumpEnv } from './dump-env.js';

/** Does this parsed JSON look like a PM2 dump (rather than an ecosystem file)? */
export const isDump = (data) => Array.isArray(data) && data.length > 0 && data.every((e) => e && typeof e === 'object' && 'pm_exec_path' in e);

/**
 * @param {object[]} entries  the parsed dump
 * @param {{ pm2Home: string|null, here: object, cpus?: number }} ctx  pm2Home: where PM2 kept
 *   its default log files; here: the importing process's environment (see dump-env.js);
 *   cpus: this machine's CPUs (default: os.availableParallelism())
 * @returns {{ apps: object[], notes: string[] }}  notes: what was left out, one line each
 */
export function dumpApps(entries, { pm2Home, here, cpus = os.availableParallelism() }) {
  const groups = new Map();
  for (const entry of entries) {
    const key = `${entry.name}\0${entry.pm_exec_path}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(entry);
  }
  const notes = [];
  const leftOut = new Map(); // the variables left out -> the apps they were left out of
  const apps = [...groups.values()].map((group) => {
    const byInstance = group.slice().sort((a, b) => instanceOf(a) - instanceOf(b));
    const { app, sameAsHere } = dumpApp(byInstance[0], group.length, pm2Home, here, notes);
    const names = sameAsHere.join(', ');
    if (names) leftOut.set(names, [...(leftOut.get(names) ?? []), app.name]);
    const asked = cpuRelative(app, cpus);
    if (asked) notes.push(`${app.name}: instances: ${app.instances} is how many processes PM2 ran (its dump keeps no \`instances\`); if PM2 was given ${asked} (${CPU_RELATIVE[asked]}), write instances: ${asked}`);
    if (group.some((e) => e.status === 'stopped' || e.status === 'errored')) {
      notes.push(`${app.name}: was ${group.map((e) => e.status).join('/')} in PM2; \`super start\` starts it`);
    }
    return app;
  });
  for (const [names, appNames] of leftOut) {
    notes.push(`${appNames.join(', ')}: env: ${names.split(', ').length} variable(s) PM2 recorded equal this shell's and are left out (workers inherit the environment of \`super start\`; add any a boot-time daemon would lack): ${names}`);
  }
  return { apps, notes };
}

function dumpApp(entry, instances, pm2Home, here, notes) {
  /** @type {Record<string, unknown>} */
  const app = {};
  for (const key of DUMP_CONFIG_KEYS) {
    if (!(key in entry) || key === 'env') continue;
    // A dump records every key, set or not; one at PM2's default asked for nothing.
    if (key in PM2_DEFAULTS && JSON.stringify(entry[key]) === JSON.stringify(PM2_DEFAULTS[key])) continue;
    app[key] = entry[key];
  }
  app.name = entry.name;
  app.script = entry.pm_exec_path;
  app.cwd = entry.pm_cwd;
  app.interpreter = entry.exec_interpreter;
  app.instances = instances;
  const { env, sameAsHere } = dumpEnv(entry, here);
  app.env = env;

  // superd merges the instances' output into one file per stream unless told otherwise;
  // PM2's default files (in $PM2_HOME/logs) are PM2's, not the app's.
  const merged = entry.merge_logs === true;
  delete app.merge_logs;
  const defaults = [];
  for (const [key, recorded] of [['out_file', entry.pm_out_log_path], ['error_file', entry.pm_err_log_path], ['log_file', entry.pm_log_path]]) {
    if (typeof recorded !== 'string') continue;
    if (pm2Home && path.dirname(recorded) === path.join(pm2Home, 'logs')) defaults.push(key);
    else app[key] = merged ? recorded : recorded.replace(/-\d+(\.[^./]*)?$/, '$1'); // PM2 added -<pm_id>
  }
  if (defaults.length) notes.push(`${entry.name}: ${defaults.join(', ')}: PM2's default files in ${path.join(pm2Home, 'logs')} are not reused; superd writes its own (super logs ${entry.name})`);
  if (!merged && instances > 1 && (app.out_file || app.error_file)) app.merge_logs = false; // one file per instance, as PM2 had it
  return { app, sameAsHere };
}

const CPU_RELATIVE = { max: 'one per CPU', '-1': 'one per CPU but one' };

/** `max` or `-1` (PM2 resolves them against the CPUs) where the count of a cluster app matches one. */
function cpuRelative(app, cpus) {
  if (app.exec_mode !== 'cluster_mode' || app.instances < 2) return null;
  if (app.instances === cpus) return 'max';
  if (app.instances === cpus - 1) return '-1';
  return null;
}

function instanceOf(entry) {
  const n = Number(entry.env?.[entry.instance_var ?? 'NODE_APP_INSTANCE'] ?? entry.NODE_APP_INSTANCE);
  return Number.isFinite(n) ? n : 0;
}
