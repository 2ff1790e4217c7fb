// super reload <app|all> [--keep-config]: rolling, zero-downtime reload with progress.
import { request } from '../session.js';
import { EXIT } from '../../errors.js';

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

export default async function reload(target, opts) {
  const t0 = Date.now();
  const out = (line) => process.stdout.write(`${line}\n`);
  const reported = new Set();
  // Each app's outcome is printed as soon as it is known (apps reload one after another).
  const report = (r) => {
    if (reported.has(r.app)) return;
    reported.add(r.app);
    if (r.skipped) out(`${r.app}: skipped, ${r.skipped}`);
    else if (r.ok) out(`${r.app}: reloaded ${r.replaced.length} worker${r.replaced.length === 1 ? '' : 's'} in ${secs(r.total_ms)} (all ready after ${secs(r.ready_ms)})`);
    else printFailure(r);
  };
  const onProgress = (p) => {
    if (p.step === 'begin') {
      const what = p.keep_config ? 'running config (--keep-config)' : p.changed.length ? `config changed: ${p.changed.join(', ')}` : 'config unchanged';
      out(`${p.app}: reloading ${p.of} worker${p.of === 1 ? '' : 's'} (${what})`);
    } else if (p.step === 'surge') {
      out(`${p.app}: surge in ${p.batches} batch${p.batches === 1 ? '' : 'es'} of ${p.size + p.unavailable}`);
      if (p.size < p.wanted) out(`${p.app}: ${memoryNote(p)}`);
    } else if (p.step === 'batch') {
      out(`${p.app}: batch ${p.batch}/${p.of}: ${p.ready} replacement${p.ready === 1 ? '' : 's'} ready in ${(p.ms / 1000).toFixed(1)} s`);
    } else if (p.step === 'ready') {
      out(`${p.app}: slot ${p.done}/${p.of} ready (${p.ready_ms} ms; ${p.app}#${p.slot}, pid ${p.pid})`);
    } else if (p.step === 'scaled') {
      out(`${p.app}: now ${p.to} worker${p.to === 1 ? '' : 's'}, as its file says`);
    } else if (p.step === 'done') {
      report(p);
    }
  };
  const data = await request('reload', { target, keepConfig: opts.keepConfig || undefined }, { timeout: 0, onProgress });
  for (const r of data.apps) report(r);
  if (data.apps.length > 1) out(`done in ${secs(Date.now() - t0)}`);
  return data.apps.some((r) => !r.ok) ? EXIT.FAILED : EXIT.OK;
}

/** Why a surge batch is smaller than max_surge: what the memory guard measured. */
function memoryNote(p) {
  const mib = (b) => `${Math.round(b / 1024 ** 2)} MiB`;
  const measured = p.memory ? ` (MemAvailable ${mib(p.memory.available)}, ${mib(p.memory.per_worker)} per worker)` : '';
  const down = p.unavailable ? `; ${p.unavailable} slot${p.unavailable === 1 ? '' : 's'} per batch stop${p.unavailable === 1 ? 's' : ''} first (max_unavailable)` : '';
  return `memory guard: batch shrunk from ${p.wanted} to ${p.size} replacement${p.size === 1 ? '' : 's'} beside the old workers${measured}${down}`;
}

function printFailure(r) {
  const err = (line) => process.stderr.write(`${line}\n`);
  const f = r.failed;
  err(`super: E_RELOAD_FAILED: ${r.app}#${f.slot} ${f.reason}; the reload stopped and the new worker was killed`);
  const list = (a) => a.join(', ');
  err(`  ${r.app}: ${r.kept.length ? `slot${r.kept.length === 1 ? '' : 's'} ${list(r.kept)} still run${r.kept.length === 1 ? 's' : ''} the old version` : 'no slot kept the old version'}${r.replaced.length ? `; slot${r.replaced.length === 1 ? '' : 's'} ${list(r.replaced)} already run${r.replaced.length === 1 ? 's' : ''} the new one` : ''}`);
  if (f.stderr) err(f.stderr.split('\n').map((l) => `  ${f.stderr_label ?? `${r.app}#${f.slot}`} | ${l}`).join('\n'));
}
