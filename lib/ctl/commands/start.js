// super start, in PM2's forms:
//   super start <ecosystem file> [--env name] [--only a,b] [--watch]
//   super start app.js [-i N|max|-1] [--name n] [--env-var K=V]... [PM2 flags] [-- args]   (file-less)
//   super start "npm run start" --name web  |  super start npm --name web -- start
//   super start <app|id|namespace|all>...   (starts stopped apps again)
// Which form: an ecosystem-looking name (lib/ctl/ecosystem-name.js) is a file; an existing
// file or script options make a file-less app; anything else is first looked up among the
// daemon's apps (names may have spaces: "Billing API"), then run as a command line. A
// file-less app runs as `pm2 start app.js` does: one process in fork mode, ready once it
// runs, unless -i, --cluster or --ready-on asks for more. PM2's start flags:
// lib/ctl/pm2-start-flags.js.
import fs from 'node:fs';
import path from 'node:path';
import { superHome, pidPath } from '../../home.js';
import { SuperError, EXIT } from '../../errors.js';
import { ensureDaemon } from '../launch-daemon.js';
import { printOutcome } from '../report.js';
import { renderLs } from '../render-ls.js';
import { reloadPrinter } from '../render-reload.js';
import { isEcosystemFile } from '../ecosystem-name.js';
import { toTargets } from '../targets.js';
import { shellQuote, shellSplit } from '../../config/shell-split.js';
import { pm2StartKeys } from '../pm2-start-flags.js';
import { MAX_INSTANCES } from '../../ipc/protocol.js';
import { callerEnv } from '../caller-env.js';

const ENV_VAR = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

export default async function start(what, more = [], opts = {}) {
  // Arguments after `--` are the script's; commander hands them over with the other operands.
  const dashdash = process.argv.indexOf('--');
  const scriptArgs = dashdash < 0 ? [] : process.argv.slice(dashdash + 1);
  const operands = more.slice(0, more.length - scriptArgs.length);
  const pm2 = pm2StartKeys(opts);
  if (pm2.refused) throw new SuperError('E_USAGE', pm2.refused);
  const superdOptions = opts.cluster || opts.readyOn !== undefined;
  const scriptOptions = opts.instances !== undefined || opts.name !== undefined || opts.envVar !== undefined || scriptArgs.length > 0 || superdOptions || pm2.given.length > 0;
  if (isEcosystemFile(what) && (pm2.given.length || superdOptions)) {
    const flag = pm2.given[0] ?? (opts.cluster ? '--cluster' : '--ready-on');
    throw new SuperError('E_USAGE', `${flag} goes with a script (super start app.js ${flag} ...); in an ecosystem file, set the app's key instead`);
  }
  if (isEcosystemFile(what) && !scriptOptions) {
    if (operands.length) throw new SuperError('E_USAGE', `one ecosystem file at a time (got ${[what, ...operands].join(' ')})`);
    if (opts.dryRun) return (await import('./check.js')).default(what, opts);
    return startFile(what, opts);
  }
  if (opts.dryRun) throw new SuperError('E_USAGE', `--dry-run shows the apps of an ecosystem file; "${what}" is not one (super check <file>)`);
  if (opts.env !== undefined || opts.only !== undefined) {
    throw new SuperError('E_USAGE', '--env and --only choose in an ecosystem file; for a script, set variables with --env-var K=V');
  }
  if (scriptOptions || fs.existsSync(what)) {
    if (operands.length) throw new SuperError('E_USAGE', `one script at a time; its arguments go after --: super start ${what} -- ${operands.join(' ')}`);
    return startScript(what, scriptArgs, opts, pm2);
  }
  if (opts.watch) throw new SuperError('E_USAGE', `--watch goes with a file or a script; for a registered app: super watch ${what} on`);
  return withDaemon(async (client) => {
    try {
      return report(client, await client.request('start-apps', { target: toTargets([what, ...operands]) }, { timeout: 0 }), opts);
    } catch (err) {
      // Not an app of the daemon: a command on PATH or a command line (`super start npm`,
      // `super start "npm run serve"`), as PM2 does.
      if (err.code !== 'E_APP_NOT_FOUND' || operands.length) throw err;
      return report(client, await client.request('start-script', scriptRequest(what, [], opts), { timeout: 0 }), opts);
    }
  });
}

