// One-time codes for `super dashboard --open`. A browser is started with a program's
// arguments, and those are readable by every local user (/proc/<pid>/cmdline): the link it
// is given carries no token, only a code that works once, for a few seconds, and only for
// a connection of the dashboard's own user (peer-uid.js). The page trades it for the token.
import crypto from 'node:crypto';

const CODE_TTL_MS = 20_000;
const MAX_CODES = 4;

export class OneTimeCodes {
  constructor({ ttlMs = CODE_TTL_MS } = {}) {
    this.ttlMs = ttlMs;
    /** code -> expiry (ms since the epoch) */
    this.codes = new Map();
  }

  /** A new code (32 hex digits), valid for ttlMs. */
  issue(now = Date.now()) {
    while (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value);
    const code = crypto.randomBytes(16).toString('hex');
    this.codes.set(code, now + this.ttlMs);
    return code;
  }

  /** True once for a code issued and not expired; the code is spent either way. */
  redeem(code, now = Date.now()) {
    if (typeof code !== 'string' || !this.codes.has(code)) return false;
    const expires = this.codes.get(code);
    this.codes.delete(code);
    return expires > now;
  }
}
