// The one vocabulary of a reload's steps (lib/master/reload/executor.js): who hears
// each, the client that asked for the reload (progress) or the 'reload' event subscribers
// and the daemon log (event).
import test from 'node:test';
import assert from 'node:assert/strict';
import { reporter, slotView } from '../../lib/master/reload/executor.js';

test('each step reaches those who hear it', () => {
  const heard = [];
  const emit = reporter({ progress: (s) => heard.push(`client ${s.step}`), event: (s) => heard.push(`event ${s.step}`) });
  for (const step of ['forked', 'probation', 'ready', 'retired', 'scaled']) emit({ app: 'web', step });
  assert.deepEqual(heard, ['event forked', 'event probation', 'client ready', 'event ready', 'event retired', 'client scaled']);
});

test('a replacement goes beside a worker that is starting or online; other slots start plainly', () => {
  const view = (state) => slotView({ index: 3, state }).serving;
  assert.deepEqual(['starting', 'online', 'stopping', 'stopped', 'exited', 'errored'].map(view), [true, true, false, false, false, false]);
  assert.equal(slotView({ index: 3, state: 'online' }).index, 3);
});
