// `super logs` when no daemon runs: the files are read from disk, found through the saved
// list (dump.json, custom paths included) or in $SUPER_HOME/logs; an app that wrote
// nothing says where its files are.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/harness.js';

test('super logs with no daemon reads the files of the saved list, else the default directory', async (t) => {
  const box = await sandbox(t);
  box.write('talk.js', "for (let i = 1; i <= 30; i++) console.log(`${process.env.TAG} line ${i}`);\nsetInterval(() => {}, 1000);\n");
  box.write('quiet.js', 'setInterval(() => {}, 1000);\n');
  const custom = path.join(box.dir, 'custom logs', 'a.log');
  fs.mkdirSync(path.dirname(custom));
  const file = box.write('eco.yml', `apps:
  - { name: a, script: talk.js, exec_mode: fork, out_file: "${custom}", env: { TAG: A } }
  - { name: b, script: talk.js, exec_mode: fork, env: { TAG: B } }
  - { name: q, script: quiet.js, exec_mode: fork }
`);
  await box.start(file);
  // Through the daemon: every line is in the files before it goes away.
  const client = await box.client();
  try {
    for (const app of ['a', 'b']) {
      const last = async () => (await client.request('logs', { target: app, lines: 1 })).files.flatMap((f) => f.lines).join();
      let seen = '';
      for (let i = 0; i < 200 && !/line 30/.test(seen); i++) {
        seen = await last();
        if (!/line 30/.test(seen)) await new Promise((r) => setTimeout(r, 25));
      }
      assert.match(seen, /line 30/);
    }
  } finally {
    client.close();
  }
  const quiet = await box.cli(['logs', 'q']);
  assert.equal(quiet.stdout, '');
  assert.match(quiet.stderr, new RegExp(`^super: q: no output yet; its log files: ${path.join(box.home, 'logs', 'q-out.log')}, `));
  assert.equal((await box.cli(['save'])).code, 0);
  assert.equal((await box.cli(['kill'])).code, 0);

  const a = await box.cli(['logs', 'a', '--lines', '3', '--raw']);
  assert.equal(a.code, 0, a.stderr);
  assert.deepEqual(a.stdout.trim().split('\n'), ['A line 28', 'A line 29', 'A line 30']);
  assert.match(a.stderr, /no daemon is running: these are the log files of the saved list \(dump\.json\)/);
  const q = await box.cli(['logs', 'q']);
  assert.equal(q.code, 0);
  assert.match(q.stderr, /q: no output yet; its log files: /);

  // No saved list: the default directory still has b's files (a's custom file is not found).
  fs.rmSync(path.join(box.home, 'dump.json'));
  const b = await box.cli(['logs', 'b', '--lines', '2', '--raw']);
  assert.equal(b.code, 0, b.stderr);
  assert.deepEqual(b.stdout.trim().split('\n'), ['B line 29', 'B line 30']);
  assert.match(b.stderr, new RegExp(`log files of ${path.join(box.home, 'logs').replace(/[.]/g, '\\.')}`));
  // a's out file was its own: only its err file is in the default directory.
  const onlyErr = await box.cli(['logs', 'a']);
  assert.equal(onlyErr.stdout, '');
  assert.match(onlyErr.stderr, new RegExp(`a: no output yet; its log files: ${path.join(box.home, 'logs', 'a-err.log')}\n`));
  const none = await box.cli(['logs', 'nope']);
  assert.equal(none.code, 3, none.stderr);
  assert.match(none.stderr, /^super: E_NO_DAEMON: no daemon is running on .*, and no log files of nope are in its saved list/);
  const follow = await box.cli(['logs', 'b', '-f', '--lines', '1', '--raw']);
  assert.equal(follow.stdout, 'B line 30\n');
  assert.match(follow.stderr, /E_NO_DAEMON: following needs the daemon/);
  assert.equal(box.daemonPid() === null || !fs.existsSync(path.join(box.home, 'super.sock')), true, 'no daemon was started');
});
