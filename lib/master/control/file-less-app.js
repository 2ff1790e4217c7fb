// `super start app.js -i 2 --name api --env-var K=V -- args` and `super start "npm run start"`:
// an app without an ecosystem file. The CLI's arguments become one app entry that goes
// through lib/config exactly as an entry of a file does (same schema, same checks, same
// defaults), so a file-less app is validated, reloaded, saved and described like any other.
// The arguments themselves are the app's source: `describe` shows them, `save` keeps them.
// As `pm2 start app.js`, it runs one process in fork mode, ready once it runs (a queue
// consumer never listens), unless -i or its keys (--cluster, --ready-on) ask for more.
import path from 'node:path';
import { SuperError } from '../../errors.js';
import { nodeCommand } from '../../config/script-entry.js';

const LABEL = 'super start';
// A problem line of the one-entry file -> the option the user actually typed.
const PROBLEM_PREFIX = new RegExp(`^${LABEL}:\\d+:\\d+: apps\\[0\\]\\.?`);
const OPTION_OF = { name: '--name', instances: '-i', env: '--env-var', args: 'arguments after --' };

/**
 * @param {{script: string, args?: string[], name?: string, instances?: string, env?: Record<string,string>,
 *   cwd: string, keys?: Record<string, unknown>}} spec  what the CLI was given (`instances`: N, max
 *   or -1; `keys`: more app keys, from PM2's start flags)
 * @param {object} loadOptions  the daemon's load options (settings/daemon-settings.js loadOptions)
 * @returns {Promise<{config: import('../../config/index.js').AppConfig, daemon: object, source: {command: object}, warnings: string[]}>}
 * @throws {SuperError} E_CONFIG, one line per problem, naming the CLI option
 */
export async function fileLessApp(spec, loadOptions) {
  const { loadEcosystemTextOffThread } = await import('../../config/index.js');
  const command = {
    script: spec.script,
    args: spec.args ?? [],
    name: spec.name ?? path.basename(spec.script, path.extname(spec.script)),
    instances: spec.instances,
    env: spec.env ?? {},
    cwd: spec.cwd,
  };
  if (spec.keys) command.keys = spec.keys;
  /** @type {Record<string, unknown>} */
  const raw = { ...spec.keys, name: command.name, script: command.script, args: command.args, cwd: command.cwd, env: command.env };
  // `node server.js ...` as one command line, read as a file's `script: "node server.js"` is.
  if (nodeCommand([command.script, ...command.args])) Object.assign(raw, { script: [command.script, ...command.args].map(quote).join(' '), args: [] });
  if (command.instances !== undefined) raw.instances = /^-?\d+$/.test(command.instances) ? Number(command.instances) : command.instances;
  else if (raw.exec_mode === undefined && raw.ready_on !== 'listen') raw.exec_mode = 'fork';
  let eco;
  try {
    eco = await loadEcosystemTextOffThread(JSON.stringify({ apps: [raw] }, null, 2), LABEL, { baseDir: command.cwd, ...loadOptions, pm2Defaults: false });
  } catch (err) {
    if (err.code !== 'E_CONFIG') throw err;
    const problems = (err.details?.problems ?? []).map(asOptionProblem);
    throw new SuperError('E_CONFIG', `cannot start ${command.script}: ${problems.join('; ')}`);
  }
  return { config: eco.apps[0], daemon: eco.daemon, source: { command }, warnings: eco.warnings.map((w) => w.replace(PROBLEM_PREFIX, '')) };
}

const quote = (word) => `'${word.replace(/'/g, "'\\''")}'`;

function asOptionProblem(line) {
  const rest = line.replace(PROBLEM_PREFIX, '');
  const key = /^[a-z_]+/.exec(rest)?.[0];
  return OPTION_OF[key] ? `${OPTION_OF[key]}: ${rest}` : rest;
}
