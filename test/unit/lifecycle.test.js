// The daemon's parts (lib/master/core/lifecycle.js): closed in the reverse of the order
// they were opened, each once, and a part that fails to close does not keep the others open.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Lifecycle } from '../../lib/master/core/lifecycle.js';

test('parts close last first, each once, whatever one of them throws', async () => {
  const closed = [];
  const failed = [];
  const parts = new Lifecycle();
  parts.add('pid file', () => closed.push('pid file'));
  parts.add('monitor', () => {
    throw new Error('stuck');
  });
  parts.add('control socket', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    closed.push('control socket');
  });
  await parts.closeAll((name, err) => failed.push(`${name}: ${err.message}`));
  assert.deepEqual(closed, ['control socket', 'pid file']);
  assert.deepEqual(failed, ['monitor: stuck']);
  await parts.closeAll();
  assert.deepEqual(closed, ['control socket', 'pid file'], 'closed once');
});
