// The strict load client of the tests and the benchmarks (strict-client.js: every request that gets
// no 2xx answer is counted, by cause), paced for tests: each connection pauses 10 ms after
// each answer. Unpaced, a load of 4-8 connections takes every cycle the machine has for as
// long as a reload or an upgrade lasts; paced, 4 connections still send ~400 requests a
// second, a request every ~2.5 ms through every worker swap the tests watch.
import { startLoad as unpacedLoad } from './strict-client.js';
import { eventually } from './wait.js';

const PAUSE_MS = 10;

/** startLoad of strict-client.js, with pauseMs 10 unless given. */
export const startLoad = (opts) => unpacedLoad({ pauseMs: PAUSE_MS, ...opts });

/**
 * An observer for startLoad that counts the 2xx answers by the pid in their body (the
 * fixtures answer "... pid=<n> ..." or "<version> <pid>"). A test shows that a load ran
 * across a swap of workers by the pids that answered it, the replaced ones and their
 * replacements, never by a count of requests from a timed window (that is the machine's
 * speed; figures go to bench/).
 */
export function answeredBy() {
  /** @type {Map<number, number>} pid -> 2xx answers */
  const pids = new Map();
  const observer = {
    onResponse(_conn, status, body) {
      if (status < 200 || status >= 300) return;
      const m = /(?:\bpid=|"pid":|^\S+ )(\d+)\b/.exec(body.toString('latin1'));
      if (m) pids.set(Number(m[1]), (pids.get(Number(m[1])) ?? 0) + 1);
    },
    onFailure() {},
  };
  return {
    pids,
    observer,
    /** Resolves once each of `want` has answered; rejects after 30 s naming what did. */
    reached(want, what) {
      return eventually(() => want.every((p) => pids.has(p)), { timeout: 30000, what: `answers from pids ${want.join(', ')} (${what})`, last: () => JSON.stringify(Object.fromEntries(pids)) });
    },
  };
}
