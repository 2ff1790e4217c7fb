// super startup systemd [--user] [--print] [--unit-dir dir] [--socket LISTEN...]: write (or
// print) a systemd unit that runs this SUPER_HOME's daemon at boot and resurrects the saved
// apps; with --socket, also the .socket unit that holds the apps' listening sockets
// (lib/ctl/systemd-socket-unit.js; with --print, only that unit is printed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { superHome } from '../../home.js';
import { readDump } from '../../dump-file.js';
import { stopTime, DEFAULT_STOP_MS } from '../../stop-time.js';
import { SuperError, fileErrorCode } from '../../errors.js';
import { renderUnit, unitName } from '../systemd-unit.js';
import { systemctl, systemUnitDir, userUnitDir } from '../systemctl.js';

export default async function startup(system, opts = {}) {
  if (system !== 'systemd') throw new SuperError('E_USAGE', `unknown init system "${system}"; superd supports: systemd`);
  const home = superHome();
  const { username, uid } = os.userInfo();
  const socket = opts.socket ? await import('../systemd-socket-unit.js') : null;
  const listens = socket?.socketListens(opts.socket) ?? [];
  const group = groupName(os.userInfo().gid) ?? username;
  const unit = renderUnit({
    user: Boolean(opts.user),
    username,
    group,
    home,
    path: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    cwd: os.homedir(),
    node: process.execPath,
    maxKillTimeout: await maxKillTimeout(home),
    systemdVersion: systemdVersion(),
  });
  if (opts.print) {
    process.stdout.write(socket ? socket.renderSocketUnit({ user: Boolean(opts.user), username, listens }) : unit);
    return 0;
  }
  const name = unitName({ user: opts.user, username });
  const dir = opts.unitDir ? path.resolve(opts.unitDir) : opts.user ? userUnitDir() : systemUnitDir();
  const file = path.join(dir, name);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, unit, { mode: 0o644 });
  } catch (err) {
    const sudo = !opts.user && uid !== 0
      ? `; as root: super startup systemd --print | sudo tee ${file} && sudo systemctl daemon-reload && sudo systemctl enable ${name}`
      : '';
    throw new SuperError(fileErrorCode(err, 'E_USAGE'), `cannot write ${file} (${err.code ?? err.message})${sudo}`);
  }
  process.stdout.write(`wrote ${file}\n`);
  const socketName = socket?.socketUnitName({ user: opts.user, username });
  if (socket && socketName) {
    fs.writeFileSync(path.join(dir, socketName), socket.renderSocketUnit({ user: Boolean(opts.user), username, listens }), { mode: 0o644 });
    process.stdout.write(`wrote ${path.join(dir, socketName)}\n`);
  }
  if (opts.unitDir) return 0;
  const scope = opts.user ? ['--user'] : [];
  const done = systemctl([...scope, 'daemon-reload']) && systemctl([...scope, 'enable', name, ...(socket ? [socketName] : [])]);
  const ctl = `systemctl${opts.user ? ' --user' : ''}`;
  if (done) process.stdout.write(`enabled ${name}; it starts at boot. Now: super save (the apps to bring back), super kill, ${ctl} start ${name}\n`);
  else process.stdout.write(`systemctl is not available here; run: ${ctl} daemon-reload && ${ctl} enable ${name}\n`);
  if (opts.user) process.stdout.write(`for a user unit to start at boot without a login: loginctl enable-linger ${username}\n`);
  return 0;
}

/**
 * TimeoutStopSec must outlast the slowest graceful stop: a worker's drain (drain_timeout)
 * then kill_signal (kill_timeout), for the slowest saved app.
 */
async function maxKillTimeout(home) {
  try {
    const { apps } = await readDump(home);
    return Math.max(DEFAULT_STOP_MS, ...apps.map((a) => stopTime(a.config)));
  } catch {
    process.stderr.write(`super: warning: no saved apps (super save); TimeoutStopSec assumes the default drain_timeout + kill_timeout (${DEFAULT_STOP_MS / 1000}s)\n`);
    return DEFAULT_STOP_MS;
  }
}

function systemdVersion() {
  for (const cmd of ['systemctl', 'systemd-analyze']) {
    try {
      const m = /systemd (\d+)/.exec(execFileSync(cmd, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      if (m) return Number(m[1]);
    } catch {}
  }
  return null;
}

function groupName(gid) {
  try {
    const line = fs.readFileSync('/etc/group', 'utf8').split('\n').find((l) => l.split(':')[2] === String(gid));
    return line?.split(':')[0] ?? null;
  } catch {
    return null;
  }
}
