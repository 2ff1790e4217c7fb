// Issue 16 (logs): lines that the tools of existing pipelines read. log_type json is
// pino's line (pino-pretty reads it), an app's own pino line is merged; pm2-json has the
// fields the real PM2 writes; log_date_format renders dayjs formats; super logs --json
// carries each line's time, --raw the lines as written, and survives `-f | head -1`.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { sandbox, freePort, httpGet, ROOT, SUPER } from '../helpers/harness.js';
import { compileParser } from '../../lib/logs/date-format.cjs';

const BIN = path.join(ROOT, 'node_modules', '.bin');
const readLines = (file) => fs.readFileSync(file, 'utf8').trimEnd().split('\n');

/** Resolves once `file` holds at least `n` lines (bounded). */
async function waitLines(file, n, what) {
  for (let i = 0; i < 300; i++) {
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').split('\n').length > n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: ${file} never got ${n} lines`);
}

test('log pipelines: pino json, pm2-json, dayjs dates, logs --json/--raw, a closed pipe', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  for (const f of ['pino-writer.cjs', 'pm2-json-app.cjs', 'log-writer.js']) box.fixture(f);
  const eco = box.write('eco.yml', `
apps:
  - name: pj
    script: pino-writer.cjs
    ready_on: ready
    log_type: json
    env: { PINO_FROM: ${JSON.stringify(ROOT)} }
  - name: pm
    script: pm2-json-app.cjs
    ready_on: spawn
    log_type: pm2-json
  - name: dated
    script: log-writer.js
    ready_on: ready
    log_date_format: "MMM D, YYYY hh:mm:ss.SSS A ZZ"
    env: { LINES: 1500, PORT: ${port} }
`);
  const before = Date.now();
  await box.start(eco);
  const logs = path.join(box.home, 'logs');
  await waitLines(path.join(logs, 'pm-err.log'), 1, 'pm');
  const pid = JSON.parse((await box.cli(['ls', '--json'])).stdout).apps.find((a) => a.name === 'pj').workers[0].pid;

  await t.test('log_type json: pino fields; an app\'s pino line merged, its keys kept', () => {
    const out = readLines(path.join(logs, 'pj-out.log')).map((l) => JSON.parse(l));
    const err = readLines(path.join(logs, 'pj-err.log')).map((l) => JSON.parse(l));
    const host = os.hostname();
    const pinoLine = out.find((o) => o.msg === 'hello pino');
    assert.equal(pinoLine.user, 7, 'the app\'s own key is kept, not stringified into msg');
    assert.equal(pinoLine.level, 30);
    assert.deepEqual([pinoLine.name, pinoLine.slot, pinoLine.stream, pinoLine.pid, pinoLine.hostname], ['pj', 0, 'out', pid, host]);
    const plain = out.find((o) => o.msg === 'plain line');
    assert.deepEqual(Object.keys(plain), ['level', 'time', 'pid', 'hostname', 'name', 'slot', 'stream', 'msg']);
    assert.deepEqual([plain.level, plain.pid, plain.hostname, plain.name, plain.slot, plain.stream], [30, pid, host, 'pj', 0, 'out']);
    assert.ok(Number.isInteger(plain.time) && plain.time >= before - 1000 && plain.time <= Date.now(), 'time: epoch ms, as pino');
    assert.deepEqual(err.map((o) => [o.level, o.msg, o.stream]), [[50, 'oops', 'err'], [50, 'bad thing', 'err']]);
  });

  await t.test('pino-pretty reads the json lines', () => {
    const input = fs.readFileSync(path.join(logs, 'pj-out.log'), 'utf8') + fs.readFileSync(path.join(logs, 'pj-err.log'), 'utf8');
    const r = spawnSync(path.join(BIN, 'pino-pretty'), ['--no-color'], { input, encoding: 'utf8', timeout: 20000 });
    assert.equal(r.status, 0, r.stderr);
    // `(name/pid)`: pino-pretty read name, pid, level, time and msg; the other keys are details
    assert.match(r.stdout, new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] INFO \\(pj/${pid}\\): hello pino\\n(\\s+\\w+: .+\\n)*\\s+user: 7\\n`));
    assert.match(r.stdout, new RegExp(`\\] INFO \\(pj/${pid}\\): plain line\\n`));
    assert.match(r.stdout, new RegExp(`\\] ERROR \\(pj/${pid}\\): oops\\n`));
    assert.match(r.stdout, new RegExp(`\\] ERROR \\(pj/${pid}\\): bad thing\\n`));
  });

  await t.test('log_type pm2-json: the fields the real PM2 writes', async (tt) => {
    const pm2Home = fs.mkdtempSync(path.join(os.tmpdir(), 'pm2-'));
    const env = { ...process.env, PM2_HOME: pm2Home };
    const pm2 = (args) => spawnSync(path.join(BIN, 'pm2'), args, { env, encoding: 'utf8', timeout: 60000 });
    tt.after(() => {
      pm2(['kill']);
      fs.rmSync(pm2Home, { recursive: true, force: true });
    });
    const pm2Eco = path.join(pm2Home, 'eco.json');
    const pm2Out = path.join(pm2Home, 'o.log');
    const pm2Err = path.join(pm2Home, 'e.log');
    fs.writeFileSync(pm2Eco, JSON.stringify({ apps: [{ name: 'pm', script: path.join(box.dir, 'pm2-json-app.cjs'), log_type: 'json', out_file: pm2Out, error_file: pm2Err, autorestart: false }] }));
    const r = pm2(['start', pm2Eco]);
    assert.equal(r.status, 0, r.stderr);
    await waitLines(pm2Out, 1, 'pm2 out');
    await waitLines(pm2Err, 1, 'pm2 err');
    for (const [theirs, ours, type] of [[pm2Out, 'pm-out.log', 'out'], [pm2Err, 'pm-err.log', 'err']]) {
      const p = JSON.parse(readLines(theirs)[0]);
      const s = JSON.parse(readLines(path.join(logs, ours))[0]);
      assert.deepEqual(Object.keys(s).sort(), Object.keys(p).sort(), `${type}: the field set of PM2's line ${JSON.stringify(p)}`);
      for (const k of Object.keys(p)) assert.equal(typeof s[k], typeof p[k], k);
      assert.deepEqual([s.type, s.app_name, s.process_id], [p.type, 'pm', 0]);
      assert.equal(s.message, type === 'out' ? 'from pm2' : 'err from pm2');
      assert.ok(Date.parse(s.timestamp) >= before - 1000, s.timestamp);
    }
  });

  await t.test('log_date_format in dayjs tokens prefixes each line; --since reads it back', async () => {
    const parse = compileParser('MMM D, YYYY hh:mm:ss.SSS A ZZ');
    const lines = readLines(path.join(logs, 'dated-out.log'));
    assert.equal(lines.length, 1500);
    for (const l of [lines[0], lines[1499]]) {
      assert.match(l, /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d\d:\d\d:\d\d\.\d{3} [AP]M [+-]\d{4}: L w0 \d{7} x+$/);
      const ms = parse(l);
      assert.ok(ms >= before - 1000 && ms <= Date.now(), l);
    }
    const recent = await box.cli(['logs', 'dated', '--since', '10m', '--lines', '5', '--out']);
    assert.equal(recent.code, 0, recent.stderr);
    assert.equal(recent.stdout.trimEnd().split('\n').length, 5);
  });

  await t.test('super logs --json carries each line\'s time; --raw prints lines as written', async () => {
    const j = await box.cli(['logs', 'pj', '--json', '--out']);
    assert.equal(j.code, 0, j.stderr);
    const objs = j.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(objs.map((o) => o.msg), ['hello pino', 'plain line']);
    for (const o of objs) assert.ok(o.time >= before - 1000 && o.time <= Date.now(), JSON.stringify(o));
    const raw = await box.cli(['logs', 'pm', '--raw', '--out']);
    assert.equal(raw.stdout, fs.readFileSync(path.join(logs, 'pm-out.log'), 'utf8'));
    const forced = await box.cli(['logs', 'pm', '--out'], { env: { FORCE_COLOR: '1' } });
    assert.match(forced.stdout, /^\u001b\[\d+mpm#0\u001b\[0m \| \d{4}-\d\d-\d\dT\S+Z from pm2\n$/, 'FORCE_COLOR colours a pipe (NO_COLOR is set too: FORCE_COLOR wins)');
    const both = await box.cli(['logs', 'pm', '--raw', '--json']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /E_USAGE: --json and --raw/);
  });

  await t.test('super logs -f | head -1: the closed pipe ends super logs quietly (no EPIPE crash)', async () => {
    const child = spawn('bash', ['-c', `"${process.execPath}" "${SUPER}" logs dated -f --lines 1 --out | head -1; echo "status=\${PIPESTATUS[0]}" >&2`], {
      env: { ...process.env, SUPER_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const closed = new Promise((r) => child.on('close', r));
    let done = false;
    closed.then(() => (done = true));
    // New lines after head has gone: super logs' next write meets the closed pipe (bounded).
    for (let i = 0; i < 200 && !done; i++) {
      if (out) await httpGet(port, '/write?n=5');
      await new Promise((r) => setTimeout(r, 25));
    }
    await closed;
    assert.match(out, /^dated \| [A-Z][a-z]{2} .* L w0 \d{7} x+\n$/);
    assert.equal(err, 'status=0\n', 'no EPIPE error, exit 0');
  });
});
