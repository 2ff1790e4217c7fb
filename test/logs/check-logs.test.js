// checkLogs only looks: it names every log file that cannot be written and creates nothing,
// not even the default directory; applyLogs then creates that directory.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkLogs, applyLogs } from '../../lib/logs/prepare.js';
import { resolveLogSettings } from '../../lib/config/log-settings.js';

const appIn = (home, o = {}, defaults = null) => {
  const raw = { name: 'api', instances: 2, disable_logs: false, merge_logs: true, log_type: 'raw', out_file: null, error_file: null, ...o };
  return { ...raw, logs: resolveLogSettings(raw, defaults, home) };
};

test('checkLogs creates nothing; applyLogs creates the default directory', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-check-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const home = path.join(dir, 'home');
  const plan = await checkLogs([appIn(home, { merge_logs: false })], undefined);
  assert.deepEqual(plan, { rotation: null, dirs: [path.join(home, 'logs')] });
  assert.equal(fs.existsSync(home), false, 'nothing created by the check');
  await applyLogs(plan);
  assert.deepEqual(fs.readdirSync(path.join(home, 'logs')), [], 'the directory, and no file yet');
});

test('checkLogs refuses a missing named directory and a file that is a directory, naming each', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-check-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'taken.log'));
  const apps = [
    appIn(dir, { name: 'lost', out_file: path.join(dir, 'no', 'lost.log') }),
    appIn(dir, { name: 'dir', out_file: path.join(dir, 'taken.log') }, { dir }),
  ];
  await assert.rejects(checkLogs(apps, { dir }), /** @param {any} err */ (err) => err.code === 'E_LOG_PATH' && err.details.problems.length === 2
    && err.details.problems.includes(`lost: cannot write log file ${dir}/no/lost.log: directory ${dir}/no does not exist; create it or fix the path`)
    && err.details.problems.includes(`dir: cannot write log file ${dir}/taken.log: it is a directory; give a file path`));
  assert.deepEqual(fs.readdirSync(dir), ['taken.log'], 'nothing created');
});
