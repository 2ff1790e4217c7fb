import test from 'node:test';
import assert from 'node:assert/strict';
import { printable } from '../../lib/printable.js';

test('printable escapes what a terminal would obey, and nothing else', () => {
  assert.equal(printable('api\u001b]0;x\u0007\u001b[2J\r\n\t'), 'api\\x1b]0;x\\x07\\x1b[2J\\r\\n\\t');
  assert.equal(printable('\u009b31m \u007f \u0000'), '\\x9b31m \\x7f \\x00', 'C1 CSI, DEL, NUL');
  assert.equal(printable('a\u202eb\u2066c\u2028d'), 'a\\u202eb\\u2066c\\u2028d', 'bidi overrides and isolates, line separator');
  assert.equal(printable('Billing API Server: café, 日本, /srv/app\\x'), 'Billing API Server: café, 日本, /srv/app\\x');
});
