// A reload's progress and outcome, as `super reload` and `super start --env` print them.
import { printError } from './coded-error.js';
import { reloadFailure } from '../worker-failure.js';

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Returns {onProgress, report}: each app's outcome is printed once, as soon as it is known. */
export function reloadPrinter() {
  const out = (line) => process.stdout.write(`${line}\n`);
  const reported = new Set();
  const report = (r) => {
    if (reported.has(r.app)) return;
    reported.add(r.app);
    if (r.skipped) out(`${r.app}: skipped, ${r.skipped}`);
    else if (r.ok) out(`${r.app}: reloaded ${plural(r.replaced.length, 'worker')} in ${secs(r.total_ms)} (all ready after ${secs(r.ready_ms)})`);
    else printError(reloadFailure(r));
  };
  const onProgress = (p) => {
    if (p.step === 'begin') {
      const what = p.keep_config ? 'running config (--keep-config)' : p.changed.length ? `config changed: ${p.changed.join(', ')}` : 'config unchanged';
      out(`${p.app}: reloading ${plural(p.of, 'worker')} (${what})`);
    } else if (p.step === 'surge') {
      out(`${p.app}: surge in ${p.batches} batch${p.batches === 1 ? '' : 'es'} of ${p.size + p.unavailable}`);
      if (p.size < p.wanted) out(`${p.app}: ${memoryNote(p)}`);
    } else if (p.step === 'down-first') {
      const each = p.slots.length === 1 ? 'its worker stops' : 'each worker stops';
      out(`${p.app}: fork mode, and it holds ${p.ports.join(', ')} itself: ${each} before its replacement starts (a short gap${p.cluster ? `; ${p.cluster}` : ''})`);
    } else if (p.step === 'batch') {
      out(`${p.app}: batch ${p.batch}/${p.of}: ${plural(p.ready, 'replacement')} ready in ${(p.ms / 1000).toFixed(1)} s`);
    } else if (p.step === 'ready') {
      out(`${p.app}: slot ${p.done}/${p.of} ready (${p.ready_ms} ms; ${p.app}#${p.slot}, pid ${p.pid})`);
    } else if (p.step === 'scaled') {
      out(`${p.app}: now ${plural(p.to, 'worker')}, as its file says`);
    } else if (p.step === 'done') {
      report(p);
    }
  };
  return { onProgress, report, secs };
}

/** Why a surge batch is smaller than max_surge: what the memory guard measured. */
function memoryNote(p) {
  const mib = (b) => `${Math.round(b / 1024 ** 2)} MiB`;
  const measured = p.memory ? ` (available ${mib(p.memory.available)}, ${mib(p.memory.per_worker)} per worker)` : '';
  const down = p.unavailable ? `; ${plural(p.unavailable, 'slot')} per batch stop${p.unavailable === 1 ? 's' : ''} first (max_unavailable)` : '';
  return `memory guard: batch shrunk from ${p.wanted} to ${plural(p.size, 'replacement')} beside the old workers${measured}${down}`;
}
