// Helpers for the metrics tests: wait on the daemon's "metrics" snapshots (pushed once per
// metrics.interval) instead of sleeping.
import fs from 'node:fs';
import path from 'node:path';
import { eventually } from './wait.js';

/**
 * Subscribes to "metrics" and returns waitFor(pred, timeout, what), resolving with the first
 * worker (plus its app name) of a snapshot for which pred(worker, app) holds.
 */
export async function watchMetrics(box, t) {
  const client = await box.client();
  const waiters = new Set();
  let last = null;
  client.onEvent((e) => {
    if (e.event !== 'metrics') return;
    last = e.data;
    for (const w of waiters) w.check(e.data);
  });
  await client.request('subscribe', { topics: ['metrics'] });
  t.after(() => client.close());
  return {
    get last() {
      return last;
    },
    waitFor(pred, timeout = 30000, what = 'metrics') {
      return new Promise((resolve, reject) => {
        const w = {
          check(snap) {
            for (const app of snap.apps) {
              for (const worker of app.workers) {
                if (pred(worker, app)) {
                  clearTimeout(timer);
                  waiters.delete(w);
                  resolve({ ...worker, app: app.name });
                  return;
                }
              }
            }
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`timed out after ${timeout} ms waiting for ${what}; last snapshot: ${JSON.stringify(last)?.slice(0, 2000)}`));
        }, timeout);
        waiters.add(w);
      });
    },
  };
}

/** Resolves with the daemon log's text once it matches `re` (pino writes asynchronously). */
export function waitForLog(box, re, timeout = 30000) {
  const file = path.join(box.home, 'daemon.log');
  const text = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  return eventually(() => re.test(text()) && text(), { timeout, what: `daemon.log to match ${re}`, last: () => text().slice(-3000) });
}
