// Starting many workers at once (`instances: 500`, a resurrect of many apps, a big scale)
// forks no faster than the host takes them:
//  - at most `limit` workers boot at once, daemon-wide (forked, not yet ready or gone);
//  - a worker waits while the host's available memory would not hold it beside those
//    booting (each counted at the measured RSS of its app's running workers, or
//    DEFAULT_WORKER_RSS before any runs); when nothing else boots, waiting would free
//    nothing: the start is refused (`noRoom`), and the slot counts it as a failed start,
//    with its backoff. Never a fork that does not fit: in a 2 GB cgroup, `instances: 1024`
//    once forked until the daemon itself was OOM-killed (its oom_score_adj cannot go below
//    0 without CAP_SYS_RESOURCE).
// A waiting start costs a queued promise; every boot that ends lets the next one go.
import { memAvailable } from './host-memory.js';
import { workersThatFit, MEMORY_RESERVE } from '../reload/index.js';

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
   * @returns {Promise<{leave: () => void, noRoom: string|null}>} leave: call it once the
   *   worker is ready, or gone; noRoom: why it may not start at all (the memory holds no
   *   worker and nothing else boots), its place already given back
   */
  async enter(pids) {
    for (;;) {
      while (this.booting >= this.limit) await this.#bootEnded();
      this.booting++;
      const noRoom = await this.#noRoom(pids);
      if (noRoom === null) break;
      this.booting--; // not booted: gives the place back
      if (this.booting > 0) {
        await this.#bootEnded(); // a real boot that ends may free memory
        continue;
      }
      this.queue.shift()?.(); // the next waiter checks for itself
      return { leave: () => {}, noRoom };
    }
    let left = false;
    return {
      noRoom: null,
      leave: () => {
        if (left) return;
        left = true;
        this.booting--;
        this.queue.shift()?.();
      },
    };
  }

  #bootEnded() {
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Why the memory does not hold the workers booting (this one counted), or null when it does. */
  async #noRoom(pids) {
    const [available, used] = await Promise.all([memAvailable(), this.workerMemory(pids.slice(0, RSS_SAMPLE))]);
    if (available === null) return null;
    const perWorker = Math.max(0, ...used.flatMap((n) => (n !== null && Number.isFinite(n) ? [n] : []))) || DEFAULT_WORKER_RSS;
    if (workersThatFit({ available, perWorker }) >= this.booting) return null;
    const mib = (n) => Math.round(n / 1048576);
    return `not enough memory for another worker (${mib(available)} MiB available, ${mib(perWorker)} MiB per worker, ${mib(MEMORY_RESERVE)} MiB kept for the daemon)`;
  }
}
