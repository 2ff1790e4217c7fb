// Where an app's `script` really is. Synchronous on purpose: it runs once per
// command, before anything starts (see lib/config/index.js).

import fs from 'node:fs';
import path from 'node:path';

const NODE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);

/**
 * The interpreter used when the file does not say: `node` for .js/.mjs/.cjs, else `none`.
 * @param {string} script
 * @returns {'node'|'none'}
 */
export function defaultInterpreter(script) {
  return NODE_EXTENSIONS.has(path.extname(script).toLowerCase()) ? 'node' : 'none';
}

/**
 * Resolve `script` against `cwd` and check it can be run. With interpreter
 * `none`, a bare name (no slash) missing from cwd is looked up on PATH, as a shell would.
 * @param {string} script  as written
 * @param {string} cwd  absolute directory
 * @param {'node'|'none'} interpreter
 * @param {string} [searchPath]  PATH to search (the app's own PATH when its env sets one)
 * @returns {{ path: string } | { error: string }}  error: `<what is wrong>; <what to do>`
 */
export function resolveScript(script, cwd, interpreter, searchPath = process.env.PATH ?? '') {
  const candidate = path.resolve(cwd, script);
  const stat = fs.statSync(candidate, { throwIfNoEntry: false });
  if (stat) {
    if (stat.isDirectory()) return { error: `is a directory: ${candidate}; name the entry file inside it` };
    if (interpreter === 'none' && !isExecutable(candidate)) {
      return { error: `not executable: ${candidate}; chmod +x it, or set interpreter: node for a Node script` };
    }
    return { path: candidate };
  }
  if (interpreter === 'none' && !script.includes('/')) {
    for (const dir of searchPath.split(path.delimiter)) {
      if (!dir) continue;
      const p = path.resolve(dir, script);
      if (fs.statSync(p, { throwIfNoEntry: false })?.isFile() && isExecutable(p)) return { path: p };
    }
    return { error: `not found in cwd ${cwd} nor on PATH: ${script}; check the name, or give its path` };
  }
  const where = path.isAbsolute(script) ? '' : ` (relative to cwd ${cwd})`;
  return { error: `file not found: ${candidate}; check the path${where}` };
}

function isExecutable(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
