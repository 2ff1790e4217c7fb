// Failed-authentication throttle of the TCP control listener, per remote address: after
// MAX_FAILURES failures within WINDOW_MS an address is locked out for LOCK_MS, during which
// its requests get 429 without the token being looked at (a correct token included: a
// guesser learns nothing during the lockout). Pure (time is passed in), so unit-tested.
// Memory is bounded: at most MAX_ENTRIES addresses are tracked; the oldest entry goes first.

export const MAX_FAILURES = 5;
const WINDOW_MS = 60_000;
const LOCK_MS = 60_000;
const MAX_ENTRIES = 4096;

export class AuthLimiter {
  constructor({ maxFailures = MAX_FAILURES, windowMs = WINDOW_MS, lockMs = LOCK_MS, maxEntries = MAX_ENTRIES } = {}) {
    this.maxFailures = maxFailures;
    this.windowMs = windowMs;
    this.lockMs = lockMs;
    this.maxEntries = maxEntries;
    /** address -> {first, count, lockedUntil, told}; Map order = insertion order = age */
    this.entries = new Map();
  }

  /** Whether `addr` is locked out at `now`; the first refusal of a lockout has `first: true` (to log once). */
  locked(addr, now = Date.now()) {
    const e = this.entries.get(addr);
    if (!e || e.lockedUntil <= now) return { locked: false };
    const first = !e.told;
    e.told = true;
    return { locked: true, first, retryAfterMs: e.lockedUntil - now };
  }

  /** Records a failed authentication; returns true when it starts a lockout. */
  fail(addr, now = Date.now()) {
    let e = this.entries.get(addr);
    if (!e || now - e.first > this.windowMs || (e.lockedUntil && e.lockedUntil <= now)) {
      this.entries.delete(addr);
      e = { first: now, count: 0, lockedUntil: 0, told: false };
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value);
      this.entries.set(addr, e);
    }
    e.count += 1;
    if (e.count >= this.maxFailures) {
      e.lockedUntil = now + this.lockMs;
      return true;
    }
    return false;
  }

  /** A successful authentication forgets the address's earlier failures. */
  succeed(addr) {
    this.entries.delete(addr);
  }

  get size() {
    return this.entries.size;
  }
}
