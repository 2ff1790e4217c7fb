// The daemon's standing-queue state of a round-robin port's handoff queue
// (lib/master/process/cluster-internals/handoff-shedding.js), driven with made-up times:
// when it stands, which handed connection it refuses, and when it stops. The refusal on a
// real socket is test/overload/daemon-shed.test.js's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { HandoffQueue } from '../../lib/master/process/cluster-internals/handoff-shedding.js';

// max_queue_wait 100 ms: target 20 ms, interval 100 ms.
const settings = { maxQueueWait: 100, status: 503, retryAfter: 1 };
const worker = {};

/** Hands a connection accepted `wait` ms before `now`; returns whether the daemon refuses it. */
const hand = (q, now, wait) => q.handed(now - wait, now, 1, worker);

test('a burst that empties within the interval does not stand', () => {
  const q = new HandoffQueue(settings);
  for (let t = 0; t < 90; t += 10) assert.equal(hand(q, t, 30 + t), false);
  q.emptied(95);
  assert.equal(hand(q, 150, 0), false);
  for (let t = 160; t < 250; t += 10) hand(q, t, 30);
  assert.equal(q.standing, false);
});

test('waits past the target for a whole interval: it stands; the ones queued before are refused at their handoff', () => {
  const q = new HandoffQueue(settings);
  for (let t = 0; t <= 90; t += 10) hand(q, t, 25 + t);
  assert.equal(q.standing, false);
  assert.equal(hand(q, 100, 130), true); // queued before: refused now
  assert.equal(q.standing, true);
  assert.equal(hand(q, 110, 5), false); // accepted since: handed, whatever it waited
  assert.equal(hand(q, 125, 22), false);
  assert.equal(q.admit({}, 126), true); // one waiting per worker is admitted
  assert.equal(q.queued, 1);
});

test('a worker free past the target ends it; a queue forming again soon after stands at once', () => {
  const q = new HandoffQueue(settings);
  for (let t = 0; t <= 100; t += 10) hand(q, t, 25 + t);
  assert.equal(q.standing, true);
  q.emptied(200);
  hand(q, 205, 0); // free 5 ms: still past capacity
  assert.equal(q.standing, true);
  q.emptied(300);
  hand(q, 340, 0); // free 40 ms > target: spare capacity
  assert.equal(q.standing, false);
  q.admit({}, 341);
  q.admit({}, 342);
  hand(q, 360, 19); // one more waiting, but within the target
  assert.equal(q.standing, false);
  q.admit({}, 361);
  hand(q, 370, 29); // past the target, one more waiting: stands at once
  assert.equal(q.standing, true);
  assert.equal(hand(q, 380, 1000), true); // accepted before it stood again: refused at its handoff
});

test('a reload may change the settings; the same ones keep the state', () => {
  const q = new HandoffQueue(settings);
  const answer = q.answer;
  q.configure({ ...settings });
  assert.equal(q.answer, answer);
  q.configure({ ...settings, maxQueueWait: 500, status: 429, retryAfter: 0 });
  assert.equal(q.target, 100);
  assert.equal(q.interval, 500);
  assert.equal(q.answer.toString('latin1'), 'HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
});
