// Log files are read (`super logs`, a follow, a failed worker's stderr tail) the way they
// are written: never through a symbolic link put at their name (a root daemon would read
// another file for whoever planted it), and never blocking on a FIFO put there
// (lib/safe-read.js opens them; a log is streamed, so its size is the reader's to bound).
import { SuperError } from '../errors.js';
import { openSafe, UnsafeFileError } from '../safe-read.js';

/**
 * Opens log file `file` for reading. ENOENT is thrown as is (a file not written yet).
 * @returns {Promise<import('node:fs/promises').FileHandle>}
 * @throws {SuperError} E_LOG_PATH for a link or anything but a regular file
 */
export async function openForReading(file) {
  try {
    return await openSafe(file, { follow: false });
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw err;
    throw refused(file, err.code === 'ELOOP' ? 'a symbolic link' : err.code === 'ENOTREG' ? 'not a regular file' : `refused (${err.code}: ${err.reason})`);
  }
}

const refused = (file, what) => new SuperError('E_LOG_PATH', `${file} is ${what}; superd does not read log files through links (remove it: the app's next write creates the file again)`);
