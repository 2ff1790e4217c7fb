// super describe <app> [--json] (alias: show)
import { request } from '../session.js';
import { shellQuote } from '../../config/shell-split.js';
import { renderLs } from '../render-ls.js';
import { metricsLine } from '../render-metrics.js';
import { settingsLines } from '../../describe-config.js';
import { flagsOf } from '../pm2-start-flags.js';
import { formatConnections } from '../format.js';

export default async function describe(name, opts) {
  const { app } = await request('describe', { app: name });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(app, null, 2)}\n`);
    return;
  }
  const out = [];
  out.push(`${app.name}: ${app.status}, ${app.instances} instance(s), ${app.exec_mode} mode, scheduling ${app.scheduling}, daemon on CPUs ${app.daemon_cpus}`);
  if (app.cpus_note) out.push(`  instances: ${app.cpus_note}`);
  if (app.connections) out.push(`  connections: ${formatConnections(app.connections)}`);
  out.push(`  id: ${app.id}; ${sourceLine(app.source)}`);
  out.push(`  out log: ${app.logs.out}${app.config.out_file ? '' : ' (default)'}`, `  err log: ${app.logs.err}${app.config.error_file ? '' : ' (default)'}`);
  if (app.cron_restart) out.push(cronLine(app.cron_restart));
  if (app.pending_config?.length) out.push(`  config changed, applies at next restart: ${app.pending_config.join(', ')}`);
  out.push('', renderLs({ apps: [app] }));
  const health = app.workers.map(metricsLine).filter(Boolean);
  if (health.length) out.push('', 'health:', ...health);
  out.push('', 'settings:', ...settingsLines(app.config));
  for (const w of app.workers) {
    if (w.cpus) out.push(`  #${w.slot} CPUs: ${w.cpus}${w.pinned ? ' (pinned)' : ' (not pinned)'}`);
    if (w.last_exit?.error) out.push(`  #${w.slot} last start failed: ${w.last_exit.error}`);
    else if (w.last_exit) out.push(`  #${w.slot} last exit: ${w.last_exit.signal ? `signal ${w.last_exit.signal}` : `code ${w.last_exit.code}`} after ${w.last_exit.uptime_ms} ms`);
  }
  if (app.last_stderr) out.push('', 'last stderr lines (since its workers started):', ...app.last_stderr.split('\n').map((l) => `  | ${l}`));
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Where the app came from: its ecosystem file, or the command line of a file-less start. */
function sourceLine(source) {
  if (source?.file) return `from ${source.file}${source.env ? ` (--env ${source.env})` : ''}`;
  if (source?.command) {
    const c = source.command;
    const words = [c.script, '--name', c.name, ...(c.instances ? ['-i', c.instances] : []), ...flagsOf(c.keys ?? {}), ...(c.args.length ? ['--', ...c.args] : [])];
    return `started as: super start ${words.map(shellQuote).join(' ')} (in ${c.cwd})`;
  }
  return 'source not recorded';
}

/** describe's cron_restart line (the daemon's cron-restart.js status()). */
function cronLine({ pattern, next, never }) {
  const when = next ?? (never ? 'never: no such date' : 'not scheduled (app stopped)');
  return `  cron_restart: ${pattern}, next run ${when}`;
}
