// The CPU-profile readers (lib/profiles/): the self-time summary and the HTML flame
// graph, on a real .cpuprofile written by `node --cpu-prof` and on built profiles for
// the bounds (huge, deep, cyclic). No daemon.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { topSelfTime, formatTopSelfTime, INLINED_NOTE } from '../../lib/profiles/profile-summary.js';
import { flameGraphHtml } from '../../lib/profiles/flamegraph.js';

const HOSTILE_NAME = '</title><script>alert(1)</script>';
const HOSTILE_FILE = '<img src=x onerror=alert(2)>.js';

// The hot path is a named function; a second function gets a name V8 infers from the
// property it is assigned to, and a third comes from a file whose name is markup.
const SCRIPT = `'use strict';
const vm = require('node:vm');
// Each spins for CPU time, not wall time (on a loaded machine a wall-clock spin can pass
// descheduled, with no sample in it), reading the clock once per 10,000 turns so that the
// time is the function's own.
function burnCpuInHotLoop(ms) {
  const start = process.cpuUsage();
  let x = 0;
  do for (let i = 0; i < 10000; i++) x += Math.sqrt(x + 1);
  while (Object.values(process.cpuUsage(start)).reduce((a, b) => a + b) < ms * 1000);
  return x;
}
const hostile = {};
hostile[${JSON.stringify(HOSTILE_NAME)}] = function (ms) { return burnCpuInHotLoop(ms); };
const spin = vm.runInThisContext('(function spinInMarkupFile(ms) { const start = process.cpuUsage(); let n = 0; do for (let i = 0; i < 10000; i++) n = (n + i) % 1000003; while (Object.values(process.cpuUsage(start)).reduce((a, b) => a + b) < ms * 1000); return n; })',
  { filename: require('node:path').join(__dirname, ${JSON.stringify(HOSTILE_FILE)}) });
burnCpuInHotLoop(300);
hostile[${JSON.stringify(HOSTILE_NAME)}](60);
spin(60);
`;
const HOT_LINE = SCRIPT.split('\n').findIndex((line) => line.startsWith('function burnCpuInHotLoop')) + 1;

let dir;
let profile;

test.before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'super-flame-'));
  fs.writeFileSync(path.join(dir, 'hot-path.js'), SCRIPT);
  await promisify(execFile)(process.execPath, ['--cpu-prof', '--cpu-prof-dir=prof', 'hot-path.js'], { cwd: dir, timeout: 30_000 });
  const [file] = fs.readdirSync(path.join(dir, 'prof'));
  profile = JSON.parse(fs.readFileSync(path.join(dir, 'prof', file), 'utf8'));
});

test.after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('topSelfTime: the hot named function is the first app frame, with its 1-based file:line', () => {
  const rows = topSelfTime(profile, { limit: 5 });
  assert.ok(rows.length > 0 && rows.length <= 5);
  const firstApp = rows.find((row) => row.url.startsWith('file:'));
  assert.equal(firstApp.functionName, 'burnCpuInHotLoop');
  assert.equal(firstApp.url, `file://${path.join(dir, 'hot-path.js')}`);
  assert.equal(firstApp.lineNumber, HOT_LINE);
  assert.equal(firstApp.columnNumber, 'function burnCpuInHotLoop'.length + 1);
  assert.ok(firstApp.selfMs > 100, `${firstApp.selfMs} ms of a 300 ms loop`);
  assert.ok(firstApp.selfPercent > 0 && firstApp.selfPercent <= 100);
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].selfMs >= rows[i].selfMs, 'sorted by self time');
  const all = topSelfTime(profile, { limit: Infinity });
  const percent = all.reduce((sum, row) => sum + row.selfPercent, 0);
  assert.ok(Math.abs(percent - 100) < 1e-6, `percentages add up to 100, got ${percent}`);
  assert.ok(all.some((row) => row.functionName === '(garbage collector)' || row.functionName === '(program)'),
    'pseudo-frames are listed under their names');
});