async function startFile(file, opts) {
  const abs = path.resolve(file);
  const only = opts.only ? opts.only.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  // Refuse a bad file here, before a daemon is even started (the daemon checks again,
  // against the CPUs it may use). CPUs: this process's own mask, which a new daemon inherits.
  // A daemon to start loads its modules meanwhile, held until the file passes (ensureDaemon).
  const checked = import('../../config/index.js').then(({ loadEcosystem }) => loadEcosystem(file, { env: opts.env, only, startDir: process.cwd() }));
  return withDaemon(async (client) => {
    const { onProgress, report: reportReload } = reloadPrinter();
    const args = { file: abs, env: opts.env, only, clientEnv: callerEnv(), watch: opts.watch || undefined, cwd: process.cwd(), then: opts.then };
    const data = await whenNotBusy(() => client.request('start', args, { timeout: 0, onProgress: opts.json ? undefined : onProgress }));
    if (!opts.json) for (const r of data.reloaded ?? []) reportReload(r);
    const status = await report(client, data, opts);
    return (data.reloaded ?? []).some((r) => !r.ok) ? EXIT.FAILED : status;
  }, { warmConfigReader: true, checked });
}

function startScript(what, scriptArgs, opts, pm2) {
  const req = scriptRequest(what, scriptArgs, opts, pm2.keys);
  for (const w of pm2.warnings) process.stderr.write(`super: warning: ${w}\n`);
  return withDaemon(async (client) => report(client, await client.request('start-script', req, { timeout: 0 }), opts));
}

/** The file-less app as the daemon's `start-script` takes it; lib/config validates it there. */
/** @param {string} what  @param {string[]} scriptArgs  @param {object} opts  @param {Record<string, any>} [pm2Keys] */
function scriptRequest(what, scriptArgs, opts, pm2Keys = {}) {
  let words = [what];
  if (/\s/.test(what)) {
    try {
      words = shellSplit(what);
    } catch (err) {
      throw new SuperError('E_USAGE', `"${what}": ${err.message}`);
    }
  }
  if (!words.length) throw new SuperError('E_USAGE', 'give a script or a command to start');
  const env = {};
  for (const kv of opts.envVar ?? []) {
    const m = ENV_VAR.exec(kv);
    if (!m) throw new SuperError('E_USAGE', `--env-var ${kv}: give NAME=value (NAME: letters, digits, _)`);
    env[m[1]] = m[2];
  }
  const { cwd = '.', ...keys } = pm2Keys;
  if (opts.cluster) keys.exec_mode = 'cluster';
  if (opts.readyOn !== undefined) keys.ready_on = opts.readyOn;
  const req = { script: words[0], args: [...words.slice(1), ...scriptArgs], cwd: path.resolve(cwd), env, clientEnv: callerEnv() };
  if (Object.keys(keys).length) req.keys = keys;
  if (opts.name !== undefined) req.name = opts.name;
  if (opts.instances !== undefined) {
    if (!/^(max|-?\d{1,4})$/.test(opts.instances) || Math.abs(Number(opts.instances)) > MAX_INSTANCES) {
      throw new SuperError('E_USAGE', `-i ${opts.instances}: give a number of workers up to ${MAX_INSTANCES}, max (one per CPU), or -N (one per CPU but N)`);
    }
    req.instances = opts.instances;
  }
  if (opts.watch) req.watch = true;
  return req;
}

// A `start` that finds its apps busy (a concurrent `super start` of the same file is
// starting them) waits for that one, then reports what it finds ("already running").
const BUSY_WAIT_MS = 120000;

