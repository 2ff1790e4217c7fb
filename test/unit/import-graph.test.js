// The import graph of lib/, checked against each rule docs/architecture.md states ("Folders
// and what each may import"): no cycle (a lazy import() counts: a cycle through one still
// ties the two modules together), not between folders either; lib/logs lowest, then
// lib/config; the files directly in lib/ are leaves; only the CLI (lib/ctl) reaches the
// daemon, through its face, lib/master/index.js; lib/master's sub-systems reach each other
// through their index.js. Whatever else two parts need lives in a lower module.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/harness.js';

const LIB = path.join(ROOT, 'lib');
// `import ... from './x.js'`, `export ... from './x.js'`, `import './x.js'`, `import('./x.js')`,
// `require('./x.cjs')`: relative specifiers only (packages and node: builtins are not ours).
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(m|c)?js$/.test(e.name) && !e.name.endsWith('.generated.js') ? [p] : [];
  });
}

let graphOfTree = null;
/** file -> files it imports (absolute paths inside lib/); read once, every test reads the same tree. */
function importGraph() {
  return (graphOfTree ??= readGraph());
}

function readGraph() {
  const graph = new Map();
  for (const file of sources(LIB)) {
    // Comments may quote an import; only code counts.
    const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const deps = [...code.matchAll(SPECIFIER)].map((m) => path.resolve(path.dirname(file), m[1]));
    graph.set(file, [...new Set(deps)].filter((d) => d.startsWith(LIB + path.sep)));
  }
  return graph;
}

const rel = (f) => path.relative(ROOT, f);

/** Every cycle, each as the list of files around it (one per strongly connected group). */
function cycles(graph) {
  const found = [];
  const state = new Map(); // file -> 'open' (on the current path) | 'done'
  const stack = [];
  const visit = (file) => {
    state.set(file, 'open');
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === 'open') found.push([...stack.slice(stack.indexOf(dep)), dep].map(rel));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

test('the walk sees the imports (a cycle and a forbidden edge it must find)', () => {
  const a = path.join(LIB, 'a.js');
  const b = path.join(LIB, 'b.js');
  assert.deepEqual(cycles(new Map([[a, [b]], [b, [a]]])), [['lib/a.js', 'lib/b.js', 'lib/a.js']]);
  const graph = importGraph();
  const daemonFace = path.join(LIB, 'master', 'index.js');
  assert.ok([...graph.values()].some((deps) => deps.includes(daemonFace)), 'some CLI command imports lib/master/index.js');
  assert.ok(graph.get(path.join(LIB, 'master', 'apps', 'registry.js')).length > 3, 'registry.js imports are seen');
});

test('lib/ has no import cycle', () => {
  assert.deepEqual(cycles(importGraph()).map((c) => c.join(' -> ')), []);
});

/** The folder a file belongs to: lib/<folder>, lib/master/<sub-system>, or the file itself for
 * a file directly in lib/ or lib/master/ (a leaf everyone may import). */
function folderOf(file) {
  const parts = path.relative(LIB, file).split(path.sep);
  const depth = parts[0] === 'master' ? 2 : 1;
  return ['lib', ...parts.slice(0, depth)].join('/');
}

/** folder -> folders its files import (an import inside one folder is no edge). */
function libFolderGraph(graph) {
  const folders = new Map();
  for (const [file, deps] of graph) {
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const dep of deps) if (folderOf(dep) !== from) folders.get(from).add(folderOf(dep));
  }
  return new Map([...folders].map(([f, deps]) => [f, [...deps]]));
}

test('the folders of lib/ (and the sub-systems of lib/master) import each other without a cycle', () => {
  const graph = importGraph();
  const folders = libFolderGraph(graph);
  assert.ok(folders.get('lib/ctl').includes('lib/config'), 'the folder graph sees lib/ctl -> lib/config');
  // Each cycle with one file-level import per step, so the message says what to move.
  const example = (from, to) => {
    for (const [file, deps] of graph) {
      const dep = folderOf(file) === from && deps.find((d) => folderOf(d) === to);
      if (dep) return `${rel(file)} -> ${rel(dep)}`;
    }
  };
  const found = cycles(new Map([...folders].map(([f, deps]) => [path.join(ROOT, f), deps.map((d) => path.join(ROOT, d))])))
    .map((c) => `${c.join(' -> ')}\n    ${c.slice(1).map((to, i) => example(c[i], to)).join('\n    ')}`);
  assert.equal(found.length, 0, `folder cycles:\n  ${found.join('\n  ')}`);
});

