// Log files are read (`super logs`, a follow, a failed worker's stderr tail) the way they
// are written: never through a symbolic link put at their name (a root daemon would read
// another file for whoever planted it), and never blocking on a FIFO put there.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { SuperError } from '../errors.js';

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Opens log file `file` for reading. ENOENT is thrown as is (a file not written yet).
 * @returns {Promise<import('node:fs/promises').FileHandle>}
 * @throws {SuperError} E_LOG_PATH for a link or anything but a regular file
 */
export async function openForReading(file) {
  let fh;
  try {
    fh = await fsp.open(file, FLAGS);
  } catch (err) {
    if (err.code === 'ELOOP') throw refused(file, 'a symbolic link');
    throw err;
  }
  if (!(await fh.stat()).isFile()) {
    await fh.close();
    throw refused(file, 'not a regular file');
  }
  return fh;
}

const refused = (file, what) => new SuperError('E_LOG_PATH', `${file} is ${what}; superd does not read log files through links (remove it: the app's next write creates the file again)`);