test('formatTopSelfTime: an aligned table with file:line relative to cwd, control characters replaced', () => {
  const text = formatTopSelfTime(topSelfTime(profile, { limit: 3 }), { cwd: dir });
  const lines = text.split('\n');
  assert.match(lines[0], /^self ms\s+self %\s+function\s+location\s+hottest line$/);
  assert.ok(lines.some((line) => /^\s*\d+\.\d\s+\d+\.\d%\s+burnCpuInHotLoop\s+hot-path\.js:\d+\s+\d+$/.test(line)), text);
  assert.ok(text.includes(`hot-path.js:${HOT_LINE}`));
  const start = lines[1].indexOf('%');
  for (const line of lines.slice(1)) assert.equal(line.indexOf('%'), start, 'columns aligned');

  const sneaky = formatTopSelfTime([{
    functionName: 'evil\u001b]0;pwned\u0007\u001b[31m', url: 'file:///srv/app/x.js', lineNumber: 3, columnNumber: 1,
    selfMs: 1, selfPercent: 1,
  }], { cwd: '/srv' });
  assert.doesNotMatch(sneaky, /[\u0000-\u0009\u000b-\u001f]/);
  assert.match(sneaky, /evil\?\]0;pwned\?\?\[31m\s+app\/x\.js:3$/);
});

test('topSelfTime: one row per function (name + url + line) over all its call paths; the flame graph keeps both paths', () => {
  const frame = { functionName: 'hot', url: 'file:///a.js', lineNumber: 9, columnNumber: 0 };
  const built = {
    nodes: [ // the root last: it is found as the node nobody calls
      { id: 2, callFrame: { functionName: 'a', url: 'file:///a.js', lineNumber: 1, columnNumber: 0 }, children: [4] },
      { id: 3, callFrame: { functionName: 'b', url: 'file:///a.js', lineNumber: 2, columnNumber: 0 }, children: [5] },
      { id: 4, callFrame: frame },
      { id: 5, callFrame: { ...frame } },
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 3] },
    ],
    startTime: 0, endTime: 4000, samples: [4, 5, 5, 2], timeDeltas: [0, 1000, 1000, 1000],
  };
  assert.deepEqual(topSelfTime(built), [
    { functionName: 'hot', url: 'file:///a.js', lineNumber: 10, columnNumber: 1, selfMs: 3, selfPercent: 75, hotLine: 0, inlinedHere: false },
    { functionName: 'a', url: 'file:///a.js', lineNumber: 2, columnNumber: 1, selfMs: 1, selfPercent: 25, hotLine: 0, inlinedHere: false },
  ]);
  assert.match(flameGraphHtml(built), /data-l="hot \/a\.js:10"[^]*data-l="hot \/a\.js:10"/, 'under both callers');
  assert.throws(() => topSelfTime({ nodes: [] }), TypeError);
  assert.throws(() => topSelfTime({ nodes: [{ id: 1 }] }), TypeError);
});

test('topSelfTime: the line most samples fell on; one above its function is code V8 inlined there, and the table says so', () => {
  // What V8 writes for `handler` (line 11) into which it inlined `work` (line 5, loop on
  // line 7): the samples are charged to handler, but their line is work's.
  const node = (id, functionName, lineNumber, positionTicks) => ({ id, callFrame: { functionName, url: 'file:///srv/app.js', lineNumber: lineNumber - 1, columnNumber: 0 }, positionTicks });
  const built = {
    nodes: [
      node(2, 'handler', 11, [{ line: 7, ticks: 5 }, { line: 12, ticks: 1 }]),
      node(3, 'work', 5, [{ line: 7, ticks: 1 }, { line: 6, ticks: 'x' }, { line: -1, ticks: 9 }]),
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 3] },
    ],
    startTime: 0, endTime: 7000, samples: [2, 2, 2, 2, 2, 2, 3], timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000],
  };
  const [handler, work] = topSelfTime(built);
  assert.deepEqual([handler.functionName, handler.hotLine, handler.inlinedHere], ['handler', 7, true]);
  assert.deepEqual([work.functionName, work.hotLine, work.inlinedHere], ['work', 7, false]);
  const lines = formatTopSelfTime([handler, work], { cwd: '/srv' }).split('\n');
  assert.match(lines[1], /handler\s+app\.js:11\s+7\*$/);
  assert.match(lines[2], /work\s+app\.js:5\s+7$/);
  assert.equal(lines[3], INLINED_NOTE);
  assert.doesNotMatch(formatTopSelfTime([work]), /\*/, 'no note without an inlined row');
});

