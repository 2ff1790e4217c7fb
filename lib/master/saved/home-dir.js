// SUPER_HOME checks at daemon boot: the control socket inside is the only credential,
// so the directory must be ours and closed to others.
import fs from 'node:fs';
import { SuperError } from '../../errors.js';

export function prepareHome(home) {
  try {
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new SuperError('E_HOME', `cannot create SUPER_HOME ${home}: ${err.code ?? err.message}`);
  }
  const st = fs.statSync(home);
  if (!st.isDirectory()) throw new SuperError('E_HOME', `SUPER_HOME ${home} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new SuperError('E_HOME', `SUPER_HOME ${home} belongs to uid ${st.uid}, not to you (uid ${process.getuid()}); use your own directory`);
  }
  if (st.mode & 0o022) {
    throw new SuperError('E_HOME', `SUPER_HOME ${home} is writable by group or others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${home}`);
  }
}