async function whenNotBusy(send) {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    try {
      return await send();
    } catch (err) {
      if (err.code !== 'E_BUSY' || Date.now() + wait > deadline) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** `launch`: ensureDaemon's options for a daemon started here. */
async function withDaemon(fn, launch = {}) {
  const interrupts = whileStarting();
  try {
    const client = await ensureDaemon(superHome(), launch);
    interrupts.sent = true;
    try {
      return await fn(client);
    } finally {
      client.close();
    }
  } finally {
    interrupts.done();
  }
}

/**
 * Ctrl-C (or SIGTERM) during a start never leaves the user unsure of what runs. Before the
 * request reaches the daemon, nothing was started: say so and exit. Once it has, the daemon
 * carries the start through (a start is not cut in half): the first Ctrl-C says so and goes
 * on waiting for the outcome; a second one stops waiting, saying how to see what runs.
 */
function whileStarting() {
  const state = { sent: false, interrupted: false, done: () => {} };
  const say = (line) => process.stderr.write(`super: ${line}\n`);
  const onSignal = (signal) => {
    const status = signal === 'SIGTERM' ? 143 : 130;
    if (!state.sent) {
      say('interrupted before the start reached the daemon: nothing was started');
      process.exit(status);
    }
    if (!state.interrupted) {
      state.interrupted = true;
      say('interrupted: the daemon carries this start through (a start is not cut in half); waiting for its outcome (Ctrl-C again to stop waiting)');
      return;
    }
    say('stopped waiting: the daemon finishes the start by itself; `super ls` shows what runs, `super delete <app>` removes an app');
    process.exit(status);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  state.done = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return state;
}

/** What `start` did: JSON with --json, else one line per app and the `ls` table. */
async function report(client, data, opts) {
  if (opts.json) {
    // startOrReload / startOrRestart: `apps` as `reload --json` and `restart` give it
    process.stdout.write(`${JSON.stringify(opts.then ? { ...data, apps: data.reloaded ?? data.restarted } : data)}\n`);
    return printOutcome({ ...data, warnings: [] });
  }
  const failed = new Set((data.failed ?? []).map((f) => f.app));
  for (const name of data.started) if (!failed.has(name)) process.stdout.write(`started ${name}\n`);
  if (data.restarted?.length) process.stdout.write(`restarted ${data.restarted.join(', ')}\n`);
  const ls = await client.request('ls');
  const refreshed = new Set([...(data.reloaded ?? []).map((r) => r.app), ...(data.restarted ?? [])]);
  for (const name of data.running) {
    if (refreshed.has(name)) continue;
    const app = ls.apps.find((a) => a.name === name);
    const changed = data.changed?.find((c) => c.name === name);
    if (app && app.status !== 'online') {
      const restarts = app.workers.reduce((n, w) => n + (w.restarts ?? 0), 0);
      process.stdout.write(`${name} is already started but ${app.status}, not online (${restarts} restarts); see \`super logs ${shellQuote(name)}\`\n`);
    } else {
      process.stdout.write(changed?.source
        ? `${name} is already running from ${changed.source}, which its reloads re-read; this file's ${name} differs (${changed.keys.join(', ')}): \`super restart ${shellQuote(name)}\` runs it (a restart, not a reload), or \`super delete ${shellQuote(name)}\` then \`super start\` of this file makes it the app's file\n`
        : changed
        ? `${name} is already running; its config changed (${changed.keys.join(', ')}): apply it with \`super reload ${shellQuote(name)}\`\n`
        : `${name} is already running; use \`super reload ${shellQuote(name)}\` to reload it\n`);
    }
  }
  const rolledBack = new Map((data.rolled_back ?? []).map((r) => [r.app, r]));
  const status = printOutcome({ ...data, failed: data.failed?.map(firstErrorLine) });
  process.stderr.write(await afterFailure(data.failed ?? [], rolledBack));
  process.stdout.write(`${renderLs(ls)}\n`);
  return status;
}

/** What became of each app whose start failed, what to run next, and who holds a busy port. */
async function afterFailure(failures, rolledBack) {
  const out = [];
  const { busyPort, portHolder } = await import('../port-holder.js');
  let daemonPid = null;
  try {
    daemonPid = Number(fs.readFileSync(pidPath(superHome()), 'utf8').trim());
  } catch {
    // no pid file (a remote daemon): a holder is named by its command line only
  }
  const ports = new Set();
  for (const f of failures) {
    const port = busyPort(f.stderr);
    if (port === null || ports.has(port)) continue;
    ports.add(port);
    const holder = portHolder(port);
    if (holder?.pid === daemonPid) out.push(`  port ${port} is held by this superd daemon (pid ${holder.pid}): another of its apps listens there (super ls)`);
    else if (holder) out.push(`  port ${port} is held by pid ${holder.pid}: ${holder.command}`);
  }
  for (const name of new Set(failures.map((f) => f.app))) {
    const { kept, err_log: errLog } = rolledBack.get(name) ?? {};
    // A removed app's logs cannot be asked for by name: the file is named instead.
    if (kept === 'removed') out.push(`  ${name} was not kept: its start failed, so it was removed and nothing of it runs; fix it, then run the same super start again${errLog ? ` (its stderr: ${errLog})` : ''}`);
    else if (kept === 'stopped') out.push(`  ${name} is stopped: its start failed; fix it, then \`super start ${shellQuote(name)}\` (its whole stderr: super logs ${shellQuote(name)} --err --lines 100)`);
    else out.push(`  ${name}: the workers' whole stderr: super logs ${shellQuote(name)} --err --lines 100`);
  }
  return out.map((l) => `${l}\n`).join('');
}

/** A failed worker's stderr tail cut to its first error line (a stack per worker is noise here). */
function firstErrorLine(f) {
  if (!f.stderr) return f;
  const lines = f.stderr.split('\n').filter((l) => l.trim());
  // The daemon's own reason for a refused listen() (listen-guard.js, port-owners.js) says more than the EACCES after it.
  const line = lines.find((l) => /^superd: listen on .* refused: /.test(l)) ?? lines.find((l) => /^\s*(Uncaught )?\w*Error\b.*:/.test(l)) ?? lines.find((l) => /\bE[A-Z]{3,}\b/.test(l)) ?? lines[0] ?? '';
  return { ...f, stderr: line.trim() };
}