test('flameGraphHtml: names the hot function, loads nothing from the network, escapes hostile names', () => {
  const html = flameGraphHtml(profile, { title: `profile of ${HOSTILE_NAME}`, cwd: dir });
  assert.match(html, /^<!DOCTYPE html>/);
  assert.match(html, /data-l="burnCpuInHotLoop hot-path\.js:\d+"/);
  assert.match(html, /<title>burnCpuInHotLoop hot-path\.js:\d+\ntotal \d+(\.\d)? ms \(\d+\.\d%\), self \d+(\.\d)? ms/);
  assert.doesNotMatch(html, /(src|href)\s*=\s*["']?\s*(https?:)?\/\//i, 'no external resource');
  assert.doesNotMatch(html, /https?:/i, 'no URL at all');
  assert.doesNotMatch(html, /@import|url\(/i, 'no stylesheet fetches');

  // The app's names appear only escaped: one <script> element, the page's own.
  assert.equal(html.split('<script').length - 1, 1);
  assert.ok(!html.includes(HOSTILE_NAME) && !html.includes(HOSTILE_FILE));
  assert.ok(html.includes('&#60;/title&#62;&#60;script&#62;alert(1)&#60;/script&#62;'), 'the inferred name, escaped');
  assert.ok(html.includes('spinInMarkupFile &#60;img src=x onerror=alert(2)&#62;.js'), 'the file name, escaped');

  // The Content-Security-Policy lets that one script run and nothing else.
  const script = html.match(/<script>([\s\S]*)<\/script>/)[1];
  const hash = createHash('sha256').update(script).digest('base64');
  assert.match(html, new RegExp(`default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash.replace(/[+/]/g, '\\$&')}'`));
});

/** A built profile: (root) with the given nodes below it, one sample per listed id. */
function builtProfile(nodes, samples) {
  return {
    nodes: [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: nodes.filter((n) => n.top).map((n) => n.id) }, ...nodes],
    startTime: 0, endTime: samples.length * 100, samples, timeDeltas: samples.map(() => 100),
  };
}

test('flameGraphHtml: a huge profile stays small; frames under a pixel are merged', () => {
  const nodes = [{ id: 2, top: true, callFrame: { functionName: 'wide', url: 'file:///w.js', lineNumber: 0, columnNumber: 0 } }];
  for (let id = 3; id < 50_003; id++) {
    nodes.push({ id, top: true, callFrame: { functionName: `tiny${id}`, url: 'file:///t.js', lineNumber: id, columnNumber: 0 } });
  }
  const samples = [...nodes.map((n) => n.id), ...Array(50_000).fill(2)];
  const html = flameGraphHtml(builtProfile(nodes, samples));
  assert.ok(html.length < 100_000, `${html.length} bytes`);
  assert.match(html, /\(50000 frames narrower than 1 px\)/);
  assert.doesNotMatch(html, /tiny\d/);
  assert.match(html, /data-l="wide \/w\.js:1"/);
});

test('flameGraphHtml: a 20,000-deep recursion and a cyclic child list neither overflow nor hang', () => {
  const nodes = [];
  for (let id = 2; id < 20_002; id++) {
    nodes.push({ id, top: id === 2, children: [id + 1], callFrame: { functionName: 'recurse', url: 'file:///r.js', lineNumber: 4, columnNumber: 0 } });
  }
  nodes.at(-1).children = [2]; // a cycle back to the top
  const html = flameGraphHtml(builtProfile(nodes, [20_001, 20_001, 2]));
  const frames = html.split('<g class="f"').length - 1;
  assert.ok(frames <= 4000, `${frames} frames drawn`);
  assert.match(html, /4000 frames drawn \(the limit: deeper frames are not drawn\)/);
  assert.ok(html.length < 1_500_000, `${html.length} bytes`);
});
