// A page that opens shows the last lines of each app, written while no page was open too
// (docs/dashboard.md): the hub gets them from the daemon's log files when its first page
// subscribes, against a real daemon, then the live lines after them.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/harness.js';
import { eventually } from '../helpers/wait.js';
import { HostLink } from '../../lib/dashboard/host-link.js';
import { Hub } from '../../lib/dashboard/hub.js';

test('a newly opened page gets the lines written while no page was open, then the live ones', async (t) => {
  const box = await sandbox(t);
  box.write('talk.js', "console.log('before any page'); console.error('an old warning'); process.on('SIGUSR2', () => console.log('while the page is open')); setInterval(() => {}, 1000);\n");
  await box.start(box.write('eco.yml', 'apps:\n  - name: talk\n    script: talk.js\n    exec_mode: fork\n    ready_on: spawn\n    min_uptime: 100ms\n'));
  const link = new HostLink({ name: 'local', home: box.home });
  const hub = new Hub([link]);
  t.after(() => hub.close());
  link.start();
  await eventually(() => link.state === 'up', { what: 'the link up', timeout: 10000 });
  // The app wrote its lines before any page opened (the hub was not subscribed).
  await eventually(() => fs.readFileSync(path.join(box.home, 'logs', 'talk-out.log'), 'utf8').includes('before any page'), { what: 'the app\'s line in its file', timeout: 10000 });

  const seen = [];
  const viewer = { send: (m) => seen.push(m), sendText: (text) => seen.push(JSON.parse(text)), backlog: () => 0 };
  hub.addViewer(viewer);
  const texts = () => seen.filter((m) => m.type === 'logs').flatMap((m) => m.lines.map((l) => `${l.app} ${l.stream} ${l.text}`));
  await eventually(() => texts().includes('talk out before any page') && texts().includes('talk err an old warning'), { what: 'the old lines on the page', timeout: 10000, last: () => JSON.stringify(texts()) });
  const [{ workers: [w] }] = (await link.request('ls')).apps;
  process.kill(w.pid, 'SIGUSR2');
  await eventually(() => texts().includes('talk out while the page is open'), { what: 'a live line', timeout: 10000, last: () => JSON.stringify(texts()) });
  assert.equal(texts().filter((l) => l === 'talk out before any page').length, 1, 'each line once');
  // each with when it was written: a line read back that carries no time has none (the page
  // says "earlier"), a live one the time it came
  const line = (text) => seen.filter((m) => m.type === 'logs').flatMap((m) => m.lines).find((l) => l.text === text);
  assert.equal(line('before any page').t, null);
  assert.ok(Math.abs(line('while the page is open').t - Date.now()) < 60_000, String(line('while the page is open').t));
  hub.removeViewer(viewer);
});
