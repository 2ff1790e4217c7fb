// lib/logs/app-logs.js is a lower layer: it knows files, paths and descriptors, and is
// given the settings and the function that asks writers to reopen. So it works, and is
// tested, with real files and no app, slot or worker behind it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { AppLogs } from '../../lib/logs/app-logs.js';
import { resolveLogSettings } from '../../lib/config/log-settings.js';

const config = (over) => ({ name: 'api', disable_logs: false, out_file: null, error_file: null, merge_logs: true, log_type: 'raw', log_date_format: null, time: false, log_max_size: null, log_retain: 2, ...over });

function setup(t, over) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'superd-app-logs-'));
  fs.mkdirSync(path.join(home, 'logs'));
  const settings = resolveLogSettings(config(over), null, home);
  const asked = [];
  let answered = null;
  const reopened = new Promise((resolve) => {
    answered = resolve;
  });
  const logs = new AppLogs({
    name: 'api',
    settings: () => settings,
    reopenWriters: async (slot) => {
      asked.push(slot);
      answered(slot);
      return { acked: true };
    },
    log: pino({ level: 'silent' }),
  });
  t.after(() => {
    logs.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  return { home, logs, asked, reopened };
}

test('per-slot files: paths, descriptors for a worker, the agent environment, flush', async (t) => {
  const { home, logs } = setup(t, { merge_logs: false });
  await logs.open(2);
  assert.deepEqual(logs.paths(1), { out: path.join(home, 'logs', 'api-out-1.log'), err: path.join(home, 'logs', 'api-err-1.log') });
  const { out, err } = logs.stdioFor(1);
  assert.ok(Number.isInteger(out) && Number.isInteger(err) && out !== err);
  fs.writeSync(out, 'one line\n');
  assert.equal(fs.readFileSync(logs.paths(1).out, 'utf8'), 'one line\n', 'a worker writes to the file itself');
  const env = JSON.parse(logs.agentEnv(1, { type: 'json', date: 'ISO' }).SUPER_LOG);
  assert.deepEqual(env, { out: logs.paths(1).out, err: logs.paths(1).err, type: 'json', date: 'ISO', app: 'api', slot: 1 });
  const flushed = await logs.flush([0, 1]);
  assert.ok(flushed.includes(logs.paths(1).out));
  assert.equal(fs.statSync(logs.paths(1).out).size, 0, 'flush empties the file');
});

test('a file past log_max_size is rotated, and the writers are asked to reopen through the given function', async (t) => {
  const { logs, asked, reopened } = setup(t, { log_max_size: 1000 });
  await logs.open(1);
  const { out } = logs.stdioFor(0);
  fs.writeSync(out, `${'x'.repeat(99)}\n`.repeat(20));
  const file = logs.paths(0).out;
  // The daemon's check timer does not keep a process alive: this bound does, and fails the test.
  let bound;
  const late = new Promise((resolve, reject) => {
    bound = setTimeout(() => reject(new Error('no rotation within 5 s')), 5000);
  });
  assert.equal(await Promise.race([reopened, late]), null, 'merged files: every slot\'s writers');
  clearTimeout(bound);
  // The rename happened before the writers were asked; the new file is opened in its place.
  assert.equal(fs.statSync(`${file}.1`).size, 2000);
  assert.equal(fs.statSync(file).size, 0, 'a new, empty file at the path');
  assert.deepEqual(asked, [null]);
  const reopenedFiles = await logs.reopen();
  assert.ok(reopenedFiles.includes(file), 'reopen names the files it reopened');
  assert.deepEqual(asked, [null, null], 'reopen asks the writers too');
});

test('disable_logs: no files, workers get ignore', async (t) => {
  const { logs, home } = setup(t, { disable_logs: true });
  await logs.open(1);
  assert.deepEqual(logs.stdioFor(0), { out: 'ignore', err: 'ignore' });
  assert.deepEqual(logs.agentEnv(0, null), {});
  assert.deepEqual(fs.readdirSync(path.join(home, 'logs')), []);
});
