// Starting many workers at once (`instances: 500`, a resurrect of many apps, a big scale)
// forks no faster than the host takes them:
//  - at most `limit` workers boot at once, daemon-wide (forked, not yet ready or gone);
//  - a worker waits while the host's available memory would not hold it beside those
//    booting (each counted at the measured RSS of its app's running workers, or
//    DEFAULT_WORKER_RSS before any runs), unless nothing else boots: waiting would then
//    free nothing, so it goes.
// A waiting start costs a queued promise; every boot that ends lets the next one go.
import { memAvailable } from './host-memory.js';
import { workersThatFit } from '../reload/index.js';

/** Workers booting at once, unless SUPER_START_CONCURRENCY (the daemon's environment) says otherwise. */
const DEFAULT_START_CONCURRENCY = 8;
/** What a worker is assumed to need before one of its app's workers was measured. */
const DEFAULT_WORKER_RSS = 64 * 1024 * 1024;
const RSS_SAMPLE = 4; // running workers measured per start: the cost stays flat as an app grows

/** The daemon's start concurrency: a positive integer from `env`, else the default. */
export function startConcurrency(env = process.env) {
  const n = Number(env.SUPER_START_CONCURRENCY);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_START_CONCURRENCY;
}

export class StartGate {
  /**
   * @param {{limit: number, workerMemory?: (pids: number[]) => Promise<(number|null)[]>}} o
   *   workerMemory: the RSS of each worker (the monitor's memoryOf)
   */
  constructor({ limit, workerMemory = async (pids) => pids.map(() => null) }) {
    this.limit = limit;
    this.workerMemory = workerMemory;
    this.booting = 0;
    this.queue = []; // resolvers of starts waiting for a boot to end
  }

  /**
   * Waits for a place to boot one worker of an app whose running workers are `pids`.
   * @returns {Promise<() => void>} call it once the worker is ready, or gone
   */
  async enter(pids) {
    for (;;) {
      while (this.booting >= this.limit) await this.#bootEnded();
      this.booting++;
      if (this.booting === 1 || await this.#memoryHolds(pids)) break;
      this.booting--; // not booted: gives the place back, and waits for a real boot to end
      await this.#bootEnded();
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.booting--;
      this.queue.shift()?.();
    };
  }

  #bootEnded() {
    return new Promise((resolve) => this.queue.push(resolve));
  }

  async #memoryHolds(pids) {
    const [available, used] = await Promise.all([memAvailable(), this.workerMemory(pids.slice(0, RSS_SAMPLE))]);
    if (available === null) return true;
    const perWorker = Math.max(0, ...used.filter(Number.isFinite)) || DEFAULT_WORKER_RSS;
    return workersThatFit({ available, perWorker }) >= this.booting; // this one counted in `booting`
  }
}
