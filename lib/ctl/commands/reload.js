// super reload <targets...> [--keep-config] [--update-env] [--json]: rolling, zero-downtime
// reload with progress. --update-env: the replacements get this shell's environment under
// each app's own env (the file's env wins, as in PM2). One ecosystem file as the target
// (`super reload ecosystem.config.js [--env production] [--only a,b]`) is PM2's
// startOrReload (start-or.js): its apps not running are started, the others reloaded.
import { request } from '../session.js';
import { EXIT } from '../../errors.js';
import { reloadPrinter } from '../render-reload.js';
import { toTargets } from '../targets.js';
import { printError } from '../coded-error.js';
import { reloadFailure } from '../../worker-failure.js';
import { fileAsPm2Does } from '../file-target.js';
import { updatedEnv } from '../caller-env.js';

export default async function reload(targets, opts) {
  if (fileAsPm2Does(targets, opts)) return (await import('./start-or.js')).default(targets[0], { ...opts, then: 'reload' });
  const updateEnv = updatedEnv(opts);
  const t0 = Date.now();
  const { onProgress, report, secs } = reloadPrinter();
  const args = { target: toTargets(targets), keepConfig: opts.keepConfig || undefined, updateEnv };
  const data = await request('reload', args, { timeout: 0, onProgress: opts.json ? undefined : onProgress });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(data)}\n`);
    for (const r of data.apps) if (r.failed) printError(reloadFailure(r));
  } else {
    for (const r of data.apps) report(r);
    if (data.apps.length > 1) process.stdout.write(`done in ${secs(Date.now() - t0)}\n`);
  }
  return data.apps.some((r) => !r.ok) ? EXIT.FAILED : EXIT.OK;
}
