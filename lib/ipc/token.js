// The credential of the TCP control listener: $SUPER_HOME/token, 32 random bytes as hex,
// mode 0600. Created on first use (the listener opening, or `super token`); replaced by
// `super token --rotate`. The daemon reads the file once, when its listener opens, and keeps
// the token in memory: a file put in its place later is never read (a running daemon
// rotates its token itself, on `super token --rotate`). The file is never read through a
// symbolic link (O_NOFOLLOW): a link there is refused.
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

const TOKEN_RE = /^[0-9a-f]{64}$/;

/**
 * The token of `file`, or null when the file does not exist. Throws on a malformed file.
 * @param {string} file
 * @param {{followLinks?: boolean}} [o]  followLinks: a client's own --token-file may be a link
 *   (a mounted secret); the daemon's never is
 */
export async function readToken(file, { followLinks = false } = {}) {
  let text;
  try {
    const fh = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | (followLinks ? 0 : constants.O_NOFOLLOW));
    try {
      if (!(await fh.stat()).isFile()) throw Object.assign(new Error(`${file} is not a regular file; remove it and run \`super token --rotate\``), { code: 'EBADTOKEN' });
      const { bytesRead, buffer } = await fh.read({ buffer: Buffer.alloc(256) }); // a token is 65 bytes
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    if (err.code === 'ELOOP') throw Object.assign(new Error(`${file} is a symbolic link, not read; remove it and run \`super token --rotate\``), { code: 'EBADTOKEN' });
    throw err;
  }
  const token = text.trim();
  if (!TOKEN_RE.test(token)) throw Object.assign(new Error(`${file} does not hold a token (64 hex digits); replace it with \`super token --rotate\``), { code: 'EBADTOKEN' });
  return token;
}

/** The token of `file`, created (0600) when there is none yet. */
export async function ensureToken(file) {
  const existing = await readToken(file);
  if (existing) return existing;
  const token = newToken();
  // Written whole to a file of its own, then linked at `file` (link() fails if `file`
  // exists): of two processes creating it at once, one wins and the other reads a complete
  // token (with 'wx' on `file` itself the loser could read it still empty).
  const tmp = await writeTemp(file, token);
  try {
    await fs.link(tmp, file);
    return token;
  } catch (err) {
    if (err.code === 'EEXIST') return readToken(file);
    throw err;
  } finally {
    await fs.unlink(tmp).catch(() => {});
  }
}

/** A new 0600 file beside `file` holding `token`; its path. */
async function writeTemp(file, token) {
  const tmp = path.join(path.dirname(file), `.token.${process.pid}.${crypto.randomBytes(6).toString('hex')}`);
  await fs.writeFile(tmp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return tmp;
}

/** Replaces the token (a new file renamed over the old one: never a half-written token). */
export async function rotateToken(file) {
  const token = newToken();
  await fs.rename(await writeTemp(file, token), file);
  return token;
}

/**
 * Constant-time comparison: both sides are hashed first, so the comparison takes the
 * same time whatever the length or content of what the client sent.
 */
export function tokenMatches(given, expected) {
  if (typeof given !== 'string' || typeof expected !== 'string') return false;
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

const newToken = () => crypto.randomBytes(32).toString('hex');
