import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ecosystemSchema } from '../../lib/config/schema-check.js';
import { DURATION_PATTERN, parseDuration, parseSize, SIZE_PATTERN } from '../../lib/config/units.js';

test('parseDuration: numbers are ms, strings take ms/s/m/h', () => {
  const cases = [
    [0, 0], [250, 250], [1.4, 1], ['500ms', 500], ['5s', 5000], ['1.5s', 1500], ['2m', 120000],
    ['1h', 3600000], ['250', 250], [' 3 s ', 3000], ['0.5ms', 1],
  ];
  for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, JSON.stringify(input));
});

test('parseDuration: garbage is undefined', () => {
  for (const bad of ['5 parsecs', '', 's', '-1s', '1.s', '5S', '1d', -1, Infinity, NaN, null, true, [], {}]) {
    assert.equal(parseDuration(bad), undefined, JSON.stringify(bad));
  }
});

test('parseSize: binary units, any case, optional B', () => {
  const cases = [
    [0, 0], [2048, 2048], ['100', 100], ['100b', 100], ['512K', 512 * 1024], ['300M', 300 * 1024 ** 2],
    ['1G', 1024 ** 3], ['10MB', 10 * 1024 ** 2], ['10mb', 10 * 1024 ** 2], ['1.5g', 1.5 * 1024 ** 3],
    ['2T', 2 * 1024 ** 4], ['4KiB', 4096],
  ];
  for (const [input, bytes] of cases) assert.equal(parseSize(input), bytes, JSON.stringify(input));
});

test('parseSize: garbage is undefined', () => {
  for (const bad of ['lots', '', 'M', '-1M', '1X', '1 G B', -5, Infinity, null, {}]) {
    assert.equal(parseSize(bad), undefined, JSON.stringify(bad));
  }
});

test('the schema uses the same grammars as the parsers', () => {
  const defs = ecosystemSchema().$defs;
  assert.equal(defs.duration.anyOf[1].pattern, DURATION_PATTERN);
  assert.equal(defs.size.anyOf[1].pattern, SIZE_PATTERN);
});
