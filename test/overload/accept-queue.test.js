// Issue 39, `scheduling: os`: the worker accepts its connections itself, one per turn of its
// loop, from the kernel's accept queue, and nobody stamps how long one waited there. Past
// capacity that queue must be shed like the daemon's round-robin handoff is
// (max_queue_wait): the worker refuses the requests of the connections it accepts while
// each of its turns finds the queue non-empty, so clients get 503s, never time out. Both
// client shapes: a new connection per request, and a keep-alive pool that grows as answers
// slow. One daemon (scheduling is daemon-wide), one worker of the overload fixture.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sandbox, freePort } from '../helpers/harness.js';
import { openLoop } from '../helpers/open-loop-requests.js';

test('scheduling: os, max_queue_wait: the accept queue is shed past capacity', async (t) => {
  const box = await sandbox(t);
  const port = await freePort();
  box.fixture('overload-lab.js');
  const eco = box.write('eco.yml', [
    'scheduling: os',
    'apps:',
    '  - name: queue',
    '    script: overload-lab.js',
    '    instances: 1',
    `    env: { PORT: ${port} }`,
    '    overload: { max_queue_wait: 500ms }',
  ].join('\n'));
  await box.start(eco);

  // 20 ms of CPU a request: at most 50/s on a free core; 200 a second is 4x or more.
  await t.test('a new connection per request at ~4x capacity: refused, none timed out', async () => {
    const counts = await openLoop(port, '/burn?ms=20', 200, 400);
    assert.deepEqual(Object.keys(counts).sort(), ['200', '503'], JSON.stringify(counts));
  });

  await t.test('keep-alive clients at ~4x capacity: refused, none timed out', async () => {
    // A pool of a connection or two at a low load first, then 3 s at ~4x: clients that give up
    // after 3 s (without the fix, the pool's new connections waited up to 4 s).
    await openLoop(port, '/', 20, 10, { keepAlive: true });
    const counts = await openLoop(port, '/burn?ms=20', 200, 600, { keepAlive: true, timeout: 3000 });
    assert.deepEqual(Object.keys(counts).sort(), ['200', '503'], JSON.stringify(counts));
  });
});
