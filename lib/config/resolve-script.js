// Where an app's `script` really is, and whether it is a Node program. Synchronous on
// purpose: it runs once per command, before anything starts (see lib/config/index.js), in
// the daemon's config thread or the CLI. The files it reads (a script's first bytes, a
// directory's package.json) may be an app's user's: lib/safe-read.js reads them.

import fs from 'node:fs';
import path from 'node:path';
import { readFileSafeSync, READ_BOUNDS, UnsafeFileError } from '../safe-read.js';

const NODE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
// PM2's map of extensions to other interpreters (lib/API/interpreter.json), plus the
// obvious relatives: PM2 runs everything else as Node, superd only files without one.
const OTHER_EXTENSIONS = new Set(['.sh', '.bash', '.zsh', '.py', '.rb', '.php', '.pl', '.coffee', '.ls', '.ts', '.tsx', '.mts', '.cts']);
const SNIFF_BYTES = READ_BOUNDS.scriptHead; // PM2 reads as much to tell a binary (isbinaryfile.js)

/** @typedef {{uid: number, gid: number}|null} RunAs  the app's user, when it has one (its files are read with its rights) */

/**
 * The interpreter used when the file does not say: `node` for .js/.mjs/.cjs, else `none`.
 * @param {string} script
 * @returns {'node'|'none'}
 */
export function defaultInterpreter(script) {
  return NODE_EXTENSIONS.has(path.extname(script).toLowerCase()) ? 'node' : 'none';
}

/**
 * Whether a file is a Node program though its name may not say so (`./bin/www`, a
 * `node_modules/.bin/*` link): by the extension of what a link points to, else by its
 * first line (`#!/usr/bin/env node`), as PM2 runs such files with Node. A file with
 * another extension, a binary, or an executable without a `#!` line is not.
 * @param {string} file  an existing path
 * @param {RunAs} [as]
 * @returns {boolean}
 */
export function isNodeProgram(file, as = null) {
  if (defaultInterpreter(file) === 'node') return true;
  if (path.extname(file)) return false;
  let real;
  try {
    real = fs.realpathSync(file);
  } catch {
    return false;
  }
  const ext = path.extname(real).toLowerCase();
  if (NODE_EXTENSIONS.has(ext)) return true;
  if (OTHER_EXTENSIONS.has(ext) || !fs.statSync(real).isFile()) return false; // never read a FIFO or a device
  const head = readHead(real, as);
  if (head === null) return false;
  if (head.startsWith('#!')) return shebangRunsNode(head.slice(2).split('\n')[0]);
  // Text without a #! line: Node's (PM2 runs it so); an executable one is the shell's.
  return !head.includes('\0') && !isExecutable(real);
}

/**
 * Whether a #! line (without the #!) runs Node: `/usr/bin/node`, `/usr/bin/env node`,
 * `/usr/bin/env -S node --flag`.
 * @param {string} line
 */
export function shebangRunsNode(line) {
  const words = line.trim().split(/[ \t]+/);
  let i = 0;
  if (path.basename(words[0] ?? '') === 'env') {
    i = 1;
    while (i < words.length && (words[i].startsWith('-') || words[i].includes('='))) i++;
  }
  return /^node(js)?$/.test(path.basename(words[i] ?? ''));
}

/** The script's first bytes, or null when it cannot be read (a FIFO swapped in, a link the app's user may not follow). */
function readHead(file, as) {
  try {
    return readFileSafeSync(file, { max: SNIFF_BYTES, head: true, as }).toString('latin1');
  } catch {
    return null;
  }
}

/**
 * Resolve `script` against `cwd` and check it can be run. With interpreter
 * `none`, a bare name (no slash) missing from cwd is looked up on PATH, as a shell would.
 * With `auto` (no interpreter written), the file decides (isNodeProgram); a command found
 * on PATH is run as it is. A directory runs as Node runs one: its package.json `main`,
 * else its index.js.
 * @param {string} script  as written
 * @param {string} cwd  absolute directory
 * @param {'node'|'none'|'auto'} interpreter
 * @param {string} [searchPath]  PATH to search (the app's own PATH when its env sets one)
 * @param {RunAs} [as]
 * @returns {{ path: string, interpreter: 'node'|'none', error?: undefined } | { error: string, path?: undefined, interpreter?: undefined }}
 *   error: `<what is wrong>; <what to do>`
 */
