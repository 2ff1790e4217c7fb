// What an app's `script` runs, read as PM2 reads it:
// - a command line (`node server.js`, `npm run serve`): PM2 runs the line in fork mode
//   (through `bash -c`); superd splits it as a shell would (no expansion) and runs its
//   first word, except `node <file> ...`, which stays a Node app (cluster mode possible);
// - npm/yarn/pnpm in cluster mode: a cluster of package managers shares no port (their
//   child listens, not the worker), so superd runs the package script's `node <file>`
//   itself in cluster mode, or else the package manager in fork mode, saying so.
import path from 'node:path';
import fs from 'node:fs';
import { shellSplit } from './shell-split.js';
import { readPackageJson, unsafePackageJson } from './resolve-script.js';

// Node options that take the next word as their value (the rest are `--flag` or `--flag=value`).
const NODE_VALUE_OPTIONS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--env-file', '--title', '--inspect-port', '--input-type']);
const PACKAGE_MANAGERS = new Set(['npm', 'yarn', 'pnpm']);
const ENV_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
// A package script with any of these needs a shell: superd does not run it without one.
const SHELL_SYNTAX = /[|&;<>()$`*?{}~!#\n]/;

/**
 * `node [options] <file> [args]` as its parts, or null when the words are not that (another
 * command, `node -e ...`, a bare `node`).
 * @param {string[]} words
 * @returns {{ node: string, nodeArgs: string[], file: string, args: string[] } | null}
 */
export function nodeCommand(words) {
  if (!/^node(js)?$/.test(path.basename(words[0] ?? ''))) return null;
  const nodeArgs = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === '--') return i + 1 < words.length ? { node: words[0], nodeArgs, file: words[i + 1], args: words.slice(i + 2) } : null;
    if (!w.startsWith('-')) return { node: words[0], nodeArgs, file: w, args: words.slice(i + 1) };
    if (w === '-' || /^(-e|--eval|-p|--print|-i|--interactive|-c|--check|--test|--run|-v|--version|-h|--help)(=|$)/.test(w)) return null;
    nodeArgs.push(w);
    if (NODE_VALUE_OPTIONS.has(w) && i + 1 < words.length) nodeArgs.push(words[++i]);
  }
  return null;
}

/**
 * A package.json script as a `node <file>` command with its variables, or null when it is
 * anything else or needs a shell (`&&`, pipes, `$VAR`, globs...).
 * @param {string} line  e.g. `NODE_ENV=production node ./bin/www --port 80`
 * @returns {{ env: Record<string,string>, node: string, nodeArgs: string[], file: string, args: string[] } | null}
 */
export function packageNodeCommand(line) {
  if (typeof line !== 'string' || SHELL_SYNTAX.test(line)) return null;
  let words;
  try {
    words = shellSplit(line);
  } catch {
    return null;
  }
  /** @type {Record<string, string>} */
  const env = {};
  for (let m; words.length && (m = ENV_ASSIGNMENT.exec(words[0])); words.shift()) env[m[1]] = m[2];
  const cmd = nodeCommand(words);
  return cmd && { env, ...cmd };
}

/**
 * The package script `<pm> <args>` runs: its name, its command line (npm's default for
 * start: `node server.js`), and the arguments passed on to it. Null when the args name no
 * script of the package.
 * @param {string} pm  npm, yarn or pnpm
 * @param {string[]} args
 * @param {Record<string, any>|null} pkg  the package.json of the app's cwd
 * @param {string} cwd
 */
export function packageScript(pm, args, pkg, cwd) {
  const scripts = pkg?.scripts && typeof pkg.scripts === 'object' ? pkg.scripts : {};
  let name = args[0];
  let rest = args.slice(1);
  if (name === 'run' || name === 'run-script') [name, rest] = [args[1], args.slice(2)];
  else if (name !== 'start' && (pm === 'npm' || !Object.hasOwn(scripts, name ?? ''))) return null;
  if (!name) return null;
  if (rest[0] === '--') rest = rest.slice(1);
  let line = Object.hasOwn(scripts, name) ? scripts[name] : undefined;
  if (line === undefined && name === 'start' && fs.existsSync(path.join(cwd, 'server.js'))) line = 'node server.js';
  return typeof line === 'string' ? { name, line, rest } : null;
}

/**
 * @typedef {object} ScriptEntry
 * @property {string} script  the program to resolve (a path or a command name)
 * @property {string|undefined} interpreter  decided here (a command line), else undefined
 * @property {string[]} args  the whole argument list
 * @property {string[]} nodeArgs  Node options from the command line (before the file's)
 * @property {Record<string,string>} env  variables the package script sets
 * @property {'cluster'|'fork'|undefined} execMode  the mode to use whatever the file says
 * @property {'cluster'|'fork'|undefined} defaultMode  the mode when the file says none
 */

/**
 * @param {object} o
 * @param {string} o.script  as written
 * @param {string[]} o.args  the `args` key, as a list
 * @param {string|undefined} o.execMode  as written (cluster or fork)
 * @param {unknown} o.instances  as written
 * @param {string} o.cwd  absolute
 * @param {(message: string) => void} o.report  a problem at `script`
 * @param {(message: string) => void} o.warn  a warning at `script`
 * @param {{uid: number, gid: number}|null} [o.as]  the app's user: its package.json is read with its rights
 * @returns {ScriptEntry}
 */
export function scriptEntry({ script, args, execMode, instances, cwd, report, warn, as = null }) {
  /** @type {ScriptEntry} */
  let entry = { script, interpreter: undefined, args, nodeArgs: [], env: {}, execMode: undefined, defaultMode: undefined };
  if (/\s/.test(script) && !fs.existsSync(path.resolve(cwd, script))) {
    let words = [];
    try {
      words = shellSplit(script);
    } catch (err) {
      report(`cannot split the command line: ${err.message}; close the quote`);
    }
    if (!words.length) return entry;
    const node = nodeCommand(words);
    entry = node
      // One instance runs in fork mode, as PM2 runs a command line; several share their port in cluster mode.
      ? { ...entry, script: node.file, interpreter: node.node, args: [...node.args, ...args], nodeArgs: node.nodeArgs, defaultMode: manyInstances(instances) ? 'cluster' : 'fork' }
      : { ...entry, script: words[0], interpreter: 'none', args: [...words.slice(1), ...args] };
  }
  const pm = path.basename(entry.script);
  if (execMode !== 'cluster' || !PACKAGE_MANAGERS.has(pm) || entry.interpreter === 'node') return entry;
  const called = [pm, ...entry.args].join(' ');
  let pkg = null;
  try {
    pkg = readPackageJson(cwd, as);
  } catch (err) {
    report(unsafePackageJson(err));
    return entry;
  }
  const pkgScript = packageScript(pm, entry.args, pkg, cwd);
  const node = pkgScript && packageNodeCommand(pkgScript.line);
  if (node) {
    warn(`${called} in cluster mode would make ${pm}, not its child, the worker; superd runs the package script's command (${pkgScript.line}) itself in cluster mode, without ${pm}'s npm_* variables`);
    return { ...entry, script: node.file, interpreter: node.node, args: [...node.args, ...pkgScript.rest], nodeArgs: node.nodeArgs, env: node.env };
  }
  warn(`${called} in cluster mode would make ${pm}, not its child, the worker, and ${pm}'s children share no port; superd runs it in fork mode instead (its package script is not a plain \`node <file>\` command; several instances must not listen on one port)`);
  return { ...entry, execMode: 'fork' };
}

function manyInstances(instances) {
  return instances !== undefined && instances !== null && String(instances) !== '1';
}
