// The credential of the TCP control listener: $SUPER_HOME/token, 32 random bytes as hex,
// mode 0600. Created on first use (the listener opening, or `super token`); replaced by
// `super token --rotate`. The daemon reads the file again for every authentication, so a
// rotation takes effect for the next connection without telling the daemon.
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';

const TOKEN_RE = /^[0-9a-f]{64}$/;

/** The token of `file`, or null when the file does not exist. Throws on a malformed file. */
export async function readToken(file) {
  let text;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
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
  try {
    // 'wx': of two processes creating it at once, one wins and the other reads its token.
    await fs.writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return token;
  } catch (err) {
    if (err.code === 'EEXIST') return readToken(file);
    throw err;
  }
}

/** Replaces the token (a new file renamed over the old one: never a half-written token). */
export async function rotateToken(file) {
  const token = newToken();
  const tmp = path.join(path.dirname(file), `.token.${process.pid}.${Date.now()}`);
  await fs.writeFile(tmp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  await fs.rename(tmp, file);
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
