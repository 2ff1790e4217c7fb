// Over --host the daemon's disk is not ours: a finished profile or snapshot is sent back
// over the control connection (op diagnostic-file, progress frames of base64 chunks) and
// written here, through <dest>.partial (0600) renamed once complete.
import fs from 'node:fs';
import path from 'node:path';

/**
 * @param {object} client  a connected lib/ipc/client.js client
 * @param {string} remotePath  the file's path on the daemon's host (its name is what is asked)
 * @param {string} dest  where to write it here
 * @returns {Promise<number>} bytes written
 */
export async function fetchDiagnostic(client, remotePath, dest) {
  const tmp = `${dest}.partial`;
  const out = fs.createWriteStream(tmp, { mode: 0o600 });
  let failed = null;
  out.on('error', (err) => (failed ??= err));
  try {
    const r = await client.request('diagnostic-file', { name: path.basename(remotePath) }, {
      timeout: 0, // as long as the transfer takes; a dead connection rejects it
      onProgress: ({ chunk }) => {
        if (typeof chunk === 'string' && !failed) out.write(Buffer.from(chunk, 'base64'));
      },
    });
    await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
    if (failed) throw failed;
    fs.renameSync(tmp, dest);
    return r.bytes;
  } catch (err) {
    out.destroy();
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
