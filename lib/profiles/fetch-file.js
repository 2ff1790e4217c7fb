// For the CLI over --host and for the dashboard, the daemon's disk is not ours: a finished
// profile or snapshot is sent back over the control connection (op diagnostic-file,
// progress frames of base64 chunks) and written here as a new file (0600; an existing one
// only replaced with --force, by rename: new-file.js); a failed transfer leaves no file.
import fs from 'node:fs';
import path from 'node:path';
import { openNewFile } from './new-file.js';

/**
 * @param {object} client  a connected lib/ipc/client.js client
 * @param {string} remotePath  the file's path on the daemon's host (its name is what is asked)
 * @param {string} dest  where to write it here
 * @param {{force?: boolean}} [o]
 * @returns {Promise<number>} bytes written
 */
export async function fetchDiagnostic(client, remotePath, dest, { force = false } = {}) {
  const out = openNewFile(dest, { force });
  let failed = null;
  try {
    const r = await client.request('diagnostic-file', { name: path.basename(remotePath) }, {
      timeout: 0, // as long as the transfer takes; a dead connection rejects it
      onProgress: ({ chunk }) => {
        if (typeof chunk !== 'string' || failed) return;
        try {
          fs.writeSync(out.fd, Buffer.from(chunk, 'base64'));
        } catch (err) {
          failed = err;
        }
      },
    });
    if (failed) throw failed;
    out.commit();
    return r.bytes;
  } catch (err) {
    out.abort();
    throw err;
  }
}
