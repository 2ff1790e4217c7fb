'use strict';
// Makes superd's worker API (index.cjs) reachable from any app the daemon runs, also one
// that has not installed superd (required by agent.cjs):
//   - globalThis.superd = {ready, onShutdown, isSuperd, slot, appName}, unless the app's
//     global already has a `superd`;
//   - the bare specifier 'superd/worker' resolves to index.cjs when the app cannot resolve
//     it itself (an app that installed superd gets its own copy; both talk to this agent).
// How the specifier is resolved:
//   - require() and require.resolve(): through Module._resolveFilename, only when the
//     app's own resolution fails (no cost until then);
//   - import: with module.registerHooks where Node has it (>= 22.15, 23.5), one synchronous
//     resolve hook in this thread; on older Node through module.register, whose hooks run
//     on a thread of their own (~40 ms at start and ~10 MB per worker): registered only for
//     an ES-module entry script that names 'superd/worker' and cannot resolve it by itself,
//     and in the main thread only (that Node applies no hook registered in a worker thread).
// Everything is done lazily where it can be: index.cjs loads when the app first reads
// globalThis.superd, and the entry script is read once, its path and package looked at
// only when it names 'superd/worker'.
const fs = require('node:fs');
const path = require('node:path');

// The CommonJS loader (Module._resolveFilename, Module._nodeModulePaths) is this module's
// own class. register and registerHooks are set on it by node:module only: that module is
// required only where it is used, so that a worker on a Node without registerHooks whose
// app never requires node:module does not pay for it (~0.2 ms per worker).
/** @type {any} Node's Module class: _resolveFilename and _nodeModulePaths are its internals this hooks */
const Module = module.constructor;
const [major, minor] = process.versions.node.split('.').map(Number);
const HAS_REGISTER_HOOKS = major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 15);
const fileUrl = (file) => require('node:url').pathToFileURL(file).href;

const SPECIFIER = 'superd/worker';
const API_FILE = path.join(__dirname, 'index.cjs');
const NOT_FOUND = new Set(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED']);

function exposeApi() {
  if (!('superd' in globalThis)) {
    // A value once read, as it would be if set here; the app may still assign its own.
    const become = (value) => Object.defineProperty(globalThis, 'superd', { value, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(globalThis, 'superd', {
      get: () => become(Object.freeze({ ...require('./index.cjs') })).superd,
      set: become,
      configurable: true,
      enumerable: false,
    });
  }
  const resolveFilename = Module._resolveFilename;
  // @ts-expect-error registerHooks is Node 22.15+ (HAS_REGISTER_HOOKS checks); the typings are Node 20's
  if (HAS_REGISTER_HOOKS) require('node:module').registerHooks({ resolve: resolveSync });
  else if (esmEntryNeedsHook(resolveFilename) && require('node:worker_threads').isMainThread) require('node:module').register('./resolve-hook.mjs', fileUrl(__filename));
  Module._resolveFilename = function superdResolveFilename(request, ...rest) {
    if (request !== SPECIFIER) return resolveFilename.call(this, request, ...rest);
    try {
      return resolveFilename.call(this, request, ...rest);
    } catch (err) {
      if (!NOT_FOUND.has(err?.code)) throw err;
      return API_FILE;
    }
  };
}

function resolveSync(specifier, context, next) {
  if (specifier !== SPECIFIER) return next(specifier, context);
  try {
    return next(specifier, context);
  } catch (err) {
    if (!NOT_FOUND.has(err?.code)) throw err;
    return { url: fileUrl(API_FILE), format: 'commonjs', shortCircuit: true };
  }
}

/**
 * True when Node runs the entry script as an ES module that names SPECIFIER and cannot
 * resolve it by itself. Only an entry that names it pays for the hook thread: every other
 * ES-module worker would start ~40 ms slower and ~10 MB larger for nothing. A module
 * deeper in the app that imports it needs Node >= 22.15, or globalThis.superd.
 */
function esmEntryNeedsHook(resolveFilename) {
  const file = esmEntry();
  return file !== null && !resolvesFrom(resolveFilename, file);
}

/**
 * The path of the entry script when it names SPECIFIER and Node runs it as an ES module,
 * else null. The text is read first: most entries do not name it, and for them one read
 * (of a file Node reads next anyway) is the whole cost.
 */
function esmEntry() {
  let file;
  let text;
  try {
    text = fs.readFileSync(process.argv[1], 'utf8');
    if (!text.includes(SPECIFIER)) return null;
    file = fs.realpathSync(process.argv[1]);
    if (!file.endsWith('.mjs') && !file.endsWith('.js')) return null;
  } catch {
    return null; // no script (node -e, a REPL) or not a file
  }
  if (file.endsWith('.mjs')) return file;
  const type = packageType(path.dirname(file));
  if (type !== undefined) return type === 'module' ? file : null;
  // No "type": Node runs a .js file with import/export statements as an ES module.
  return /^\s*(import\s*[\w{*'"]|export\s)/m.test(text) ? file : null;
}

/** "type" of the nearest package.json above dir (undefined: none says). */
function packageType(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      const type = JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8')).type;
      return type === 'module' || type === 'commonjs' ? type : undefined;
    } catch {}
    if (d === path.dirname(d)) return undefined;
  }
}

function resolvesFrom(resolveFilename, file) {
  try {
    resolveFilename(SPECIFIER, { id: file, filename: file, paths: Module._nodeModulePaths(path.dirname(file)) });
    return true;
  } catch {
    return false;
  }
}

module.exports = { exposeApi };
