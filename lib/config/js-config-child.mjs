// Child side of lib/config/js-config.js: imports one ecosystem file (argv[2]) and writes
// `{"data": <config>}` or `{"error": {...}}` as JSON on fd 3, then exits. stdout is the
// file's own: nothing of ours goes there.
import fs from 'node:fs';
import path from 'node:path';
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { formatPath } from './problems.js';

const RESULT_FD = 3;
const TS_EXTENSIONS = new Set(['.ts', '.cts', '.mts']);
const file = process.argv[2];

/** A value JSON cannot hold as written, at its key path; the message says what to write. */
class Unwritable extends Error {
  constructor(at, message) {
    super(message);
    this.at = at;
  }
}

/**
 * The config as JSON, refusing at its key path a value JSON would change without a word:
 * a number it cannot hold (Infinity, NaN: written null, which the checks would call an
 * empty value), a function (`instances: () => 4`) or a Symbol (dropped, or null in a list).
 */
function configJson(config) {
  const paths = new WeakMap(); // object -> its key path; the root's holder has none
  return JSON.stringify(config, function keyPath(key, value) {
    const base = paths.get(this);
    const at = base === undefined ? [] : [...base, Array.isArray(this) ? Number(key) : key];
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Unwritable(at, `${value} is not a finite number; write a number such as 4`);
    if (typeof value === 'function' || typeof value === 'symbol') {
      throw new Unwritable(at, `is ${typeof value === 'function' ? 'a function' : 'a Symbol'}, which a config cannot hold; write the value itself (instances: 4, not instances: () => 4)`);
    }
    if (value !== null && typeof value === 'object' && !paths.has(value)) paths.set(value, at);
    return value;
  });
}

/**
 * In this thread where Node has module.registerHooks: module.register runs hooks in a
 * thread of their own, a second V8 isolate (Node 24 maps ~550 MB of data for one, past
 * the bound the parent sets: js-config.js).
 */
async function registerTypeStripping() {
  /** @type {((hooks: { load: Function }) => unknown) | undefined} (not in @types/node 20) */
  const registerHooks = /** @type {any} */ (module).registerHooks;
  if (typeof registerHooks === 'function') registerHooks({ load: (await import('./ts-strip-hooks.mjs')).load });
  else module.register('./ts-strip-hooks.mjs', import.meta.url);
}

try {
  if (TS_EXTENSIONS.has(path.extname(file))) await registerTypeStripping();
  const ns = await import(pathToFileURL(file).href);
  // CommonJS: default is module.exports. ESM: the default export, or the named exports.
  let config = 'default' in ns ? ns.default : 'apps' in ns ? { ...ns } : undefined;
  if (typeof config === 'function') config = await config();
  else config = await config;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    send({ error: { kind: 'export', message: `exports ${describe(config)}, not a config object; export an object with an apps list (module.exports = { apps: [...] } or export default { apps: [...] })` } });
  } else {
    let json;
    try {
      json = `{"data":${configJson(config)}}`;
    } catch (err) {
      const message = err instanceof Unwritable
        ? `${formatPath(err.at)}: ${err.message}`
        : `its config cannot be written as JSON (${err.message}); export plain objects, lists, strings, numbers and booleans`;
      send({ error: { kind: 'export', message } });
    }
    if (json !== undefined) write(json);
  }
} catch (err) {
  send({ error: { message: err instanceof Error ? `${err.name}: ${err.message}` : String(err?.message ?? err), ...frameOf(err) } });
}
process.exit(0);

function send(reply) {
  write(JSON.stringify(reply));
}

function write(text) {
  const buf = Buffer.from(text);
  for (let off = 0; off < buf.length;) {
    try {
      off += fs.writeSync(RESULT_FD, buf, off);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
    }
  }
}

/** The file's own place in the error's stack (or in a syntax error's first line): {line, col}. */
function frameOf(err) {
  const stack = String(err?.stack ?? '');
  for (const where of [pathToFileURL(file).href, file]) {
    const escaped = where.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const m = new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`).exec(stack);
    if (m) return { line: Number(m[1]), col: m[2] ? Number(m[2]) : undefined };
  }
  return {};
}

function describe(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v)})`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `a ${typeof v} (${String(v)})`;
  return `a ${typeof v}`;
}
