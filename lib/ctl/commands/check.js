// super check <file> [--env name] [--only a,b] [--json] (also: super start <file> --dry-run):
// load an ecosystem file as `super start` would, and print its apps as superd will run
// them (script, interpreter, mode, instances as a number, the way a cluster app's
// connections take, cwd, env with secrets masked) and every warning, without starting
// anything and without a daemon: a PM2 user sees the translation before switching. A bad
// file gets the usual problem lines and exit 2.
import { printable, printableError } from '../../printable.js';
import { checkView } from '../check-view.js';
import { instancesWritten, autoscaleText } from '../../describe-config.js';
import { formatConnections } from '../format.js';

export default async function check(file, opts = {}) {
  const { loadEcosystem } = await import('../../config/index.js');
  const only = opts.only ? opts.only.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  let eco;
  try {
    eco = await loadEcosystem(file, { env: opts.env, only, startDir: process.cwd() });
  } catch (err) {
    throw printableError(err);
  }
  const view = checkView(eco);
  if (opts.json) process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
  else process.stdout.write(render(view));
  return 0;
}

function render({ file, apps, warnings }) {
  const s = (n) => (n === 1 ? '' : 's');
  const lines = [`${file}: ${apps.length} app${s(apps.length)}, as superd will run ${apps.length === 1 ? 'it' : 'them'} (nothing started)`];
  const row = (key, value) => lines.push(`  ${key.padEnd(12)}${value}`);
  for (const app of apps) {
    lines.push('', app.namespace === 'default' ? app.name : `${app.name} (namespace ${app.namespace})`);
    row('script', app.script);
    if (app.args.length) row('args', app.args.map(quoted).join(' '));
    row('interpreter', app.interpreter);
    if (app.node_args.length) row('node_args', app.node_args.map(quoted).join(' '));
    const spec = String(app.instances_spec) === String(app.instances) ? '' : ` (instances: ${instancesWritten(app.instances_spec)})`;
    row('mode', `${app.exec_mode}, ${app.instances} instance${s(app.instances)}${spec}${app.autostart ? '' : ', not started (autostart: false)'}`);
    if (app.connections) row('connections', formatConnections(app.connections));
    if (app.autoscale) row('autoscale', autoscaleText(app.autoscale));
    if (app.cpus_note) row('cpus', app.cpus_note);
    row('cwd', app.cwd);
    const env = Object.entries(app.env);
    row('env', env.length ? `${env[0][0]}=${env[0][1]}` : '(none of its own: workers get the environment of `super start`)');
    for (const [k, v] of env.slice(1)) lines.push(`  ${''.padEnd(12)}${k}=${v}`);
  }
  if (warnings.length) lines.push('', ...warnings.map((w) => `warning: ${w}`));
  return `${lines.map(printable).join('\n')}\n`;
}

/** A word as a shell would need it, so the line shows where one argument ends. */
const quoted = (w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w));
