// Issue 3: `super logs -f` follows live over the control channel, and a follower that
// cannot keep up is told how many lines it skipped instead of making the daemon buffer.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort, httpGet } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { superProcess } from '../helpers/super-process.js';

test('super logs -f prints the tail, then every new line in order, until Ctrl-C', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: log-writer.js
    env: { PORT: ${port} }
`);
  await box.start(eco);
  await httpGet(port, '/write?n=30');
  const f = superProcess(box, t, ['logs', 'web', '-f', '--lines', '5']);
  await f.line((l) => l.includes(' 0000029 '));
  assert.deepEqual(f.lines.slice(0, 5).map((l) => l.split(' ')[4]), ['0000025', '0000026', '0000027', '0000028', '0000029']);
  // new lines, through stdout and stderr, while following
  await httpGet(port, '/write?n=2000');
  await httpGet(port, '/write?n=3&err=1');
  await f.line((l) => l.includes(' 0002032 '));
  const outSeqs = f.lines.filter((l) => l.startsWith('web | ')).map((l) => Number(l.split(' ')[4]));
  assert.deepEqual(outSeqs, Array.from({ length: 2030 - 25 }, (_, i) => i + 25), 'every stdout line once, in order');
  const errLines = f.lines.filter((l) => l.startsWith('web ! '));
  assert.equal(errLines.length, 3);
  const exit = await f.stop('SIGINT');
  assert.equal(exit.code, 0, f.stderr);
});

test('a follower that reads too slowly is told how many lines it skipped; none are lost from the count', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: log-writer.js
    env: { PORT: ${port}, PAD: 200 }
`);
  await box.start(eco);
  const client = await box.client();
  t.after(() => client.close());
  let lines = 0;
  let skipped = 0;
  let bytes = 0;
  client.onEvent((e) => {
    if (e.event !== 'log') return;
    if (e.data.skipped) skipped += e.data.skipped;
    else {
      const ls = e.data.text.split('\n');
      ls.pop();
      lines += ls.length;
      bytes += e.data.text.length;
    }
  });
  const r = await client.request('logs', { target: 'web', lines: 0, follow: true });
  assert.deepEqual(r.files.map((x) => x.lines.length), [0, 0]);
  // This client stops reading while 100,000 lines (~21 MB) are written.
  client.pause();
  const total = 100000;
  await httpGet(port, `/write?n=${total}`, { timeout: 60000 });
  const stats = await (async () => {
    const c2 = await box.client();
    try {
      return await c2.request('stats');
    } finally {
      c2.close();
    }
  })();
  assert.ok(stats.rss < 300 * 1024 * 1024, `daemon RSS stays bounded: ${stats.rss}`);
  client.resume();
  // Read to the end: lines received + lines reported skipped = lines written.
  await eventually(() => lines + skipped >= total, { what: 'every line received or reported skipped', last: () => `${lines} received, ${skipped} skipped of ${total}` });
  assert.ok(skipped > 0, `the slow follower was told it skipped lines (received ${lines})`);
  assert.equal(lines + skipped, total, `received ${lines} + skipped ${skipped}`);
  assert.ok(bytes < 21e6, 'the daemon did not send everything');
});

test('subscribe to "log": new lines of every app arrive as events (what super monit shows)', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('log-writer.js');
  const eco = box.write('eco.yml', `
apps:
  - name: web
    script: log-writer.js
    merge_logs: false
    env: { PORT: ${port} }
`);
  await box.start(eco);
  const client = await box.client();
  t.after(() => client.close());
  const got = [];
  let seen;
  const all = new Promise((resolve) => {
    seen = resolve;
  });
  client.onEvent((e) => {
    if (e.event !== 'log') return;
    got.push(e.data);
    if (got.map((d) => d.text).join('').split('\n').length > 5) seen();
  });
  await client.request('subscribe', { topics: ['log'] });
  await httpGet(port, '/write?n=3');
  await httpGet(port, '/write?n=2&err=1');
  await all;
  assert.deepEqual([...new Set(got.map((d) => `${d.app}#${d.slot} ${d.stream}`))].sort(), ['web#0 err', 'web#0 out']);
  const lines = got.flatMap((d) => d.text.split('\n').slice(0, -1));
  assert.equal(lines.length, 5);
});
