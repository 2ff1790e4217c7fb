// log_date_format renders every token like dayjs (what PM2 formats with), refuses at the
// key the tokens it cannot render, and `--since` reads the times back.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { compileFormat, compileParser } from '../../lib/logs/date-format.cjs';
import { loadEcosystem } from '../../lib/config/index.js';

const require = createRequire(import.meta.url);
const dayjs = require('dayjs');
dayjs.extend(require('dayjs/plugin/advancedFormat'));

const TOKENS = ['YYYY', 'YY', 'M', 'MM', 'MMM', 'MMMM', 'D', 'DD', 'Do', 'd', 'dd', 'ddd', 'dddd', 'H', 'HH', 'h', 'hh', 'k', 'kk',
  'm', 'mm', 's', 'ss', 'SSS', 'A', 'a', 'Z', 'ZZ', 'X', 'x', 'Q', '[YYYY at] HH', 'YYYY-MM-DDTHH:mm:ss.SSSZ', 'MMM D, YYYY hh:mm A'];
// midnight, noon, a 1st, a 22nd, 23:59:59.999, a single-digit everything
const TIMES = [Date.UTC(2026, 0, 1, 0, 0, 0, 0), Date.UTC(2026, 10, 22, 12, 5, 9, 7), Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 2, 3, 1, 2, 3, 4)];

for (const tz of ['UTC', 'Asia/Kolkata']) {
  test(`every token renders like dayjs (TZ=${tz})`, () => {
    const saved = process.env.TZ;
    process.env.TZ = tz;
    try {
      for (const fmt of TOKENS) {
        const f = compileFormat(fmt);
        for (const ms of TIMES) assert.equal(f(ms), dayjs(ms).format(fmt), `${fmt} at ${new Date(ms).toISOString()}`);
      }
    } finally {
      process.env.TZ = saved;
      if (saved === undefined) delete process.env.TZ;
    }
  });
}

test('the formatted second is cached, but not across seconds or for sub-second formats', () => {
  const f = compileFormat('HH:mm:ss');
  assert.equal(f(Date.UTC(2026, 0, 1, 0, 0, 1, 0)).slice(-2), '01');
  assert.equal(f(Date.UTC(2026, 0, 1, 0, 0, 2, 0)).slice(-2), '02');
  const g = compileFormat('ss.SSS');
  assert.notEqual(g(1000), g(1001));
});

test('compileParser reads back what compileFormat wrote', () => {
  for (const fmt of ['YYYY-MM-DD HH:mm:ss.SSS ZZ', 'MMM D, YYYY hh:mm:ss.SSS A Z', 'ddd, Do MMMM YYYY kk:mm:ss.SSS', 'x', 'DD/MM/YY h:mm:ss.SSS a']) {
    const f = compileFormat(fmt);
    const parse = compileParser(fmt);
    for (const ms of TIMES) assert.equal(parse(`${f(ms)}: a line`), ms, `${fmt}: ${f(ms)}`);
  }
  assert.equal(compileParser('YYYY-MM-DD')('no date here'), null);
});

test('log_date_format: a token superd cannot render is refused at the key', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sd-fmt-'));
  try {
    const file = path.join(dir, 'eco.yml');
    fs.writeFileSync(file, 'apps:\n  - name: a\n    script: a.js\n    log_date_format: "YYYY [week] w"\n');
    fs.writeFileSync(path.join(dir, 'a.js'), '');
    await assert.rejects(loadEcosystem(file), /** @param {any} err */ (err) => err.code === 'E_CONFIG' && /log_date_format.*token w is not supported/s.test(err.message + JSON.stringify(err.details ?? {})));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
