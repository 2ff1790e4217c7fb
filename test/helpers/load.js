// The strict load client of the tests and the benchmarks (strict-client.js: every request that gets
// no 2xx answer is counted, by cause), paced for tests: each connection pauses 10 ms after
// each answer. Unpaced, a load of 4-8 connections takes every cycle the machine has for as
// long as a reload or an upgrade lasts; paced, 4 connections still send ~400 requests a
// second, a request every ~2.5 ms through every worker swap the tests watch.
import { startLoad as unpacedLoad } from './strict-client.js';

const PAUSE_MS = 10;

/** startLoad of strict-client.js, with pauseMs 10 unless given. */
export const startLoad = (opts) => unpacedLoad({ pauseMs: PAUSE_MS, ...opts });
