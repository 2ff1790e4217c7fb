// super unstartup [systemd] [--user] [--unit-dir dir]: disable and remove the unit that
// `super startup` wrote. The running daemon is left alone (`super kill` stops it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SuperError, fileErrorCode } from '../../errors.js';
import { unitName } from '../systemd-unit.js';
import { systemctl, systemUnitDir, userUnitDir } from '../systemctl.js';

export default async function unstartup(system = 'systemd', opts = {}) {
  if (system !== 'systemd') throw new SuperError('E_USAGE', `unknown init system "${system}"; superd supports: systemd`);
  const name = unitName({ user: opts.user, username: os.userInfo().username });
  const dir = opts.unitDir ? path.resolve(opts.unitDir) : opts.user ? userUnitDir() : systemUnitDir();
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    process.stdout.write(`no unit at ${file}; nothing to remove\n`);
    return 0;
  }
  const scope = opts.user ? ['--user'] : [];
  if (!opts.unitDir) systemctl([...scope, 'disable', name]);
  try {
    fs.rmSync(file);
  } catch (err) {
    throw new SuperError(fileErrorCode(err, 'E_USAGE'), `cannot remove ${file} (${err.code ?? err.message}); remove it as its owner`);
  }
  if (!opts.unitDir) systemctl([...scope, 'daemon-reload']);
  process.stdout.write(`removed ${file}\n`);
  return 0;
}