/** Whether `file` is a leaf of lib/: a file directly in lib/, but lib/index.js (the programmatic API). */
const isLeaf = (file) => path.dirname(file) === LIB && file !== path.join(LIB, 'index.js');

/** The imports of the files of `folder` (as folderOf names it) that go to none of `allowed` (folders) nor to a leaf. */
function importsBeyond(graph, folder, allowed) {
  const bad = [];
  for (const [file, deps] of graph) {
    if (folderOf(file) !== folder) continue;
    for (const dep of deps) if (folderOf(dep) !== folder && !isLeaf(dep) && !allowed.includes(folderOf(dep))) bad.push(`${rel(file)} -> ${rel(dep)}`);
  }
  return bad;
}

test('the check of a folder\'s imports finds one that goes too high', () => {
  const logs = path.join(LIB, 'logs', 'x.js');
  const config = path.join(LIB, 'config', 'y.js');
  const graph = new Map([[logs, [path.join(LIB, 'errors.js'), config]], [config, [logs]]]);
  assert.deepEqual(importsBeyond(graph, 'lib/logs', []), ['lib/logs/x.js -> lib/config/y.js']);
  assert.deepEqual(importsBeyond(graph, 'lib/config', ['lib/logs']), []);
});

test('lib/logs imports only leaves of lib/; lib/config only lib/logs and leaves, below the folders that import it', () => {
  const graph = importGraph();
  assert.deepEqual(importsBeyond(graph, 'lib/logs', []), []);
  assert.deepEqual(importsBeyond(graph, 'lib/config', ['lib/logs']), []);
  // The folders docs/architecture.md names above lib/config do import it (no folder cycle keeps them above).
  const folders = libFolderGraph(graph);
  const above = ['lib/ipc', 'lib/profiles', 'lib/capacity', 'lib/pm2', 'lib/dashboard', 'lib/ctl'];
  assert.deepEqual(above.filter((f) => !folders.get(f)?.includes('lib/config')), [], 'each imports lib/config');
  assert.ok([...folders].some(([f, deps]) => f.startsWith('lib/master/') && deps.includes('lib/config')), 'lib/master imports lib/config');
});

test('the files directly in lib/ are leaves: they import only each other; lib/index.js sits on lib/ctl and lib/ipc', () => {
  const graph = importGraph();
  const bad = [];
  for (const [file, deps] of graph) if (isLeaf(file)) for (const dep of deps) if (!isLeaf(dep)) bad.push(`${rel(file)} -> ${rel(dep)}`);
  assert.deepEqual(bad, []);
  assert.deepEqual(importsBeyond(graph, 'lib/index.js', ['lib/ctl', 'lib/ipc']), []);
});

test('lib/dashboard imports lib/config, lib/ipc, lib/profiles and leaves only', () => {
  assert.deepEqual(importsBeyond(importGraph(), 'lib/dashboard', ['lib/config', 'lib/ipc', 'lib/profiles']), []);
});

test('no folder of lib/ but lib/ctl imports lib/master (and lib/ctl only its face)', () => {
  const ctl = path.join(LIB, 'ctl') + path.sep;
  const face = path.join(LIB, 'master', 'index.js');
  const bad = [];
  for (const [file, deps] of importGraph()) {
    if (inMaster(file)) continue;
    for (const dep of deps) if (inMaster(dep) && !(file.startsWith(ctl) && dep === face)) bad.push(`${rel(file)} -> ${rel(dep)}`);
  }
  assert.deepEqual(bad, []);
});

test('lib/ctl imports nothing of lib/master but its face, lib/master/index.js', () => {
  const ctl = path.join(LIB, 'ctl') + path.sep;
  const master = path.join(LIB, 'master') + path.sep;
  const face = path.join(LIB, 'master', 'index.js');
  const bad = [];
  for (const [file, deps] of importGraph()) {
    if (!file.startsWith(ctl)) continue;
    for (const dep of deps) if (dep.startsWith(master) && dep !== face) bad.push(`${rel(file)} -> ${rel(dep)}`);
  }
  assert.deepEqual(bad, []);
});

