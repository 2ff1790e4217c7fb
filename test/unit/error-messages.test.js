// Messages said in more than one place are written once (lib/error-messages.js): a coded
// error's template is filled in order, and its words appear nowhere else in lib/.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/harness.js';
import { coded, appBusy, readyBound } from '../../lib/error-messages.js';

test('a template is filled in order and keeps its code and exit status', () => {
  const err = appBusy('api', 'reload');
  assert.deepEqual([err.code, err.message, err.exitStatus], ['E_BUSY', 'api is busy (reload); try again when it is done', 1]);
  assert.equal(readyBound({ listen_timeout: 600, ready_on: 'listen' }), 'within listen_timeout (600 ms, ready_on: listen)');
  assert.throws(() => coded('E_NOPE', '%s'), /unknown error code E_NOPE/);
});

test('the words of a template are written nowhere else in lib/', () => {
  const words = [/is busy \(/, /within listen_timeout \(/];
  const own = path.join(ROOT, 'lib', 'error-messages.js');
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(c|m)?js$/.test(e.name) && p !== own) {
        const text = fs.readFileSync(p, 'utf8');
        for (const w of words) if (w.test(text)) found.push(`${path.relative(ROOT, p)}: ${w.source}`);
      }
    }
  };
  walk(path.join(ROOT, 'lib'));
  assert.deepEqual(found, []);
});
