#!/usr/bin/env node
// `npm test`: Node's test runner over every test/<folder>/<name>.test.js, four files at a
// time, the slowest first. The runner starts files in the order given as its slots free up;
// in name order a 40-second file started last, alone, while the other slots sat idle. The
// files listed in test/slowest.txt (longest wall time first; regenerate it with
// `node bench/test-cost.js --out f` and keep the files over ~8 s) go first, the rest follow
// in name order. Half of a file's wall time is spent waiting on events (readiness, drains,
// timers), so four at a time keep two cores busy where two at a time left them idle.
import fs from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { testFiles } from './helpers/test-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Files at once; TEST_CONCURRENCY overrides it (to measure the suite at another setting).
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY) || 4;

const all = testFiles(ROOT);
const listed = fs.readFileSync(path.join(ROOT, 'test', 'slowest.txt'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const slow = listed.filter((f) => all.includes(f));
// Files named on the command line run alone, in the same order (`npm test -- test/logs/follow.test.js`).
const only = process.argv.slice(2).map((f) => path.relative(ROOT, path.resolve(f)));
const ordered = [...slow, ...all.filter((f) => !slow.includes(f))].filter((f) => !only.length || only.includes(f));

// The test files, the daemons and workers they start, and any `node` they spawn by name run
// on one Node: this one first on PATH (`test/on-node.js` runs the suite on another line).
const onPath = (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'node')).find((f) => fs.existsSync(f));
if (!onPath || fs.realpathSync(onPath) !== fs.realpathSync(process.execPath)) process.env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
console.log(`# Node ${process.version} (${process.execPath}), ${ordered.length} test files, ${CONCURRENCY} at a time`);

// `node --test <files>` sorts the files it is given; run() keeps their order.
const stream = run({ files: ordered.map((f) => path.join(ROOT, f)), concurrency: CONCURRENCY, timeout: 120000 });
stream.on('test:fail', () => (process.exitCode = 1));
stream.compose(process.stdout.isTTY ? new spec() : tap).pipe(process.stdout);
