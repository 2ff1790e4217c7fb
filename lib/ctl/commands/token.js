// super token [--rotate]: print the token of the TCP control listener ($SUPER_HOME/token,
// 0600), creating it on first use; --rotate replaces it. The daemon reads the file for every
// authentication, so a rotated token is the only one accepted from the next connection on
// (connections already open stay open).
import { superHome, tokenPath, prepareHome } from '../../home.js';
import { ensureToken, rotateToken } from '../../ipc/token.js';
import { SuperError } from '../../errors.js';

export default async function token(opts = {}) {
  const home = superHome();
  prepareHome(home); // E_HOME for a SUPER_HOME that is not ours or open to others
  const file = tokenPath(home);
  let value;
  try {
    value = opts.rotate ? await rotateToken(file) : await ensureToken(file);
  } catch (err) {
    throw new SuperError('E_AUTH', `${file}: ${err.code === 'EBADTOKEN' ? 'it does not hold a token (64 hex digits); replace it with `super token --rotate`' : err.message}`);
  }
  process.stdout.write(`${value}\n`);
  if (opts.rotate) process.stderr.write(`super: a new token is in ${file}; the old one is no longer accepted\n`);
}