export function resolveScript(script, cwd, interpreter, searchPath = process.env.PATH ?? '', as = null) {
  const candidate = path.resolve(cwd, script);
  const stat = fs.statSync(candidate, { throwIfNoEntry: false });
  if (stat) {
    if (stat.isDirectory()) {
      if (interpreter === 'none') return { error: `is a directory: ${candidate}; name the entry file inside it` };
      const entry = directoryEntry(candidate, as);
      return entry.error !== undefined ? { error: entry.error } : { path: entry.path, interpreter: 'node' };
    }
    const chosen = interpreter !== 'auto' ? interpreter : isNodeProgram(candidate, as) ? 'node' : 'none';
    if (chosen === 'none' && !isExecutable(candidate)) {
      return { error: `not executable: ${candidate}; chmod +x it, or set interpreter: node for a Node script` };
    }
    return { path: candidate, interpreter: chosen };
  }
  if (interpreter !== 'node' && !script.includes('/') && !(interpreter === 'auto' && defaultInterpreter(script) === 'node')) {
    for (const dir of searchPath.split(path.delimiter)) {
      if (!dir) continue;
      const p = path.resolve(dir, script);
      if (fs.statSync(p, { throwIfNoEntry: false })?.isFile() && isExecutable(p)) return { path: p, interpreter: 'none' };
    }
    return { error: `not found in cwd ${cwd} nor on PATH: ${script}; check the name, or give its path` };
  }
  const where = path.isAbsolute(script) ? '' : ` (relative to cwd ${cwd})`;
  return { error: `file not found: ${candidate}; check the path${where}` };
}

/**
 * The file `node <dir>` runs: package.json `main` (as a file, with .js, or its index.js),
 * else index.js.
 * @param {string} dir  absolute
 * @param {RunAs} [as]
 * @returns {{ path: string, error?: undefined } | { error: string, path?: undefined }}
 */
export function directoryEntry(dir, as = null) {
  let main;
  try {
    main = readPackageJson(dir, as)?.main;
  } catch (err) {
    return { error: unsafePackageJson(err) };
  }
  const tries = typeof main === 'string' && main ? [main, `${main}.js`, path.join(main, 'index.js')] : [];
  for (const rel of [...tries, 'index.js']) {
    const p = path.resolve(dir, rel);
    if (fs.statSync(p, { throwIfNoEntry: false })?.isFile()) return { path: p };
  }
  const said = tries.length ? `its package.json main (${main}) is not a file, and it has no index.js` : 'it has no package.json main nor index.js';
  return { error: `is a directory: ${dir}, and ${said}; name the entry file inside it` };
}

/**
 * A directory's package.json, parsed, or null (none, not JSON).
 * @param {string} dir
 * @param {RunAs} [as]
 * @returns {Record<string, any>|null}
 * @throws {UnsafeFileError} when what is there may not be read (a device, a FIFO, too large, a link its controller may not follow)
 */
export function readPackageJson(dir, as = null) {
  let text;
  try {
    text = readFileSafeSync(path.join(dir, 'package.json'), { max: READ_BOUNDS.packageJson, as }).toString('utf8');
  } catch (err) {
    if (err instanceof UnsafeFileError) throw err;
    return null; // none, or unreadable (EACCES...): as Node, which then runs index.js
  }
  try {
    const data = JSON.parse(text);
    return data && typeof data === 'object' && !Array.isArray(data) ? data : null;
  } catch {
    return null;
  }
}

/**
 * The problem line of a package.json superd refused to read.
 * @param {UnsafeFileError} err
 */
export function unsafePackageJson(err) {
  return `cannot read ${err.file} (${err.code}): ${err.reason}; superd reads only a regular file of at most ${READ_BOUNDS.packageJson} bytes there, that the app's user may read: replace it`;
}

function isExecutable(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
