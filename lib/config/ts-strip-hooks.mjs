// Module hooks for TypeScript ecosystem files: types are stripped by SWC's strip-only
// mode (@swc/wasm-typescript: the engine inside amaro, the stripper Node 22.6+ uses;
// amaro's package claims Node >= 22, this one runs on every Node superd supports).
// Type annotations, interfaces and `import type` become blanks, so lines and columns
// stay those of the file.
// .mts is ESM, .cts CommonJS, .ts follows the nearest package.json's "type", else its syntax.
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { readFileSafeSync, READ_BOUNDS } from '../safe-read.js';

const require = createRequire(import.meta.url);
const TS = /\.(ts|mts|cts)$/;

// Synchronous, so the same hook serves module.registerHooks (in the thread that imports,
// Node 22.15+) and module.register (a hooks thread, older Nodes).
export function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TS.test(url)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { transformSync } = require('@swc/wasm-typescript');
  let source;
  try {
    source = transformSync(readFileSafeSync(file, { max: READ_BOUNDS.tsSource }).toString('utf8'), { mode: 'strip-only', filename: file }).code;
  } catch (err) {
    if (err instanceof Error) throw err;
    // SWC throws a plain object; its position goes in the message, where the parent finds it.
    throw new SyntaxError(`${err.message} at ${file}:${err.startLine}:${err.startColumn + 1} (only types are stripped, as Node does: no enums or namespaces)`);
  }
  return { format: formatOf(file, source), source, shortCircuit: true };
}

function formatOf(file, source) {
  if (file.endsWith('.mts')) return 'module';
  if (file.endsWith('.cts')) return 'commonjs';
  // The nearest package.json's "type" when it says one; else the syntax decides, as in Node.
  const type = packageType(path.dirname(file));
  if (type === 'module' || type === 'commonjs') return type;
  try {
    vm.compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname']);
    return 'commonjs';
  } catch {
    return 'module'; // import/export (or top-level await): ESM, as Node detects it
  }
}

function packageType(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      return JSON.parse(readFileSafeSync(path.join(d, 'package.json'), { max: READ_BOUNDS.packageJson }).toString('utf8')).type ?? null;
    } catch (err) {
      if (err.code !== 'ENOENT') return null;
    }
    if (path.dirname(d) === d) return null;
  }
}
