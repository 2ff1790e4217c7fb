// A diagnostic file sent back over the control connection that asked for it (a client of
// the TCP control listener, which cannot read the daemon's disk): read in chunks, each one
// progress frame {chunk: base64}, never more than MAX_BACKLOG bytes queued for a slow
// client. Only files of $SUPER_HOME/profiles, by the name the daemon gave them.
import { openSafe, UnsafeFileError } from '../../safe-read.js';
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { isDiagnosticName } from './profile-files.js';

const CHUNK = 192 * 1024; // 256 KiB of base64, well under the 1 MiB frame limit
const MAX_BACKLOG = 2 * 1024 * 1024;
const BACKLOG_POLL_MS = 10;

/**
 * @param {string} dir  $SUPER_HOME/profiles
 * @param {string} name
 * @param {import('../../ipc/connection.js').Connection} conn
 * @param {(data: object) => void} progress
 * @returns {Promise<{name: string, bytes: number}>}
 */
export async function sendFile(dir, name, conn, progress) {
  if (!isDiagnosticName(name)) throw new SuperError('E_USAGE', `"${String(name).slice(0, 80)}" is not the name of a profile or heap snapshot of this daemon`);
  let bytes = 0;
  try {
    // Never through a link or into a FIFO put at the name (lib/safe-read.js).
    const stream = (await openSafe(path.join(dir, name), { follow: false })).createReadStream({ highWaterMark: CHUNK });
    for await (const chunk of stream) {
      if (!conn.open) throw new SuperError('E_DIAGNOSTICS', 'the client went away');
      progress({ chunk: chunk.toString('base64') });
      bytes += chunk.length;
      // The socket's send buffer says how far behind the client is: wait for it to drain.
      while (conn.open && conn.backlog > MAX_BACKLOG) await new Promise((r) => setTimeout(r, BACKLOG_POLL_MS));
    }
  } catch (err) {
    if (err.code === 'ENOENT') throw new SuperError('E_USAGE', `no file ${name} in ${dir} (removed, or never written)`);
    if (err instanceof UnsafeFileError) throw new SuperError('E_USAGE', `${name} in ${dir} is not a file this daemon wrote (${err.code}: ${err.reason})`);
    throw err;
  }
  return { name, bytes };
}
