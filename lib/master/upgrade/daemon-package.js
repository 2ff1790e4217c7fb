// Which superd `super upgrade` starts: the package at --daemon-path, else the one this
// daemon was started from (an `npm install` of a new version there is picked up).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SuperError } from '../../errors.js';
import { readFileSafeSync, READ_BOUNDS } from '../../safe-read.js';

const OWN_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// Every superd since the first upgrade starts its successor here: the path stays.
const ENTRY = path.join('lib', 'master', 'core', 'daemon.js');

/**
 * @param {string} [dir]  an absolute directory
 * @returns {{dir: string, entry: string, version: string}}
 * @throws {SuperError} E_NOT_SUPERD when dir holds no superd package
 */
export function daemonPackage(dir = OWN_PACKAGE) {
  let pkg = null;
  try {
    pkg = JSON.parse(readFileSafeSync(path.join(dir, 'package.json'), { max: READ_BOUNDS.packageJson }).toString('utf8'));
  } catch (err) {
    throw new SuperError('E_NOT_SUPERD', `${dir} is not a superd package (cannot read its package.json: ${err.code ?? err.message}); give --daemon-path the directory superd is installed in`);
  }
  const entry = path.join(dir, ENTRY);
  if (pkg?.name !== 'superd' || !fs.existsSync(entry)) {
    throw new SuperError('E_NOT_SUPERD', `${dir} is not a superd package (its package.json names ${JSON.stringify(pkg?.name ?? null)}${fs.existsSync(entry) ? '' : `, no ${ENTRY}`}); give --daemon-path the directory superd is installed in`);
  }
  return { dir, entry, version: String(pkg.version) };
}