// ---- lib/master's sub-systems (docs/architecture.md, "Folders and what each may import") ----

const MASTER = path.join(LIB, 'master');
/** lib/master's sub-system of a file: its folder, or the file itself for the root's leaves (index.js, states.js). */
const subsystemOf = (file) => path.relative(MASTER, file).split(path.sep)[0];
const inMaster = (file) => file.startsWith(MASTER + path.sep);

/** sub-system -> sub-systems it imports (whatever file of it the import comes from). */
function folderGraph(graph) {
  const folders = new Map();
  for (const [file, deps] of graph) {
    if (!inMaster(file)) continue;
    const from = subsystemOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const dep of deps) if (inMaster(dep) && subsystemOf(dep) !== from) folders.get(from).add(subsystemOf(dep));
  }
  return new Map([...folders].map(([f, deps]) => [f, [...deps]]));
}

test('every relative import names a file that exists', () => {
  const missing = [];
  for (const [file, deps] of importGraph()) for (const dep of deps) if (!fs.existsSync(dep)) missing.push(`${rel(file)} -> ${rel(dep)}`);
  assert.deepEqual(missing, []);
});

test('the folder walk sees lib/master\'s sub-systems and a cycle between two of them', () => {
  const folders = folderGraph(importGraph());
  for (const f of ['core', 'apps', 'reload', 'control', 'health']) assert.ok(folders.has(f), f);
  assert.ok(folders.get('core').includes('apps'), 'core imports apps');
  const a = path.join(MASTER, 'a', 'x.js');
  const b = path.join(MASTER, 'b', 'y.js');
  const b2 = path.join(MASTER, 'b', 'z.js');
  assert.equal(cycles(folderGraph(new Map([[a, [b]], [b, []], [b2, [a]]]))).length, 1, 'a cycle of folders through two files of b');
});

test('no cycle between the folders of lib/master', () => {
  assert.deepEqual(cycles(folderGraph(importGraph())).map((c) => c.join(' -> ')), []);
});

test('the layers docs/architecture.md names are imports the code makes (core -> control -> apps -> reload, health -> apps, core and apps -> settings)', () => {
  const folders = folderGraph(importGraph());
  const arrows = [['core', 'control'], ['control', 'apps'], ['apps', 'reload'], ['health', 'apps'], ['core', 'settings'], ['apps', 'settings']];
  assert.deepEqual(arrows.filter(([from, to]) => !folders.get(from)?.includes(to)).map((a) => a.join(' -> ')), []);
});

test('a lib/master sub-system imports another only through its index.js; states.js is a leaf; only lib/master/index.js imports core/', () => {
  const states = path.join(MASTER, 'states.js');
  const face = path.join(MASTER, 'index.js');
  const bad = [];
  for (const [file, deps] of importGraph()) {
    for (const dep of deps) {
      if (!inMaster(dep)) continue;
      const to = subsystemOf(dep);
      if (file === states) bad.push(`${rel(file)} -> ${rel(dep)} (states.js imports nothing of lib/master)`);
      if (to === 'core' && !(inMaster(file) && subsystemOf(file) === 'core') && file !== face) bad.push(`${rel(file)} -> ${rel(dep)} (only lib/master/index.js imports core/)`);
      if (!inMaster(file) || subsystemOf(file) === to || dep === states || dep === face) continue;
      if (path.basename(dep) !== 'index.js' || path.dirname(dep) !== path.join(MASTER, to)) bad.push(`${rel(file)} -> ${rel(dep)}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('lib/logs, lib/config and lib/ipc never import lib/master', () => {
  const lower = ['logs', 'config', 'ipc'].map((d) => path.join(LIB, d) + path.sep);
  const bad = [];
  for (const [file, deps] of importGraph()) {
    if (!lower.some((d) => file.startsWith(d))) continue;
    for (const dep of deps) if (inMaster(dep)) bad.push(`${rel(file)} -> ${rel(dep)}`);
  }
  assert.deepEqual(bad, []);
});
